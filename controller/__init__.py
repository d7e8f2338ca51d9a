"""The showdown controller: cards, hand evaluation, variants, pots, the showdown engine.

The engine modules (``cards``, ``evaluation``, ``variants``, ``pots``, ``showdown``, ``phh``) are
pure: no I/O, no clocks, no globals. Everything else in the project feeds them or shows what they
compute.
"""

__version__ = "0.1.0"

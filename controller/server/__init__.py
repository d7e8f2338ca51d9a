"""The web server: the dealer's screen and console, surveillance and the broadcast overlay.

>>> from controller.server import create_app, run_server
"""

from controller.server.app import API, create_app, run_server

__all__ = ["API", "create_app", "run_server"]

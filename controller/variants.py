"""Game variants as data: dealing, evaluation, show-order and odd-chip rules.

A variant is a frozen value, not a subclass: the engine reads its fields and calls the small
functions it names. PHH codes (``NT``, ``FO/8``, ``F7S``...) map to variants with
:func:`variant_for_code`.

>>> variant_for_code("FO/8").name
'Fixed-limit Omaha hi/lo 8-or-better'
>>> variant_for_code("PO/8").hole_cards
4
"""

from __future__ import annotations

import dataclasses
import enum


class VariantError(ValueError):
    """An unknown or unsupported variant code."""


class Structure(enum.StrEnum):
    """Betting structure."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


class Family(enum.StrEnum):
    """How cards are dealt and hands are read."""

    HOLDEM = "holdem"
    """Two hole cards, five community cards, best five of seven."""
    OMAHA = "omaha"
    """Four (or five) hole cards, exactly two of them with exactly three of the board."""
    STUD = "stud"
    """Seven cards each: two down, four up, one down; no board (except R18's community card)."""


class ShowOrder(enum.StrEnum):
    """Who acts first on a round with no bet, hence who shows first when nobody bet (R8)."""

    BUTTON = "button"
    """First live seat left of the button (flop and draw games)."""
    HIGH_BOARD = "high_board"
    """Highest exposed board (seven-card stud, stud hi/lo)."""
    LOW_BOARD = "low_board"
    """Lowest exposed board (razz)."""


class OddChip(enum.StrEnum):
    """Who receives an odd chip when a pot or half-pot splits (R11)."""

    BUTTON = "button"
    """First winning seat left of the button (flop games)."""
    SUIT = "suit"
    """Highest card by suit (s > h > d > c) in the winner's best five cards (stud games, razz)."""
    SEAT = "seat"
    """Lowest seat index: not a rule of any book here; PokerKit's behaviour, for comparisons."""


class Evaluation(enum.StrEnum):
    """How the halves of a pot are read."""

    HIGH = "high"
    HIGH_LOW8 = "high/low8"
    A5_LOW = "a5-low"


@dataclasses.dataclass(frozen=True, slots=True)
class Variant:
    """One game: how many cards, how hands are read, who shows first, who gets odd chips."""

    code: str
    """PHH variant code, e.g. ``NT``, ``FO/8``, ``F7S``."""
    name: str
    """Human name, e.g. ``No-limit Hold'em``."""
    family: Family
    structure: Structure
    evaluation: Evaluation
    hole_cards: int
    """Cards each player holds at showdown (2, 4, 5 or 7)."""
    show_order: ShowOrder
    odd_chip: OddChip

    @property
    def is_stud(self) -> bool:
        return self.family is Family.STUD

    @property
    def is_hi_lo(self) -> bool:
        return self.evaluation is Evaluation.HIGH_LOW8

    @property
    def board_cards(self) -> int:
        """Community cards at showdown: 5 in flop games, 0 in stud (R18 may add one)."""
        return 0 if self.is_stud else 5


_STRUCTURES = {"N": Structure.NO_LIMIT, "P": Structure.POT_LIMIT, "F": Structure.FIXED_LIMIT}
_STRUCTURE_WORDS = {
    Structure.NO_LIMIT: "No-limit",
    Structure.POT_LIMIT: "Pot-limit",
    Structure.FIXED_LIMIT: "Fixed-limit",
}


def _make(code: str) -> Variant:
    structure = _STRUCTURES[code[0]]
    game = code[1:]
    words = _STRUCTURE_WORDS[structure]
    if game == "T":
        return Variant(code, f"{words} Hold'em", Family.HOLDEM, structure, Evaluation.HIGH, 2,
                       ShowOrder.BUTTON, OddChip.BUTTON)
    if game == "O":
        return Variant(code, f"{words} Omaha", Family.OMAHA, structure, Evaluation.HIGH, 4,
                       ShowOrder.BUTTON, OddChip.BUTTON)
    if game == "O/8":
        return Variant(code, f"{words} Omaha hi/lo 8-or-better", Family.OMAHA, structure,
                       Evaluation.HIGH_LOW8, 4, ShowOrder.BUTTON, OddChip.BUTTON)
    if game == "7S":
        return Variant(code, f"{words} seven-card stud", Family.STUD, structure, Evaluation.HIGH, 7,
                       ShowOrder.HIGH_BOARD, OddChip.SUIT)
    if game == "7S/8":
        return Variant(code, f"{words} seven-card stud hi/lo 8-or-better", Family.STUD, structure,
                       Evaluation.HIGH_LOW8, 7, ShowOrder.HIGH_BOARD, OddChip.SUIT)
    if game == "R":
        return Variant(code, f"{words} razz", Family.STUD, structure, Evaluation.A5_LOW, 7,
                       ShowOrder.LOW_BOARD, OddChip.SUIT)
    raise KeyError(code)


VARIANTS: dict[str, Variant] = {
    s + g: _make(s + g) for s in "NPF" for g in ("T", "O", "O/8", "7S", "7S/8", "R")
}
"""Every supported variant by PHH code (all three structures of every game)."""


def variant_for_code(code: str) -> Variant:
    """The variant for a PHH code such as ``NT``, ``PO``, ``FO/8``, ``F7S/8`` or ``FR``.

    :raises VariantError: naming the code and listing the supported ones.
    """
    try:
        return VARIANTS[code]
    except (KeyError, TypeError):
        raise VariantError(
            f"unknown or unsupported variant {code!r}: supported are {', '.join(VARIANTS)}"
        ) from None

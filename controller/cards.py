"""Cards: immutable values that round-trip through text.

>>> Card.parse("As")
Card.parse('As')
>>> str(Card.parse("Td"))
'Td'
>>> [str(c) for c in parse_cards("AsKd 7c")]
['As', 'Kd', '7c']

Every card also has a dense ``index`` in ``0..51`` used by the fast evaluators:
``index = (rank - 2) * 4 + suit.order`` where clubs < diamonds < hearts < spades, so a higher
index is a higher card by rank and then by suit (the odd-chip order of R11).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"
T = TypeVar("T", bound=Hashable)


class CardError(ValueError):
    """A card or run of cards that cannot be parsed, or a card used twice."""


class Rank(enum.IntEnum):
    """Card rank, deuce (2) to ace (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        """The rank's character in ``23456789TJQKA``."""
        return RANK_CHARS[self - 2]

    @property
    def singular(self) -> str:
        """English name: ``Rank.KING.singular == 'king'``."""
        return _RANK_WORDS[self][0]

    @property
    def plural(self) -> str:
        """English plural: ``Rank.SIX.plural == 'sixes'``."""
        return _RANK_WORDS[self][1]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse one rank character (``T`` for ten; ``10`` is refused)."""
        i = RANK_CHARS.find(text.upper()) if len(text) == 1 else -1
        if i < 0:
            raise CardError(f"bad rank {text!r}: expected one of {RANK_CHARS}")
        return cls(i + 2)


_RANK_WORDS = {
    Rank.TWO: ("deuce", "deuces"),
    Rank.THREE: ("three", "threes"),
    Rank.FOUR: ("four", "fours"),
    Rank.FIVE: ("five", "fives"),
    Rank.SIX: ("six", "sixes"),
    Rank.SEVEN: ("seven", "sevens"),
    Rank.EIGHT: ("eight", "eights"),
    Rank.NINE: ("nine", "nines"),
    Rank.TEN: ("ten", "tens"),
    Rank.JACK: ("jack", "jacks"),
    Rank.QUEEN: ("queen", "queens"),
    Rank.KING: ("king", "kings"),
    Rank.ACE: ("ace", "aces"),
}


class Suit(enum.StrEnum):
    """Card suit. ``order`` ranks suits for odd chips only (R11); suits never rank hands (R13)."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

    @property
    def order(self) -> int:
        """Odd-chip order: clubs 0 < diamonds 1 < hearts 2 < spades 3."""
        return _SUIT_ORDER[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse one suit character ``s``, ``h``, ``d`` or ``c``."""
        try:
            return cls(text.lower()) if len(text) == 1 else cls("?")
        except ValueError:
            raise CardError(f"bad suit {text!r}: expected one of {SUIT_CHARS}") from None


_SUIT_ORDER = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}
_SUIT_BY_ORDER = {v: k for k, v in _SUIT_ORDER.items()}


@dataclasses.dataclass(frozen=True, slots=True, order=False)
class Card:
    """A playing card. Compare cards by ``index`` (rank, then suit order) when an order is needed."""

    rank: Rank
    """The rank, 2 to 14 (ace)."""
    suit: Suit
    """The suit."""
    index: int = dataclasses.field(init=False, compare=False, repr=False)
    """Dense index ``(rank - 2) * 4 + suit.order``, in ``0..51`` (stored: the evaluators read it
    for every card of every hand)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", (int(self.rank) - 2) * 4 + _SUIT_ORDER[self.suit])

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a two-character card such as ``As``, ``Td`` or ``2c``.

        :raises CardError: naming the bad token.
        """
        if not isinstance(text, str) or len(text) != 2:
            raise CardError(f"bad card {text!r}: expected rank + suit such as 'As' or 'Td'")
        try:
            return _BY_TEXT[text[0].upper() + text[1].lower()]
        except KeyError:
            Rank.parse(text[0])
            Suit.parse(text[1])
            raise  # pragma: no cover - both parts parsed, so the table has it

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with dense index ``0..51``."""
        return _BY_INDEX[index]

    # Equality and hash are the ones the dataclass would generate (over rank and suit), read from
    # tables by ``index`` (one card per index): cards are compared and hashed in every hand.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.index == other.index  # type: ignore[attr-defined, no-any-return]
        return NotImplemented

    def __hash__(self) -> int:
        return _HASH_BY_INDEX[self.index]

    def __str__(self) -> str:
        return _TEXT_BY_INDEX[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_BY_INDEX: list[Card] = [
    Card(Rank(2 + i // 4), _SUIT_BY_ORDER[i % 4]) for i in range(52)
]
_TEXT_BY_INDEX: list[str] = [c.rank.char + c.suit.value for c in _BY_INDEX]
_HASH_BY_INDEX: list[int] = [hash((c.rank, c.suit)) for c in _BY_INDEX]
_BY_TEXT: dict[str, Card] = {str(c): c for c in _BY_INDEX}
FULL_DECK: tuple[Card, ...] = tuple(_BY_INDEX)
"""All 52 cards in index order."""

_TOKEN = re.compile(r"[^\s,]{2}")


def parse_cards(text: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse a run of cards: ``"AsKd"``, ``"As Kd"``, ``"As,Kd"`` or a list of tokens.

    :raises CardError: naming the bad token and its position.
    """
    if not isinstance(text, str):
        return tuple(c if isinstance(c, Card) else Card.parse(c) for c in text)
    compact = re.sub(r"[\s,]+", "", text)
    if len(compact) % 2:
        raise CardError(f"bad card run {text!r}: odd number of characters")
    cards = []
    for i in range(0, len(compact), 2):
        token = compact[i : i + 2]
        try:
            cards.append(Card.parse(token))
        except CardError as exc:
            raise CardError(f"bad card {token!r} at position {i // 2 + 1} in {text!r}: {exc}") from None
    return tuple(cards)


def format_cards(cards: Iterable[Card]) -> str:
    """``"AsKd"``-style text for a run of cards."""
    return "".join(str(c) for c in cards)


def check_distinct(cards: Sequence[Card], where: str = "") -> None:
    """Raise :class:`CardError` naming the first card that appears twice."""
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"duplicate card {c}{' in ' + where if where else ''}")
        seen.add(c)


def unaccounted(seen: Iterable[T], known: Iterable[T], missing: int) -> tuple[T, ...]:
    """The cards in ``seen`` that ``known`` lacks, when there are more of them than the ``missing``
    cards ``known`` does not name (a sighting that contradicts what is known); else ``()``.

    The RFID reader may not know every card of a seat (a card dealt while no antenna saw it): the
    camera may then read as many unknown cards as the reader is missing, and no more.

    >>> unaccounted(["As", "Kd"], ["As"], 1), unaccounted(["As", "Kd"], ["Ah"], 1)
    ((), ('As', 'Kd'))
    """
    have = set(known)
    extra = tuple(dict.fromkeys(c for c in seen if c not in have))
    return extra if len(extra) > max(0, missing) else ()

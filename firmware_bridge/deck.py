"""Deck registration: which tag UID is which card (``PROTOCOL.md``, "Deck registration").

A deck file is a CSV with header ``uid,card``, one line per card: the UID as 16 upper-case hex
digits and the card as rank + suit (``As``, ``Td``, ``2c``). A file with a missing card, a duplicate
card, a duplicate UID or a malformed line is refused with the line number.

>>> deck = make_deck("A")
>>> len(deck.cards), deck.name
(52, 'A')
>>> parse_deck(format_deck(deck), "A") == deck
True
>>> parse_deck("uid,card\\n0000000000000001,As\\n0000000000000001,Kd\\n", "x")
Traceback (most recent call last):
...
firmware_bridge.deck.DeckError: x line 3: duplicate uid 0000000000000001 (first on line 2)
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re
from collections.abc import Iterable, Mapping

from controller.cards import FULL_DECK, RANK_CHARS, SUIT_CHARS, Card

_UID = re.compile(r"[0-9A-F]{16}")
HEADER = "uid,card"


class DeckError(ValueError):
    """A deck file that is refused; the message names the file and line."""

    def __init__(self, where: str, line: int, reason: str) -> None:
        super().__init__(f"{where} line {line}: {reason}")
        self.where = where
        self.line = line
        self.reason = reason


def uid_hex(uid: bytes) -> str:
    """The UID as 16 upper-case hex digits."""
    return uid.hex().upper()


@dataclasses.dataclass(frozen=True)
class Deck:
    """One registered deck: 52 tags, one per card."""

    name: str
    """Deck name (the file stem)."""
    cards: Mapping[bytes, Card]
    """Card by 8-byte UID."""

    def uid_of(self, card: Card) -> bytes:
        """The UID of ``card`` in this deck.

        :raises KeyError: if the deck lacks the card (never for a validated deck).
        """
        for uid, c in self.cards.items():
            if c == card:
                return uid
        raise KeyError(str(card))


def _parse_card(text: str) -> Card | None:
    if len(text) != 2 or text[0] not in RANK_CHARS or text[1] not in SUIT_CHARS:
        return None
    return Card.parse(text)


def parse_deck(text: str, name: str = "deck") -> Deck:
    """Parse and validate the text of a deck CSV.

    :raises DeckError: on a bad header, a malformed line, a duplicate UID or card, or a missing card.
    """
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()  # trailing blank lines are an editor's habit, not a malformed line
    if not lines or lines[0].strip().lstrip("\ufeff") != HEADER:
        raise DeckError(name, 1, f"header must be {HEADER!r}")
    by_uid: dict[bytes, Card] = {}
    uid_line: dict[bytes, int] = {}
    card_line: dict[Card, int] = {}
    for lineno, line in enumerate(lines[1:], start=2):
        fields = line.strip().split(",")
        if len(fields) != 2:
            raise DeckError(name, lineno, f"malformed line {line!r}: expected uid,card")
        uid_text, card_text = (f.strip() for f in fields)
        if not _UID.fullmatch(uid_text):
            raise DeckError(name, lineno, f"malformed uid {uid_text!r}: expected 16 upper-case hex digits")
        card = _parse_card(card_text)
        if card is None:
            raise DeckError(name, lineno, f"malformed card {card_text!r}: expected rank + suit such as As, Td, 2c")
        uid = bytes.fromhex(uid_text)
        if uid in uid_line:
            raise DeckError(name, lineno, f"duplicate uid {uid_text} (first on line {uid_line[uid]})")
        if card in card_line:
            raise DeckError(name, lineno, f"duplicate card {card} (first on line {card_line[card]})")
        uid_line[uid] = lineno
        card_line[card] = lineno
        by_uid[uid] = card
    missing = [str(c) for c in FULL_DECK if c not in card_line]
    if missing:
        raise DeckError(name, len(lines) + 1, f"missing card(s) {' '.join(missing)}")
    return Deck(name, by_uid)


def load_deck(path: str | pathlib.Path) -> Deck:
    """Load and validate a deck CSV; the deck is named after the file stem.

    :raises DeckError: see :func:`parse_deck`.
    :raises OSError: if the file cannot be read.
    """
    p = pathlib.Path(path)
    return parse_deck(p.read_text(encoding="utf-8"), p.stem.removeprefix("deck-") or p.stem)


def make_deck(name: str) -> Deck:
    """A deterministic deck named ``name``: each UID is derived from the name and the card.

    UIDs start with ``E0`` like ISO 15693 tags, so the example decks look like real ones.
    """
    cards: dict[bytes, Card] = {}
    for card in FULL_DECK:
        digest = hashlib.sha256(f"cardroom-deck:{name}:{card}".encode()).digest()
        cards[b"\xe0" + digest[:7]] = card
    return Deck(name, cards)


def format_deck(deck: Deck) -> str:
    """The deck as CSV text (cards in index order)."""
    rows = sorted(deck.cards.items(), key=lambda kv: kv[1].index)
    return HEADER + "\n" + "".join(f"{uid_hex(uid)},{card}\n" for uid, card in rows)


def write_example_decks(directory: str | pathlib.Path, names: Iterable[str] = ("A", "B")) -> list[pathlib.Path]:
    """Write ``deck-NAME.csv`` for each name into ``directory``; returns the paths."""
    d = pathlib.Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        path = d / f"deck-{name}.csv"
        path.write_text(format_deck(make_deck(name)), encoding="utf-8")
        paths.append(path)
    return paths


class DeckRegistry:
    """The active decks. A UID in none of them is a foreign tag.

    More than one deck may be active (two decks in play at one table); then the same card can
    exist twice, which the position tracker reports when both copies lie on the table.

    :raises DeckError: (line 0) if two decks share a UID.
    """

    def __init__(self, decks: Iterable[Deck]) -> None:
        self.decks = tuple(decks)
        self._card: dict[bytes, Card] = {}
        self._deck: dict[bytes, str] = {}
        for deck in self.decks:
            for uid, card in deck.cards.items():
                if uid in self._card:
                    raise DeckError(deck.name, 0, f"uid {uid_hex(uid)} is also in deck {self._deck[uid]}")
                self._card[uid] = card
                self._deck[uid] = deck.name

    def card(self, uid: bytes) -> Card | None:
        """The card of ``uid``, or ``None`` for a foreign tag."""
        return self._card.get(uid)

    def deck_of(self, uid: bytes) -> str | None:
        """The name of the deck holding ``uid``."""
        return self._deck.get(uid)

    def is_foreign(self, uid: bytes) -> bool:
        """``uid`` is in no active deck."""
        return uid not in self._card

    def __len__(self) -> int:
        return len(self._card)

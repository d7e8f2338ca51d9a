"""What the bridge hands to the table: card sightings and alerts, frozen and JSON-ready.

>>> from controller.cards import Card
>>> s = CardSighting(seq=12, event="enter", card=Card.parse("As"), place="seat3", antenna=3,
...                  uid=bytes.fromhex("E0000000000000A1"))
>>> s.to_json()
{'seq': 12, 'event': 'enter', 'card': 'As', 'place': 'seat3', 'antenna': 3, 'uid': 'E0000000000000A1'}
>>> Alert(AlertKind.READER_OFFLINE, {"reason": "heartbeat"}).to_json()
{'alert': 'reader_offline', 'reason': 'heartbeat'}
>>> place_name(11), antenna_of("seat10")
('board', 10)
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, Literal, Union

from controller.cards import Card

SHOE, BOARD, MUCK, BURN = 0, 11, 12, 13
"""Antenna numbers of the non-seat places (seats are antennas 1 to 10)."""
_NAMES = {SHOE: "shoe", BOARD: "board", MUCK: "muck", BURN: "burn"}
_ANTENNAS = {v: k for k, v in _NAMES.items()}


def place_name(antenna: int) -> str:
    """``shoe``, ``seat1`` .. ``seat10``, ``board``, ``muck``, ``burn``; ``antennaN`` beyond 13."""
    if 1 <= antenna <= 10:
        return f"seat{antenna}"
    return _NAMES.get(antenna, f"antenna{antenna}")


def antenna_of(place: str) -> int:
    """Inverse of :func:`place_name`.

    :raises ValueError: for an unknown place name.
    """
    if place in _ANTENNAS:
        return _ANTENNAS[place]
    for prefix in ("seat", "antenna"):
        if place.startswith(prefix) and place[len(prefix) :].isdigit():
            n = int(place[len(prefix) :])
            if prefix == "antenna" or 1 <= n <= 10:
                return n
    raise ValueError(f"unknown place {place!r}: expected shoe, seat1..seat10, board, muck or burn")


@dataclasses.dataclass(frozen=True, slots=True)
class CardSighting:
    """A card entering or leaving a place on the table."""

    seq: int | None
    """Seq of the reader event that caused it; ``None`` when inferred (inventory reconciliation)."""
    event: Literal["enter", "leave"]
    """``enter``: the card now lies at ``place``; ``leave``: it no longer does."""
    card: Card
    """The card, from the deck registry."""
    place: str
    """``shoe``, ``seat1`` .. ``seat10``, ``board``, ``muck`` or ``burn``."""
    antenna: int
    """The antenna behind ``place``."""
    uid: bytes
    """The tag's 8-byte UID."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object printed by ``cardroom reader listen --json``."""
        return {
            "seq": self.seq,
            "event": self.event,
            "card": str(self.card),
            "place": self.place,
            "antenna": self.antenna,
            "uid": self.uid.hex().upper(),
        }


class AlertKind(enum.StrEnum):
    """Kinds of alert."""

    FOREIGN_TAG = "foreign_tag"
    """A tag in no active deck was read: never a card."""
    DUPLICATE_CARD = "duplicate_card"
    """The same card lies on the table twice (two decks mixed)."""
    AMBIGUOUS = "ambiguous"
    """A tag is read on two antennas for longer than the leave delay."""
    READER_OFFLINE = "reader_offline"
    """No heartbeat for 3 s, or the link failed."""
    READER_ONLINE = "reader_online"
    """The reader answers again."""
    READER_RESTARTED = "reader_restarted"
    """The reader rebooted or was replaced: its event counter started over."""
    FAULT = "fault"
    """A FAULT event (code, antenna, text)."""
    ANTENNA_FAULT = "antenna_fault"
    """The heartbeat's antenna-fault flag rose."""
    EVENTS_LOST = "events_lost"
    """Events were lost: the reader's buffer overflowed, or a gap in seqs never filled."""
    TAMPER = "tamper"
    """The reader's case was opened."""
    COMMAND_FAILED = "command_failed"
    """The reader refused a host command (CMD_ACK status not 0)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Alert:
    """Something a floor person should know about; never a card."""

    kind: AlertKind
    """What happened."""
    detail: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """JSON-ready fields (seq, uid, place, code, text, ...)."""

    def to_json(self) -> dict[str, Any]:
        """``{"alert": kind, **detail}``."""
        return {"alert": str(self.kind), **self.detail}


Record = Union[CardSighting, Alert]
"""What the bridge stores: a sighting or an alert."""

"""The reader feeding the table: card sightings become table events, stored before they are acked.

:class:`TableSink` is the :class:`~firmware_bridge.sinks.EventSink` of a running table. For every
record the bridge hands it, it stores the raw sighting (``card_seen``) or the alert in the table's
hash-chained log, then what it means for the hand:

- a card entering a seat while that seat is being dealt: a dealt hole card;
- a card entering the board while board cards are due: a board card;
- a card entering the burn pile: a burn (counted for the stud river shortage, R18);
- a live hand's card entering the muck at showdown: that hand is mucked (R3 warns while it is still
  identifiable; a tabled winner is never mucked silently, R4: an alert goes to the floor instead);
- a live hand's card entering the muck during the betting: an alert to enter the fold.

The bridge acknowledges the reader only after :meth:`TableSink.store` returns, and the reader's
acknowledged seq is kept in the log's meta table, so a restarted controller neither loses nor
doubles a card event.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from firmware_bridge.records import Alert, CardSighting, Record
from firmware_bridge.sinks import EventSink, ResumePoint

ACK_KEY = "reader_ack_seq"


class TableSink(EventSink):
    """Stores reader records into a :class:`~controller.service.TableService`."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self._placed: dict[bytes, int] = {}
        for e in service.events(0):
            if e["kind"] == "card_seen":
                _fold(self._placed, e["payload"])

    # ---------------------------------------------------------------- EventSink
    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        """Store a batch of records, what they mean for the hand and the acknowledged seq in one
        transaction (one commit): the batch is on disk, whole, before the bridge acknowledges it
        (``ACK_EVENTS`` is cumulative), or nothing of it is and the reader sends it again."""
        placed = dict(self._placed)

        def apply(table: Any) -> None:
            with table.transaction() as tx:
                for r in records:
                    if isinstance(r, CardSighting):
                        payload = r.to_json()
                        table._emit("card_seen", payload)
                        _fold(placed, payload)
                        self._to_table(table, r)
                    elif isinstance(r, Alert):
                        table._emit("alert", {"alert": str(r.kind.value), **_jsonable(r.detail)})
                if ack_seq is not None and hasattr(self.service.log, "set_meta"):
                    tx.set_meta(ACK_KEY, str(ack_seq))

        self.service.run(apply)
        self._placed = placed  # only once the batch is stored

    def resume(self) -> ResumePoint | None:
        log = self.service.log
        get = getattr(log, "get_meta", None)
        if get is None:
            return None
        value = get(ACK_KEY)
        return ResumePoint(int(value) if value is not None else None, dict(self._placed))

    # ---------------------------------------------------------------- meaning
    def _to_table(self, table: Any, r: CardSighting) -> None:
        from controller.table import SeatStatus, TableError

        if r.event != "enter":
            return
        h = table.hand
        if h is None or h.pushed or h.voided:
            return
        card = r.card
        try:
            if r.place.startswith("seat"):
                seat = int(r.place[4:])
                i = h.index(seat) if seat in h.order else None
                if (i is not None and card in h.state.hole[i]) or card in h.state.board:
                    return  # a repeat or a card already known where it is
                hole_due, _ = h.state.pending_deal()
                if i is not None and i in hole_due:
                    table.deal(seat, [card], source="reader")
                else:
                    table._emit("alert", {"alert": "unexpected_card", "card": str(card), "place": r.place,
                                          "detail": f"{card} appeared at seat {seat} outside the deal"})
            elif r.place == "board":
                if card in h.state.board:
                    return
                _, board_due = h.state.pending_deal()
                if board_due or table.river_instruction():
                    table.deal(None, [card], source="reader")
                else:
                    table._emit("alert", {"alert": "unexpected_card", "card": str(card), "place": "board",
                                          "detail": f"{card} appeared on the board when no board card is due"})
            elif r.place == "burn":
                table.burn(str(card))
            elif r.place == "muck":
                held = {c: h.seat(i) for i, hole in enumerate(h.state.hole) for c in hole if c is not None}
                seat = held.get(card)
                if seat is None:
                    return
                i = h.index(seat)
                sd = h.showdown[seat]
                if h.state.folded[i] or sd.status in (SeatStatus.MUCKED, SeatStatus.KILLED):
                    return
                if h.state.complete:
                    try:
                        table.muck(seat, face_down=sd.status is not SeatStatus.TABLED)
                    except TableError as exc:
                        table._emit("alert", {"alert": "protected_hand_in_muck", "seat": seat,
                                              "card": str(card), "detail": str(exc)})
                else:
                    table._emit("alert", {"alert": "muck_without_fold", "seat": seat, "card": str(card),
                                          "detail": f"seat {seat}'s card reached the muck: enter the fold"})
        except TableError as exc:
            table._emit("alert", {"alert": "reader_refused", "card": str(card), "place": r.place,
                                  "detail": str(exc)})


def _fold(placed: dict[bytes, int], payload: dict[str, Any]) -> None:
    """Where each card is, from one sighting."""
    uid = bytes.fromhex(payload["uid"])
    if payload["event"] == "enter":
        placed[uid] = payload["antenna"]
    elif placed.get(uid) == payload["antenna"]:
        del placed[uid]


def _jsonable(detail: Any) -> dict[str, Any]:
    out = {}
    for k, v in dict(detail or {}).items():
        out[str(k)] = v.hex().upper() if isinstance(v, bytes) else (v if isinstance(v, (int, float, str, bool, type(None), list, dict)) else str(v))
    return out


class ReaderRunner:
    """Runs a :class:`~firmware_bridge.delivery.ReaderBridge` on a thread, feeding a table service."""

    def __init__(self, service: Any, port: str, deck_paths: Sequence[Any], *, leave_after: float = 0.3,
                 transport: Any = None) -> None:
        from firmware_bridge.deck import DeckRegistry, load_deck
        from firmware_bridge.delivery import ReaderBridge
        from firmware_bridge.transport import open_transport

        self.sink = TableSink(service)
        registry = DeckRegistry(load_deck(p) for p in deck_paths)
        self.bridge = ReaderBridge(transport if transport is not None else open_transport(port),
                                   self.sink, registry, leave_after=leave_after)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reader-bridge", daemon=True)
        self.error: BaseException | None = None

    def start(self) -> ReaderRunner:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.bridge.run(self._stop)
        except BaseException as exc:  # a store failure: nothing acked; surveillance must know
            self.error = exc
            try:
                self.sink.service.alert("reader_bridge_stopped", detail=str(exc))
            except Exception:
                pass

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.bridge.close()

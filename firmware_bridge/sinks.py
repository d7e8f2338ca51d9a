"""Where the bridge stores what it saw. The bridge acknowledges reader events only after
:meth:`EventSink.store` returns, so a sink must not return before the records are durable.

The table's SQLite log will implement :class:`EventSink`; until then there are a JSON-lines sink
(``cardroom reader listen``), an in-memory sink for tests and a small SQLite sink.

>>> from controller.cards import Card
>>> from firmware_bridge.records import CardSighting
>>> sink = MemorySink()
>>> sink.store([CardSighting(5, "enter", Card.parse("As"), "seat1", 1, bytes(8))], ack_seq=5)
>>> sink.resume()
ResumePoint(ack_seq=5, placed={b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00': 1})
"""

from __future__ import annotations

import abc
import dataclasses
import json
import pathlib
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

from firmware_bridge.records import Alert, AlertKind, CardSighting, Record


@dataclasses.dataclass(frozen=True)
class ResumePoint:
    """What a durable sink remembers, so that a restarted bridge neither loses nor doubles events."""

    ack_seq: int | None
    """The last reader seq whose records were stored (the bridge acknowledged up to it)."""
    placed: Mapping[bytes, int]
    """Antenna of every card the stored sightings leave on the table, by UID."""


class EventSink(abc.ABC):
    """Durable destination of card sightings and alerts."""

    @abc.abstractmethod
    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        """Store ``records`` durably and return only once they are stored.

        :param ack_seq: when not ``None``, the bridge will acknowledge every reader event up to this
            seq as soon as this call returns; a sink that supports :meth:`resume` saves it in the
            same transaction as the records. ``records`` may be empty (repeat reads move nothing
            but still advance the acknowledgement).
        :raises Exception: any failure; the bridge then does not acknowledge and stops.
        """

    def resume(self) -> ResumePoint | None:
        """Where a restarted bridge should continue, or ``None`` if this sink cannot tell."""
        return None

    def close(self) -> None:
        """Release resources."""

    def __enter__(self) -> EventSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fold_placed(records: Iterable[Record], placed: dict[bytes, int] | None = None) -> dict[bytes, int]:
    """Apply sightings in order to ``placed`` (UID -> antenna) and return it."""
    placed = {} if placed is None else placed
    for r in records:
        if isinstance(r, CardSighting):
            if r.event == "enter":
                placed[r.uid] = r.antenna
            elif placed.get(r.uid) == r.antenna:
                del placed[r.uid]
    return placed


class JsonLinesSink(EventSink):
    """One JSON object per line on a text stream, flushed before :meth:`store` returns."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout

    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        if not records:
            return
        self.stream.write("".join(json.dumps(r.to_json(), separators=(", ", ": ")) + "\n" for r in records))
        self.stream.flush()


class MemorySink(EventSink):
    """Keeps everything in memory, thread-safe; for tests. Optionally slow or failing on demand."""

    def __init__(self, delay: float = 0.0) -> None:
        self.records: list[Record] = []
        self.ack_seq: int | None = None
        self.store_calls = 0
        self.delay = delay
        self.fail: Exception | None = None
        """Raised by the next :meth:`store` when set (then cleared)."""
        self._placed: dict[bytes, int] = {}
        self._cond = threading.Condition()

    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        if self.delay:
            time.sleep(self.delay)
        with self._cond:
            if self.fail is not None:
                exc, self.fail = self.fail, None
                raise exc
            self.records.extend(records)
            fold_placed(records, self._placed)
            if ack_seq is not None:
                self.ack_seq = ack_seq
            self.store_calls += 1
            self._cond.notify_all()

    def resume(self) -> ResumePoint | None:
        with self._cond:
            return ResumePoint(self.ack_seq, dict(self._placed))

    def sightings(self) -> list[CardSighting]:
        """Stored sightings, in order."""
        with self._cond:
            return [r for r in self.records if isinstance(r, CardSighting)]

    def alerts(self, kind: AlertKind | str | None = None) -> list[Alert]:
        """Stored alerts, optionally of one kind."""
        with self._cond:
            return [r for r in self.records if isinstance(r, Alert) and (kind is None or r.kind == kind)]

    def wait_for(self, predicate: Callable[[MemorySink], bool], timeout: float) -> bool:
        """Wait until ``predicate(self)`` holds (checked after each store); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
            return True


class SqliteSink(EventSink):
    """Records in an SQLite file (WAL, ``synchronous=FULL``): a stand-in for the table's log.

    :raises sqlite3.Error: if the file cannot be opened or written.
    """

    def __init__(self, path: str | pathlib.Path) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS reader_log (id INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
            " seq INTEGER, body TEXT NOT NULL, stored_at REAL NOT NULL)"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS reader_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), ack_seq INTEGER)")
        self._lock = threading.Lock()

    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        now = time.time()
        rows = []
        for r in records:
            body = r.to_json()
            kind = "sighting" if isinstance(r, CardSighting) else "alert"
            rows.append((kind, body.get("seq"), json.dumps(body), now))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT INTO reader_log (kind, seq, body, stored_at) VALUES (?, ?, ?, ?)", rows)
                if ack_seq is not None:
                    self._db.execute(
                        "INSERT INTO reader_cursor (id, ack_seq) VALUES (1, ?)"
                        " ON CONFLICT(id) DO UPDATE SET ack_seq = excluded.ack_seq",
                        (ack_seq,),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def rows(self) -> list[dict[str, Any]]:
        """Every stored record as its JSON object, in order."""
        with self._lock:
            return [json.loads(b) for (b,) in self._db.execute("SELECT body FROM reader_log ORDER BY id")]

    def resume(self) -> ResumePoint | None:
        with self._lock:
            row = self._db.execute("SELECT ack_seq FROM reader_cursor WHERE id = 1").fetchone()
            bodies = [json.loads(b) for (b,) in self._db.execute("SELECT body FROM reader_log WHERE kind = 'sighting' ORDER BY id")]
        placed: dict[bytes, int] = {}
        for b in bodies:
            uid = bytes.fromhex(b["uid"])
            if b["event"] == "enter":
                placed[uid] = b["antenna"]
            elif placed.get(uid) == b["antenna"]:
                del placed[uid]
        return ResumePoint(None if row is None else row[0], placed)

    def close(self) -> None:
        with self._lock:
            self._db.close()

"""The table as a running service: one :class:`~controller.table.Table` on its event log, shared by
the web server, the reader bridge and the cameras.

Every command runs under one lock and in one transaction (one commit, all or none), so the reader,
the cameras and the dealer's console never interleave inside a command. Every stored event goes to
the subscribers (the live views) after it is stored. The broadcast view is the same event stream
read ``delay`` seconds late: a second table folds the events once they are old enough
(:meth:`TableService.delayed_snapshot`).
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from controller.table import Event, MemoryLog, Table, TableError, TableSettings, settings_from_game


class CommandError(ValueError):
    """A refused command: the message says why (shown to the dealer in words)."""


ALERT_KINDS = {"alert"}

COMMANDS = {
    "seat_player": ("seat", "name", "stack"),
    "remove_player": ("seat",),
    "add_chips": ("seat", "amount"),
    "start_hand": ("button",),
    "deal": ("seat", "cards"),
    "burn": (),
    "fold": ("seat",),
    "check_call": ("seat",),
    "post_bring_in": ("seat",),
    "bet_raise_to": ("seat", "amount"),
    "all_in": ("seat",),
    "undo": (),
    "misdeal": (),
    "table_hand": ("seat",),
    "show_cards": ("seat", "cards"),
    "muck": ("seat",),
    "muck_losers": (),
    "kill": ("seat", "reason"),
    "declare": ("seat", "text"),
    "request_show": ("by", "of"),
    "show_to": ("seat", "to_seat"),
    "correct_cards": ("seat", "cards", "reason"),
    "correct_award": ("from_seat", "to_seat", "amount", "reason"),
    "push": (),
    "set_break": (),
}
"""Commands the dealer's console may send, with their required arguments."""


@dataclasses.dataclass
class Subscription:
    queue: "queue.Queue[dict[str, Any]]"
    service: TableService

    def close(self) -> None:
        self.service._unsubscribe(self)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while True:
            yield self.queue.get()


class TableService:
    """A table, its log and its subscribers. Thread-safe."""

    def __init__(self, game: Mapping[str, Any], log: Any, *, broadcast_delay: float = 1800.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.lock = threading.RLock()
        self.clock = clock
        self.log = log
        self.game = dict(game)
        self.broadcast_delay = broadcast_delay
        self.table = Table.open(settings_from_game(game), log, clock=clock)
        self.pending_game: dict[str, Any] | None = None
        """A configuration that differs from the hand in progress: applied when the next hand starts."""
        try:
            self.table.configure(game)
        except TableError:
            self.pending_game = dict(game)
        self._subs: list[Subscription] = []
        self._alerts: list[dict[str, Any]] = []
        self._frames: dict[int, bytes] = {}
        self._delayed = Table(settings_from_game(game), MemoryLog(), clock=clock)
        self._delayed_upto = 0
        self.log_error: str | None = None
        """Set while the log refuses writes (disk full, read-only): shown to every audience."""
        self.frames_dir: Any = None
        """Where camera frames are kept on disk (next to the log), or None for memory only."""
        self._cameras: dict[str, dict[str, Any]] = {}
        """What each camera last reported (:meth:`camera_status`), by name: not logged, only shown."""
        for stored in log:
            self._note(_event_dict(stored))
        self.table.listeners.append(self._on_event)

    # ----------------------------------------------------------------- commands
    def command(self, name: str, args: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a dealer command; return the events it stored.

        :raises CommandError: unknown command, missing argument, or the table refused it (the
            message is the table's reason); nothing changed.
        """
        args = dict(args or {})
        if name not in COMMANDS:
            raise CommandError(f"unknown command {name!r}")
        missing = [a for a in COMMANDS[name] if a not in args]
        if missing:
            raise CommandError(f"{name}: missing {', '.join(missing)}")
        with self.lock:
            grouped = self.table._grouped
            before = 0 if grouped else self._last_seq()
            pending_game = self.pending_game
            try:
                with self.table.transaction() as tx:  # one command, one commit
                    start = len(tx.events)
                    if name == "start_hand" and self.pending_game is not None:
                        self.table.configure(self.pending_game)
                        self.pending_game = None
                    getattr(self.table, name)(**args)
            except TableError as exc:
                self.pending_game = pending_game
                raise CommandError(str(exc)) from None
            except TypeError as exc:
                self.pending_game = pending_game
                raise CommandError(f"{name}: bad arguments: {exc}") from None
            except Exception as exc:
                self.pending_game = pending_game
                if _is_log_failure(exc):
                    raise CommandError(self._log_failed(exc)) from None
                raise
            self.log_error = None
            if grouped:  # the events as stored (the commit wrote exactly these)
                return [_event_dict(e) for e in tx.events[start:]]
            return self.events(before)

    def _log_failed(self, exc: BaseException) -> str:
        """The log cannot be written: nothing of the command was recorded, new actions stop,
        surveillance is told.

        The alert lives in memory (the log is what failed); the table's state is what the log holds,
        because a transaction that cannot be written is undone in memory too."""
        message = f"the event log cannot be written ({exc}): new actions are stopped until it can"
        self.log_error = message
        self._alerts.append({"seq": None, "ts": self.clock(), "alert": "log_unwritable", "detail": message})
        del self._alerts[:-1000]
        return message

    def run(self, fn: Callable[[Table], Any]) -> Any:
        """Run ``fn(table)`` under the lock, in one transaction: every event it emits is written in
        one commit, all or none (the reader bridge stores a batch this way, the cameras a frame).

        A log that cannot be written raises as it is (the reader must not acknowledge) and is
        reported like a failed command."""
        with self.lock:
            try:
                with self.table.transaction():
                    result = fn(self.table)
            except Exception as exc:
                if _is_log_failure(exc):
                    self._log_failed(exc)
                raise
            return result

    def alert(self, alert: str, **detail: Any) -> dict[str, Any]:
        """Store an alert from the reader or the cameras (surveillance sees it)."""
        with self.lock:
            return _event_dict(self.table._emit("alert", {"alert": alert, **detail}))

    def camera_status(self, name: str, **fields: Any) -> None:
        """Record what a camera reports of itself (``state``: ``starting``, ``live``, ``offline``, or
        ``rendered`` for the demo's camera; ``source``, ``seats``, ``frames``, ``last_frame`` (a time),
        ``error``, ``since``): surveillance sees every camera's state (:meth:`cameras`). A status, not
        an event: going offline and coming back are alerts in the log."""
        with self.lock:
            self._cameras.setdefault(name, {"camera": name}).update(fields)

    def cameras(self) -> list[dict[str, Any]]:
        """Every camera's last report, with ``last_frame_age_s``: seconds since its last frame
        (``None`` before the first), so a camera whose stream froze shows as such."""
        with self.lock:
            now = self.clock()
            return [{**d, "last_frame_age_s": None if d.get("last_frame") is None
                     else round(max(0.0, now - d["last_frame"]), 1)} for d in self._cameras.values()]

    def store_frame(self, seq: int, jpeg: bytes) -> None:
        """Keep the camera frame that goes with a showdown event (on disk beside the log when
        ``frames_dir`` is set, so surveillance still has it after a restart)."""
        with self.lock:
            if self.frames_dir is not None:
                import pathlib

                folder = pathlib.Path(self.frames_dir)
                folder.mkdir(parents=True, exist_ok=True)
                tmp = folder / f"{seq}.jpg.tmp"
                tmp.write_bytes(jpeg)
                tmp.replace(folder / f"{seq}.jpg")
                return
            self._frames[seq] = jpeg
            while len(self._frames) > 500:
                self._frames.pop(next(iter(self._frames)))

    def frame(self, seq: int) -> bytes | None:
        with self.lock:
            if self.frames_dir is not None:
                import pathlib

                path = pathlib.Path(self.frames_dir) / f"{int(seq)}.jpg"
                return path.read_bytes() if path.is_file() else None
            return self._frames.get(seq)

    def frame_seqs(self) -> list[int]:
        """Events that have a stored camera frame."""
        with self.lock:
            if self.frames_dir is not None:
                import pathlib

                folder = pathlib.Path(self.frames_dir)
                return sorted(int(p.stem.split(".")[0]) for p in folder.glob("*.jpg")) if folder.is_dir() else []
            return sorted(self._frames)

    # ----------------------------------------------------------------- reading
    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            snap = self.table.snapshot()
            snap["last_seq"] = self._last_seq()
            snap["log_error"] = self.log_error
            # each camera's state and seats (not its source or error: surveillance has those), so the
            # dealer sees which seats no camera judges while one is offline
            snap["cameras"] = [{"camera": name, "state": d.get("state"), "seats": list(d.get("seats") or ())}
                               for name, d in self._cameras.items()]
            return snap

    def delayed_snapshot(self) -> dict[str, Any]:
        """The table as it stood ``broadcast_delay`` seconds ago (the broadcast view's source)."""
        with self.lock:
            cutoff = self.clock() - self.broadcast_delay
            for stored in self._events_after(self._delayed_upto):
                if stored["ts"] > cutoff:
                    break
                self._delayed._apply(_as_table_event(stored))
                self._delayed_upto = stored["seq"]
            snap = self._delayed.snapshot()
            snap["as_of_seq"] = self._delayed_upto
            snap["delay_seconds"] = self.broadcast_delay
            return snap

    def events(self, since_seq: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        with self.lock:
            out = []
            for e in self._events_after(since_seq):
                out.append(e)
                if limit is not None and len(out) >= limit:
                    break
            return out

    def alerts(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self._alerts)

    def audit(self) -> dict[str, Any]:
        """The hash chain's status (``verify`` of the SQLite log; trivially fine in memory)."""
        with self.lock:
            verify = getattr(self.log, "verify", None)
            if verify is None:
                return {"ok": True, "rows": self._last_seq(), "first_bad_seq": None, "problem": "",
                        "keyed": False}
            report = verify()
            return report.to_json() if hasattr(report, "to_json") else dataclasses.asdict(report)

    def histories(self) -> list[dict[str, Any]]:
        """Finished hands: number, variant, players, winners, start and end seqs."""
        from controller.table import iter_hand_histories

        with self.lock:
            out = []
            for hand_no, text in iter_hand_histories(self.log):
                out.append({"hand_no": hand_no, "phh": text})
            return out

    def history_phh(self, hand_no: int) -> str:
        for h in self.histories():
            if h["hand_no"] == hand_no:
                return h["phh"]
        raise KeyError(hand_no)

    # ----------------------------------------------------------------- subscribers
    def subscribe(self) -> Subscription:
        sub = Subscription(queue.Queue(maxsize=10000), self)
        with self.lock:
            self._subs.append(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self.lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def _on_event(self, event: Event) -> None:
        d = _event_dict(event)
        self._note(d)
        for sub in list(self._subs):
            try:
                sub.queue.put_nowait(d)
            except queue.Full:  # a viewer that stopped reading: drop it, it will reconnect
                self._unsubscribe(sub)

    def _note(self, d: dict[str, Any]) -> None:
        if d["kind"] == "alert":
            self._alerts.append({"seq": d["seq"], "ts": d["ts"], **d["payload"]})
            del self._alerts[:-1000]

    # ----------------------------------------------------------------- internals
    def _last_seq(self) -> int:
        last = getattr(self.log, "last_seq", None)
        if last is not None:
            return int(last)
        return len(getattr(self.log, "events", []))

    def _events_after(self, seq: int) -> Iterator[dict[str, Any]]:
        if hasattr(self.log, "events") and callable(self.log.events):
            for stored in self.log.events(since_seq=seq):
                yield _event_dict(stored)
        else:
            for stored in self.log:
                if stored.seq > seq:
                    yield _event_dict(stored)

    def close(self) -> None:
        with self.lock:
            close = getattr(self.log, "close", None)
            if close is not None:
                close()


def _is_log_failure(exc: BaseException) -> bool:
    try:
        from controller.eventlog import LogError
    except ImportError:  # pragma: no cover
        return False
    import sqlite3

    return isinstance(exc, (LogError, sqlite3.Error, OSError))


def _event_dict(stored: Any) -> dict[str, Any]:
    return {"seq": stored.seq, "ts": stored.ts, "kind": stored.kind, "hand_no": stored.hand_no,
            "payload": dict(stored.payload)}


def _as_table_event(d: Mapping[str, Any]) -> Event:
    return Event(d["seq"], d["kind"], d["payload"], d.get("hand_no"), d["ts"])


__all__ = ["TableService", "CommandError", "COMMANDS", "Subscription", "TableSettings"]

"""The table's event log: append-only, hash-chained, crash-safe, in one SQLite file (WAL).

Everything that happens at a table is appended here *before* anyone is told of it; the table's
state is a fold over these events. Each row holds the hash of the row before it, so an edited,
deleted, inserted or reordered row breaks the chain and :meth:`EventLog.verify` names the first bad
row.

>>> import tempfile, pathlib
>>> d = tempfile.mkdtemp()
>>> with EventLog(pathlib.Path(d) / "t.db", table_id="T1", clock=lambda: 1.5, key=None) as log:
...     e = log.append("hand_started", {"button": 3}, hand_no=1)
...     (e.seq, e.kind, e.payload, log.verify().ok)
(1, 'hand_started', {'button': 3}, True)

Row format (enough to write an independent verifier)
----------------------------------------------------
Table ``events(seq, ts, table_id, hand_no, kind, payload, prev_hash, hash)``: ``seq`` counts from 1
without gaps; ``payload`` is the JSON text ``json.dumps(payload, sort_keys=True,
separators=(",", ":"), ensure_ascii=False, allow_nan=False)``. A row's ``hash`` is the lowercase
hex SHA-256 (or HMAC-SHA256 with the audit key, see below) of the UTF-8 bytes of::

    json.dumps([seq, ts, table_id, hand_no, kind, payload_text, prev_hash],
               separators=(",", ":"), ensure_ascii=False)

and ``prev_hash`` is the previous row's ``hash``, or :data:`GENESIS` for row 1. Table
``log_info`` holds the format marker, the table id, the hash mode and the head (last seq and hash,
updated in the same transaction as every append), so that a deleted *last* row is noticed too.
Table ``meta`` is a small key-value store outside the chain (e.g. the reader bridge's last
acknowledged seq), written in the same transaction as the events it goes with.

What the chain does and does not protect
-----------------------------------------
Plain SHA-256 detects accidental damage and naive tampering (a row edited, deleted, inserted or
reordered with a database browser). Someone with write access who knows this format can rewrite a
row *and recompute every later hash*; a plain chain cannot see that. Set ``CARDROOM_AUDIT_KEY``
(or pass ``key=``) and the log is keyed: every hash is an HMAC with that key, so nobody without the
key can produce a row that verifies. A keyed log refuses to open without its key (except
read-only with ``verify="none"``) and names a wrong key; a key given for an unkeyed log is reported
as a possible downgrade. Neither mode stops someone restoring an older *complete* copy of the file
(rolling back); compare :attr:`VerifyReport.head_hash` with a copy kept elsewhere for that.

Durability and transactions
---------------------------
``journal_mode=WAL`` with ``synchronous=FULL`` (the default): the WAL is fsynced at every commit, so
:meth:`EventLog.append` and :meth:`EventLog.append_many` return only once their events survive a
crash of the process or of the machine. ``synchronous="NORMAL"`` skips that fsync: a crash of the
process loses nothing, a power cut or an OS crash may lose the last commits.

A commit is one transaction, and one transaction can hold many events: :meth:`EventLog.append_many`
writes a group all or none, with one fsync, and may set ``meta`` keys in the same transaction. The
table uses this (``Table.transaction``) for what belongs together: one dealer command, one batch
from the card reader with the reader's acknowledged seq, one camera frame's views. The events of a
group share one timestamp; :meth:`EventLog.prepare` encodes an event without writing it, so the table
can act on it (exactly as a replay will read it) before the group is written, and ``expect_seq``
refuses the group when another writer appended in between. The cost of durability is the disk's
fsync per commit (``bench/RESULTS-eventlog.md``, ``bench/RESULTS-table.md``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import os
import pathlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal, NamedTuple

GENESIS = "0" * 64
"""``prev_hash`` of the first row."""
FORMAT = "cardroom-eventlog"
SCHEMA_VERSION = 1
APPLICATION_ID = 0x43524C47  # "CRLG": SQLite's header field naming the application that owns the file
KEY_ENV = "CARDROOM_AUDIT_KEY"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_BATCH = 2000  # rows per SELECT when iterating

VerifyMode = Literal["full", "tail", "none"]


class LogError(Exception):
    """Base class of the event log's errors; ``str(error)`` is one line naming the file."""


class LogFormatError(LogError):
    """The file is not a cardroom event log, or cannot be opened at all."""


class LogKeyError(LogError):
    """A keyed log opened without its key, with a wrong key, or a key given for an unkeyed log."""


class LogDamaged(LogError):
    """The chain is broken: a row was edited, deleted, inserted or reordered, or the file is corrupt.

    :ivar row: seq of the first bad row (``None`` when the damage is not in one row).
    :ivar reason: what is wrong with it.
    """

    def __init__(self, path: str, row: int | None, reason: str) -> None:
        self.path = path
        self.row = row
        self.reason = reason
        where = f"row {row}" if row is not None else "database"
        super().__init__(f"{path}: event log damaged at {where}: {reason}")


class LogWriteError(LogError):
    """An event could not be stored (disk full, read-only file, locked database, I/O error).

    Nothing was written: the transaction was rolled back and earlier events are intact. The table
    must stop taking new actions and raise an alert.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: cannot write the event log: {reason}")


@dataclasses.dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as stored: its place in the chain and its content."""

    seq: int
    """Position in the log, from 1, without gaps."""
    ts: float
    """Wall-clock time of the append (seconds since the epoch, from the log's clock)."""
    table_id: str
    hand_no: int | None
    """Hand number the event belongs to, or ``None`` for table-level events."""
    kind: str
    """Event type, e.g. ``"action"``, ``"card_seen"``."""
    payload: dict[str, Any]
    """The event's data (JSON values)."""
    prev_hash: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class NewEvent(NamedTuple):
    """An event to append with :meth:`EventLog.append_many`."""

    kind: str
    payload: Mapping[str, Any]
    hand_no: int | None = None


class PreparedEvent(NamedTuple):
    """An event checked and encoded by :meth:`EventLog.prepare`, ready for :meth:`EventLog.append_many`.

    ``payload`` is the payload exactly as it will be read back from the log (the decoded ``text``),
    so a caller can act on the event before it is written and see what a replay will see."""

    kind: str
    payload: dict[str, Any]
    hand_no: int | None
    text: str
    """The canonical JSON text that is stored and hashed."""


@dataclasses.dataclass(frozen=True, slots=True)
class VerifyReport:
    """The result of checking the whole chain."""

    ok: bool
    rows: int
    """Rows read."""
    first_bad_seq: int | None
    """seq of the first row that was edited, deleted or inserted (``None`` if intact, or if the
    problem is not one row, e.g. a wrong key)."""
    problem: str
    """What is wrong, for a person; empty when ``ok``."""
    head_seq: int = 0
    """Last seq in the log."""
    head_hash: str = GENESIS
    """Hash of the last row: keep a copy elsewhere to detect a rollback to an older file."""
    keyed: bool = False
    """Whether hashes are HMACs with the audit key."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_ROW_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_PAYLOAD_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                                    allow_nan=False).encode


def canonical_payload(payload: Mapping[str, Any]) -> str:
    """The stored JSON text of a payload.

    :raises TypeError: if ``payload`` is not a mapping with string keys and JSON values.
    :raises ValueError: for NaN or infinite numbers.
    """
    if type(payload) is not dict and not isinstance(payload, Mapping):
        raise TypeError(f"event payload must be a mapping, got {type(payload).__name__}")
    return _PAYLOAD_ENCODER(payload)


_JSON_STRING = json.encoder.encode_basestring
"""The string encoder ``_ROW_ENCODER`` itself uses (``ensure_ascii=False``): the same bytes."""


def _row_bytes(seq: int, ts: float, table_id: str, hand_no: int | None, kind: str, payload_text: str,
               prev_hash: str) -> bytes:
    """The hashed bytes of one row: ``_ROW_ENCODER([seq, ts, ...]).encode("utf-8")``.

    Rows as the log writes them (an int seq and hand number, a finite float time, strings) are
    formatted directly, as the JSON encoder formats them (``repr`` of the numbers, its own string
    encoder); anything else (a row read back from a damaged file may hold any type) goes through the
    encoder itself."""
    if (type(seq) is int and type(ts) is float and math.isfinite(ts)
            and (hand_no is None or type(hand_no) is int) and type(table_id) is str
            and type(kind) is str and type(payload_text) is str and type(prev_hash) is str):
        q = _JSON_STRING
        hand = "null" if hand_no is None else repr(hand_no)
        return (f"[{seq!r},{ts!r},{q(table_id)},{hand},{q(kind)},{q(payload_text)},"
                f"{q(prev_hash)}]").encode("utf-8")
    return _ROW_ENCODER([seq, ts, table_id, hand_no, kind, payload_text, prev_hash]).encode("utf-8")


def row_digest(seq: int, ts: float, table_id: str, hand_no: int | None, kind: str, payload_text: str,
               prev_hash: str, key: bytes | None = None) -> str:
    """The hash of one row (see the module docstring for the exact encoding)."""
    data = _row_bytes(seq, ts, table_id, hand_no, kind, payload_text, prev_hash)
    if key is None:
        return hashlib.sha256(data).hexdigest()
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _key_check(key: bytes, table_id: str) -> str:
    return hmac.new(key, f"{FORMAT}/key-check/{table_id}".encode(), hashlib.sha256).hexdigest()


def _env_key() -> bytes | None:
    value = os.environ.get(KEY_ENV)
    return value.encode("utf-8") if value else None


_UNSET: Any = object()


def _describe_sqlite_error(exc: sqlite3.Error) -> str:
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return f"the file is read-only ({text})"
    if "full" in low:
        return f"the disk is full ({text})"
    if "locked" in low or "busy" in low:
        return f"the database is locked by another process ({text})"
    return text


class EventLog:
    """An append-only, hash-chained event log in an SQLite file.

    :param path: the database file; created (with its folder) when missing and ``create`` is true.
    :param table_id: the table this log belongs to; required to create a log, checked against the
        stored one otherwise (``None``: accept the stored one).
    :param clock: wall clock for event timestamps (injectable for tests and replays).
    :param create: create the file if it does not exist.
    :param readonly: open without write access (``cardroom audit``); appends then raise
        :class:`LogWriteError`.
    :param verify: chain check at open: ``"full"`` (every row; the default: a damaged log is
        named at start), ``"tail"`` (the last rows and the head only) or ``"none"``.
    :param key: audit key for HMAC hashes; by default the ``CARDROOM_AUDIT_KEY`` environment
        variable, ``None`` for none. A new log is keyed when a key is given.
    :param busy_timeout: seconds to wait for a lock held by another connection before failing.
    :param synchronous: ``"FULL"`` (default): an event survives a power cut once :meth:`append`
        returns (one fsync of the WAL per commit, the disk's fsync latency). ``"NORMAL"``: an event
        survives a crash of the process but the last commits may be lost on a power cut or an OS
        crash (see ``bench/RESULTS-eventlog.md``).
    :raises LogFormatError: the file is not a cardroom event log, or is for another table.
    :raises LogKeyError: see :class:`LogKeyError`.
    :raises LogDamaged: the chain (or the SQLite file) is damaged; names the first bad row.
    """

    _tip: tuple[int, str] | None = None
    """seq and hash of the last row this object committed, so that an append need not read the head
    back (``None``: read it). Another writer's rows are noticed at the insert: the seq after the tip
    is taken (rows are only ever appended), and the append starts again from the rows on file."""

    def __init__(self, path: str | os.PathLike[str], *, table_id: str | None = None,
                 clock: Callable[[], float] = time.time, create: bool = True, readonly: bool = False,
                 verify: VerifyMode = "full", key: bytes | str | None = _UNSET,
                 busy_timeout: float = 2.0, synchronous: Literal["FULL", "NORMAL"] = "FULL") -> None:
        self.path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        if key is _UNSET:
            key = _env_key()
        self._key: bytes | None = key.encode("utf-8") if isinstance(key, str) else key
        self.readonly = readonly
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be 'FULL' or 'NORMAL', got {synchronous!r}")
        self._synchronous = synchronous
        self.commits = 0
        """Transactions this object has committed (each one fsync of the WAL with ``FULL``)."""
        p = pathlib.Path(self.path)
        exists = p.exists()
        if exists and p.is_dir():
            raise LogFormatError(f"{self.path}: is a folder, not an event log")
        if not exists and (not create or readonly):
            raise LogFormatError(f"{self.path}: no such event log")
        if exists and p.stat().st_size > 0:
            try:
                with open(p, "rb") as f:
                    head = f.read(len(_SQLITE_MAGIC))
            except OSError as exc:
                raise LogFormatError(f"{self.path}: cannot read: {exc.strerror or exc}") from None
            if head != _SQLITE_MAGIC:
                raise LogFormatError(f"{self.path}: not a cardroom event log (not an SQLite database)")
        if not exists:
            p.parent.mkdir(parents=True, exist_ok=True)
        mode = "ro" if readonly else "rwc"
        uri = f"{p.resolve().as_uri()}?mode={mode}"
        try:
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                                       timeout=busy_timeout)
        except sqlite3.Error as exc:
            raise LogFormatError(f"{self.path}: cannot open: {exc}") from None
        try:
            try:
                self._setup(table_id)
            except sqlite3.DatabaseError as exc:
                if "not a database" in str(exc):
                    raise LogFormatError(f"{self.path}: not a cardroom event log ({exc})") from None
                raise LogDamaged(self.path, None, f"SQLite file is corrupt ({exc})") from None
            self._check_key(verify)
            if verify != "none":
                self._verify_at_open(verify)
        except BaseException:
            self._db.close()
            raise

    # -- opening -----------------------------------------------------------------------------

    def _setup(self, table_id: str | None) -> None:
        db = self._db
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app_id == 0 and not tables:
            if self.readonly:
                raise LogFormatError(f"{self.path}: empty database, not a cardroom event log")
            if table_id is None:
                raise LogFormatError(f"{self.path}: a table id is needed to create an event log")
            self._create(table_id)
        elif app_id != APPLICATION_ID or not {"events", "log_info", "meta"} <= tables:
            raise LogFormatError(
                f"{self.path}: an SQLite database but not a cardroom event log "
                f"(tables: {', '.join(sorted(tables)) or 'none'})")
        info = dict(db.execute("SELECT key, value FROM log_info"))
        if info.get("format") != FORMAT:
            raise LogFormatError(f"{self.path}: not a cardroom event log (format {info.get('format')!r})")
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version != SCHEMA_VERSION:
            raise LogFormatError(f"{self.path}: event log schema version {version}, this program reads "
                                 f"version {SCHEMA_VERSION}")
        self.table_id: str = info.get("table_id", "")
        if table_id is not None and table_id != self.table_id:
            raise LogFormatError(f"{self.path}: this log belongs to table {self.table_id!r}, "
                                 f"not {table_id!r}")
        self._info = info
        if not self.readonly:
            try:
                db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:  # e.g. locked: the first append reports it
                pass
        db.execute(f"PRAGMA synchronous={self._synchronous}")

    def _create(self, table_id: str) -> None:
        db = self._db
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute(
                "CREATE TABLE events (seq INTEGER PRIMARY KEY, ts REAL NOT NULL, table_id TEXT NOT NULL,"
                " hand_no INTEGER, kind TEXT NOT NULL, payload TEXT NOT NULL, prev_hash TEXT NOT NULL,"
                " hash TEXT NOT NULL)")
            db.execute("CREATE TABLE log_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            info = {"format": FORMAT, "table_id": table_id, "created": repr(float(self._clock())),
                    "hash_mode": "hmac-sha256" if self._key else "sha256",
                    "head_seq": "0", "head_hash": GENESIS}
            if self._key:
                info["key_check"] = _key_check(self._key, table_id)
            db.executemany("INSERT INTO log_info (key, value) VALUES (?, ?)", info.items())
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise LogWriteError(self.path, _describe_sqlite_error(exc)) from None

    @property
    def clock(self) -> Callable[[], float]:
        """The wall clock that stamps appended events."""
        return self._clock

    @property
    def keyed(self) -> bool:
        """Whether this log's hashes are HMACs with an audit key."""
        return self._info.get("hash_mode") == "hmac-sha256"

    def key_problem(self) -> str | None:
        """Why the audit key does not fit this log (missing, wrong, or given for an unkeyed log)."""
        if self.keyed:
            if self._key is None:
                return f"the log is keyed (HMAC): set {KEY_ENV} to its audit key"
            if not hmac.compare_digest(self._info.get("key_check", ""), _key_check(self._key, self.table_id)):
                return "wrong audit key for this log"
        elif self._key is not None:
            return (f"an audit key was given ({KEY_ENV}) but the log is not keyed: it may have been "
                    "replaced by a recomputed unkeyed copy")
        return None

    def _check_key(self, verify: VerifyMode) -> None:
        problem = self.key_problem()
        if problem is None:
            return
        if self.readonly and verify == "none" and not (self.keyed and self._key is not None):
            return  # reading (audit) is allowed; verify() reports the key problem
        raise LogKeyError(f"{self.path}: {problem}")

    def check_file(self) -> None:
        """SQLite's own consistency check of the file (pages, indexes), not of the chain.

        :raises LogDamaged: with ``row=None`` when the file is corrupt.
        """
        with self._lock:
            try:
                rows = self._db.execute("PRAGMA quick_check").fetchall()
            except sqlite3.DatabaseError as exc:
                raise LogDamaged(self.path, None, f"SQLite file is corrupt ({exc})") from None
        if rows != [("ok",)]:
            raise LogDamaged(self.path, None, "SQLite file is corrupt (" +
                             "; ".join(str(r[0]) for r in rows[:3]) + ")")

    def _verify_at_open(self, mode: VerifyMode) -> None:
        if mode == "full":  # reading every row also meets SQLite-level damage in the events table
            report = self.verify()
        else:
            report = self.verify(since_seq=max(0, self._head()[0] - 100))
        if not report.ok:
            raise LogDamaged(self.path, report.first_bad_seq, report.problem)

    # -- writing -----------------------------------------------------------------------------

    def prepare(self, kind: str, payload: Mapping[str, Any], hand_no: int | None = None) -> PreparedEvent:
        """Check and encode one event without writing it (see :meth:`append_many`).

        :raises TypeError, ValueError: an event that is not valid.
        """
        if not isinstance(kind, str) or not kind:
            raise ValueError(f"event kind must be a non-empty string, got {kind!r}")
        if hand_no is not None and (not isinstance(hand_no, int) or isinstance(hand_no, bool)):
            raise TypeError(f"hand_no must be an int or None, got {hand_no!r}")
        text = canonical_payload(payload)
        return PreparedEvent(kind, json.loads(text), hand_no, text)

    def append(self, kind: str, payload: Mapping[str, Any], *, hand_no: int | None = None,
               meta: Mapping[str, str | None] | None = None) -> StoredEvent:
        """Store one event durably and return it. Returns only once the event is on disk.

        :param meta: key-value pairs to set in the same transaction (``None`` deletes a key).
        :raises LogWriteError: nothing was written (disk full, read-only, locked, I/O error).
        :raises TypeError, ValueError: a payload that is not JSON (nothing was written).
        """
        return self.append_many([self.prepare(kind, payload, hand_no)], meta=meta)[0]

    def append_many(self, events: Iterable[PreparedEvent | NewEvent | tuple[Any, ...]], *,
                    meta: Mapping[str, str | None] | None = None, ts: float | None = None,
                    expect_seq: int | None = None) -> list[StoredEvent]:
        """Store several events (and optionally ``meta``) in one transaction: all or none.

        One transaction is one commit, so one fsync of the WAL with ``synchronous=FULL``: a group of
        events that belong together (one command, one reader batch) costs one disk flush, and it
        survives a crash whole or not at all.

        ``events`` are :class:`PreparedEvent`, :class:`NewEvent` or ``(kind, payload[, hand_no])``
        tuples; it may be empty when only ``meta`` changes.

        :param ts: the timestamp of every event in the group (default: the log's clock now).
        :param expect_seq: the seq the first event must get; when another writer appended since the
            caller read the head, nothing is written and :class:`LogWriteError` says so.
        :raises LogWriteError: nothing was written.
        :raises TypeError, ValueError: an event that is not valid (nothing was written).
        """
        prepared = [e if isinstance(e, PreparedEvent) else self.prepare(*e) for e in events]
        meta_items = list((meta or {}).items())
        for k, v in meta_items:
            if not isinstance(k, str) or (v is not None and not isinstance(v, str)):
                raise TypeError(f"meta keys and values must be strings, got {k!r}: {v!r}")
        if self.keyed and self._key is None:
            raise LogWriteError(self.path, f"the log is keyed: set {KEY_ENV} to append")
        ts = float(self._clock() if ts is None else ts)
        if not math.isfinite(ts):
            raise ValueError(f"clock returned {ts!r}")
        with self._lock:
            db = self._db
            stored: list[StoredEvent] = []
            try:
                db.execute("BEGIN IMMEDIATE")
                if prepared:
                    head = self._tip
                    if head is None or (expect_seq is not None and head[0] + 1 != expect_seq):
                        head = self._head_from_rows()
                    try:
                        stored = self._insert(prepared, ts, head, expect_seq)
                    except sqlite3.IntegrityError:
                        if head is not self._tip:
                            raise  # the head was read from the rows just now: a real failure
                        # Another writer appended since this connection last did: its first row
                        # holds the seq that was next here. Start again from the rows on file.
                        self._tip = None
                        db.execute("ROLLBACK")
                        db.execute("BEGIN IMMEDIATE")
                        stored = self._insert(prepared, ts, self._head_from_rows(), expect_seq)
                for k, v in meta_items:
                    if v is None:
                        db.execute("DELETE FROM meta WHERE key = ?", (k,))
                    else:
                        db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                                   " DO UPDATE SET value = excluded.value", (k, v))
                db.execute("COMMIT")
                self.commits += 1
                if stored:
                    self._tip = (stored[-1].seq, stored[-1].hash)
            except sqlite3.Error as exc:
                try:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise LogWriteError(self.path, _describe_sqlite_error(exc)) from None
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return stored

    def _insert(self, prepared: list[PreparedEvent], ts: float, head: tuple[int, str],
                expect_seq: int | None) -> list[StoredEvent]:
        """Chain ``prepared`` after ``head`` (seq and hash of the last row), in the open transaction,
        and move the recorded head.

        :raises sqlite3.IntegrityError: a row with the first new seq exists (``head`` is stale).
        """
        seq, prev = head
        if expect_seq is not None and seq + 1 != expect_seq:
            raise LogWriteError(self.path, f"another writer appended to the log (its last row is "
                                           f"{seq}, row {expect_seq} was expected next)")
        table_id, key = self.table_id, self._key
        rows = []
        stored = []
        for kind, payload, hand_no, text in prepared:
            seq += 1
            h = row_digest(seq, ts, table_id, hand_no, kind, text, prev, key)
            rows.append((seq, ts, table_id, hand_no, kind, text, prev, h))
            stored.append(StoredEvent(seq, ts, table_id, hand_no, kind, payload, prev, h))
            prev = h
        self._db.executemany("INSERT INTO events (seq, ts, table_id, hand_no, kind, payload, prev_hash,"
                             " hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self._db.executemany("UPDATE log_info SET value = ? WHERE key = ?",
                             [(str(seq), "head_seq"), (prev, "head_hash")])
        return stored

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or, with ``None``, delete) one meta key durably.

        :raises LogWriteError: nothing was written.
        """
        self.append_many([], meta={key: value})

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """The value of a meta key, or ``default``."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    # -- reading -----------------------------------------------------------------------------

    def _head_from_rows(self) -> tuple[int, str]:
        row = self._db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return (int(row[0]), str(row[1])) if row else (0, GENESIS)

    def _head(self) -> tuple[int, str]:
        with self._lock:
            return self._head_from_rows()

    @property
    def last_seq(self) -> int:
        """seq of the last event (0 when empty)."""
        return self._head()[0]

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM events").fetchone()[0])

    def _raw_rows(self, since_seq: int = 0) -> Iterator[tuple[Any, ...]]:
        """Raw rows with seq > since_seq, in seq order, fetched in batches (appends may interleave)."""
        last = since_seq
        while True:
            with self._lock:
                try:
                    batch = self._db.execute(
                        "SELECT seq, ts, table_id, hand_no, kind, payload, prev_hash, hash FROM events"
                        " WHERE seq > ? ORDER BY seq LIMIT ?", (last, _BATCH)).fetchall()
                except sqlite3.DatabaseError as exc:
                    raise LogDamaged(self.path, None, f"cannot read rows after {last}: {exc}") from None
            yield from batch
            if len(batch) < _BATCH:
                return
            last = batch[-1][0]

    def events(self, since_seq: int = 0) -> Iterator[StoredEvent]:
        """Events with ``seq > since_seq``, in order (not verified: see :meth:`verify`)."""
        loads = json.loads
        for seq, ts, table_id, hand_no, kind, payload, prev_hash, h in self._raw_rows(since_seq):
            yield StoredEvent(seq, ts, table_id, hand_no, kind, loads(payload), prev_hash, h)

    def __iter__(self) -> Iterator[StoredEvent]:
        return self.events()

    def verify(self, since_seq: int = 0) -> VerifyReport:
        """Check the chain and name the first row that was edited, deleted, inserted or moved.

        :param since_seq: check only rows after this one (their link to it included).
        """
        key_problem = self.key_problem()
        keyed = self.keyed
        with self._lock:
            info = dict(self._db.execute("SELECT key, value FROM log_info"))
        head_seq_s, head_hash = info.get("head_seq", "?"), info.get("head_hash", "")
        if key_problem is not None:
            return VerifyReport(False, 0, None, key_problem, keyed=keyed)
        key = self._key
        expected = since_seq + 1
        prev = GENESIS
        prev_prev: str | None = None
        if since_seq > 0:
            with self._lock:
                r = self._db.execute("SELECT hash, prev_hash FROM events WHERE seq = ?", (since_seq,)).fetchone()
            if r is None:
                return VerifyReport(False, 0, since_seq, f"row {since_seq} is missing (deleted)", keyed=keyed)
            prev, prev_prev = r
        n = 0
        last_seq, last_hash = since_seq, prev

        def bad(seq: int | None, problem: str) -> VerifyReport:
            return VerifyReport(False, n, seq, problem, last_seq, last_hash, keyed)

        for seq, ts, table_id, hand_no, kind, payload, prev_hash, h in self._raw_rows(since_seq):
            n += 1
            if not isinstance(seq, int) or seq < expected:
                return bad(seq, f"row {seq} has an unexpected seq before {expected} (inserted row)")
            if seq > expected:
                gap = f"row {expected}" if seq == expected + 1 else f"rows {expected} to {seq - 1}"
                return bad(expected, f"{gap} missing (deleted)")
            try:
                own_ok = hmac.compare_digest(
                    str(h), row_digest(seq, ts, table_id, hand_no, kind, payload, prev_hash, key))
            except (TypeError, ValueError):
                own_ok = False
            linked = prev_hash == prev
            if not own_ok:
                if prev_prev is not None and prev_hash == prev_prev and seq > 1:
                    return bad(seq - 1, f"row {seq - 1} was inserted (row {seq} chains to the row "
                                        f"before it and was renumbered)")
                if not linked:
                    return bad(seq, f"row {seq} does not match its hash and does not chain to row "
                                    f"{seq - 1} (edited or moved, or a row before it was deleted)")
                return bad(seq, f"row {seq} was edited: its content no longer matches its hash")
            if not linked:
                if seq == 1:
                    return bad(1, "row 1 does not start the chain (rows before it deleted?)")
                return bad(seq - 1, f"row {seq - 1} was replaced (edited and re-hashed) or row {seq} "
                                    f"was inserted: row {seq} does not chain to it")
            if table_id != self.table_id:
                return bad(seq, f"row {seq} belongs to table {table_id!r}, not {self.table_id!r}")
            prev_prev, prev = prev, h
            last_seq, last_hash = seq, h
            expected += 1
        if str(last_seq) != head_seq_s or last_hash != head_hash:
            if head_seq_s.isdigit() and int(head_seq_s) > last_seq:
                gap = (f"row {last_seq + 1}" if int(head_seq_s) == last_seq + 1
                       else f"rows {last_seq + 1} to {head_seq_s}")
                return bad(last_seq + 1, f"{gap} missing at the end (log truncated)")
            return bad(last_seq or None, f"the recorded head (row {head_seq_s}) does not match the "
                                         f"last row {last_seq} (rows appended or head edited)")
        return VerifyReport(True, n, None, "", last_seq, last_hash, keyed)

    # -- closing -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventLog({self.path!r}, table_id={self.table_id!r})"


__all__ = [
    "GENESIS", "KEY_ENV", "EventLog", "LogDamaged", "LogError", "LogFormatError", "LogKeyError",
    "LogWriteError", "NewEvent", "PreparedEvent", "StoredEvent", "VerifyReport", "canonical_payload", "row_digest",
]

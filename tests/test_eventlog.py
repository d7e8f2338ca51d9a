"""The table's event log: round trips, durability across SIGKILL, tamper detection, write failures."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller import cli
from controller.eventlog import (
    GENESIS, KEY_ENV, EventLog, LogDamaged, LogFormatError, LogKeyError, LogWriteError, NewEvent,
    canonical_payload, row_digest,
)

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)


class Clock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        self.t += 0.25
        return self.t


def payload(i: int) -> dict[str, object]:
    return {"seat": i % 9 + 1, "action": "bet", "amount": 25 * i, "cards": ["As", "Kd"], "note": "é"}


def make_log(path: pathlib.Path, n: int = 10, **kw: object) -> EventLog:
    log = EventLog(path, table_id="T1", clock=Clock(), **kw)  # type: ignore[arg-type]
    log.append_many([NewEvent("action", payload(i), hand_no=i // 3 + 1) for i in range(n)])
    return log


def raw(path: pathlib.Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def run_cli(*argv: str) -> int:
    return cli.main(list(argv))


# -- round trip --------------------------------------------------------------------------------

def test_append_and_iterate_round_trip(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "var" / "t.db"  # the folder is created
    with EventLog(db, table_id="T1", clock=Clock()) as log:
        assert len(log) == 0 and log.last_seq == 0
        e1 = log.append("hand_started", {"button": 3, "players": [1, 2, 5]}, hand_no=1)
        e2 = log.append("table_note", {"text": "new deck"})
        assert (e1.seq, e2.seq) == (1, 2)
        assert e1.prev_hash == GENESIS and e2.prev_hash == e1.hash
        assert e2.ts - e1.ts == 0.25 and e2.hand_no is None
        batch = log.append_many([("action", {"seat": 1}), ("action", {"seat": 2}, 1)])
        assert [e.seq for e in batch] == [3, 4] and batch[1].hand_no == 1
    with EventLog(db, table_id="T1") as log:
        events = list(log)
        assert events == [e1, e2, *batch]
        assert [e.seq for e in log.events(since_seq=2)] == [3, 4]
        assert log.verify().ok and log.verify().rows == 4 and log.verify().head_hash == batch[1].hash


def test_hash_is_the_documented_encoding(tmp_path: pathlib.Path) -> None:
    with make_log(tmp_path / "t.db", 2) as log:
        e = list(log)[1]
        text = canonical_payload(e.payload)
        assert e.hash == row_digest(e.seq, e.ts, "T1", e.hand_no, e.kind, text, e.prev_hash)


def documented_digest(seq: object, ts: object, table_id: object, hand_no: object, kind: object,
                      payload_text: object, prev_hash: object, key: bytes | None = None) -> str:
    """The row hash exactly as the module docstring writes it (``json.dumps`` of the row)."""
    data = json.dumps([seq, ts, table_id, hand_no, kind, payload_text, prev_hash],
                      separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if key is None:
        return hashlib.sha256(data).hexdigest()
    return hmac.new(key, data, hashlib.sha256).hexdigest()


TEXTS = st.text() | st.sampled_from(['', '"', "\\", '{"a":"\\"q\\""}', "é\u2028\x00\x1f\x7f", "\ud800",
                                     "🂡", "\t\n\r\b\f"])
FINITE = st.floats(allow_nan=False, allow_infinity=False)
ODD = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | TEXTS
       | st.lists(st.integers(), max_size=2) | st.binary(max_size=3).map(lambda b: b.decode("latin-1")))


@settings(max_examples=500, deadline=None)
@given(seq=st.integers(-2**70, 2**70) | ODD, ts=st.floats(allow_nan=True, allow_infinity=True) | ODD,
       table_id=TEXTS | ODD, hand_no=st.none() | st.integers(-2**70, 2**70) | ODD, kind=TEXTS | ODD,
       payload_text=TEXTS | ODD | st.dictionaries(st.text(max_size=3), FINITE | TEXTS).map(canonical_payload),
       prev_hash=st.just(GENESIS) | st.text(alphabet="0123456789abcdef", min_size=64, max_size=64) | ODD,
       key=st.none() | st.binary(max_size=8))
def test_row_digest_is_the_documented_json_encoding(seq: object, ts: object, table_id: object, hand_no: object,
                                                    kind: object, payload_text: object, prev_hash: object,
                                                    key: bytes | None) -> None:
    """``row_digest`` formats the usual rows itself: the hash must stay the one of ``json.dumps``,
    for any row (a damaged file can hold any type: those fall back to the encoder)."""
    assert_documented_digest((seq, ts, table_id, hand_no, kind, payload_text, prev_hash), key)


def assert_documented_digest(row: tuple[object, ...], key: bytes | None) -> None:
    try:
        expected = documented_digest(*row, key=key)
    except (TypeError, ValueError) as exc:  # not JSON, or not UTF-8 (a lone surrogate)
        with pytest.raises(type(exc)):
            row_digest(*row, key=key)  # type: ignore[arg-type]
        return
    assert row_digest(*row, key=key) == expected, row  # type: ignore[arg-type]


def test_row_digest_edge_rows() -> None:
    text = canonical_payload({"q": 'say "hi"\\', "é": 0.1, "x": [1e300, -0.0, 5e-324], "n": None})
    for row in [(1, 1.5, "T1", None, "action", text, GENESIS), (2**63, 1e-7, "tâble\n", 0, "k\"", "", GENESIS),
                (3, -0.0, "", -1, "", "\u2028", "x"), (3, 0.5, "", -1, "", "\ud83c", "x"),
                (4, 1.7e9 + 0.123456789, "T", True, "k", "{}", "y"),
                (5, 17, "T", 3, "k", "{}", "z"), (6.0, 1.0, "T", 3, "k", "{}", "z"),
                (7, float("inf"), "T", 3, "k", "{}", "z"), (8, float("nan"), "T", None, "k", "{}", "z")]:
        assert_documented_digest(row, None)
        assert_documented_digest(row, b"k")


def test_meta_in_the_same_transaction(tmp_path: pathlib.Path) -> None:
    with make_log(tmp_path / "t.db", 0) as log:
        log.append_many([("sighting", {"uid": "E0"})], meta={"reader_ack_seq": "123"})
        assert log.get_meta("reader_ack_seq") == "123"
        log.append_many([], meta={"reader_ack_seq": "124"})  # only the acknowledgement moves
        assert log.get_meta("reader_ack_seq") == "124" and log.last_seq == 1
        log.set_meta("reader_ack_seq", None)
        assert log.get_meta("reader_ack_seq", "none") == "none"


def test_invalid_events_write_nothing(tmp_path: pathlib.Path) -> None:
    with make_log(tmp_path / "t.db", 3) as log:
        with pytest.raises(TypeError):
            log.append_many([("ok", {"a": 1}), ("bad", {"a": {1, 2}})])
        with pytest.raises(ValueError):
            log.append("bad", {"x": float("nan")})
        with pytest.raises(TypeError):
            log.append("bad", ["not", "a", "mapping"])  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            log.append("", {})
        assert log.last_seq == 3 and log.verify().ok


def test_other_table_refused(tmp_path: pathlib.Path) -> None:
    make_log(tmp_path / "t.db", 1).close()
    with pytest.raises(LogFormatError, match="belongs to table 'T1', not 'T2'"):
        EventLog(tmp_path / "t.db", table_id="T2")


# -- durability --------------------------------------------------------------------------------

CHILD = """
import sys
from controller.eventlog import EventLog
log = EventLog(sys.argv[1], table_id="T1")
i = 0
while True:
    e = log.append("tick", {"i": i, "pad": "x" * 250}, hand_no=i // 10)
    print(e.seq, e.hash, flush=True)
    i += 1
"""


def test_every_returned_event_survives_sigkill(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], cwd=REPO, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    returned: dict[int, str] = {}
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 30
        while len(returned) < 150 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seq, h = line.split()
            returned[int(seq)] = h
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=10)
    for line in rest.splitlines():  # printed before the kill landed
        if line.strip():
            seq, h = line.split()
            returned[int(seq)] = h
    assert proc.returncode == -signal.SIGKILL
    assert len(returned) >= 150
    with EventLog(db, table_id="T1") as log:  # full verification at open
        stored = {e.seq: e.hash for e in log}
        assert log.verify().ok
    for seq, h in returned.items():
        assert stored[seq] == h
    assert sorted(stored) == list(range(1, len(stored) + 1))


# -- tampering ---------------------------------------------------------------------------------

def tamper(path: pathlib.Path, how: str, k: int) -> None:
    """Change the file the way a person with a database browser would."""
    db = raw(path)
    if how == "payload":
        db.execute("UPDATE events SET payload = ? WHERE seq = ?", ('{"amount":1,"seat":1}', k))
    elif how == "ts":
        db.execute("UPDATE events SET ts = ts + 60 WHERE seq = ?", (k,))
    elif how == "kind":
        db.execute("UPDATE events SET kind = 'fold' WHERE seq = ?", (k,))
    elif how == "hand_no":
        db.execute("UPDATE events SET hand_no = coalesce(hand_no, 0) + 1 WHERE seq = ?", (k,))
    elif how == "hash":
        db.execute("UPDATE events SET hash = ? WHERE seq = ?", ("f" * 64, k))
    elif how == "delete":
        db.execute("DELETE FROM events WHERE seq = ?", (k,))
    elif how == "swap":  # rows k and k+1 exchange places
        db.execute("UPDATE events SET seq = -1 WHERE seq = ?", (k,))
        db.execute("UPDATE events SET seq = ? WHERE seq = ?", (k, k + 1))
        db.execute("UPDATE events SET seq = ? WHERE seq = -1", (k + 1,))
    elif how == "insert":  # a forged row k with a valid hash; later rows renumbered
        db.execute("UPDATE events SET seq = -seq WHERE seq >= ?", (k,))
        db.execute("UPDATE events SET seq = 1 - seq WHERE seq < 0")
        prev = db.execute("SELECT hash FROM events WHERE seq = ?", (k - 1,)).fetchone()
        prev_hash = prev[0] if prev else GENESIS
        text = canonical_payload({"seat": 4, "amount": 10_000})
        h = row_digest(k, 1.0, "T1", 1, "award", text, prev_hash)
        db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (k, 1.0, "T1", 1, "award", text, prev_hash, h))
    elif how == "rehash":  # edit row k and recompute its own hash (but not the next row's link)
        row = db.execute("SELECT ts, hand_no, kind, prev_hash FROM events WHERE seq = ?", (k,)).fetchone()
        text = canonical_payload({"seat": 4, "amount": 10_000})
        db.execute("UPDATE events SET payload = ?, hash = ? WHERE seq = ?",
                   (text, row_digest(k, row[0], "T1", row[1], row[2], text, row[3]), k))
    else:
        raise AssertionError(how)
    db.close()


@pytest.mark.parametrize("how, k, named, words", [
    ("payload", 4, 4, "edited"),
    ("ts", 7, 7, "edited"),
    ("kind", 1, 1, "edited"),
    ("hash", 5, 5, "edited"),
    ("delete", 5, 5, "missing (deleted)"),
    ("delete", 10, 10, "truncated"),
    ("insert", 6, 6, "inserted"),
    ("swap", 3, 3, "does not match its hash"),
    ("rehash", 8, 8, "replaced"),
])
def test_tamper_is_named(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], how: str, k: int,
                         named: int, words: str) -> None:
    db = tmp_path / "t.db"
    make_log(db, 10).close()
    assert run_cli("audit", "verify", str(db)) == 0
    tamper(db, how, k)
    with EventLog(db, readonly=True, verify="none") as log:
        report = log.verify()
    assert not report.ok and report.first_bad_seq == named and words in report.problem, report
    with pytest.raises(LogDamaged) as info:  # detected at start, and named
        EventLog(db, table_id="T1")
    assert info.value.row == named
    capsys.readouterr()
    assert run_cli("audit", "verify", str(db)) == 1
    out = capsys.readouterr().out
    assert f"first bad row {named}:" in out and words in out
    assert run_cli("audit", "verify", "--json", str(db)) == 1
    js = json.loads(capsys.readouterr().out)
    assert js["ok"] is False and js["first_bad_seq"] == named


TAMPERS = ["payload", "ts", "kind", "hand_no", "hash", "delete", "swap", "insert", "rehash"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(st.tuples(st.sampled_from(["action", "card_seen", "award"]),
                                 st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=6),
                                                 max_size=3),
                                 st.none() | st.integers(0, 50)), min_size=2, max_size=12),
       how=st.sampled_from(TAMPERS), where=st.floats(0, 1))
def test_any_single_tamper_is_detected(events: list[tuple[str, dict[str, object], int | None]], how: str,
                                       where: float) -> None:
    last = len(events) - 1 if how == "swap" else len(events)
    k = 1 + int(where * (last - 1) + 0.5) if last > 1 else 1
    with tempfile.TemporaryDirectory() as d:
        db = pathlib.Path(d) / "t.db"
        with EventLog(db, table_id="T1", clock=Clock()) as log:
            log.append_many(events)
        before = raw(db).execute("SELECT * FROM events ORDER BY seq").fetchall()
        tamper(db, how, k)
        after = raw(db).execute("SELECT * FROM events ORDER BY seq").fetchall()
        if before == after:  # e.g. the payload written was already the tampered one
            return
        with EventLog(db, readonly=True, verify="none") as log:
            report = log.verify()
        assert not report.ok
        assert report.first_bad_seq == k, (how, k, report)


def test_full_recompute_passes_without_key_but_not_with_one(tmp_path: pathlib.Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A plain chain cannot see a rewrite with every later hash recomputed; a keyed one can."""

    def rewrite(path: pathlib.Path) -> None:
        db = raw(path)
        rows = db.execute("SELECT seq, ts, table_id, hand_no, kind, payload FROM events ORDER BY seq").fetchall()
        prev = GENESIS
        for seq, ts, tid, hand, kind, text in rows:
            if seq == 3:
                text = canonical_payload({"seat": 4, "amount": 10_000})
            h = row_digest(seq, ts, tid, hand, kind, text, prev)
            db.execute("UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?", (text, prev, h, seq))
            prev = h
        db.execute("UPDATE log_info SET value = ? WHERE key = 'head_hash'", (prev,))
        db.execute("UPDATE log_info SET value = 'sha256' WHERE key = 'hash_mode'")
        db.close()

    plain, keyed = tmp_path / "plain.db", tmp_path / "keyed.db"
    make_log(plain, 6).close()
    rewrite(plain)
    with EventLog(plain, table_id="T1") as log:
        assert log.verify().ok  # the documented limit of an unkeyed chain

    make_log(keyed, 6, key="s3cret").close()
    with EventLog(keyed, table_id="T1", key="s3cret") as log:
        assert log.keyed and log.verify().ok
    monkeypatch.setenv(KEY_ENV, "s3cret")
    assert run_cli("audit", "verify", str(keyed)) == 0
    raw(keyed).execute("UPDATE events SET payload = '{}' WHERE seq = 3").connection.close()
    assert run_cli("audit", "verify", str(keyed)) == 1
    assert "first bad row 3" in capsys.readouterr().out
    rewrite(keyed)  # recomputed without the key and flagged unkeyed: a downgrade
    with EventLog(keyed, readonly=True, verify="none") as log:
        report = log.verify()
    assert not report.ok and "not keyed" in report.problem
    with pytest.raises(LogKeyError, match="not keyed"):
        EventLog(keyed, table_id="T1")
    assert run_cli("audit", "verify", str(keyed)) == 1


def test_keyed_log_needs_its_key(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "k.db"
    monkeypatch.setenv(KEY_ENV, "right")
    make_log(db, 3).close()  # keyed from the environment
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(LogKeyError, match=KEY_ENV):
        EventLog(db, table_id="T1")
    with pytest.raises(LogKeyError, match="wrong audit key"):
        EventLog(db, table_id="T1", key="wrong")
    with EventLog(db, readonly=True, verify="none") as log:  # readable for 'audit show'
        assert [e.seq for e in log] == [1, 2, 3]
        with pytest.raises(LogWriteError):
            log.append("x", {})
    assert run_cli("audit", "verify", str(db)) == 2
    assert KEY_ENV in capsys.readouterr().err
    assert run_cli("audit", "show", str(db)) == 0


# -- files that are not logs, write failures ---------------------------------------------------

def test_not_a_log(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all\n" * 100)
    with pytest.raises(LogFormatError, match="not a cardroom event log"):
        EventLog(garbage, table_id="T1")
    assert garbage.read_bytes().startswith(b"this is not")  # untouched
    other = tmp_path / "other.db"
    raw(other).execute("CREATE TABLE users (name TEXT)").connection.close()
    with pytest.raises(LogFormatError, match="tables: users"):
        EventLog(other, table_id="T1")
    with pytest.raises(LogFormatError, match="no such event log"):
        EventLog(tmp_path / "missing.db", create=False)
    for path in (garbage, other, tmp_path / "missing.db", tmp_path):
        assert run_cli("audit", "verify", str(path)) == 2
        assert "cardroom audit:" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


def test_corrupt_sqlite_file_is_damaged(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.db"
    make_log(db, 300).close()
    data = bytearray(db.read_bytes())
    for i in range(4096 * 2, min(len(data), 4096 * 4)):  # smash pages in the middle of the file
        data[i] = 0xA5
    db.write_bytes(bytes(data))
    with pytest.raises(LogDamaged, match="damaged"):
        EventLog(db, table_id="T1")
    assert run_cli("audit", "verify", str(db)) in (1, 2)


def test_read_only_log_refuses_writes_and_loses_nothing(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    make_log(db, 5).close()
    with EventLog(db, readonly=True) as log:
        with pytest.raises(LogWriteError, match="read-only"):
            log.append("action", {"seat": 1})
    with EventLog(db, table_id="T1") as log:
        assert log.last_seq == 5 and log.verify().ok


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file modes")
def test_read_only_file(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    make_log(db, 5).close()
    db.chmod(0o444)
    try:
        with EventLog(db, table_id="T1") as log:
            with pytest.raises(LogWriteError, match="read-only"):
                log.append("action", {"seat": 1})
    except LogWriteError:
        pass  # refused at open is as good
    finally:
        db.chmod(0o644)
    with EventLog(db, table_id="T1") as log:
        assert log.last_seq == 5 and log.verify().ok


def test_disk_full_writes_nothing(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    with make_log(db, 5) as log:
        log.set_meta("reader_ack_seq", "5")
        pages = log._db.execute("PRAGMA page_count").fetchone()[0]
        log._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk full"
        with pytest.raises(LogWriteError, match="disk is full"):
            log.append_many([("action", {"blob": "x" * 20_000})] * 3, meta={"reader_ack_seq": "8"})
        assert log.last_seq == 5 and log.get_meta("reader_ack_seq") == "5"
        log._db.execute("PRAGMA max_page_count = 1073741823")
        assert log.append("action", {"seat": 2}).seq == 6  # recovers once space is back
        assert log.verify().ok


def test_locked_database(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    with make_log(db, 2, busy_timeout=0.05) as log:
        other = raw(db)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(LogWriteError, match="locked"):
                log.append("action", {"seat": 1})
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert log.append("action", {"seat": 1}).seq == 3 and log.verify().ok


def test_two_writers_keep_one_chain(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    with make_log(db, 1) as a, EventLog(db, table_id="T1") as b:
        a.append("x", {}); b.append("y", {}); a.append("z", {})
        assert [e.kind for e in b][1:] == ["x", "y", "z"] and b.verify().ok


def test_another_writer_is_noticed_though_the_head_is_not_read_back(tmp_path: pathlib.Path) -> None:
    """An append chains after the last row this log wrote without reading it back; another writer's
    rows in between are found at the insert, and ``expect_seq`` is judged against the rows on file."""
    db = tmp_path / "t.db"
    with make_log(db, 2) as a, EventLog(db, table_id="T1") as b:
        a.append("x", {})
        b.append("y", {})
        z = b.append("z", {})
        with pytest.raises(LogWriteError, match="another writer.*its last row is 5, row 4 was expected"):
            a.append_many([("w", {})], expect_seq=4)
        assert a.append_many([("w", {})], expect_seq=6)[0].prev_hash == z.hash
        b.append_many([("v", {})], meta={"k": "1"})  # b's head is stale: it appends after a's row
        assert a.append("u", {}).seq == 8
        assert [e.kind for e in a][2:] == ["x", "y", "z", "w", "v", "u"] and a.verify().ok and b.verify().ok
        assert a.get_meta("k") == "1"


def test_show(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.db"
    make_log(db, 4).close()
    assert run_cli("audit", "show", str(db), "--since", "2") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].split()[0] == "3" and "action" in lines[0]
    assert run_cli("audit", "show", "--json", str(db)) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["seq"] for r in rows] == [1, 2, 3, 4] and rows[0]["payload"] == payload(0)


def test_tail_verification_at_open(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "t.db"
    make_log(db, 150).close()
    tamper(db, "payload", 10)
    with EventLog(db, table_id="T1", verify="tail") as log:  # only the last 100 rows are checked
        assert log.verify(since_seq=100).ok and log.verify().first_bad_seq == 10
    tamper(db, "payload", 140)
    with pytest.raises(LogDamaged) as info:
        EventLog(db, table_id="T1", verify="tail")
    assert info.value.row == 140


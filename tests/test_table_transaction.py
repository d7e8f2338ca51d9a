"""Transactions: the events of one command, one reader batch or one camera frame in one commit.

All or none (a failed write leaves nothing of the group on disk and nothing of it in memory: the
state is the fold of the log), listeners hear of events only after the commit, nested transactions
join the outer one, and each source batch is one commit."""

from __future__ import annotations

import sqlite3

import pytest
from table_helpers import make_table

from controller.cards import Card
from controller.eventlog import EventLog, LogWriteError
from controller.service import CommandError, TableService
from controller.table import MemoryLog, Table, TableError, settings_from_game
from firmware_bridge.records import Alert, AlertKind, CardSighting, antenna_of
from firmware_bridge.table_sink import ACK_KEY, TableSink

GAME = {"table_id": "tx-1", "variant": "NT", "seats": 6, "stakes": {"small_blind": 1, "big_blind": 2},
        "smallest_chip": 1}


def replayed(log) -> dict:
    """The table as a fresh replay of ``log`` sees it."""
    return Table.open(settings_from_game(GAME), log).snapshot()


def counting(log):
    """Count the commits that carry events or meta (every ``append_many`` is one transaction)."""
    calls = []
    inner = log.append_many

    def append_many(events, **kw):
        events = list(events)
        out = inner(events, **kw)
        calls.append((len(events), dict(kw.get("meta") or {})))
        return out

    log.append_many = append_many
    return calls


def sighting(seq: int, card: str, place: str, event: str = "enter") -> CardSighting:
    c = Card.parse(card)
    return CardSighting(seq, event, c, place, antenna_of(place), bytes([0xE0, 0, 0, 0, 0, 0, 0, c.index]))


def seated_service(tmp_path, busy_timeout: float = 2.0) -> TableService:
    svc = TableService(GAME, EventLog(tmp_path / "t.db", table_id="tx-1", busy_timeout=busy_timeout))
    for seat in (1, 2, 3):
        svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 100})
    return svc


def lock(db):
    blocker = sqlite3.connect(db)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holds the database: writes cannot happen
    return blocker


# --------------------------------------------------------------------------------- the table
def test_a_transaction_is_one_commit_and_later_checks_see_earlier_events():
    log = MemoryLog()
    t = make_table("NT", log=log)
    t.start_hand(3)
    before = log.commits
    told = []
    t.listeners.append(lambda e: told.append((e.seq, log.last_seq)))
    with t.transaction():
        t.deal(1, "AsAh")
        t.deal(2, "KsKh")
        with pytest.raises(TableError, match="duplicate card As"):
            t.deal(3, "AsQd")  # sees the first deal although nothing is written yet
        t.deal(3, "QsQh")
        assert told == [] and log.last_seq == 4  # three seats and the hand's start
        assert t.hand.state.actor is not None  # the state moved on already
    assert log.commits == before + 1
    assert [seq for seq, _ in told] == [5, 6, 7]
    assert all(written == 7 for _, written in told)  # every listener call came after the commit
    assert t.snapshot() == Table.open(t._initial_settings, log).snapshot()


def test_an_error_inside_a_transaction_writes_nothing_and_restores_the_state():
    log = MemoryLog()
    t = make_table("NT", log=log)
    t.start_hand(3)
    t.deal(1, "AsAh")
    before, seqs = t.snapshot(), log.last_seq
    with pytest.raises(RuntimeError, match="boom"):
        with t.transaction():
            t.deal(2, "KsKh")
            t.deal(3, "QsQh")
            raise RuntimeError("boom")
    assert log.last_seq == seqs and t.snapshot() == before
    t.deal(2, "KsKh")  # the table goes on from where the log stands
    assert t.hand.state.hole[t.hand.index(2)] == [Card.parse("Ks"), Card.parse("Kh")]


def test_nested_transactions_join_the_outer_one():
    log = MemoryLog()
    t = make_table("NT", log=log)
    t.start_hand(3)
    commits = log.commits
    with t.transaction() as outer:
        t.deal(1, "AsAh")
        with t.transaction() as inner:
            assert inner is outer
            t.deal(2, "KsKh")
        with pytest.raises(TableError):
            with t.transaction():  # a savepoint: only this part is undone
                t.deal(3, "QsQh")
                t.check_call(1)  # out of turn
        assert len(outer.events) == 2 and t.hand.state.hole[t.hand.index(3)] == []
        t.deal(3, "QdQc")
    assert log.commits == commits + 1
    assert [e.kind for e in log.events[-3:]] == ["cards_dealt"] * 3
    assert t.snapshot() == Table.open(t._initial_settings, log).snapshot()
    with pytest.raises(KeyError):
        with t.transaction():
            t.check_call(t.hand.seat(t.hand.state.actor))
            with t.transaction():
                t.check_call(t.hand.seat(t.hand.state.actor))
            raise KeyError("the outer one fails: nothing at all")
    assert log.commits == commits + 1
    assert t.snapshot() == Table.open(t._initial_settings, log).snapshot()


def test_a_failed_write_undoes_the_whole_group_in_memory_too(tmp_path):
    db = tmp_path / "t.db"
    log = EventLog(db, table_id="tx-1", busy_timeout=0.05)
    t = Table.open(settings_from_game(GAME), log)
    t.configure(GAME)
    for seat in (1, 2, 3):
        t.seat_player(seat, f"p{seat}", 100)
    t.start_hand(3)
    before, seqs = t.snapshot(), log.last_seq
    told = []
    reader = sqlite3.connect(db)  # another process's view of the file

    def listener(event):
        on_disk = reader.execute("SELECT max(seq) FROM events").fetchone()[0]
        assert on_disk >= event.seq, "told of an event before it was committed"
        told.append(event)

    t.listeners.append(listener)
    blocker = lock(db)
    try:
        with pytest.raises(LogWriteError, match="locked"):
            with t.transaction():
                t.deal(1, "AsAh")
                t.deal(2, "KsKh")
                t.deal(3, "QsQh")
    finally:
        blocker.rollback()
        blocker.close()
    assert told == [] and log.last_seq == seqs
    assert t.snapshot() == before == replayed(log)
    with t.transaction():
        t.deal(1, "AsAh")
        t.deal(2, "KsKh")
    assert [e.kind for e in told] == ["cards_dealt", "cards_dealt"] and log.last_seq == seqs + 2
    assert t.snapshot() == replayed(log) and log.verify().ok
    reader.close()
    log.close()


def test_another_writer_during_a_transaction_is_refused_and_nothing_is_lost(tmp_path):
    db = tmp_path / "t.db"
    log = EventLog(db, table_id="tx-1")
    t = Table.open(settings_from_game(GAME), log)
    t.configure(GAME)
    for seat in (1, 2, 3):
        t.seat_player(seat, f"p{seat}", 100)
    with EventLog(db, table_id="tx-1") as other:
        with pytest.raises(LogWriteError, match="another writer"):
            with t.transaction():
                t.start_hand(3)
                other.append("alert", {"alert": "someone else"})
    assert log.last_seq == 5 and [e.kind for e in log][-1] == "alert"
    assert t.hand is None and t.snapshot() == replayed(log)
    log.close()


def test_a_log_that_cannot_be_read_back_is_replayed_before_the_next_event(tmp_path):
    log = MemoryLog()
    t = make_table("NT", log=log)
    t.start_hand(3)
    real = log.append_many

    def broken(*a, **kw):
        raise OSError("I/O error")

    log.append_many = broken
    log.__class__ = type("Unreadable", (MemoryLog,), {"__iter__": lambda self: (_ for _ in ()).throw(OSError("I/O"))})
    with pytest.raises(OSError, match="I/O error"):
        with t.transaction():
            t.deal(1, "AsAh")
    assert t._lost is not None and t.hand is None  # the state could not be rebuilt yet: none is shown
    with pytest.raises(OSError):
        with t.transaction():  # tries again first, and refuses while the log cannot be read
            pass
    with pytest.raises(TableError):
        t.deal(1, "AsAh")
    log.__class__ = MemoryLog
    log.append_many = real
    with pytest.raises(TableError, match="rebuilt from its log"):
        t.seat_player(1, "again", 100)  # checked against the blank state: refused, then rebuilt
    assert t.hand is not None and t.players[1][0] == "player1"
    with t.transaction():
        t.deal(1, "AsAh")
    assert t._lost is None and t.snapshot() == Table.open(t._initial_settings, log).snapshot()


def test_meta_goes_in_the_same_commit_and_alone_when_there_are_no_events(tmp_path):
    with EventLog(tmp_path / "t.db", table_id="tx-1") as log:
        t = Table.open(settings_from_game(GAME), log)
        calls = counting(log)
        with t.transaction() as tx:
            t.configure(GAME)
            tx.set_meta("k", "1")
        with t.transaction() as tx:
            tx.set_meta("k", "2")
        with t.transaction():
            pass  # nothing to write: no commit
        assert calls == [(1, {"k": "1"}), (0, {"k": "2"})] and log.get_meta("k") == "2"


# ------------------------------------------------------------------------------- the service
def deal_and_check_down(svc) -> None:
    """Deal three hands and the board by hand and check every street down (dealer commands)."""
    for seat, cards in ((1, "AsAh"), (2, "KsKh"), (3, "QsQh")):
        svc.command("deal", {"seat": seat, "cards": cards})
    for seat in (3, 1, 2):
        svc.command("check_call", {"seat": seat})
    for board in ("2c3d7h", "9s", "Td"):
        svc.command("deal", {"seat": None, "cards": board})
        for seat in (1, 2, 3):
            svc.command("check_call", {"seat": seat})


def test_each_service_command_is_one_commit(tmp_path):
    svc = seated_service(tmp_path)
    calls = counting(svc.log)
    svc.command("start_hand", {"button": 3})
    assert calls[-1][0] == 1
    # The board: a reader batch per street (below, the dealer enters the cards by hand).
    deal_and_check_down(svc)
    assert calls[-1][0] == 2  # the last call ends the betting: the action and the showdown plan
    for seat in (1, 2, 3):
        svc.command("table_hand", {"seat": seat})
    n = len(calls)
    stored = svc.command("muck_losers")
    assert len(calls) == n + 1 and [e["kind"] for e in stored] == ["hand_mucked", "hand_mucked"]
    svc.command("push")
    assert all(c[0] >= 1 for c in calls) and svc.snapshot() == {**replayed(svc.log), "last_seq": svc.log.last_seq,
                                                                "log_error": None, "cameras": []}
    svc.close()


def test_a_command_that_cannot_be_written_leaves_nothing_in_memory_either(tmp_path):
    svc = seated_service(tmp_path, busy_timeout=0.05)
    svc.command("start_hand", {"button": 3})
    deal_and_check_down(svc)
    for seat in (1, 2, 3):
        svc.command("table_hand", {"seat": seat})
    before, seqs = svc.snapshot(), svc.log.last_seq
    heard = svc.subscribe()
    blocker = lock(svc.log.path)
    try:
        with pytest.raises(CommandError, match="event log cannot be written"):
            svc.command("muck_losers")  # two mucks: neither is written, neither is applied
    finally:
        blocker.rollback()
        blocker.close()
    assert heard.queue.empty() and svc.log.last_seq == seqs
    after = svc.snapshot()
    assert after["hand"] == before["hand"] and after["log_error"]
    assert any(a["alert"] == "log_unwritable" for a in svc.alerts())
    assert after["hand"] == replayed(svc.log)["hand"]
    svc.command("muck_losers")
    svc.command("push")
    assert heard.queue.qsize() == 3 and svc.snapshot()["log_error"] is None and svc.audit()["ok"]
    svc.close()


def test_a_refused_start_keeps_the_pending_configuration(tmp_path):
    svc = TableService(GAME, EventLog(tmp_path / "t.db", table_id="tx-1"))
    svc.command("seat_player", {"seat": 1, "name": "p1", "stack": 100})
    svc.pending_game = {**GAME, "stakes": {"small_blind": 5, "big_blind": 10}, "smallest_chip": 5}
    seqs = svc.log.last_seq
    with pytest.raises(CommandError, match="at least two"):
        svc.command("start_hand", {"button": 1})  # configure + a refused start: nothing stays
    assert svc.log.last_seq == seqs and svc.pending_game is not None
    assert svc.table._game == GAME
    svc.close()


# ------------------------------------------------------------------------ reader and cameras
def test_a_reader_batch_is_one_commit_with_its_ack(tmp_path):
    svc = seated_service(tmp_path)
    svc.command("start_hand", {"button": 3})
    sink = TableSink(svc)
    calls = counting(svc.log)
    hole = [("As", 1), ("Ks", 2), ("Qs", 3), ("Ah", 1), ("Kh", 2), ("Qh", 3)]
    batch = [sighting(k, card, f"seat{seat}") for k, (card, seat) in enumerate(hole, 1)]
    batch.append(Alert(AlertKind.AMBIGUOUS, {"uid": b"\x01" * 8}))
    sink.store(batch, ack_seq=6)
    assert len(calls) == 1
    n_events, meta = calls[0]
    assert n_events == 6 + 6 + 1 and meta == {ACK_KEY: "6"}  # sightings, deals, the alert
    assert svc.log.get_meta(ACK_KEY) == "6"
    assert {s: v["cards"] for s, v in svc.snapshot()["hand"]["seats"].items()} == {
        "1": ["As", "Ah"], "2": ["Ks", "Kh"], "3": ["Qs", "Qh"]}
    assert svc.snapshot()["hand"] == replayed(svc.log)["hand"]
    svc.close()


def test_a_reader_batch_that_cannot_be_stored_is_not_acked_and_leaves_nothing(tmp_path):
    svc = seated_service(tmp_path, busy_timeout=0.05)
    svc.command("start_hand", {"button": 3})
    sink = TableSink(svc)
    sink.store([sighting(1, "As", "seat1")], ack_seq=1)
    before, seqs, placed = svc.snapshot(), svc.log.last_seq, dict(sink._placed)
    batch = [sighting(2, "Ks", "seat2"), sighting(3, "Qs", "seat3"), sighting(4, "Ah", "seat1")]
    blocker = lock(svc.log.path)
    try:
        with pytest.raises(LogWriteError):
            sink.store(batch, ack_seq=4)
    finally:
        blocker.rollback()
        blocker.close()
    assert svc.log.last_seq == seqs and svc.log.get_meta(ACK_KEY) == "1"
    assert svc.snapshot()["hand"] == before["hand"] == replayed(svc.log)["hand"]
    assert sink._placed == placed and svc.snapshot()["log_error"]
    sink.store(batch, ack_seq=4)  # the reader sends the batch again: now it is stored once
    assert svc.log.get_meta(ACK_KEY) == "4"
    assert svc.snapshot()["hand"]["seats"]["1"]["cards"] == ["As", "Ah"]
    assert svc.snapshot()["hand"] == replayed(svc.log)["hand"]
    svc.close()


class _View:
    def __init__(self, seat, cards):
        self.seat, self.cards, self.identifiable, self.detail, self.reason = seat, cards, True, "", ""


def test_a_camera_frame_is_one_commit_and_its_frame_is_kept_with_the_stored_seqs(tmp_path):
    np = pytest.importorskip("numpy")
    pytest.importorskip("cv2")
    from controller.runtime import CameraLink
    from vision.config import CameraConfig

    svc = seated_service(tmp_path)
    svc.command("start_hand", {"button": 3})
    for seat, cards in ((1, "AsAh"), (2, "KsKh"), (3, "QsQh")):
        svc.command("deal", {"seat": seat, "cards": cards})
    svc.command("fold", {"seat": 3})
    svc.command("check_call", {"seat": 1})
    svc.command("check_call", {"seat": 2})
    for board in ("2c3d7h", "9s", "Td"):
        svc.command("deal", {"seat": None, "cards": board})
        svc.command("check_call", {"seat": 1})
        svc.command("check_call", {"seat": 2})

    class Watcher:
        def watch(self, frame, reader):
            return [_View(1, [Card.parse("As"), Card.parse("Ah")]), _View(2, [Card.parse("Ks"), Card.parse("Qd")])]

    link = CameraLink.__new__(CameraLink)
    link.service, link._watchers = svc, {"holdem": Watcher()}
    link._focus_checks, link._blurred_checks = {}, 0  # a watcher that measures no focus
    link.camera, link._frame_size = CameraConfig(source="0"), None  # no zone to check against the frame
    calls = counting(svc.log)
    link.look(np.zeros((8, 8, 3), np.uint8))
    assert len(calls) == 1 and calls[0][0] == 3  # two seat views and the camera/reader mismatch alert
    kinds = {e["seq"]: e["kind"] for e in svc.events(0)}
    assert [kinds[s] for s in svc.frame_seqs()] == ["seat_view", "seat_view"]
    svc.close()


def test_hands_driven_as_the_product_drives_them_commit_per_source_batch(tmp_path):
    """The bench's product flow: console commands, reader batches per deal round, a camera frame."""
    import random

    from table_helpers import ProductDriver

    log = EventLog(tmp_path / "t.db", table_id="tx-1", synchronous="NORMAL")
    svc = TableService(GAME, log)
    for seat in range(1, 7):
        svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 200})
    driver = ProductDriver(svc, random.Random(4))
    commits, events = log.commits, log.last_seq
    for _ in range(12):
        driver.play_hand()
    kinds = [e.kind for e in log.events(events)]
    assert kinds.count("pot_pushed") == 12 and "card_seen" in kinds and "seat_view" in kinds
    assert log.commits - commits < len(kinds) / 2  # far fewer commits than events
    assert log.get_meta(ACK_KEY) == str(driver.reader_seq)
    assert svc.snapshot() == {**replayed(log), "last_seq": log.last_seq, "log_error": None, "cameras": []}
    assert log.verify().ok
    svc.close()

"""The table service: a log that cannot be written stops new actions with an alert; frames on disk."""

from __future__ import annotations

import sqlite3

import pytest

from controller.eventlog import EventLog
from controller.service import CommandError, TableService

GAME = {"table_id": "s-1", "variant": "NT", "seats": 6, "stakes": {"small_blind": 1, "big_blind": 2},
        "smallest_chip": 1}


def test_unwritable_log_stops_new_actions_with_an_alert_and_loses_nothing(tmp_path):
    db = tmp_path / "t.db"
    svc = TableService(GAME, EventLog(db, table_id="s-1", busy_timeout=0.2))
    svc.command("seat_player", {"seat": 1, "name": "Ann", "stack": 100})
    before = svc.snapshot()
    blocker = sqlite3.connect(db)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holds the database: writes cannot happen
    try:
        with pytest.raises(CommandError, match="event log cannot be written"):
            svc.command("seat_player", {"seat": 2, "name": "Bo", "stack": 100})
        assert any(a["alert"] == "log_unwritable" for a in svc.alerts())
        after = svc.snapshot()
        assert after["players"] == before["players"] and after["log_error"]
    finally:
        blocker.rollback()
        blocker.close()
    svc.command("seat_player", {"seat": 2, "name": "Bo", "stack": 100})
    assert svc.snapshot()["log_error"] is None
    assert [e["kind"] for e in svc.events(0)].count("player_seated") == 2
    assert svc.audit()["ok"]


def test_frames_kept_on_disk_survive_a_restart(tmp_path):
    db = tmp_path / "t.db"
    svc = TableService(GAME, EventLog(db, table_id="s-1"))
    svc.frames_dir = tmp_path / "frames"
    svc.store_frame(7, b"\xff\xd8jpeg")
    svc.close()
    again = TableService(GAME, EventLog(db, table_id="s-1"))
    again.frames_dir = tmp_path / "frames"
    assert again.frame(7) == b"\xff\xd8jpeg" and again.frame_seqs() == [7]
    assert again.frame(8) is None


def test_changed_configuration_waits_for_the_hand_in_progress(tmp_path):
    db = tmp_path / "t.db"
    svc = TableService(GAME, EventLog(db, table_id="s-1"))
    for seat in (1, 2):
        svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 100})
    svc.command("start_hand", {"button": 2})
    svc.close()
    bigger = {**GAME, "stakes": {"small_blind": 5, "big_blind": 10}, "smallest_chip": 5}
    again = TableService(bigger, EventLog(db, table_id="s-1"))  # restart mid-hand with new stakes
    assert again.pending_game == bigger
    assert again.snapshot()["hand"]["pot"] == 3  # the hand in progress keeps its 1/2 blinds
    again.command("misdeal", {"reason": "test"})
    again.command("start_hand", {"button": 1})
    assert again.snapshot()["hand"]["pot"] == 15 and again.pending_game is None

"""The table on its SQLite event log: crash recovery, history export, audit."""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time
import warnings

import pokerkit
import pytest
from table_helpers import deal_street, play_random_hand

from controller.cards import FULL_DECK

from controller.cli import main
from controller.eventlog import EventLog
from controller.table import Table, settings_from_game

HERE = pathlib.Path(__file__).parent
GAME = {"table_id": "t-1", "variant": "NT", "seats": 6, "tournament": False,
        "stakes": {"small_blind": 1, "big_blind": 2}, "smallest_chip": 1}


@pytest.mark.parametrize("mode", ["event", "tx"])
def test_kill_9_mid_hand_then_restart_continues_exactly(tmp_path, mode):
    """``event``: every event its own commit; ``tx``: one transaction per command or street."""
    db = tmp_path / "table.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE)])}
    child = subprocess.Popen([sys.executable, str(HERE / "table_child.py"), str(db), "7", mode],
                             stdout=subprocess.PIPE, text=True, env=env)
    lines = []
    deadline = time.monotonic() + 60
    try:
        # Let it play into its third hand, then kill it without warning.
        while time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            lines.append(json.loads(line))
            hand = lines[-1]["snapshot"]["hand"]
            if hand and hand["hand_no"] >= 3 and not hand["complete"] and hand["board"]:
                break
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(10)
    assert lines and lines[-1]["snapshot"]["hand"]["hand_no"] >= 3
    last = lines[-1]
    with EventLog(db) as log:
        assert log.verify().ok
        events = list(log)
        assert len(events) >= last["events"]  # nothing that was reported is lost
        # The state at the last report is exactly the fold of the events stored by then...
        at_report = Table.open(settings_from_game(GAME), events[: last["events"]])
        assert at_report.snapshot() == last["snapshot"]
        # ...and the restarted table continues the hand in progress from the whole log.
        table = Table.open(settings_from_game(GAME), log)
        h = table.hand
        assert h is not None and h.hand_no == last["snapshot"]["hand"]["hand_no"]
        if h.pushed:  # the child played the hand out and pushed the pot before the kill landed: the next hand
            for seat, (_, stack) in list(table.players.items()):
                if stack == 0:
                    table.add_chips(seat, 200)
            table.start_hand(table.next_button())
            assert table.hand is not None and table.hand.hand_no == h.hand_no + 1
        elif h.state.betting:
            seat = h.seat(h.state.actor)
            table.fold(seat) if table.can(seat, "fold") else table.check_call(seat)
        elif not h.state.complete:
            used = {c for hole in h.state.hole for c in hole} | set(h.state.board)
            deal_street(table, random.Random(0), [c for c in FULL_DECK if c not in used])
        else:  # the child played on into the showdown before the kill landed: the cameras report
            seat = h.seat(h.state.live_players()[0])
            assert table.camera_view(seat, identifiable=False, reason="after the restart") is not None
        assert len(log) > len(events)


def test_history_export_pokerkit_reads_back_final_stacks(tmp_path, capsys):
    db = tmp_path / "table.db"
    rng = random.Random(5)
    with EventLog(db, table_id="t-1") as log:
        table = Table.open(settings_from_game(GAME), log)
        table.configure(GAME)
        for seat in range(1, 6):
            table.seat_player(seat, f"p{seat}", rng.choice([20, 60, 150]))
        for _ in range(8):
            for seat, (_, stack) in list(table.players.items()):
                if stack == 0:
                    table.add_chips(seat, 50)
            play_random_hand(table, rng)
        finals = {}
        replay = Table(settings_from_game(GAME), [])
        for e in log:
            replay._apply(e)
            if e.kind == "pot_pushed":
                finals[replay.hand.hand_no] = [replay.players[s][1] for s in replay.hand.order]
    out = tmp_path / "phh"
    assert main(["history", "export", str(db), "--out", str(out)]) == 0
    files = sorted(out.glob("*.phh"))
    assert len(files) == 8
    for k, path in enumerate(files, 1):
        text = path.read_text()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for state in pokerkit.HandHistory.loads(text):
                pass
        assert list(state.stacks) == finals[k], path.name
    capsys.readouterr()
    assert main(["showdown", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["final_stacks"] for x in lines] == [finals[k] for k in range(1, 9)]


def test_audit_verify_names_tampered_row_of_a_table_log(tmp_path, capsys):
    import sqlite3

    db = tmp_path / "table.db"
    with EventLog(db, table_id="t-1") as log:
        table = Table.open(settings_from_game(GAME), log)
        table.configure(GAME)
        for seat in range(1, 4):
            table.seat_player(seat, f"p{seat}", 100)
        play_random_hand(table, random.Random(1))
    assert main(["audit", "verify", str(db)]) == 0
    con = sqlite3.connect(db)
    row = con.execute("SELECT seq, payload FROM events WHERE kind = 'pot_pushed'").fetchone()
    con.execute("UPDATE events SET payload = ? WHERE seq = ?", (row[1].replace("1", "9", 1), row[0]))
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["audit", "verify", str(db)]) == 1
    assert f"row {row[0]}" in capsys.readouterr().out

"""The reader feeding the table: the simulator on a real pty, the bridge, the table's SQLite log."""

from __future__ import annotations

import pathlib
import time

from controller.eventlog import EventLog
from controller.service import TableService
from firmware_bridge.deck import load_deck
from firmware_bridge.simulator import Simulator
from firmware_bridge.table_sink import ACK_KEY, ReaderRunner
from firmware_bridge.transport import PtyDevice

DECK = pathlib.Path(__file__).resolve().parents[1] / "config" / "deck-A.csv"
GAME = {"table_id": "t-r", "variant": "NT", "seats": 6, "stakes": {"small_blind": 1, "big_blind": 2},
        "smallest_chip": 1}


def wait(pred, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def start(tmp_path, log):
    svc = TableService(GAME, log)
    sim = Simulator(PtyDevice(str(tmp_path / "reader0")), deck=load_deck(DECK)).start()
    runner = ReaderRunner(svc, sim.address, [DECK], leave_after=0.1).start()
    return svc, sim, runner


def test_reader_deals_the_hand_into_the_table_and_survives_a_restart(tmp_path):
    db = tmp_path / "t.db"
    log = EventLog(db, table_id="t-r")
    svc, sim, runner = start(tmp_path, log)
    try:
        for seat in (1, 2, 3):
            svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 100})
        svc.command("start_hand", {"button": 3})
        for card, place in [("As", "seat1"), ("Kd", "seat2"), ("7c", "seat3"),
                            ("Ah", "seat1"), ("Kh", "seat2"), ("2d", "seat3")]:
            sim.submit(f"deal {card} {place}")
        assert wait(lambda: svc.snapshot()["hand"]["actor"] == 3), svc.snapshot()["hand"]
        hole = {s: v["cards"] for s, v in svc.snapshot()["hand"]["seats"].items()}
        assert hole == {"1": ["As", "Ah"], "2": ["Kd", "Kh"], "3": ["7c", "2d"]}
        svc.command("fold", {"seat": 3})
        svc.command("check_call", {"seat": 1})
        svc.command("check_call", {"seat": 2})
        sim.submit("deal 9s burn")
        for card in ("Qc", "Jd", "3h"):
            sim.submit(f"deal {card} board")
        assert wait(lambda: svc.snapshot()["hand"]["board"] == ["Qc", "Jd", "3h"])
        sim.submit("deal 5c seat4")  # a card where no hand is being dealt: an alert, not a card
        assert wait(lambda: any(a["alert"] == "unexpected_card" for a in svc.alerts()))
        assert wait(lambda: log.get_meta(ACK_KEY) is not None)
    finally:
        runner.stop()
    seen = [e for e in svc.events(0) if e["kind"] == "card_seen"]
    svc.close()
    # Restart: the controller reopens its log; the reader is still up and resends nothing twice.
    log2 = EventLog(db, table_id="t-r")
    svc2 = TableService(GAME, log2)
    runner2 = ReaderRunner(svc2, sim.address, [DECK], leave_after=0.1).start()
    try:
        sim.submit("deal 8h board")  # the turn comes after a flop betting round: not due yet
        assert wait(lambda: any(a["alert"] == "unexpected_card" and a["card"] == "8h" for a in svc2.alerts()))
        svc2.command("check_call", {"seat": 1})
        svc2.command("check_call", {"seat": 2})
        sim.submit("deal 4s burn")
        sim.submit("deal Td board")
        assert wait(lambda: svc2.snapshot()["hand"]["board"] == ["Qc", "Jd", "3h", "Td"]), (svc2.snapshot()["hand"]["board"], svc2.alerts(), runner2.error)
    finally:
        runner2.stop()
        sim.stop()
    seen2 = [e for e in svc2.events(0) if e["kind"] == "card_seen"]
    keys = [(e["payload"]["seq"], e["payload"]["event"], e["payload"]["card"]) for e in seen2
            if e["payload"]["seq"] is not None]
    assert len(keys) == len(set(keys)), "a reader event was stored twice"
    assert seen2[: len(seen)] == seen
    assert log2.verify().ok
    log2.close()

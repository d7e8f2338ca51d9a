"""A table process for the crash test: plays random hands on an on-disk log, printing after every
command the number of events stored and the table's snapshot (JSON), until it is killed.

``table_child.py DB SEED [tx]``: with ``tx`` every command is one transaction (one commit) and a
street's cards are dealt in one, as the service and the reader do."""

from __future__ import annotations

import contextlib
import json
import random
import sys

from table_helpers import deal_street, random_action

from controller.cards import FULL_DECK
from controller.eventlog import EventLog
from controller.table import Table, settings_from_game

GAME = {"table_id": "crash-1", "variant": "NT", "seats": 6, "tournament": False,
        "stakes": {"small_blind": 1, "big_blind": 2}, "smallest_chip": 1}


def main() -> None:
    db, seed = sys.argv[1], int(sys.argv[2])
    grouped = sys.argv[3:] == ["tx"]
    rng = random.Random(seed)
    log = EventLog(db, table_id="crash-1")
    table = Table.open(settings_from_game(GAME), log)
    table.configure(GAME)
    if not table.players:
        for seat in range(1, 7):
            table.seat_player(seat, f"p{seat}", 200)

    def report() -> None:
        print(json.dumps({"events": len(log), "snapshot": table.snapshot()}), flush=True)

    report()
    while True:
        with table.transaction() if grouped else contextlib.nullcontext():
            step(table, rng)
        report()


def step(table: Table, rng: random.Random) -> None:
    """One command (a whole street's deal, or the whole showdown)."""
    h = table.hand
    if h is None or h.pushed or h.voided:
        for seat, (_, stack) in list(table.players.items()):
            if stack == 0:
                table.add_chips(seat, 200)
        table.start_hand(table.next_button())
        deck = [c for c in FULL_DECK]
        rng.shuffle(deck)
        table._test_deck = deck  # type: ignore[attr-defined]
    elif h.state.complete:
        if len(h.state.live_players()) > 1:
            for entry in table.snapshot()["hand"]["showdown"]["order"]:
                table.table_hand(entry["seat"])
            table.muck_losers()
        table.push()
    elif h.state.betting:
        random_action(table, rng)
    else:
        deal_street(table, rng, table._test_deck)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()

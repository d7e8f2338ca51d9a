"""Table throughput and recovery on the SQLite event log.

    python bench/bench_table.py [--hands 10000] [--durable-hands 100] [--product-hands 1000] [--dir DIR]

Random legal No-limit Hold'em hands (6 seats, stacks of 200 at 1/2, busted seats buy 200 again), the
log on disk. Three ways of driving them:

1. **Direct, one commit per event** (the figures of the first version, kept to compare): the
   ``Table`` API called directly outside any transaction, so every event is its own SQLite
   transaction; with ``synchronous=FULL`` (``durability = "full"``, the default: every event
   fsynced before anyone is told) over ``--durable-hands`` hands, and with ``synchronous=NORMAL``
   (WAL without the fsync: survives a controller crash, not a power cut) over ``--hands`` hands.
2. **Product flow** (``ProductDriver`` in ``tests/table_helpers.py``), ``--product-hands`` hands, as
   a running table is driven: every dealer's-console entry (rebuy, start, each betting action, each
   hand tabled, muck the losers, push) is one ``TableService.command``, that is one transaction
   and one commit; the reader's sightings of one deal round (a street's hole cards, or the burn
   and the board cards) are one ``TableSink.store`` batch, stored with the reader's acknowledged
   seq in one transaction; the cameras' views of the showdown are one frame, one transaction.
   Every commit is fsynced (``FULL``) before its caller gets its answer and before listeners
   (the live views) hear of its events. This flow stores more events per hand than (1): the
   reader's raw sightings (``card_seen``), the burns and the camera's seat views come on top.
   Also measured: the same with ``NORMAL`` (the Python share) and with one reader batch per card
   (the worst case for the reader: every card acknowledged on its own).
3. **Replay**: reopening the log of (1, ``NORMAL``) with the whole hash chain verified and folding
   it back into the table's state (crash recovery).

Targets (issue 3): at least 200 hands/s with the log on disk; replay of 10,000 hands under 10 s.
The fsync is the disk's: run it with ``--dir`` on the disk the table will use. The output also
gives the load average before and after, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import random
import sqlite3
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from table_helpers import ProductDriver, play_random_hand  # noqa: E402

from controller.eventlog import EventLog  # noqa: E402
from controller.service import TableService  # noqa: E402
from controller.table import Table, settings_from_game  # noqa: E402

GAME = {"table_id": "bench", "variant": "NT", "seats": 6, "tournament": False,
        "stakes": {"small_blind": 1, "big_blind": 2}, "smallest_chip": 1}


def play_direct(path: pathlib.Path, hands: int, sync: str) -> dict[str, float]:
    """The Table API called directly: every event its own commit."""
    rng = random.Random(1)
    with EventLog(path, table_id="bench", synchronous=sync) as log:  # type: ignore[arg-type]
        table = Table.open(settings_from_game(GAME), log)
        table.configure(GAME)
        for seat in range(1, 7):
            table.seat_player(seat, f"p{seat}", 200)
        events0, commits0 = log.last_seq, log.commits
        t = time.perf_counter()
        for _ in range(hands):
            for seat, (_, stack) in list(table.players.items()):
                if stack == 0:
                    table.add_chips(seat, 200)
            play_random_hand(table, rng)
        elapsed = time.perf_counter() - t
        return {"rate": hands / elapsed, "events": (log.last_seq - events0) / hands,
                "commits": (log.commits - commits0) / hands}


def play_product(path: pathlib.Path, hands: int, sync: str, per_card: bool = False) -> dict[str, float]:
    """The product's flow: service commands, reader batches, camera frames; one commit each."""
    rng = random.Random(1)
    log = EventLog(path, table_id="bench", synchronous=sync)  # type: ignore[arg-type]
    service = TableService(GAME, log)
    for seat in range(1, 7):
        service.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 200})
    driver = ProductDriver(service, rng, per_card=per_card)
    events0, commits0 = log.last_seq, log.commits
    t = time.perf_counter()
    for _ in range(hands):
        driver.play_hand()
    elapsed = time.perf_counter() - t
    out = {"rate": hands / elapsed, "events": (log.last_seq - events0) / hands,
           "commits": (log.commits - commits0) / hands}
    service.close()
    return out


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=10000, help="direct NORMAL run and replay")
    ap.add_argument("--durable-hands", type=int, default=100, help="direct FULL run")
    ap.add_argument("--product-hands", type=int, default=1000, help="product-flow runs")
    ap.add_argument("--dir", default=None, help="folder for the log files (default: a temp folder)")
    args = ap.parse_args()
    print(f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs; "
          f"load average before: {load()}")
    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        folder = pathlib.Path(d)

        def row(label: str, r: dict[str, float]) -> None:
            rows.append(f"| {label} | {r['rate']:.1f} hands/s | {r['commits']:.1f} | {r['events']:.1f} | 200 hands/s |")

        product = play_product(folder / "product-full.db", args.product_hands, "FULL")
        row("product flow, every commit fsynced (`FULL`): one commit per console entry, reader batch "
            "(a deal round) and camera frame", product)
        row("the same, one reader batch per card (`FULL`)",
            play_product(folder / "product-card.db", args.product_hands, "FULL", per_card=True))
        row("the same product flow with `NORMAL` (no fsync: the Python share)",
            play_product(folder / "product-normal.db", args.product_hands, "NORMAL"))
        row("direct Table API, one commit per event, every commit fsynced (`FULL`)",
            play_direct(folder / "full.db", args.durable_hands, "FULL"))
        row("direct Table API, one commit per event, `NORMAL`",
            play_direct(folder / "normal.db", args.hands, "NORMAL"))
        t = time.perf_counter()
        with EventLog(folder / "normal.db") as log:
            opened = time.perf_counter() - t
            events = log.last_seq
            table = Table.open(settings_from_game(GAME), log)
        replay = time.perf_counter() - t
        assert table.hands_played == args.hands
    print(f"load average after: {load()}")
    print()
    print("| measure | hands/s | commits/hand | events/hand | target |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    print()
    print("| measure | result | target |")
    print("| --- | --- | --- |")
    print(f"| reopen + verify + replay a log of {args.hands} hands ({events} events) | {replay:.2f} s "
          f"(open+verify {opened:.2f} s) | < 10 s |")


if __name__ == "__main__":
    main()

"""Event log benchmark: durable append latency and replay speed.

    python bench/bench_eventlog.py [--appends 10000] [--hands 10000] [--events-per-hand 40] [--dir DIR]

Append: ``--appends`` single-event appends of a ~300-byte payload, each its own transaction
(``synchronous=FULL``: the WAL is fsynced before ``append`` returns), timed one by one; also with
``synchronous=NORMAL`` for comparison (not durable against power loss, so not used).
Replay: a log of ``--hands`` hands (``--events-per-hand`` events each, written one transaction per
hand), then read back with JSON decoding, and fully verified (hash chain), as at start.
Run it on the disk the table will use (``--dir``, default a temporary folder).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from controller.eventlog import EventLog, NewEvent  # noqa: E402


def event_payload(i: int) -> dict[str, object]:
    """A realistic event: a card sighting with reader metadata (~300 bytes as stored JSON)."""
    return {
        "source": "reader", "reader_seq": 100_000 + i, "event": "enter", "uid": "E03A8EC876CE0F42",
        "card": "As", "place": f"seat{i % 9 + 1}", "antenna": i % 12, "rssi": -41, "repeat": False,
        "hand_no": i // 40, "street": "preflop", "dealer": "d-0042", "console_seq": i,
        "note": "sighting confirmed by antenna sweep", "flags": ["first_read", "stable"],
    }


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def bench_append(folder: pathlib.Path, n: int, synchronous: str) -> dict[str, float]:
    db = folder / f"append-{synchronous}.db"
    log = EventLog(db, table_id="BENCH", key=None, synchronous=synchronous)  # type: ignore[arg-type]
    times = []
    for i in range(n):
        p = event_payload(i)
        t0 = time.perf_counter()
        log.append("card_seen", p, hand_no=i // 40)
        times.append(time.perf_counter() - t0)
    log.close()
    ms = [t * 1000 for t in times]
    return {"p50": percentile(ms, 50), "p99": percentile(ms, 99), "p999": percentile(ms, 99.9),
            "max": max(ms), "mean": statistics.fmean(ms)}


def bench_replay(folder: pathlib.Path, hands: int, per_hand: int) -> dict[str, float]:
    db = folder / "replay.db"
    log = EventLog(db, table_id="BENCH", key=None)
    t0 = time.perf_counter()
    i = 0
    for h in range(hands):
        batch = []
        for _ in range(per_hand):
            batch.append(NewEvent("card_seen", event_payload(i), h))
            i += 1
        log.append_many(batch)
    build = time.perf_counter() - t0
    log.close()
    size = db.stat().st_size
    t0 = time.perf_counter()
    log = EventLog(db, table_id="BENCH", key=None, verify="none")
    count = 0
    for e in log.events():
        count += 1
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = log.verify()
    verify = time.perf_counter() - t0
    log.close()
    t0 = time.perf_counter()
    EventLog(db, table_id="BENCH", key=None).close()  # the start-up check: the full chain
    open_full = time.perf_counter() - t0
    t0 = time.perf_counter()
    log = EventLog(db, table_id="BENCH", key=None, verify="none")
    log.check_file()  # SQLite's quick_check, as 'cardroom audit verify' runs it
    quick = time.perf_counter() - t0
    log.close()
    assert report.ok and count == hands * per_hand
    return {"events": count, "build_s": build, "read_s": read, "read_eps": count / read,
            "verify_s": verify, "verify_eps": count / verify, "open_full_s": open_full, "quick_check_s": quick,
            "size_mb": size / 1e6}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--appends", type=int, default=10_000)
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--events-per-hand", type=int, default=40)
    ap.add_argument("--dir", type=pathlib.Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        folder = pathlib.Path(d)
        size = len(__import__("json").dumps(event_payload(12345), separators=(",", ":")))
        print(f"payload: {size} bytes of JSON")
        for sync in ("FULL", "NORMAL") if args.appends else ():
            r = bench_append(folder, args.appends, sync)
            print(f"append synchronous={sync}: n={args.appends} p50 {r['p50']:.3f} ms, p99 {r['p99']:.3f} ms, "
                  f"p99.9 {r['p999']:.3f} ms, max {r['max']:.2f} ms, mean {r['mean']:.3f} ms")
        r = bench_replay(folder, args.hands, args.events_per_hand)
        print(f"replay: {args.hands} hands x {args.events_per_hand} = {r['events']} events, "
              f"{r['size_mb']:.0f} MB (built in {r['build_s']:.1f} s)")
        print(f"  read + JSON decode: {r['read_s']:.2f} s ({r['read_eps']:,.0f} events/s)")
        print(f"  verify chain:       {r['verify_s']:.2f} s ({r['verify_eps']:,.0f} events/s)")
        print(f"  open with the full chain check (default): {r['open_full_s']:.2f} s")
        print(f"  SQLite quick_check (audit verify only): {r['quick_check_s']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Bridge benchmarks: decoder throughput, and simulator frame -> stored event latency over a real pty.

Run from the repository root:  python bench/bench_bridge.py [--events 600] [--frames 200000]

The latency sink is an SQLite file in WAL mode with synchronous=FULL, a stand-in for the table's log.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from controller.cards import FULL_DECK  # noqa: E402
from firmware_bridge.codec import Decoder, TagEnter, encode  # noqa: E402
from firmware_bridge.deck import DeckRegistry, make_deck  # noqa: E402
from firmware_bridge.delivery import ReaderBridge  # noqa: E402
from firmware_bridge.simulator import Simulator  # noqa: E402
from firmware_bridge.sinks import SqliteSink  # noqa: E402
from firmware_bridge.transport import PtyDevice, SerialTransport  # noqa: E402


def bench_decode(n: int) -> dict[str, float]:
    uid = bytes.fromhex("E07E7D0102030405")  # needs stuffing: the slower path
    stream = b"".join(encode(TagEnter(i % 14, uid, -40, i, seq=i % 65536)) for i in range(n))
    best = 0.0
    for _ in range(3):
        d = Decoder()
        t0 = time.perf_counter()
        got = 0
        for i in range(0, len(stream), 4096):
            got += len(d.feed(stream[i : i + 4096]))
        dt = time.perf_counter() - t0
        assert got == n
        best = max(best, n / dt)
    return {"frames": n, "bytes_per_frame": len(stream) / n, "frames_per_s": round(best)}


class TimedSink(SqliteSink):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.stored_at: dict[int, float] = {}
        self._last: int | None = None

    def store(self, records, ack_seq=None):  # type: ignore[no-untyped-def]
        super().store(records, ack_seq)
        if ack_seq is not None:
            now = time.perf_counter()
            start = ack_seq if self._last is None else self._last + 1
            for s in range(start, ack_seq + 1):
                self.stored_at.setdefault(s, now)
            self._last = ack_seq


def bench_latency(events: int, spacing: float) -> dict[str, float]:
    deck = make_deck("A")
    uids = [deck.uid_of(c) for c in FULL_DECK]
    with tempfile.TemporaryDirectory() as tmp:
        device = PtyDevice(pathlib.Path(tmp) / "reader0")
        sim = Simulator(device, deck=deck)
        written: dict[int, float] = {}
        dec = Decoder()
        real_write = device.write

        def timed_write(data: bytes) -> None:
            real_write(data)
            now = time.perf_counter()
            for m in dec.feed(data):
                if getattr(m, "EVENT", False):
                    written.setdefault(m.seq, now)

        device.write = timed_write  # type: ignore[method-assign]
        sim.start()
        sink = TimedSink(str(pathlib.Path(tmp) / "log.sqlite"))
        bridge = ReaderBridge(SerialTransport(device.address), sink, DeckRegistry([deck]), leave_after=0.1)
        stop = threading.Event()
        t = threading.Thread(target=bridge.run, args=(stop,), daemon=True)
        t.start()
        time.sleep(0.5)
        steps = []
        for i in range(events):
            card = str(FULL_DECK[(i // 2) % 52])
            place = f"seat{1 + (i // 2) % 10}"
            steps.append(f"{'place' if i % 2 == 0 else 'remove'} {card} {place}")
            steps.append(f"wait {spacing}")
        sim.run_script("\n".join(steps))
        sim.wait_idle(events * spacing * 4 + 10)
        time.sleep(1.0)
        stop.set()
        t.join(5)
        bridge.close()
        sim.stop()
        sink.close()
        del uids
    lat = sorted((sink.stored_at[s] - w) * 1000 for s, w in written.items() if s in sink.stored_at)
    missing = len([s for s in written if s not in sink.stored_at])
    q = statistics.quantiles(lat, n=100)
    return {
        "events": len(lat),
        "missing": missing,
        "p50_ms": round(statistics.median(lat), 2),
        "p99_ms": round(q[98], 2),
        "max_ms": round(lat[-1], 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=200_000)
    ap.add_argument("--events", type=int, default=600)
    ap.add_argument("--spacing", type=float, default=0.01, help="seconds between reader events")
    args = ap.parse_args()
    result = {"decode": bench_decode(args.frames), "latency": bench_latency(args.events, args.spacing)}
    print(json.dumps(result, indent=2))
    ok = result["decode"]["frames_per_s"] >= 50_000 and result["latency"]["p99_ms"] < 20 and not result["latency"]["missing"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Engine latency: a nine-handed Omaha hi/lo showdown with four side pots, hand record to awards.

    python bench/bench_showdown.py [--runs 2000]

Prints the median and p99 of ``settle(record)`` (show order, readings, pots, awards, odd chips),
and of a whole PHH replay of a real hand (parse + every action + settle). Target: median under 1 ms.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from controller import phh  # noqa: E402
from controller.cards import parse_cards  # noqa: E402
from controller.showdown import HandRecord, PlayerRecord, settle  # noqa: E402
from controller.variants import variant_for_code  # noqa: E402

HOLES = ["AsKs2d3d", "QhQd4c5c", "JsTs9h8h", "7c6c5h4h", "AhAd8s8d", "KhKd2s3s", "9c9d6s6d",
         "TcTdJcJh", "2h3h4d5d"]
CONTRIBUTIONS = [40, 90, 90, 150, 150, 260, 400, 400, 400]  # four side pots over the main pot
BOARD = "Ac7d6h3c2c"

def record() -> HandRecord:
    v = variant_for_code("FO/8")
    players = tuple(PlayerRecord(c, False, c < 400, parse_cards(h), (), True, c + 5 if c < 400 else 1000)
                    for c, h in zip(CONTRIBUTIONS, HOLES))
    return HandRecord(v, players, parse_cards(BOARD), final_round_aggressor=6, final_round_name="river")


def timeit(fn, runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    return statistics.median(samples) * 1e3, samples[int(0.99 * (len(samples) - 1))] * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args()
    rec = record()
    result = settle(rec)
    assert len(result.pots) == 5, [p.pot for p in result.pots]
    # Cold: the readings cache is emptied before every run, so each run reads all nine hands.
    from controller.showdown import _read_hand

    def cold() -> None:
        _read_hand.cache_clear()
        settle(rec)

    med, p99 = timeit(cold, args.runs)
    print("| measure | median | p99 | target |")
    print("| --- | --- | --- | --- |")
    print(f"| nine-handed FO/8, 4 side pots: hand record -> awards | {med:.3f} ms | {p99:.3f} ms | median < 1 ms |")
    shared = pathlib.Path(__file__).resolve().parents[2] / "shared" / "phh"
    golden = sorted(p for p in shared.rglob("*.phh") if "'FO/8'" in p.read_text()) if shared.is_dir() else []
    if golden:
        text = golden[0].read_text()
        def cold_phh() -> None:
            _read_hand.cache_clear()
            settle(phh.record_of(phh.loads(text)[0]))

        med2, p992 = timeit(cold_phh, max(200, args.runs // 5))
        print(f"| a real WSOP FO/8 hand from PHH text (parse, replay, settle) | {med2:.3f} ms | {p992:.3f} ms | |")


if __name__ == "__main__":
    main()

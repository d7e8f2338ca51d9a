"""Benchmark controller.evaluation and controller.equity against treys, eval7, PokerKit, phevaluator.

Run from the repository root:  python bench/bench_evaluation.py [--hands N]

One process, one set of random hands (seeded) for every evaluator; prints a markdown table.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

t0 = time.perf_counter()
from controller import evaluation as ev  # noqa: E402

IMPORT_S = time.perf_counter() - t0  # includes numpy already imported above
from controller.cards import FULL_DECK  # noqa: E402
from controller.equity import equity  # noqa: E402


def rate(fn, items) -> float:
    """Items per second of ``fn(items)``, best of three runs."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t)
    return len(items) / best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=50_000)
    args = ap.parse_args()
    n = args.hands
    rng = random.Random(2024)
    seven = [rng.sample(range(52), 7) for _ in range(n)]
    nine = [rng.sample(range(52), 9) for _ in range(n // 5)]
    arr7 = np.array(seven)
    names = [str(c) for c in FULL_DECK]
    rows: list[tuple[str, str, float, str]] = []

    # 7-card high: batch vs phevaluator hand by hand
    from phevaluator import evaluate_cards, evaluate_omaha_cards

    phe_ids = [[(c >> 2) * 4 + (3 - (c & 3)) for c in h] for h in seven]  # any bijection works

    def phe7(hands):
        for h in hands:
            evaluate_cards(*h)

    r_batch = rate(lambda a: ev.evaluate_high_batch(a), arr7)
    r_phe = rate(phe7, phe_ids)
    rows.append(("7-card high", "ours, numpy batch (evaluate_high_batch)", r_batch, f"{r_batch / r_phe:.1f}x phevaluator (target >= 3x)"))
    rows.append(("7-card high", "phevaluator evaluate_cards, per hand", r_phe, "1.0x"))

    # 7-card high, one hand per call
    import eval7
    import pokerkit
    import treys

    def ours7(hands):
        f = ev.high_value
        for h in hands:
            f(h)

    tre = treys.Evaluator()
    tcards = [treys.Card.new(s) for s in names]
    t_hands = [([tcards[c] for c in h[:2]], [tcards[c] for c in h[2:]]) for h in seven]

    def treys7(hands):
        for a, b in hands:
            tre.evaluate(a, b)

    e7cards = [eval7.Card(s) for s in names]
    e_hands = [[e7cards[c] for c in h] for h in seven]

    def eval77(hands):
        for h in hands:
            eval7.evaluate(h)

    pk_hands = [("".join(names[c] for c in h[:2]), "".join(names[c] for c in h[2:])) for h in seven[: n // 25]]

    def pk7(hands):
        for a, b in hands:
            pokerkit.StandardHighHand.from_game(a, b)

    r_ours = rate(ours7, seven)
    r_treys = rate(treys7, t_hands[: n // 5])
    r_e7 = rate(eval77, e_hands)
    r_pk = rate(pk7, pk_hands)
    rows.append(("7-card high, per call", "ours (high_value)", r_ours, f"{r_ours / r_treys:.1f}x treys (target >= 10x)"))
    rows.append(("7-card high, per call", "treys", r_treys, "1.0x"))
    rows.append(("7-card high, per call", "eval7 (C)", r_e7, f"{r_e7 / r_treys:.1f}x treys"))
    rows.append(("7-card high, per call", "pokerkit StandardHighHand.from_game", r_pk, f"{r_pk / r_treys:.2f}x treys"))
    rows.append(("7-card high, per call", "phevaluator evaluate_cards (C)", r_phe, f"{r_phe / r_treys:.1f}x treys"))

    # lows vs PokerKit
    pk_low = ["".join(names[c] for c in h) for h in seven[: n // 25]]

    def low8(hands):
        f = ev.low8_value
        for h in hands:
            f(h)

    def a5(hands):
        f = ev.a5_low_value
        for h in hands:
            f(h)

    def pk_low8(hands):
        for h in hands:
            try:
                pokerkit.EightOrBetterLowHand.from_game(h)
            except ValueError:
                pass

    def pk_a5(hands):
        for h in hands:
            pokerkit.RegularLowHand.from_game(h)

    r_l8, r_pl8 = rate(low8, seven), rate(pk_low8, pk_low)
    r_a5, r_pa5 = rate(a5, seven), rate(pk_a5, pk_low)
    rows.append(("7-card 8-or-better low", "ours (low8_value)", r_l8, f"{r_l8 / r_pl8:.0f}x PokerKit (target >= 100x)"))
    rows.append(("7-card 8-or-better low", "pokerkit EightOrBetterLowHand.from_game", r_pl8, "1.0x"))
    rows.append(("7-card A-5 (razz) low", "ours (a5_low_value)", r_a5, f"{r_a5 / r_pa5:.0f}x PokerKit (target >= 100x)"))
    rows.append(("7-card A-5 (razz) low", "pokerkit RegularLowHand.from_game", r_pa5, "1.0x"))

    # Omaha high: 4 hole + 5 board
    def omaha(hands):
        f = ev.omaha_high_value
        for h in hands:
            f(h[:4], h[4:])

    phe_nine = [[(c >> 2) * 4 + (3 - (c & 3)) for c in h] for h in nine]

    def phe_omaha(hands):
        for h in hands:
            evaluate_omaha_cards(*h[4:], *h[:4])  # community first, then hole

    arr9 = np.array(nine)
    r_om = rate(omaha, nine)
    r_omb = rate(lambda a: ev.evaluate_omaha_high_batch(a[:, :4], a[:, 4:]), arr9)
    r_pom = rate(phe_omaha, phe_nine)
    rows.append(("Omaha high (4+5)", "ours, per call (omaha_high_value)", r_om, f"{r_om / r_pom:.2f}x phevaluator (target >= 1x)"))
    rows.append(("Omaha high (4+5)", "ours, numpy batch (evaluate_omaha_high_batch)", r_omb, f"{r_omb / r_pom:.1f}x phevaluator"))
    rows.append(("Omaha high (4+5)", "phevaluator evaluate_omaha_cards (C)", r_pom, "1.0x"))

    # equity
    def timed(fn, repeat):
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        return best

    flop = timed(lambda: equity(["AsAh", "KdKc"], "2c7d9s"), 20)
    pre = timed(lambda: equity(["AsKs", "QhQd"], ""), 3)

    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
          f"{n} random 7-card hands (seed 2024), best of 3 runs.\n")
    print(f"`import controller.evaluation` (tables built at import, numpy already loaded): {IMPORT_S * 1000:.0f} ms\n")
    print("| test | evaluator | hands/s | ratio |")
    print("| --- | --- | ---: | --- |")
    for test, who, r, ratio in rows:
        print(f"| {test} | {who} | {r:,.0f} | {ratio} |")
    print()
    print("| equity (exact, heads-up Hold'em) | time |")
    print("| --- | ---: |")
    print(f"| AsAh vs KdKc on 2c7d9s (990 runouts), target < 5 ms | {flop * 1000:.2f} ms |")
    print(f"| AsKs vs QhQd preflop (1,712,304 runouts), target < 1 s | {pre:.2f} s |")


if __name__ == "__main__":
    main()

"""Exhaustive check of controller.evaluation against treys and PokerKit.

Run from the repository root:  python bench/verify_evaluation.py   (about 30 s)

* high: all 2,598,960 five-card hands, ours (numpy batch and a sample through high_value) vs treys:
  the strength ORDER must match (equal where treys ties, same order otherwise);
* lows: 8-or-better and A-5 depend on ranks only, so every 5-card rank multiset (6,175) vs PokerKit;
* 7-card high vs treys and Omaha high/low vs PokerKit on seeded random hands.
"""

from __future__ import annotations

import itertools
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pokerkit  # noqa: E402
import treys  # noqa: E402

from controller import evaluation as ev  # noqa: E402
from controller.cards import FULL_DECK  # noqa: E402

NAMES = [str(c) for c in FULL_DECK]


def same_order(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    """Larger is better in both; fail unless the two induce the same weak order."""
    pairs = np.unique(np.stack([ours, theirs], axis=1), axis=0)
    assert len(np.unique(pairs[:, 0])) == len(pairs), f"{what}: one of our values covers two oracle values"
    assert len(np.unique(pairs[:, 1])) == len(pairs), f"{what}: one oracle value covers two of ours"
    assert np.all(np.diff(pairs[:, 1]) > 0), f"{what}: order differs"
    print(f"{what}: OK, {len(ours):,} hands, {len(pairs):,} classes")


def pk(hand) -> int:
    return -hand.entry.index if hand.low else hand.entry.index


def main() -> None:
    t0 = time.perf_counter()
    five = np.array(list(itertools.combinations(range(52), 5)), dtype=np.int64)
    ours = ev.evaluate_high_batch(five)
    tre = treys.Evaluator()
    tc = [treys.Card.new(s) for s in NAMES]
    theirs = np.fromiter((-tre.evaluate([tc[a], tc[b]], [tc[c], tc[d], tc[e]]) for a, b, c, d, e in five.tolist()),
                         dtype=np.int64, count=len(five))
    same_order(ours, theirs, "5-card high vs treys (exhaustive)")
    sample = five[:: 97]
    assert [ev.high_value(h) for h in sample.tolist()] == ours[:: 97].tolist()
    print(f"high_value agrees with the batch on {len(sample):,} hands")

    rng = random.Random(1)
    for n in (6, 7):
        hands = np.array([rng.sample(range(52), n) for _ in range(200_000)])
        o = ev.evaluate_high_batch(hands)
        t = np.array([-tre.evaluate([tc[c] for c in h[:2]], [tc[c] for c in h[2:]]) for h in hands.tolist()])
        same_order(o, t, f"{n}-card high vs treys (200,000 random)")

    # lows: every rank multiset of five cards, suits cycled (suits never matter to these lows)
    lo_o, lo_t, a5_o, a5_t = [], [], [], []
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        used: dict[int, int] = {}
        idx = []
        for r in ranks:
            idx.append(r * 4 + used.get(r, 0))
            used[r] = used.get(r, 0) + 1
        text = "".join(NAMES[i] for i in idx)
        try:
            t8 = pk(pokerkit.EightOrBetterLowHand(text))
        except ValueError:
            t8 = None
        o8 = ev.low8_value(idx)
        assert (o8 is None) == (t8 is None), text
        if o8 is not None:
            lo_o.append(o8)
            lo_t.append(t8)
        a5_o.append(ev.a5_low_value(idx))
        a5_t.append(pk(pokerkit.RegularLowHand(text)))
    same_order(np.array(lo_o), np.array(lo_t), "5-card 8-or-better low vs PokerKit (every rank multiset)")
    same_order(np.array(a5_o), np.array(a5_t), "5-card A-5 low vs PokerKit (every rank multiset)")

    hands = [rng.sample(range(52), 7) for _ in range(20_000)]
    texts = ["".join(NAMES[c] for c in h) for h in hands]
    same_order(np.array([ev.a5_low_value(h) for h in hands]),
               np.array([pk(pokerkit.RegularLowHand.from_game(t)) for t in texts]), "7-card A-5 low vs PokerKit")
    o8, t8 = [], []
    for h, t in zip(hands, texts):
        v = ev.low8_value(h)
        try:
            p = pk(pokerkit.EightOrBetterLowHand.from_game(t))
        except ValueError:
            p = None
        assert (v is None) == (p is None), t
        if v is not None:
            o8.append(v)
            t8.append(p)
    same_order(np.array(o8), np.array(t8), "7-card 8-or-better low vs PokerKit")

    nine = [rng.sample(range(52), 9) for _ in range(3_000)]
    ho, ht = [], []
    for h in nine:
        hole, board = "".join(NAMES[c] for c in h[:4]), "".join(NAMES[c] for c in h[4:])
        ho.append(ev.omaha_high_value(h[:4], h[4:]))
        ht.append(pk(pokerkit.OmahaHoldemHand.from_game(hole, board)))
    same_order(np.array(ho), np.array(ht), "Omaha high vs PokerKit (3,000 random)")
    print(f"all checks passed in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()

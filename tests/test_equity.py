"""All-in equity: exact enumeration against a brute force, Monte Carlo, splits, validation."""

from __future__ import annotations

import itertools

import pytest

from controller.cards import FULL_DECK, CardError, parse_cards
from controller.equity import EquityResult, _combinations, equity
from controller.evaluation import high_value, omaha_high_value


def brute_force(hands: list[str], board: str, dead: str = "", omaha: bool = False) -> list[tuple[float, float]]:
    holes = [[c.index for c in parse_cards(h)] for h in hands]
    b = [c.index for c in parse_cards(board)]
    used = set(itertools.chain(*holes, b, (c.index for c in parse_cards(dead))))
    deck = [c.index for c in FULL_DECK if c.index not in used]
    win = [0.0] * len(hands)
    tie = [0.0] * len(hands)
    runs = list(itertools.combinations(deck, 5 - len(b)))
    for extra in runs:
        full = b + list(extra)
        vals = [omaha_high_value(h, full) if omaha else high_value(h + full) for h in holes]
        best = max(vals)
        winners = [i for i, v in enumerate(vals) if v == best]
        for i in winners:
            if len(winners) == 1:
                win[i] += 1
            else:
                tie[i] += 1 / len(winners)
    return [(w / len(runs), t / len(runs)) for w, t in zip(win, tie)]


def approx(results: list[EquityResult], expected: list[tuple[float, float]]) -> bool:
    return all(r.win == pytest.approx(w, abs=1e-12) and r.tie == pytest.approx(t, abs=1e-12)
               for r, (w, t) in zip(results, expected))


@pytest.mark.parametrize(
    "hands, board, dead",
    [
        (["AsAh", "KdKc"], "2c7d9s", ""),
        (["AsKs", "QhQd"], "Ts9s2d", ""),
        (["AsKs", "QhQd"], "Ts9s2d", "Js 8h"),
        (["7c2d", "7h2s", "AdKc"], "7s2c3h4d", ""),
        (["AcAd", "AhAs"], "KcKdKh", ""),
    ],
)
def test_exact_matches_brute_force(hands, board, dead):
    assert approx(equity(hands, board, dead, exact=True), brute_force(hands, board, dead))


def test_exact_omaha_matches_brute_force():
    hands, board = ["AsKsQd2c", "QhQcJhTd"], "2s7h9d"
    assert approx(equity(hands, board), brute_force(hands, board, omaha=True))
    hands = ["AsKs2c3d4h", "QhQcJhTd9s"]
    assert approx(equity(hands, board + "5c"), brute_force(hands, board + "5c", omaha=True))


def test_r13_board_plays_and_splits():
    r = equity(["2c3d", "4h5s"], "AsKsQsJsTs")
    assert r == [EquityResult(0.0, 0.5), EquityResult(0.0, 0.5)]
    three = equity(["2c3d", "4h5s", "6h7h"], "AsKsQsJsTs")
    assert all(x.tie == pytest.approx(1 / 3) for x in three)


def test_shares_sum_to_one_and_monte_carlo_is_close_and_seeded():
    hands = ["AsKs", "QhQd", "7c6c"]
    exact = equity(hands, "2d5c8h", exact=True)
    mc = equity(hands, "2d5c8h", exact=False, samples=20000, seed=3)
    assert sum(r.equity for r in exact) == pytest.approx(1.0)
    assert sum(r.equity for r in mc) == pytest.approx(1.0)
    for e, m in zip(exact, mc):
        assert m.equity == pytest.approx(e.equity, abs=0.02)
    assert mc == equity(hands, "2d5c8h", exact=False, samples=20000, seed=3)


def test_heads_up_preflop_is_exact_by_default():
    r = equity(["AsKs", "QhQd"], "")
    assert r[0].equity == pytest.approx(0.4621, abs=1e-4)  # 1,712,304 runouts enumerated
    assert sum(x.equity for x in r) == pytest.approx(1.0)


def test_dead_cards_leave_the_deck():
    # both remaining kings dead: KK can only win with a straight
    r = equity(["AsAh", "KdKc"], "2c7d9s", dead="KsKh")
    assert r[1].win == pytest.approx(brute_force(["AsAh", "KdKc"], "2c7d9s", "KsKh")[1][0])
    assert r[1].win < equity(["AsAh", "KdKc"], "2c7d9s")[1].win


def test_combinations_are_lexicographic():
    for n, k in ((6, 0), (6, 1), (7, 3), (10, 5)):
        assert _combinations(n, k).tolist() == [list(c) for c in itertools.combinations(range(n), k)]


@pytest.mark.parametrize(
    "hands, board, dead, fragment",
    [
        (["AsKs", "AsQd"], "", "", "duplicate card As"),
        (["AsKs", "QdQh"], "Qd2c3c", "", "duplicate card Qd"),
        (["AsKs", "QdQh"], "", "Ks", "duplicate card Ks"),
        (["AsKsQs", "QdQh2c"], "", "", "2 \\(Hold'em\\)"),
        (["AsKs", "QdQh2c3c"], "", "", "all have"),
        (["AsKs", "QdQh"], "2c3c4c5c6c7c", "", "0 to 5 board"),
        ([], "", "", "at least one"),
    ],
)
def test_validation(hands, board, dead, fragment):
    with pytest.raises(CardError, match=fragment):
        equity(hands, board, dead)

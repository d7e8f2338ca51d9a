"""All-in equity for Hold'em and Omaha high: exact enumeration of runouts or seeded Monte Carlo.

Pure functions, no I/O. Built on the numpy tables of :mod:`controller.evaluation`: the board's
rank-key and suit sums are computed once per runout and each hand only adds its own keys.

>>> aa, kk = parse_cards("AsAh"), parse_cards("KdKc")
>>> r = equity([aa, kk], parse_cards("2c7d9s"))
>>> round(r[0].equity, 4), round(r[1].equity, 4)
(0.9162, 0.0838)
>>> r[0].win + r[1].win + r[0].tie + r[1].tie
1.0
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from controller import evaluation as ev
from controller.cards import FULL_DECK, Card, CardError, parse_cards

if TYPE_CHECKING:
    from controller.variants import Variant

__all__ = ["EquityResult", "equity", "equity_by_rules", "EXACT_WORK_LIMIT"]

EXACT_WORK_LIMIT = 4_000_000
"""With ``exact=None``, enumerate when runouts x hands x five-card combos per hand is at most this
(heads-up Hold'em preflop is 1,712,304 x 2); otherwise sample."""


@dataclasses.dataclass(frozen=True, slots=True)
class EquityResult:
    """One hand's share of the pot over the runouts.

    >>> EquityResult(win=0.5, tie=0.25).equity
    0.75
    """

    win: float
    """Fraction of runouts this hand wins outright."""
    tie: float
    """Pot share from split runouts: each tied runout counts 1/k for a k-way split."""

    @property
    def equity(self) -> float:
        """Expected share of the pot: ``win + tie``."""
        return self.win + self.tie


def _cards(cards: str | Iterable[Card | str]) -> tuple[Card, ...]:
    return parse_cards(cards)


def equity(
    hands: Sequence[str | Iterable[Card | str]],
    board: str | Iterable[Card | str] = (),
    dead: str | Iterable[Card | str] = (),
    *,
    exact: bool | None = None,
    samples: int = 20000,
    seed: int | None = None,
) -> list[EquityResult]:
    """Win and split shares of each hand, high only: Hold'em (2 hole cards) or Omaha (4 or 5).

    :param hands: each player's hole cards; all the same size.
    :param board: 0 to 5 board cards already dealt.
    :param dead: cards known to be out of the deck (mucked, burned and shown).
    :param exact: ``True`` enumerates every runout, ``False`` samples ``samples`` runouts with
        ``seed``; ``None`` enumerates when the work is at most :data:`EXACT_WORK_LIMIT`.
    :raises CardError: bad hand sizes, more than 5 board cards, a card used twice, too few cards.

    >>> r = equity(["AsKs", "QhQd"], "", exact=False, samples=2000, seed=1)
    >>> 0.4 < r[0].equity < 0.5
    True
    >>> equity(["AsKs", "AsQd"], "")
    Traceback (most recent call last):
    ...
    controller.cards.CardError: duplicate card As in equity
    """
    holes = [_cards(h) for h in hands]
    b = _cards(board)
    d = _cards(dead)
    if not holes:
        raise CardError("equity: expected at least one hand")
    size = len(holes[0])
    if size not in (2, 4, 5) or any(len(h) != size for h in holes):
        raise CardError(f"equity: hands must all have 2 (Hold'em) or 4 or 5 (Omaha) cards, got {[len(h) for h in holes]}")
    if len(b) > 5:
        raise CardError(f"equity: expected 0 to 5 board cards, got {len(b)}")
    used = [c for h in holes for c in h] + list(b) + list(d)
    seen: set[Card] = set()
    for c in used:
        if c in seen:
            raise CardError(f"duplicate card {c} in equity")
        seen.add(c)
    deck = np.array([c.index for c in FULL_DECK if c not in seen], dtype=np.int64)
    missing = 5 - len(b)
    if len(deck) < missing:
        raise CardError(f"equity: {missing} board cards to come but only {len(deck)} left in the deck")
    omaha = size != 2
    runouts = math.comb(len(deck), missing)
    per_hand = math.comb(size, 2) * 10 if omaha else 1
    if exact is None:
        exact = runouts * len(holes) * per_hand <= EXACT_WORK_LIMIT
    if exact or missing == 0:
        extra = deck[_combinations(len(deck), missing)]
    else:
        if samples < 1:
            raise ValueError(f"equity: samples must be positive, got {samples}")
        rng = np.random.default_rng(seed)
        extra = deck[np.argsort(rng.random((samples, len(deck))), axis=1)[:, :missing]]
    boards = np.concatenate([np.broadcast_to(np.array([c.index for c in b], dtype=np.int64), (len(extra), len(b))), extra], axis=1)
    hole_idx = [[c.index for c in h] for h in holes]
    values = np.stack([(_omaha_values if omaha else _holdem_values)(h, boards) for h in hole_idx])
    return _shares(values)


def _shares(values: np.ndarray) -> list[EquityResult]:
    """Win and split shares from an (H, N) array of values, larger better."""
    n = values.shape[1]
    winners = values == values.max(axis=0)
    count = winners.sum(axis=0)
    alone = winners & (count == 1)
    split = np.where(winners & (count > 1), 1.0 / count, 0.0)
    return [EquityResult(win=float(alone[i].sum() / n), tie=float(split[i].sum() / n)) for i in range(len(values))]


def _combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of ``range(n)`` as a (C(n, k), k) array in lexicographic order."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    combos = np.arange(n - k + 1, dtype=np.int64)[:, None]
    for j in range(1, k):
        last = combos[:, -1]
        room = (n - k + j) - last  # choices for the next element: last+1 .. n-k+j
        rows = np.repeat(np.arange(len(combos)), room)
        starts = np.cumsum(room) - room
        step = np.arange(len(rows)) - np.repeat(starts, room)
        combos = np.concatenate([combos[rows], (last[rows] + 1 + step)[:, None]], axis=1)
    return combos


def _holdem_values(hole: list[int], boards: np.ndarray) -> np.ndarray:
    """High values of one two-card hand with each five-card board row."""
    rank_sum = ev._NP_RKEY[boards].sum(axis=1) + sum(ev._RANK_KEYS[c >> 2] for c in hole)
    suit_sum = ev._NP_SKEY[boards].sum(axis=1) + sum(1 << (3 * (c & 3)) for c in hole)
    offsets, table = ev._NP_NF[7]
    values = table[offsets[rank_sum >> ev._ROW_SHIFT] + (rank_sum & ((1 << ev._ROW_SHIFT) - 1))].astype(np.int64)
    suit = ev._NP_FLUSH_SUIT[suit_sum]
    flushed = np.flatnonzero(suit >= 0)
    if flushed.size:
        cards = np.concatenate([boards[flushed], np.broadcast_to(np.array(hole), (flushed.size, 2))], axis=1)
        in_suit = ((cards & 3) == suit[flushed, None]).astype(np.int64)
        values[flushed] = ev._NP_FLUSH[(in_suit << (cards >> 2)).sum(axis=1)]
    return values


def _omaha_values(hole: list[int], boards: np.ndarray) -> np.ndarray:
    """Omaha high values of one hand (4 or 5 hole cards) with each five-card board row."""
    offsets, table = ev._NP_NF[5]
    best = np.full(len(boards), -1, dtype=np.int64)
    rkey, skey = ev._NP_RKEY[boards], ev._NP_SKEY[boards]
    bits = np.left_shift(1, boards >> 2)
    for a, b, c in itertools.combinations(range(5), 3):
        t_rank = rkey[:, a] + rkey[:, b] + rkey[:, c]
        t_suit = skey[:, a] + skey[:, b] + skey[:, c]
        t_bits = bits[:, a] | bits[:, b] | bits[:, c]
        for i, j in itertools.combinations(range(len(hole)), 2):
            x, y = hole[i], hole[j]
            rank_sum = t_rank + ev._RANK_KEYS[x >> 2] + ev._RANK_KEYS[y >> 2]
            v = table[offsets[rank_sum >> ev._ROW_SHIFT] + (rank_sum & ((1 << ev._ROW_SHIFT) - 1))].astype(np.int64)
            if x & 3 == y & 3:
                flush = t_suit == 3 << (3 * (x & 3))
                if flush.any():
                    v[flush] = ev._NP_FLUSH[t_bits[flush] | (1 << (x >> 2)) | (1 << (y >> 2))]
            np.maximum(best, v, out=best)
    return best


def equity_by_rules(
    variant: "Variant",
    hands: Sequence[str | Iterable[Card | str]],
    board: str | Iterable[Card | str] = (),
    dead: str | Iterable[Card | str] = (),
    *,
    samples: int = 2000,
    seed: int | None = None,
) -> list[EquityResult]:
    """Pot shares for any variant, hi/lo and stud included, by the showdown engine's own readings.

    Each sample completes the board (flop games) or every stud hand to seven cards from the unseen
    cards, reads each hand as the engine does (high, 8-or-better low, razz low) and splits the pot:
    hi/lo halves when a low qualifies, otherwise the high takes all. ``win`` is the chance to take
    the whole pot alone; ``tie`` is the rest of the expected share (split pots, half pots). With
    nothing left to deal, the one runout is exact.

    >>> from controller.variants import variant_for_code
    >>> r = equity_by_rules(variant_for_code("FO/8"), ["As2sKdKc", "QhQdJhJd"], "3c4h8dQsTc")
    >>> round(r[0].win, 3), round(r[0].tie, 3), round(r[1].tie, 3)
    (0.0, 0.5, 0.5)

    :raises CardError: a bad or repeated card, or a wrong number of cards for the variant.
    """
    import random

    from controller.showdown import read_hand

    hs = [list(_cards(h)) for h in hands]
    b = list(_cards(board))
    d = list(_cards(dead))
    if len(hs) < 2:
        raise CardError("equity needs at least two hands")
    seen = [c for h in hs for c in h] + b + d
    if len(set(seen)) != len(seen):
        dup = next(c for c in seen if seen.count(c) > 1)
        raise CardError(f"duplicate card {dup} in the equity input")
    stud = variant.is_stud
    need_board = 0 if stud else 5 - len(b)
    need_hole = [variant.hole_cards - len(h) for h in hs]
    if need_board < 0 or any(n < 0 for n in need_hole):
        raise CardError(f"too many cards for {variant.name}")
    stock = [c for c in FULL_DECK if c not in set(seen)]
    draws = need_board + sum(need_hole)
    if draws > len(stock):
        raise CardError("not enough cards left in the deck for these hands")
    rng = random.Random(seed)
    runs = 1 if draws == 0 else samples
    win = [0.0] * len(hs)
    share = [0.0] * len(hs)
    for _ in range(runs):
        pick = rng.sample(stock, draws) if draws else []
        full_board = b + pick[:need_board]
        k = need_board
        readings = []
        for h, n in zip(hs, need_hole):
            hole = h + pick[k:k + n]
            k += n
            readings.append(read_hand(variant, hole, full_board))
        highs = [r[0].value if r[0] is not None else -1 for r in readings]
        lows = [r[1].value if r[1] is not None else -1 for r in readings]
        if variant.evaluation.value == "a5-low":
            halves = [(1.0, lows)]
        elif variant.is_hi_lo and max(lows) >= 0:
            halves = [(0.5, highs), (0.5, lows)]
        else:
            halves = [(1.0, highs)]
        got = [0.0] * len(hs)
        for weight, values in halves:
            top = max(values)
            winners = [i for i, v in enumerate(values) if v == top]
            for i in winners:
                got[i] += weight / len(winners)
        for i, g in enumerate(got):
            share[i] += g
            if g == 1.0:
                win[i] += 1
    return [EquityResult(w / runs, (s - w) / runs) for w, s in zip(win, share)]

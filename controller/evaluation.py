"""Hand evaluation: high hands, 8-or-better lows, A-5 (razz) lows, stud and razz board order.

Pure functions, no I/O. Two layers share the same numbers:

* readings (:func:`evaluate_high`, :func:`evaluate_omaha_high`, :func:`evaluate_low8`,
  :func:`evaluate_omaha_low8`, :func:`evaluate_a5_low`) take :class:`~controller.cards.Card`
  values (or card text) and return a :class:`HandReading` with the five cards used and the text
  the table shows;
* fast forms (:func:`high_value`, :func:`evaluate_high_batch`, :func:`omaha_high_value`,
  :func:`low8_value`, :func:`a5_low_value`) take dense card indices ``0..51`` and return only the
  ``value``, identical to the reading's ``.value``.

For every kind a larger ``value`` is a better hand and equal values tie exactly (R13: suits never
rank hands). Values of different kinds are not comparable with each other.

>>> evaluate_high("AsKsQsJsTs2c3d").text
'Royal flush'
>>> evaluate_high("KhKdKs7c7d2s3h").text
'Full house, kings full of sevens'
>>> evaluate_low8("8d6h4s2cAd KsQh").text
'8-6-4-2-A low'
>>> evaluate_low8("9d6h4s2cAd KsQh") is None
True

How it works: each rank has a key (Shackleton's SKPokerEval keys) whose sums are distinct for every
multiset of up to seven ranks, so one dictionary (Python path) or a two-level table (numpy path)
maps the sum of the keys straight to the best non-flush value. Suits are summed in base 8 to spot
a flush; a flush is then looked up by the 13-bit mask of the flush suit's ranks. All tables are
built at import time from a 5-card ranking, extended to 6 and 7 cards by "best of the hands with
one card removed".
"""

from __future__ import annotations

import bisect
import dataclasses
import enum
import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from controller.cards import Card, CardError, Rank, parse_cards

__all__ = [
    "Category",
    "HandReading",
    "evaluate_high",
    "evaluate_omaha_high",
    "evaluate_low8",
    "evaluate_omaha_low8",
    "evaluate_a5_low",
    "stud_board_value",
    "razz_board_value",
    "high_value",
    "evaluate_high_batch",
    "omaha_high_value",
    "evaluate_omaha_high_batch",
    "low8_value",
    "a5_low_value",
]


class Category(enum.IntEnum):
    """Category of a high hand, weakest first.

    >>> Category.FULL_HOUSE > Category.FLUSH
    True
    >>> Category.TWO_PAIR.label
    'Two pair'
    """

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """English label, such as ``"Full house"``."""
        return _CATEGORY_LABELS[self]


_CATEGORY_LABELS = {
    Category.HIGH_CARD: "High card",
    Category.PAIR: "Pair",
    Category.TWO_PAIR: "Two pair",
    Category.THREE_OF_A_KIND: "Three of a kind",
    Category.STRAIGHT: "Straight",
    Category.FLUSH: "Flush",
    Category.FULL_HOUSE: "Full house",
    Category.FOUR_OF_A_KIND: "Four of a kind",
    Category.STRAIGHT_FLUSH: "Straight flush",
}


@dataclasses.dataclass(frozen=True, slots=True)
class HandReading:
    """The controller's reading of one hand (R1: cards speak, R19: shown to the table).

    >>> r = evaluate_high("Ah Ad 8c 8s Kd 2c 3h")
    >>> r.kind, r.category, r.text
    ('high', <Category.TWO_PAIR: 2>, 'Two pair, aces and eights')
    >>> " ".join(map(str, r.best_five))
    'Ah Ad 8s 8c Kd'
    """

    kind: str
    """``"high"``, ``"low8"`` (8-or-better, A-5) or ``"a5"`` (razz A-5 low, pairs count against)."""
    value: int
    """Strength within ``kind``: larger is better, equal values tie exactly."""
    category: Category | None
    """The category of a high hand; ``None`` for lows."""
    best_five: tuple[Card, ...]
    """The five cards used, in reading order (``K K K 7 7``; lows highest first ``8 6 4 2 A``)."""
    text: str
    """What the table shows, such as ``"Full house, kings full of sevens"`` or ``"8-6-4-2-A low"``."""

    def __str__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------------------------
# Table construction (import time)
# ---------------------------------------------------------------------------------------------

_RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Shackleton's rank keys: sums over any multiset of <= 7 ranks (<= 4 each) are distinct per size."""
_SIZE_SHIFT = 23  # every rank-key sum of up to 7 cards is < 2**23; adding n << 23 separates sizes
_SUIT_BITS = 12  # suit counts in base 8 (3 bits per suit) take the low 12 bits of a combined key
_ROW_SHIFT = 6  # numpy two-level table: row = sum >> 6, column = sum & 63

_STRAIGHT_MASKS = [(0b11111 << lo, lo + 4) for lo in range(8, -1, -1)] + [(0b1000000001111, 3)]
"""(13-bit rank mask, top rank index) of each straight, best first; the last is the wheel."""


def _straight_top(mask: int) -> int:
    """Rank index (0 = deuce) of the top card of the best straight in ``mask``, or -1."""
    for smask, top in _STRAIGHT_MASKS:
        if mask & smask == smask:
            return top
    return -1


def _group_key(ranks: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Category without straights/flushes, and ranks in reading order (count, then rank, desc)."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    shape = sorted(counts.values(), reverse=True)
    order = tuple(r for r, c in sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
                  for _ in range(c))
    if shape[0] == 4:
        cat = Category.FOUR_OF_A_KIND
    elif shape[0] == 3:
        cat = Category.FULL_HOUSE if len(shape) > 1 and shape[1] >= 2 else Category.THREE_OF_A_KIND
    elif shape[0] == 2:
        cat = Category.TWO_PAIR if len(shape) > 1 and shape[1] == 2 else Category.PAIR
    else:
        cat = Category.HIGH_CARD
    return cat, order


def _high_key5(ranks: Sequence[int], flush: bool) -> tuple[int, ...]:
    """Sortable key of a five-card high hand given rank indices 0..12."""
    cat, order = _group_key(ranks)
    if cat == Category.HIGH_CARD:
        top = _straight_top(sum(1 << r for r in ranks))
        if top >= 0:
            return (Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT, top)
        if flush:
            return (Category.FLUSH, *order)
    return (cat, *order)


def _multisets(n: int) -> np.ndarray:
    """Count vectors (M, 13) of every multiset of ``n`` ranks with at most 4 of a rank."""
    combos = np.array(list(itertools.combinations_with_replacement(range(13), n)), dtype=np.int8)
    counts = (combos[:, :, None] == np.arange(13, dtype=np.int8)).sum(axis=1)
    return counts[counts.max(axis=1) <= 4].astype(np.int64)


def _extend(prev_sums: np.ndarray, prev_vals: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Best value of each multiset in ``counts``: max over removing one card (``prev`` is n-1)."""
    keys = np.array(_RANK_KEYS, dtype=np.int64)
    sums = counts @ keys
    order = np.argsort(prev_sums)
    sorted_sums, sorted_vals = prev_sums[order], prev_vals[order]
    best = np.full(len(counts), -1, dtype=np.int64)
    for r in range(13):
        has = counts[:, r] > 0
        pos = np.searchsorted(sorted_sums, sums[has] - keys[r])
        best[has] = np.maximum(best[has], sorted_vals[pos])
    return best


def _two_level(sums: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Compact table: ``table[offsets[s >> 6] + (s & 63)]`` is the value of rank-key sum ``s``."""
    order = np.argsort(sums)
    sums, vals = sums[order], vals[order]
    rows, cols = sums >> _ROW_SHIFT, sums & ((1 << _ROW_SHIFT) - 1)
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    last = np.r_[first[1:] - 1, len(sums) - 1]
    spans = cols[last] - cols[first] + 1
    base = np.r_[0, np.cumsum(spans)[:-1]]
    offsets = np.zeros(int(rows[-1]) + 1, dtype=np.int32)
    offsets[rows[first]] = base - cols[first]
    table = np.zeros(int(spans.sum()), dtype=np.int16)
    table[offsets[rows] + cols] = vals
    assert np.array_equal(table[offsets[rows] + cols], vals)
    return offsets, table


def _build() -> None:  # noqa: PLR0915 - one straight-line table build
    g = globals()
    keys = np.array(_RANK_KEYS, dtype=np.int64)

    # Five-card high classes: 6175 rank multisets without a flush, 1287 flushes; 7462 in all.
    ms5 = _multisets(5)
    ranks5 = [tuple(r for r in range(13) for _ in range(cs[r])) for cs in ms5.tolist()]
    flush_sets = list(itertools.combinations(range(13), 5))
    all_keys = sorted({_high_key5(r, False) for r in ranks5} | {_high_key5(r, True) for r in flush_sets})
    dense = {k: i for i, k in enumerate(all_keys)}
    g["_HIGH_KEYS"] = all_keys
    g["_CATEGORY_START"] = [next(i for i, k in enumerate(all_keys) if k[0] == c) for c in Category]

    high_nf: dict[int, int] = {}
    a5: dict[int, int] = {}
    np_tables = {}
    sums5 = ms5 @ keys
    hv5 = np.array([dense[_high_key5(r, False)] for r in ranks5], dtype=np.int64)
    # A-5 low: ranks relabelled ace-low (index 0 = ace, 12 = king); the best low is the worst high
    # hand with straights ignored, so order the no-straight keys and reverse them.
    low_keys = [_group_key(r) for r in ranks5]
    low_sorted = sorted(set(low_keys))
    low_dense = {k: len(low_sorted) - 1 - i for i, k in enumerate(low_sorted)}
    av5 = np.array([low_dense[k] for k in low_keys], dtype=np.int64)
    g["_A5_KEYS"] = {v: k for k, v in low_dense.items()}
    hs, hv, as_, av = sums5, hv5, sums5, av5
    for n in (5, 6, 7):
        if n > 5:
            ms = _multisets(n)
            hv, av = _extend(hs, hv, ms), _extend(as_, av, ms)
            hs = as_ = ms @ keys
        high_nf.update(zip((hs + (n << _SIZE_SHIFT)).tolist(), hv.tolist()))
        a5.update(zip((as_ + (n << _SIZE_SHIFT)).tolist(), av.tolist()))
        np_tables[n] = _two_level(hs, hv)
    g["_HIGH_NF"], g["_A5"], g["_NP_NF"] = high_nf, a5, np_tables

    # Flush table by 13-bit rank mask of the flush suit (5..7 bits); -1 where fewer than 5.
    flush = [-1] * 8192
    for ranks in flush_sets:
        flush[sum(1 << r for r in ranks)] = dense[_high_key5(ranks, True)]
    for bits in (6, 7):
        for ranks in itertools.combinations(range(13), bits):
            m = sum(1 << r for r in ranks)
            flush[m] = max(flush[m & ~(1 << r)] for r in ranks)
    g["_FLUSH"] = flush
    g["_NP_FLUSH"] = np.array(flush, dtype=np.int16)

    # Suit counts in base 8: flush suit (0..3) when some digit is >= 5, else -1.
    flush_suit = [-1] * 4096
    for s in range(4096):
        for suit in range(4):
            if (s >> (3 * suit)) & 7 >= 5:
                flush_suit[s] = suit
    g["_FLUSH_SUIT"] = flush_suit
    g["_NP_FLUSH_SUIT"] = np.array(flush_suit, dtype=np.int8)

    # Per-card keys, as dicts so a bad index raises KeyError instead of wrapping around.
    g["_HKEY"] = {
        c: ((_RANK_KEYS[c >> 2] + (1 << _SIZE_SHIFT)) << _SUIT_BITS) | (1 << (3 * (c & 3)))
        for c in range(52)
    }
    g["_A5KEY"] = {c: _RANK_KEYS[((c >> 2) + 1) % 13] + (1 << _SIZE_SHIFT) for c in range(52)}
    g["_NP_RKEY"] = keys[np.arange(52) >> 2]
    g["_NP_SKEY"] = (1 << (3 * (np.arange(52) & 3))).astype(np.int64)
    # 8-or-better: bit (low rank - 1) for ace..eight, 0 for nine and up.
    g["_LOWBIT"] = {c: (1 << ((c >> 2) + 1) % 13) if ((c >> 2) + 1) % 13 < 8 else 0 for c in range(52)}
    low8: list[int | None] = [None] * 256
    for m in range(256):
        if m.bit_count() >= 5:
            five = m
            while five.bit_count() > 5:
                five &= ~(1 << (five.bit_length() - 1))  # drop the highest rank
            low8[m] = 256 - five
    g["_LOW8"] = low8


_HIGH_KEYS: list[tuple[int, ...]]
_CATEGORY_START: list[int]
_HIGH_NF: dict[int, int]
_A5: dict[int, int]
_A5_KEYS: dict[int, tuple[int, tuple[int, ...]]]
_NP_NF: dict[int, tuple[np.ndarray, np.ndarray]]
_FLUSH: list[int]
_NP_FLUSH: np.ndarray
_FLUSH_SUIT: list[int]
_NP_FLUSH_SUIT: np.ndarray
_HKEY: dict[int, int]
_A5KEY: dict[int, int]
_NP_RKEY: np.ndarray
_NP_SKEY: np.ndarray
_LOWBIT: dict[int, int]
_LOW8: list[int | None]
_build()

HIGH_VALUE_COUNT = len(_HIGH_KEYS)
"""Number of distinct high-hand values (7462): ``high_value`` is in ``0..7461``."""


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------


def _count_words(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"


def _check_indices(indices: Sequence[int], lo: int, hi: int, what: str) -> None:
    """Raise CardError for a wrong count, an index out of 0..51, or a repeated index."""
    n = len(indices)
    if not lo <= n <= hi:
        raise CardError(f"{what}: expected {_count_words(lo, hi)} cards, got {n}")
    for c in indices:
        if not isinstance(c, (int, np.integer)) or isinstance(c, bool) or not 0 <= c <= 51:
            raise CardError(f"card index {c!r} in {what} is not in 0..51")
    if len(set(indices)) != n:
        seen: set[int] = set()
        for c in indices:
            if c in seen:
                raise CardError(f"duplicate card {Card.from_index(int(c))} in {what}")
            seen.add(c)


def _as_cards(cards: str | Iterable[Card | str], lo: int, hi: int, what: str) -> tuple[Card, ...]:
    parsed = parse_cards(cards)
    n = len(parsed)
    if not lo <= n <= hi:
        raise CardError(f"{what}: expected {_count_words(lo, hi)} cards, got {n}")
    seen: set[Card] = set()
    for c in parsed:
        if c in seen:
            raise CardError(f"duplicate card {c} in {what}")
        seen.add(c)
    return parsed


def _check_disjoint(hole: Sequence[Card], board: Sequence[Card], what: str) -> None:
    common = set(hole) & set(board)
    if common:
        raise CardError(f"duplicate card {min(common, key=lambda c: c.index)} in {what} (hole and board)")


# ---------------------------------------------------------------------------------------------
# Fast forms (indices 0..51)
# ---------------------------------------------------------------------------------------------


def high_value(indices: Sequence[int]) -> int:
    """Value of the best high hand of 5, 6 or 7 cards given as indices ``0..51``.

    Larger is better; equal is an exact tie. Same number as ``evaluate_high(...).value``.

    >>> royal = [Card.parse(t).index for t in ("As", "Ks", "Qs", "Js", "Ts")]
    >>> high_value(royal) == HIGH_VALUE_COUNT - 1
    True
    >>> high_value([0, 4, 8, 12, 17]) < high_value([0, 4, 8, 12, 16])  # straight < straight flush
    True
    >>> high_value([0, 1, 2, 3])
    Traceback (most recent call last):
    ...
    controller.cards.CardError: high hand: expected 5 to 7 cards, got 4

    :raises CardError: wrong card count, index out of range or duplicate card.
    """
    n = len(indices)
    k = _HKEY
    try:
        if n == 7:  # the common case, unrolled: about 15% faster than sum(map(...))
            a, b, c, d, e, f, g = indices
            x = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
            if len({a, b, c, d, e, f, g}) != 7:
                _check_indices(indices, 5, 7, "high hand")
        else:
            x = sum(map(k.__getitem__, indices))
            if n < 5 or n > 7 or len(set(indices)) != n:
                _check_indices(indices, 5, 7, "high hand")
    except (KeyError, TypeError):
        _check_indices(indices, 5, 7, "high hand")
        raise  # pragma: no cover - _check_indices raised
    suit = _FLUSH_SUIT[x & 4095]
    if suit < 0:
        return _HIGH_NF[x >> _SUIT_BITS]
    mask = 0
    for c in indices:
        if c & 3 == suit:
            mask |= 1 << (c >> 2)
    return _FLUSH[mask]


def _check_batch(indices: np.ndarray, what: str) -> np.ndarray:
    idx = np.asarray(indices)
    if idx.ndim != 2 or not 5 <= idx.shape[1] <= 7:
        raise CardError(f"{what} needs an (N, 5..7) array of card indices, got shape {idx.shape}")
    if not np.issubdtype(idx.dtype, np.integer):
        raise CardError(f"{what} needs integer card indices, got dtype {idx.dtype}")
    if idx.size:
        if idx.min() < 0 or idx.max() > 51:
            bad = idx[(idx < 0) | (idx > 51)][0]
            raise CardError(f"card index {int(bad)} in {what} is not in 0..51")
        bits = np.left_shift(np.uint64(1), idx.astype(np.uint64))
        dup = np.bitwise_or.reduce(bits, axis=1) != bits.sum(axis=1, dtype=np.uint64)
        if dup.any():
            row = int(np.flatnonzero(dup)[0])
            raise CardError(f"duplicate card in {what}, row {row}: {idx[row].tolist()}")
    return idx


def evaluate_high_batch(indices: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Values of many high hands at once: ``(N, 7)`` (or ``(N, 5)``, ``(N, 6)``) indices -> ``(N,)``.

    Numpy-vectorised; each value equals :func:`high_value` of its row.

    >>> hands = np.array([[51, 47, 43, 39, 35, 0, 1], [0, 4, 8, 12, 49, 1, 2]])
    >>> vals = evaluate_high_batch(hands)
    >>> vals.tolist() == [high_value(h) for h in hands.tolist()]
    True
    >>> [category_of(v).label for v in vals]
    ['Straight flush', 'Straight']

    :param check: validate shape, range and distinctness (rows with a repeated card raise).
    :raises CardError: bad shape, index out of range or duplicate card in a row.
    """
    idx = _check_batch(indices, "high batch") if check else np.asarray(indices)
    n = idx.shape[1]
    if idx.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    offsets, table = _NP_NF[n]
    rank_sum = _NP_RKEY[idx].sum(axis=1)
    values = table[offsets[rank_sum >> _ROW_SHIFT] + (rank_sum & ((1 << _ROW_SHIFT) - 1))].astype(np.int64)
    suit = _NP_FLUSH_SUIT[_NP_SKEY[idx].sum(axis=1)]
    flushed = np.flatnonzero(suit >= 0)
    if flushed.size:
        sub = idx[flushed]
        in_suit = (sub & 3) == suit[flushed, None]
        mask = (in_suit.astype(np.int64) << (sub >> 2)).sum(axis=1)
        values[flushed] = _NP_FLUSH[mask]
    return values


def category_of(value: int) -> Category:
    """The category of a high value (from :func:`high_value` or a high reading).

    >>> category_of(HIGH_VALUE_COUNT - 1)
    <Category.STRAIGHT_FLUSH: 8>
    >>> category_of(0)
    <Category.HIGH_CARD: 0>
    """
    if not 0 <= value < HIGH_VALUE_COUNT:
        raise ValueError(f"high value {value} is not in 0..{HIGH_VALUE_COUNT - 1}")
    return Category(bisect.bisect_right(_CATEGORY_START, value) - 1)


_PAIRS = {4: list(itertools.combinations(range(4), 2)), 5: list(itertools.combinations(range(5), 2))}
_TRIPLES = {n: list(itertools.combinations(range(n), 3)) for n in (3, 4, 5)}


def _check_omaha(hole: Sequence[int], board: Sequence[int], what: str) -> None:
    if len(hole) not in (4, 5):
        raise CardError(f"{what}: expected 4 or 5 hole cards, got {len(hole)}")
    if not 3 <= len(board) <= 5:
        raise CardError(f"{what}: expected 3 to 5 board cards, got {len(board)}")
    _check_indices(list(hole) + list(board), 7, 10, what)


def omaha_high_value(hole_idx: Sequence[int], board_idx: Sequence[int]) -> int:
    """Omaha high value: exactly two of the 4 or 5 hole cards with exactly three board cards.

    >>> hole = [Card.parse(t).index for t in ("Ah", "Kc", "7d", "2s")]
    >>> board = [Card.parse(t).index for t in ("Qh", "Jh", "9h", "4h", "3c")]
    >>> category_of(omaha_high_value(hole, board)).label  # one heart in hand: no flush
    'High card'

    :raises CardError: wrong card counts, index out of range or a card used twice.
    """
    try:
        hk = [_HKEY[c] for c in hole_idx]
        bk = [_HKEY[c] for c in board_idx]
    except (KeyError, TypeError):
        _check_omaha(hole_idx, board_idx, "Omaha hand")
        raise  # pragma: no cover
    nh, nb = len(hk), len(bk)
    if nh not in (4, 5) or not 3 <= nb <= 5 or len(set(hole_idx) | set(board_idx)) != nh + nb:
        _check_omaha(hole_idx, board_idx, "Omaha hand")
    pairs = [hk[i] + hk[j] for i, j in _PAIRS[nh]]
    triples = [bk[i] + bk[j] + bk[k] for i, j, k in _TRIPLES[nb]]
    nf = _HIGH_NF
    best = max([nf[(p + t) >> _SUIT_BITS] for p in pairs for t in triples])
    # A five-card flush needs a one-suit board triple and a one-suit hole pair of that suit.
    suited_t = [t for t in triples if (t & 4095) in _MONO3]
    if suited_t:
        suited_p = [p for p in pairs if (p & 4095) in _MONO2]
        for t in suited_t:
            for p in suited_p:
                x = p + t
                if _FLUSH_SUIT[x & 4095] >= 0:
                    v = _FLUSH_BY_SUM[(x >> _SUIT_BITS) - (5 << _SIZE_SHIFT)]
                    if v > best:
                        best = v
    return best


_MONO3 = frozenset(3 << (3 * s) for s in range(4))
_MONO2 = frozenset(2 << (3 * s) for s in range(4))
_NP_FIVE_SUITED = np.zeros(4096, dtype=bool)  # base-8 suit counts of five cards of one suit
_NP_FIVE_SUITED[[5 << (3 * s) for s in range(4)]] = True
_NP_RKEY32 = _NP_RKEY.astype(np.int32)  # five-card rank sums fit in 32 bits
_NP_SKEY16 = _NP_SKEY.astype(np.int16)
_NP_BIT16 = (1 << (np.arange(52) >> 2)).astype(np.int16)
_FLUSH_BY_SUM = {  # flush value of five distinct ranks, by their rank-key sum
    sum(_RANK_KEYS[r] for r in ranks): _FLUSH[sum(1 << r for r in ranks)]
    for ranks in itertools.combinations(range(13), 5)
}


def evaluate_omaha_high_batch(hole: np.ndarray, board: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Omaha high values for many hands: ``hole`` ``(N, 4|5)`` and ``board`` ``(N, 3..5)`` indices.

    >>> h = np.array([[51, 47, 0, 5]]); b = np.array([[43, 39, 35, 9, 13]])
    >>> evaluate_omaha_high_batch(h, b).tolist() == [omaha_high_value([51, 47, 0, 5], [43, 39, 35, 9, 13])]
    True

    :raises CardError: bad shapes, index out of range or a card used twice in a row.
    """
    hole, board = np.asarray(hole), np.asarray(board)
    if hole.ndim != 2 or board.ndim != 2 or hole.shape[0] != board.shape[0]:
        raise CardError(f"Omaha batch needs (N, 4|5) hole and (N, 3..5) board arrays, got {hole.shape} and {board.shape}")
    if hole.shape[1] not in (4, 5) or not 3 <= board.shape[1] <= 5:
        raise CardError(f"Omaha batch needs 4 or 5 hole and 3 to 5 board cards, got {hole.shape[1]} and {board.shape[1]}")
    if check and hole.shape[0]:
        _check_batch_any(np.concatenate([hole, board], axis=1), "Omaha batch")
    offsets, table = _NP_NF[5]
    hp = np.array(_PAIRS[hole.shape[1]]).T  # (2, P)
    bt = np.array(_TRIPLES[board.shape[1]]).T  # (3, T)
    hr, hs, hb = _NP_RKEY32[hole], _NP_SKEY16[hole], _NP_BIT16[hole]
    br, bs, bb = _NP_RKEY32[board], _NP_SKEY16[board], _NP_BIT16[board]
    # (N, P, 1) + (N, 1, T): every two-plus-three combination at once
    rank_sum = (hr[:, hp[0]] + hr[:, hp[1]])[:, :, None] + (br[:, bt[0]] + br[:, bt[1]] + br[:, bt[2]])[:, None, :]
    values = table[offsets[rank_sum >> _ROW_SHIFT] + (rank_sum & ((1 << _ROW_SHIFT) - 1))]
    suit_sum = (hs[:, hp[0]] + hs[:, hp[1]])[:, :, None] + (bs[:, bt[0]] + bs[:, bt[1]] + bs[:, bt[2]])[:, None, :]
    flush = _NP_FIVE_SUITED[suit_sum]
    if flush.any():
        bits = (hb[:, hp[0]] | hb[:, hp[1]])[:, :, None] | (bb[:, bt[0]] | bb[:, bt[1]] | bb[:, bt[2]])[:, None, :]
        values[flush] = _NP_FLUSH[bits[flush]]
    best = values.reshape(len(values), -1).max(axis=1).astype(np.int64)
    return best


def _check_batch_any(idx: np.ndarray, what: str) -> None:
    if not np.issubdtype(idx.dtype, np.integer):
        raise CardError(f"{what} needs integer card indices, got dtype {idx.dtype}")
    if idx.min() < 0 or idx.max() > 51:
        bad = idx[(idx < 0) | (idx > 51)][0]
        raise CardError(f"card index {int(bad)} in {what} is not in 0..51")
    bits = np.left_shift(np.uint64(1), idx.astype(np.uint64))
    dup = np.bitwise_or.reduce(bits, axis=1) != bits.sum(axis=1, dtype=np.uint64)
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise CardError(f"duplicate card in {what}, row {row}: {idx[row].tolist()}")


def low8_value(indices: Sequence[int]) -> int | None:
    """8-or-better A-5 low value of 5..7 cards, or ``None`` when there is no qualifying low.

    Five distinct ranks, all eight or lower, ace low; straights and flushes do not count.

    >>> wheel = [Card.parse(t).index for t in ("As", "2s", "3s", "4s", "5s")]
    >>> low8_value(wheel) > low8_value([Card.parse(t).index for t in ("8d", "6h", "4s", "2c", "Ad")])
    True
    >>> low8_value([Card.parse(t).index for t in ("9d", "6h", "4s", "2c", "Ad")]) is None
    True

    :raises CardError: wrong card count, index out of range or duplicate card.
    """
    n = len(indices)
    try:
        m = 0
        for c in indices:
            m |= _LOWBIT[c]
    except (KeyError, TypeError):
        _check_indices(indices, 5, 7, "low hand")
        raise  # pragma: no cover
    if n < 5 or n > 7 or len(set(indices)) != n:
        _check_indices(indices, 5, 7, "low hand")
    return _LOW8[m]


def a5_low_value(indices: Sequence[int]) -> int:
    """Razz (A-5 low) value of 5..7 cards: pairs count against, straights and flushes ignored.

    >>> idx = lambda text: [c.index for c in parse_cards(text)]
    >>> a5_low_value(idx("As2s3s4s5s")) > a5_low_value(idx("6d4h3c2sAd"))
    True
    >>> a5_low_value(idx("KdQhJcTs9d")) > a5_low_value(idx("AdAh2c3s4d"))  # pairs count against
    True

    :raises CardError: wrong card count, index out of range or duplicate card.
    """
    n = len(indices)
    try:
        x = sum(map(_A5KEY.__getitem__, indices))
    except (KeyError, TypeError):
        _check_indices(indices, 5, 7, "razz hand")
        raise  # pragma: no cover
    if n < 5 or n > 7 or len(set(indices)) != n:
        _check_indices(indices, 5, 7, "razz hand")
    return _A5[x]


# ---------------------------------------------------------------------------------------------
# Readings
# ---------------------------------------------------------------------------------------------


def _pick_best(combos: Iterable[tuple[Card, ...]], value_of) -> tuple[int, tuple[Card, ...]]:
    """Best value and, among five-card sets reaching it, the one with the highest cards by index."""
    best_v = -1
    tied: list[tuple[Card, ...]] = []
    for combo in combos:
        v = value_of([c.index for c in combo])
        if v is None or v < best_v:
            continue
        if v > best_v:
            best_v, tied = v, [combo]
        else:
            tied.append(combo)
    if not tied:
        return -1, ()
    if len(tied) == 1:
        return best_v, tied[0]
    return best_v, max(tied, key=lambda combo: sorted((c.index for c in combo), reverse=True))


def _omaha_cards(hole: str | Iterable[Card | str], board: str | Iterable[Card | str]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Validated Omaha hole cards (4 or 5) and board (3 to 5), with no card in both."""
    h = _as_cards(hole, 4, 5, "Omaha hole cards")
    b = _as_cards(board, 3, 5, "Omaha board")
    _check_disjoint(h, b, "Omaha hand")
    return h, b


def _omaha_pick(h: Sequence[Card], b: Sequence[Card], *, low: bool) -> tuple[int, tuple[Card, ...]]:
    """Best two-plus-three Omaha value (high, or 8-or-better low) and its five cards.

    The inner loop adds precomputed pair and triple keys: no per-combination lists or checks
    (the caller validated the cards). Ties between five-card sets go to the highest cards by index.
    """
    pairs = _PAIRS[len(h)]
    triples = _TRIPLES[len(b)]
    if low:
        lb = _LOWBIT
        hb = [lb[c.index] for c in h]
        bb = [lb[c.index] for c in b]
        pk = [(hb[i] | hb[j], (i, j)) for i, j in pairs if hb[i] and hb[j] and hb[i] != hb[j]]
        tk = [(bb[x] | bb[y] | bb[z], (x, y, z)) for x, y, z in triples
              if bb[x] and bb[y] and bb[z] and (bb[x] | bb[y] | bb[z]).bit_count() == 3]
    else:
        k = _HKEY
        hk = [k[c.index] for c in h]
        bk = [k[c.index] for c in b]
        pk = [(hk[i] + hk[j], (i, j)) for i, j in pairs]
        tk = [(bk[x] + bk[y] + bk[z], (x, y, z)) for x, y, z in triples]
    best = -1
    tied: list[tuple[tuple[int, int], tuple[int, int, int]]] = []
    fsuit, nf, sb, low8 = _FLUSH_SUIT, _HIGH_NF, _SUIT_BITS, _LOW8
    for pv, pij in pk:
        for tv, txyz in tk:
            if low:
                m = pv | tv
                if m.bit_count() != 5:
                    continue
                v = low8[m]
                if v is None:
                    continue
            else:
                x = pv + tv
                if fsuit[x & 4095] < 0:
                    v = nf[x >> sb]
                else:
                    five = (h[pij[0]], h[pij[1]], b[txyz[0]], b[txyz[1]], b[txyz[2]])
                    v = high_value([c.index for c in five])
            if v > best:
                best, tied = v, [(pij, txyz)]
            elif v == best:
                tied.append((pij, txyz))
    if best < 0:
        return -1, ()

    def cards(choice: tuple[tuple[int, int], tuple[int, int, int]]) -> tuple[Card, ...]:
        (i, j), (x, y, z) = choice
        return (h[i], h[j], b[x], b[y], b[z])

    if len(tied) == 1:
        return best, cards(tied[0])
    return best, max((cards(t) for t in tied), key=lambda f: sorted((c.index for c in f), reverse=True))


def _reading_order(five: Sequence[Card]) -> tuple[Card, ...]:
    """Group order: most of a rank first, then higher rank, then higher suit."""
    counts: dict[int, int] = {}
    for c in five:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    return tuple(sorted(five, key=lambda c: (counts[c.rank], c.rank, c.suit.order), reverse=True))


def _high_text(cat: Category, five: tuple[Card, ...]) -> str:
    r = [c.rank for c in five]
    if cat == Category.STRAIGHT_FLUSH:
        return "Royal flush" if r[0] == Rank.ACE else f"Straight flush, {r[0].singular} high"
    if cat == Category.FOUR_OF_A_KIND:
        return f"Four of a kind, {r[0].plural}"
    if cat == Category.FULL_HOUSE:
        return f"Full house, {r[0].plural} full of {r[3].plural}"
    if cat == Category.FLUSH:
        return f"Flush, {r[0].singular} high"
    if cat == Category.STRAIGHT:
        return f"Straight, {r[0].singular} high"
    if cat == Category.THREE_OF_A_KIND:
        return f"Three of a kind, {r[0].plural}"
    if cat == Category.TWO_PAIR:
        return f"Two pair, {r[0].plural} and {r[2].plural}"
    if cat == Category.PAIR:
        return f"Pair of {r[0].plural}"
    return f"High card, {r[0].singular}"


def _high_reading(value: int, five: tuple[Card, ...]) -> HandReading:
    cat = category_of(value)
    if cat in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        ordered = sorted(five, key=lambda c: c.rank, reverse=True)
        if ordered[0].rank == Rank.ACE and ordered[1].rank == Rank.FIVE:  # wheel: 5-4-3-2-A
            ordered = ordered[1:] + ordered[:1]
        five = tuple(ordered)
    else:
        five = _reading_order(five)
    return HandReading("high", value, cat, five, _high_text(cat, five))


def evaluate_high(cards: str | Iterable[Card | str]) -> HandReading:
    """Best high hand of 5, 6 or 7 cards (Hold'em, stud high).

    >>> evaluate_high("Ah 2d 3c 4s 5h Kd Kc").text
    'Straight, five high'
    >>> " ".join(map(str, evaluate_high("Ah 2h 3h 4h 5h Kd Kc").best_five))
    '5h 4h 3h 2h Ah'
    >>> evaluate_high("9c 9d 9h 9s 2d").text
    'Four of a kind, nines'
    >>> evaluate_high("As As 2d 3c 4h")
    Traceback (most recent call last):
    ...
    controller.cards.CardError: duplicate card As in high hand

    :raises CardError: wrong card count, a bad card or a card used twice.
    """
    hand = _as_cards(cards, 5, 7, "high hand")
    value, five = _pick_best(itertools.combinations(hand, 5), high_value)
    return _high_reading(value, five)


def evaluate_omaha_high(hole: str | Iterable[Card | str], board: str | Iterable[Card | str]) -> HandReading:
    """Best Omaha high hand: exactly two of the 4 or 5 hole cards and exactly three of the board.

    >>> evaluate_omaha_high("Ah Kc 7d 2s", "Qh Jh 9h 4h 3c").text  # four hearts on board, one in hand
    'High card, ace'
    >>> evaluate_omaha_high("Ah Kh 7d 2s", "Qh Jh 9h 4h 3c").text
    'Flush, ace high'

    :raises CardError: wrong card counts, a bad card or a card used twice.
    """
    h, b = _omaha_cards(hole, board)
    value, five = _omaha_pick(h, b, low=False)
    return _high_reading(value, five)


def _low_char(rank: Rank) -> str:
    return "A" if rank == Rank.ACE else rank.char


def _low_sort_key(c: Card) -> tuple[int, int]:
    return (1 if c.rank == Rank.ACE else int(c.rank), c.suit.order)


def _low8_reading(value: int, five: tuple[Card, ...]) -> HandReading:
    ordered = tuple(sorted(five, key=_low_sort_key, reverse=True))
    return HandReading("low8", value, None, ordered, "-".join(_low_char(c.rank) for c in ordered) + " low")


def evaluate_low8(cards: str | Iterable[Card | str]) -> HandReading | None:
    """8-or-better A-5 low of 5..7 cards, or ``None`` when no five distinct ranks are 8 or lower.

    >>> evaluate_low8("As 2s 3s 4s 5s").text  # straights and flushes do not count against a low
    '5-4-3-2-A low'
    >>> evaluate_low8("8c 8d 2c 3d 4h 9s Ts") is None  # paired eight: only four low ranks
    True

    :raises CardError: wrong card count, a bad card or a card used twice.
    """
    hand = _as_cards(cards, 5, 7, "low hand")
    value = low8_value([c.index for c in hand])
    if value is None:
        return None
    _, five = _pick_best(itertools.combinations(hand, 5), low8_value)
    return _low8_reading(value, five)


def evaluate_omaha_low8(hole: str | Iterable[Card | str], board: str | Iterable[Card | str]) -> HandReading | None:
    """Best Omaha 8-or-better low (two hole cards + three board cards), or ``None``.

    >>> evaluate_omaha_low8("Ad 2d Kc Kh", "3c 4h 9s Ts Js") is None  # only two low board cards
    True
    >>> evaluate_omaha_low8("Ad 2d Kc Kh", "3c 4h 8s Ts Js").text
    '8-4-3-2-A low'

    :raises CardError: wrong card counts, a bad card or a card used twice.
    """
    h, b = _omaha_cards(hole, board)
    value, five = _omaha_pick(h, b, low=True)
    return None if value < 0 else _low8_reading(value, five)


def omaha_low8_value(hole_idx: Sequence[int], board_idx: Sequence[int]) -> int | None:
    """Fast form of :func:`evaluate_omaha_low8` on indices; ``None`` when there is no low.

    >>> omaha_low8_value([48, 0, 44, 45], [4, 9, 24, 34, 38])  # Ac 2c Kc Kd / 3c 4d 8c Ts Jh
    113

    :raises CardError: wrong card counts, index out of range or a card used twice.
    """
    _check_omaha(hole_idx, board_idx, "Omaha hand")
    lb = _LOWBIT
    hb = [lb[c] for c in hole_idx]
    bb = [lb[c] for c in board_idx]
    pairs = {hb[i] | hb[j] for i, j in _PAIRS[len(hb)] if hb[i] and hb[j] and hb[i] != hb[j]}
    triples = {bb[i] | bb[j] | bb[k] for i, j, k in _TRIPLES[len(bb)]
               if (bb[i] | bb[j] | bb[k]).bit_count() == 3 and bb[i] and bb[j] and bb[k]}
    best = None
    for p in pairs:
        for t in triples:
            if not p & t:
                v = 256 - (p | t)
                if best is None or v > best:
                    best = v
    return best


def _a5_text(value: int, ordered: tuple[Card, ...]) -> str:
    cat, _ = _A5_KEYS[value]
    ch = [_low_char(c.rank) for c in ordered]
    r = [c.rank for c in ordered]
    if cat == Category.HIGH_CARD:
        return "-".join(ch) + " low"
    if cat == Category.PAIR:
        return f"Pair of {r[0].plural}, {'-'.join(ch[2:])} low"
    if cat == Category.TWO_PAIR:
        return f"Two pair, {r[0].plural} and {r[2].plural}, {ch[4]} low"
    if cat == Category.THREE_OF_A_KIND:
        return f"Three of a kind, {r[0].plural}, {'-'.join(ch[3:])} low"
    if cat == Category.FULL_HOUSE:
        return f"Full house, {r[0].plural} full of {r[3].plural}"
    return f"Four of a kind, {r[0].plural}, {ch[4]} low"


def evaluate_a5_low(cards: str | Iterable[Card | str]) -> HandReading:
    """Razz: best A-5 low of 5..7 cards; a pair is worse than any unpaired low. Always a reading.

    >>> evaluate_a5_low("Kd 8c 6h 4s 2c Ad Ac").text
    '8-6-4-2-A low'
    >>> evaluate_a5_low("5d 5c Kh Qs Jc 5h 5s").text
    'Pair of fives, K-Q-J low'

    :raises CardError: wrong card count, a bad card or a card used twice.
    """
    hand = _as_cards(cards, 5, 7, "razz hand")
    value, five = _pick_best(itertools.combinations(hand, 5), a5_low_value)
    counts: dict[int, int] = {}
    for c in five:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    ordered = tuple(sorted(five, key=lambda c: (counts[c.rank], *_low_sort_key(c)), reverse=True))
    return HandReading("a5", value, None, ordered, _a5_text(value, ordered))


# ---------------------------------------------------------------------------------------------
# Stud and razz boards (who shows first, R8)
# ---------------------------------------------------------------------------------------------


def _board_key(cards: str | Iterable[Card | str], ace_low: bool, what: str) -> int:
    board = _as_cards(cards, 1, 4, what)
    ranks = [1 if ace_low and c.rank == Rank.ACE else int(c.rank) for c in board]
    cat, order = _group_key(ranks)
    if cat == Category.FULL_HOUSE:  # impossible with four cards; keep the ordering total anyway
        cat = Category.THREE_OF_A_KIND
    key = int(cat)
    for i in range(4):
        key = (key << 4) | (order[i] if i < len(order) else 0)
    return key


def stud_board_value(cards: str | Iterable[Card | str]) -> int:
    """Order of 1..4 exposed stud cards for who acts and shows first: larger is the higher board.

    Only pairs, two pair, trips and quads count, then ranks; straights, flushes and suits do not.

    >>> stud_board_value("2c 2d") > stud_board_value("As Ks")  # a pair beats any unpaired board
    True
    >>> stud_board_value("9h Th Jh Qh") < stud_board_value("3c 3d 4h 5s")  # no straights or flushes
    True
    >>> stud_board_value("Ks 7d") == stud_board_value("Kc 7h")  # suits never rank
    True

    :raises CardError: not 1 to 4 cards, a bad card or a card used twice.
    """
    return _board_key(cards, False, "stud board")


def razz_board_value(cards: str | Iterable[Card | str]) -> int:
    """Order of 1..4 exposed razz cards: larger is the LOWER (better) razz board.

    Ace is low and pairs count against; straights, flushes and suits do not matter.

    >>> razz_board_value("7c 4d") > razz_board_value("8s 2h")
    True
    >>> razz_board_value("Kc Qd") > razz_board_value("Ac Ad")  # pairs count against
    True
    >>> razz_board_value("As") > razz_board_value("2s")  # the ace is the lowest card
    True

    :raises CardError: not 1 to 4 cards, a bad card or a card used twice.
    """
    return (1 << 20) - _board_key(cards, True, "razz board")

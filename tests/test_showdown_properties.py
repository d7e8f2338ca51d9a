"""Invariants of the engine over random finished hands (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from controller.cards import FULL_DECK
from controller.pots import build_pots, return_uncalled
from controller.showdown import HandRecord, PlayerRecord, settle
from controller.variants import variant_for_code

CODES = ["NT", "PO", "FO/8", "F7S", "F7S/8", "FR", "PO/8"]


@st.composite
def hands(draw, codes=CODES):
    code = draw(st.sampled_from(codes))
    v = variant_for_code(code)
    n = draw(st.integers(2, 7 if v.is_stud else 9))
    deck = list(draw(st.permutations(FULL_DECK)))
    contributions = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    folded = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if all(folded):
        folded[draw(st.integers(0, n - 1))] = False
    top = max(c for c, f in zip(contributions, folded) if not f)
    shown = draw(st.lists(st.sampled_from([None, None, True, False]), min_size=n, max_size=n))
    chip = draw(st.sampled_from([1, 1, 1, 5]))
    contributions = [c * chip for c in contributions]
    dead = [draw(st.integers(0, 2)) * chip for _ in range(n)]
    players = []
    for i in range(n):
        hole = tuple(deck.pop() for _ in range(v.hole_cards))
        up = (False, False, True, True, True, True, False) if v.is_stud else ()
        players.append(PlayerRecord(
            contributions[i], folded[i], (not folded[i]) and contributions[i] < top * chip,
            hole, up, shown[i] if not folded[i] else None, 1000, dead[i]))
    # A real showdown always has a hand left in every pot: one of the largest live contributors
    # (eligible for every pot) is never mucked.
    i = next(i for i, p in enumerate(players) if not p.folded and p.contributed == top * chip)
    if players[i].shown is False:
        players[i] = PlayerRecord(**{**_fields(players[i]), "shown": True})
    board = tuple(deck.pop() for _ in range(v.board_cards))
    return HandRecord(v, tuple(players), board, smallest_chip=chip)


def _fields(p: PlayerRecord) -> dict:
    return {f: getattr(p, f) for f in p.__dataclass_fields__}


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(hands())
def test_chips_conserved_no_negative_award_nothing_left_over(record):
    result = settle(record)
    paid_in = sum(p.contributed + p.dead for p in record.players)
    assert sum(result.winnings) == paid_in
    for pa in result.pots:
        assert sum(a.amount for a in pa.awards) == pa.pot.amount
        assert all(a.amount >= 0 for a in pa.awards)
        assert all(a.amount % record.smallest_chip == 0 for a in pa.awards)
        # odd chips never exceed the number of winners sharing that half
        for half in {a.half for a in pa.awards}:
            share = [a for a in pa.awards if a.half == half]
            assert sum(a.odd_chips for a in share) < max(len(share), 2)
    assert all(w >= 0 for w in result.winnings)
    assert sum(result.final_stacks) == 1000 * len(record.players)


@SETTINGS
@given(hands(), st.randoms(use_true_random=False))
def test_renumbering_seats_moves_awards_with_them(record, rnd):
    n = len(record.players)
    perm = list(range(n))
    rnd.shuffle(perm)
    moved = HandRecord(record.variant, tuple(record.players[perm[i]] for i in range(n)), record.board,
                       smallest_chip=record.smallest_chip)
    a, b = settle(record), settle(moved)
    chip = record.smallest_chip

    def base(result, who):
        # Odd chips depend on seats in flop games (left of the button, R11); the rest may not.
        return sum(x.amount - (x.odd_chips * chip if not record.variant.is_stud else 0)
                   for pa in result.pots for x in pa.awards if x.player == who)

    for i in range(n):
        assert base(b, i) == base(a, perm[i])
        assert b.refunds[i] == a.refunds[perm[i]]


@given(st.lists(st.integers(0, 500), min_size=2, max_size=10), st.data())
def test_pots_layering_conserves_and_orders(contributions, data):
    n = len(contributions)
    live = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    assume(any(live))
    refunds, after = return_uncalled(contributions)
    assert sum(refunds) + sum(after) == sum(contributions)
    assert sorted(after, reverse=True)[0] == sorted(after, reverse=True)[1]
    pots = build_pots(after, live)
    assert sum(p.amount for p in pots) == sum(after)
    for outer, inner in zip(pots, pots[1:]):
        assert set(inner.eligible) <= set(outer.eligible)
    assert all(p.eligible for p in pots)

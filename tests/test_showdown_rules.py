"""The showdown engine, rule by rule (R1..R19 in ../shared/rules/README.md), on hands built by hand."""

from __future__ import annotations

import pytest

from controller import phh
from controller.cards import parse_cards
from controller.showdown import (
    HandRecord,
    Half,
    PlayerRecord,
    Rules,
    ShowdownError,
    settle,
)
from controller.variants import OddChip, variant_for_code


def P(contributed, hole="", folded=False, all_in=False, shown=None, up=(), stack=None):
    cards = parse_cards(hole) if hole and "?" not in hole else tuple(
        None if hole[i:i + 2] == "??" else parse_cards(hole[i:i + 2])[0] for i in range(0, len(hole), 2))
    return PlayerRecord(contributed, folded, all_in, cards, tuple(up), shown, stack)


def rec(code, players, board="", **kw):
    return HandRecord(variant_for_code(code), tuple(players), parse_cards(board), **kw)


def awards_by_player(result):
    out = {}
    for pa in result.pots:
        for a in pa.awards:
            out[a.player] = out.get(a.player, 0) + a.amount
    return out


def play(text: str):
    [hand] = phh.loads(text, "test.phh")
    return hand, settle(phh.record_of(hand))


# ------------------------------------------------------------------------------------------- R1
def test_r1_cards_speak_board_straight_beats_declared_pair():
    # p1 may think "ace high"; the board's 7-8-9-T with p1's jack is a straight. Cards speak.
    r = settle(rec("NT", [P(100, "JcAd"), P(100, "AhAs")], "9d8cTh7s2c"))
    readings = {x.player: x for x in r.readings}
    assert readings[0].high.text == "Straight, jack high"
    assert readings[1].high.text == "Pair of aces"
    assert awards_by_player(r) == {0: 200}


# ------------------------------------------------------------------------------------------- R2 / R3
def test_r2_r3_hand_with_unknown_card_cannot_win():
    r = settle(rec("NT", [P(100, "AsAh"), P(100, "Kd??"), P(100, "7c2d")], "KsKh3c4d9s"))
    assert awards_by_player(r) == {0: 300}
    why = {x.player: x.why_not for x in r.readings}
    assert "not every card is identified" in why[1]


def test_r3_mucked_hand_cannot_win_even_if_best():
    r = settle(rec("NT", [P(100, "AsAh", shown=False), P(100, "7c2d", shown=True)], "KsKh3c4d9s"))
    assert awards_by_player(r) == {1: 200}


def test_r2_omaha_needs_all_four_cards():
    r = settle(rec("PO", [P(50, "AsAhKsKh"), P(50, "2c3c4c")], "AdAc5d6h7s"))
    assert awards_by_player(r) == {0: 100}
    assert "needs 4" in {x.player: x.why_not for x in r.readings}[1]


# ------------------------------------------------------------------------------------------- R6
def test_r6_uncalled_part_of_bet_returned_before_pots():
    r = settle(rec("NT", [P(500, "AsAh"), P(120, "KdKc", all_in=True)], "2c3d7h9sJd"))
    assert r.refunds == (380, 0)
    assert [p.pot.amount for p in r.pots] == [240]
    assert r.winnings == (380 + 240, 0)


def test_r6_replayed_all_in_overbet_comes_back():
    hand, r = play("""
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [1000, 300, 1000]
actions = ['d dh p1 AsAh', 'd dh p2 KdKc', 'd dh p3 7c2d', 'p3 f', 'p1 cbr 900', 'p2 cc',
           'd db 2c3d7h', 'd db 9s', 'd db Jd']
""")
    assert r.refunds[0] == 600
    assert r.final_stacks == (1300, 0, 1000)


# ------------------------------------------------------------------------------------------- R7 / R12 order
def test_r7_all_in_showdown_everyone_must_table():
    r = settle(rec("NT", [P(100, "AsAh", all_in=True), P(300, "KdKc"), P(300, "QdQc")], "2c3d7h9sJd",
                   final_round_aggressor=1, final_round_name="river"))
    assert r.plan.all_in
    assert all(e.must_show for e in r.plan.order)


def test_r12_outermost_side_pot_shows_first_main_pot_only_all_in_last():
    # p1 all-in for 100 (main pot only), p2 all-in for 300 (side pot 1), p3 and p4 contest side pot 2.
    players = [P(100, "AsAh", all_in=True), P(300, "KdKc", all_in=True), P(800, "QdQc"), P(800, "JhJs")]
    r = settle(rec("NT", players, "2c3d7h9s4d", final_round_aggressor=3, final_round_name="river"))
    order = [e.player for e in r.plan.order]
    assert order[:2] == [3, 2]  # side pot 2: the river's aggressor first, then clockwise
    assert order[2] == 1 and order[3] == 0
    assert "main pot only" in r.plan.order[3].reason


def test_r12_pots_awarded_outermost_first_each_on_its_own():
    players = [P(100, "AsAh", all_in=True), P(300, "KdKc", all_in=True), P(800, "QdQc"), P(800, "JhJs")]
    r = settle(rec("NT", players, "2c3d7h9s4d"))
    assert [pa.name for pa in r.award_order] == ["Side pot 2", "Side pot 1", "Main pot"]
    assert [(pa.pot.amount, pa.pot.eligible) for pa in r.pots] == [
        (400, (0, 1, 2, 3)), (600, (1, 2, 3)), (1000, (2, 3))]
    assert awards_by_player(r) == {0: 400, 1: 600, 2: 1000}


def test_r12_each_side_pot_split_on_its_own_moves_the_odd_chip():
    # p1 and p2 tie for everything. Main pot 3*3 = 9 and side pot 2*2 = 4... split separately:
    # main 9 -> 5/4 (odd chip to p1, first left of the button), side 4 -> 2/2. Merged (PokerKit)
    # they would be 13 -> 7/6 with the same eligible pair; here they differ in eligible players,
    # so build a case where they share contenders after the third hand is beaten.
    players = [P(5, "AsKd"), P(5, "AhKc"), P(3, "7c2d", all_in=True)]
    r = settle(rec("NT", players, "QsJhTd3c4s"))
    main, side = r.pots
    assert (main.pot.amount, side.pot.amount) == (9, 4)
    assert [(a.player, a.amount) for a in main.awards] == [(0, 5), (1, 4)]
    assert [(a.player, a.amount) for a in side.awards] == [(0, 2), (1, 2)]
    merged = settle(rec("NT", players, "QsJhTd3c4s"), Rules(merge_same_contenders=True))
    assert [p.pot.amount for p in merged.pots] == [13]
    assert awards_by_player(merged) == {0: 7, 1: 6}


# ------------------------------------------------------------------------------------------- R8
def test_r8_last_aggressor_shows_first():
    hand, r = play("""
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
actions = ['d dh p1 AsAh', 'd dh p2 KdKc', 'd dh p3 QdQc', 'p3 cc', 'p1 cc', 'p2 cc',
           'd db 2c3d7h', 'p1 cc', 'p2 cc', 'p3 cc', 'd db 9s', 'p1 cc', 'p2 cc', 'p3 cc',
           'd db Jd', 'p1 cc', 'p2 cbr 10', 'p3 cbr 30', 'p1 cc', 'p2 cc']
""")
    assert [e.player for e in r.plan.order] == [2, 0, 1]
    assert r.plan.order[0].must_show and not r.plan.order[1].must_show
    assert "last aggressor on the river" in r.plan.order[0].reason


def test_r8_no_bet_first_live_seat_left_of_button_shows_first():
    hand, r = play("""
variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0]
min_bet = 2
starting_stacks = [200, 200, 200, 200]
actions = ['d dh p1 AsAh', 'd dh p2 KdKc', 'd dh p3 QdQc', 'd dh p4 JsJc', 'p3 cc', 'p4 cc', 'p1 f',
           'p2 cc', 'd db 2c3d7h', 'p2 cc', 'p3 cc', 'p4 cc', 'd db 9s', 'p2 cc', 'p3 cc', 'p4 cc',
           'd db 8d', 'p2 cc', 'p3 cc', 'p4 cc']
""")
    # p1 (first seat left of the button) folded: p2 is the first live seat.
    assert [e.player for e in r.plan.order] == [1, 2, 3]
    assert "first live seat left of the button" in r.plan.order[0].reason


def test_r8_stud_highest_board_shows_first_when_no_bet():
    up = (False, False, True, True, True, True, False)
    players = [P(100, "2c3c" + "4d5d6h7s" + "9c", up=up), P(100, "AcAd" + "KsKhQcQd" + "2d", up=up)]
    r = settle(rec("F7S", players, final_round_name="seventh street"))
    assert r.plan.order[0].player == 1
    assert "highest board" in r.plan.order[0].reason


def test_r8_razz_lowest_board_shows_first_when_no_bet():
    up = (False, False, True, True, True, True, False)
    players = [P(100, "KcKd" + "AhAs2h3h" + "Qc", up=up), P(100, "AcAd" + "3s4s5c6c" + "2d", up=up)]
    r = settle(rec("FR", players, final_round_name="seventh street"))
    # p1 shows a pair of aces on board: worse than p2's 6-5-4-3 in razz.
    assert r.plan.order[0].player == 1
    assert "lowest board" in r.plan.order[0].reason


# ------------------------------------------------------------------------------------------- R9
def test_r9_uncontested_pot_needs_no_show():
    r = settle(rec("NT", [P(50, "AsAh"), P(20, "", folded=True), P(10, "", folded=True)]))
    assert r.plan.uncontested and r.plan.order == ()
    assert r.plan.winner_without_show == 0
    assert r.refunds == (30, 0, 0) and awards_by_player(r) == {0: 50}
    assert r.winnings == (80, 0, 0)


# ------------------------------------------------------------------------------------------- R11
def test_r11_flop_odd_chip_to_first_seat_left_of_button():
    # Three players; the button is p3. p2 and p3 tie: the odd chip goes to p2 (left of the button).
    players = [P(5, "2c3d", folded=True), P(5, "AsKd"), P(5, "AhKc")]
    r = settle(rec("NT", players, "QsJhTd3c4s"))
    assert [(a.player, a.amount, a.odd_chips) for a in r.pots[0].awards] == [(1, 8, 1), (2, 7, 0)]
    assert "first seat left of the button" in r.pots[0].notes[0]


def test_r11_stud_odd_chip_to_highest_card_by_suit():
    up = (False, False, True, True, True, True, False)
    # Both make the same straight 9-high; p1's best five holds the 9s, p2's the 9h: spades win the chip.
    p1 = P(5, "5c6d" + "7h8c9s2d" + "3h", up=up)
    p2 = P(5, "5d6c" + "7c8d9h2s" + "3c", up=up)
    r = settle(rec("F7S", [p1, p2, P(1, "", folded=True)]))
    awards = {a.player: a for a in r.pots[0].awards}
    assert awards[0].amount == 6 and awards[0].odd_chips == 1
    assert awards[1].amount == 5
    assert "highest card by suit in the best five (9s)" in r.pots[0].notes[0]
    # PokerKit gives it by seat; the same hand with seats swapped keeps the chip with the 9s.
    swapped = settle(rec("F7S", [p2, p1, P(1, "", folded=True)]))
    assert {a.player: a.amount for a in swapped.pots[0].awards} == {1: 6, 0: 5}


def test_r11_hi_lo_odd_chip_of_whole_pot_goes_to_high_half():
    # Omaha hi/lo, pot 101 (odd): high gets 51, low 50.
    players = [P(50, "AsKsQdJd"), P(51, "2c3c9h9d"), ]
    r = settle(rec("FO/8", players, "4d5h8sKcKh"))
    awards = [(a.player, a.amount, a.half) for a in r.pots[0].awards]
    assert r.refunds == (0, 1)
    assert awards == [(0, 50, Half.HIGH), (1, 50, Half.LOW)]
    players = [P(51, "AsKsQdJd"), P(51, "2c3c9h9d"), P(1, "", folded=True)]
    r = settle(rec("FO/8", players, "4d5h8sKcKh"))
    assert [(a.player, a.amount, a.half) for a in r.pots[0].awards] == [
        (0, 52, Half.HIGH), (1, 51, Half.LOW)]
    assert any("odd chip of the pot goes to the high half" in n for n in r.pots[0].notes)


def test_r11_split_down_to_smallest_chip_in_play():
    players = [P(25, "AsKd"), P(25, "AhKc"), P(25, "2c7d", folded=True)]
    r = settle(rec("NT", players, "QsJhTd3c4s", smallest_chip=5))
    # 75 in 5-chips is 15 chips: 8 to p1 (left of the button) and 7 to p2.
    assert [(a.player, a.amount) for a in r.pots[0].awards] == [(0, 40), (1, 35)]


def test_r11_stud_hi_lo_low_tie_odd_chip_by_suit_in_the_low():
    up = (False, False, True, True, True, True, False)
    p1 = P(15, "As2s" + "3s4d5sKd" + "Kh", up=up)
    p2 = P(15, "Ah2h" + "3h4c5hQd" + "Qc", up=up)
    p3 = P(15, "KsKc" + "QsQhJsJh" + "Jd", up=up)
    r = settle(rec("F7S/8", [p1, p2, p3]))
    awards = [(a.player, a.amount, a.half, a.odd_chips) for a in r.pots[0].awards]
    # 45: high half 23 to p3 (full house), low half 22 split 11/11, no odd chip in the low half.
    assert (2, 23, Half.HIGH, 0) in awards
    assert sorted(a for a in awards if a[2] is Half.LOW) == [(0, 11, Half.LOW, 0), (1, 11, Half.LOW, 0)]


# ------------------------------------------------------------------------------------------- R12 hi/lo
def test_r12_hi_lo_side_pot_without_low_among_its_contenders_goes_high():
    # p3's low lives only in the main pot; side pot contenders p1, p2 have no low: high takes it.
    players = [P(300, "AsAdKsKd"), P(300, "QsQdJsJd"), P(100, "2c3c9h9c", all_in=True)]
    r = settle(rec("FO/8", players, "4d7h8sAcKh"))
    main, side = r.pots
    assert [(a.player, a.half) for a in side.awards] == [(0, Half.WHOLE)]
    assert any("no qualifying low" in n for n in side.notes)
    assert {(a.player, a.half) for a in main.awards} == {(0, Half.HIGH), (2, Half.LOW)}
    table = settle(rec("FO/8", players, "4d7h8sAcKh"), Rules(low_scope_table=True))
    assert table.winnings != r.winnings  # PokerKit's table-wide split gives a different answer


# ------------------------------------------------------------------------------------------- R13
def test_r13_ties_split_and_suits_never_rank_hands():
    r = settle(rec("NT", [P(100, "AsKs"), P(100, "AdKd")], "AhKhQc7c2d"))
    assert [(a.player, a.amount) for a in r.pots[0].awards] == [(0, 100), (1, 100)]


def test_r13_three_way_tie_remainder_one_chip_each_in_odd_chip_order():
    players = [P(34, "AsKd"), P(34, "AhKc"), P(34, "AcKh"), P(2, "", folded=True)]
    r = settle(rec("NT", players, "QsJhTd3c4s"))
    # 104 three ways: 34 each and two odd chips, one each to p1 and p2 (left of the button first).
    assert [(a.player, a.amount, a.odd_chips) for a in r.pots[0].awards] == [
        (0, 35, 1), (1, 35, 1), (2, 34, 0)]


# ------------------------------------------------------------------------------------------- errors
def test_duplicate_card_is_refused_by_name():
    with pytest.raises(ShowdownError, match="duplicate card As"):
        settle(rec("NT", [P(100, "AsKd"), P(100, "AsKc")], "QsJhTd3c4s"))


def test_odd_chip_rule_can_be_injected():
    up = (False, False, True, True, True, True, False)
    p1 = P(5, "5d6c" + "7c8d9h2s" + "3c", up=up)
    p2 = P(5, "5c6d" + "7h8c9s2d" + "3h", up=up)
    r = settle(rec("F7S", [p1, p2, P(1, "", folded=True)]), Rules(odd_chip=OddChip.SEAT))
    assert {a.player: a.amount for a in r.pots[0].awards} == {0: 6, 1: 5}

"""The showdown engine: who shows and in what order, each hand's reading, the pots and every chip.

Pure functions over immutable values. :func:`settle` takes a finished :class:`HandRecord` (from the
live table or a PHH hand history) and returns a :class:`ShowdownResult`:

- the show order with its reason (R7, R8, R9, R12);
- each live hand's reading, cards speak (R1); a hand not fully known or mucked cannot win (R2, R3);
- the uncalled bet returned (R6) and the side pots with their eligible players;
- the awards of each pot on its own, outermost side pot first (R12): ties split (R13), hi/lo
  halves with the 8-or-better qualifier, odd chips in the smallest chip in play (R11).

Players are 0-based indices in seat order; text and JSON name them ``p1..pn`` as PHH does. In
flop games the last player holds the button, so player 0 is the first seat left of it.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Sequence

from controller.cards import Card
from controller.evaluation import (
    HandReading,
    evaluate_a5_low,
    evaluate_high,
    evaluate_low8,
    evaluate_omaha_high,
    evaluate_omaha_low8,
)
from controller.pots import Pot, build_pots, return_uncalled
from controller.variants import Evaluation, Family, OddChip, ShowOrder, Variant


class ShowdownError(ValueError):
    """A hand record the engine cannot judge; the message names the problem."""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One player's part of a finished hand."""

    contributed: int
    """Live chips put in over the whole hand (bets, calls, blinds, antes that count as bets)."""
    folded: bool = False
    all_in: bool = False
    hole: tuple[Card | None, ...] = ()
    """Hole cards in the order dealt; ``None`` for a card nobody saw."""
    up: tuple[bool, ...] = ()
    """Stud: which hole cards were dealt face up."""
    shown: bool | None = None
    """True: tabled. False: mucked unshown (cannot win, R3). None: neither recorded."""
    starting_stack: int | None = None
    dead: int = 0
    """Chips this player put in as dead money (an ante that does not count toward side pots)."""


@dataclasses.dataclass(frozen=True, slots=True)
class HandRecord:
    """A finished hand as the engine takes it."""

    variant: Variant
    players: tuple[PlayerRecord, ...]
    board: tuple[Card, ...] = ()
    final_round_aggressor: int | None = None
    """Who made the last bet or raise on the final betting round, if anyone did."""
    final_round_opener: int | None = None
    """Who acted first on the final betting round (computed from the variant's rule if None)."""
    final_round_name: str = "river"
    smallest_chip: int = 1
    """The smallest chip denomination in play: pots split down to it (R11)."""

    @property
    def dead_money(self) -> int:
        return sum(p.dead for p in self.players)


@dataclasses.dataclass(frozen=True, slots=True)
class Rules:
    """Policies the engine takes as arguments (house rules, or another engine's habits to compare).

    The defaults are the rules of ../shared/rules (R11, R12); the alternatives reproduce PokerKit's
    departures from them for differential testing.
    """

    odd_chip: OddChip | None = None
    """None: the variant's own rule (R11)."""
    merge_same_contenders: bool = False
    """Merge adjacent pots with the same contenders before splitting (PokerKit; not R12)."""
    low_scope_table: bool = False
    """Split a hi/lo pot when anyone at the showdown has a low, not just its contenders (PokerKit)."""
    odd_chips_to_first_only: bool = False
    """Give every odd chip of a split to the first winner in odd-chip order (PokerKit's divmod),
    instead of one chip each to the winners in that order."""


class Half(enum.StrEnum):
    HIGH = "high"
    LOW = "low"
    WHOLE = "whole"


@dataclasses.dataclass(frozen=True, slots=True)
class ShowEntry:
    player: int
    must_show: bool
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class ShowdownPlan:
    """Who shows, in what order, and why."""

    uncontested: bool
    """True when all but one folded (R9): the winner need not show."""
    all_in: bool
    """True for an all-in showdown (R7): every hand is tabled at once."""
    order: tuple[ShowEntry, ...]
    winner_without_show: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Reading:
    """A live hand read by the controller (cards speak, R1)."""

    player: int
    cards: tuple[Card | None, ...]
    high: HandReading | None
    low: HandReading | None
    can_win: bool
    """False when a card is unknown or the hand was mucked (R2, R3)."""
    why_not: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Award:
    player: int
    amount: int
    half: Half
    odd_chips: int = 0
    """How many of these chips are odd chips (in units of the smallest chip)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PotAward:
    """One pot and who gets it."""

    index: int
    """0 for the main pot, k for side pot k."""
    pot: Pot
    contenders: tuple[int, ...]
    """Eligible players whose hands can win (tabled, not mucked)."""
    awards: tuple[Award, ...]
    notes: tuple[str, ...] = ()
    """Why odd chips went where they went, why a low half was not made, and similar."""

    @property
    def name(self) -> str:
        return "Main pot" if self.index == 0 else f"Side pot {self.index}"


@dataclasses.dataclass(frozen=True, slots=True)
class ShowdownResult:
    plan: ShowdownPlan
    readings: tuple[Reading, ...]
    refunds: tuple[int, ...]
    """Uncalled chips returned to each player before the pots were built (R6)."""
    pots: tuple[PotAward, ...]
    """Main pot first; they are awarded outermost side pot first (R12): see :attr:`award_order`."""
    winnings: tuple[int, ...]
    """Chips each player collects: refunds plus awards."""
    final_stacks: tuple[int, ...] | None

    @property
    def award_order(self) -> tuple[PotAward, ...]:
        return tuple(reversed(self.pots))


# ----------------------------------------------------------------------------------------- readings
def read_hand(variant: Variant, hole: Sequence[Card], board: Sequence[Card]) -> tuple[HandReading | None, HandReading | None]:
    """The high and low readings of one complete hand (either may be None: razz has no high,
    a hi/lo hand may have no qualifying low)."""
    return _read_hand(variant, tuple(hole), tuple(board))


@functools.lru_cache(maxsize=4096)
def _read_hand(variant: Variant, hole: tuple[Card, ...], board: tuple[Card, ...]) -> tuple[HandReading | None, HandReading | None]:
    # Pure and called again and again for the same hand while a showdown unfolds: cached.
    if variant.family is Family.OMAHA:
        high = evaluate_omaha_high(hole, board)
        low = evaluate_omaha_low8(hole, board) if variant.evaluation is Evaluation.HIGH_LOW8 else None
        return high, low
    cards = tuple(hole) + tuple(board)
    if variant.evaluation is Evaluation.A5_LOW:
        return None, evaluate_a5_low(cards)
    high = evaluate_high(cards)
    low = evaluate_low8(cards) if variant.evaluation is Evaluation.HIGH_LOW8 else None
    return high, low


def read_hands(record: HandRecord) -> tuple[Reading, ...]:
    """Read every live hand. Unknown or mucked hands get a reading with ``can_win=False``."""
    out = []
    v = record.variant
    for i, p in enumerate(record.players):
        if p.folded:
            continue
        if p.shown is False:
            out.append(Reading(i, p.hole, None, None, False, "mucked"))
            continue
        if len(p.hole) != v.hole_cards and not (v.is_stud and len(p.hole) == 6 and len(record.board) == 1):
            out.append(Reading(i, p.hole, None, None, False,
                               f"holds {len(p.hole)} cards; {v.name} needs {v.hole_cards}"))
            continue
        if not v.is_stud and len(record.board) != v.board_cards:
            out.append(Reading(i, p.hole, None, None, False,
                               f"the board has {len(record.board)} of {v.board_cards} cards"))
            continue
        if any(c is None for c in p.hole):
            out.append(Reading(i, p.hole, None, None, False, "not every card is identified (R3)"))
            continue
        cards = tuple(c for c in p.hole if c is not None)
        high, low = read_hand(v, cards, record.board)
        out.append(Reading(i, p.hole, high, low, True))
    return tuple(out)


# ---------------------------------------------------------------------------------------- show order
def _first_to_act(record: HandRecord, live: Sequence[int]) -> int:
    from controller.hand import first_by_board

    v = record.variant
    if record.final_round_opener is not None:
        start = record.final_round_opener
    elif v.show_order is ShowOrder.BUTTON:
        start = 0
    else:
        ups = {i: [c for c, u in zip(record.players[i].hole, record.players[i].up) if u and c is not None]
               for i in live}
        start = first_by_board(v, ups)
    n = len(record.players)
    for k in range(n):
        p = (start + k) % n
        if p in live:
            return p
    raise ShowdownError("no live player")


def plan_showdown(record: HandRecord, pots: Sequence[Pot] | None = None) -> ShowdownPlan:
    """Who must show, in what order, and why (R7, R8, R9, R12)."""
    live = [i for i, p in enumerate(record.players) if not p.folded]
    if not live:
        raise ShowdownError("every player folded")
    if len(live) == 1:
        return ShowdownPlan(True, False, (), live[0])
    v = record.variant
    n = len(record.players)
    rnd = _round_phrase(record.final_round_name)
    aggressor = record.final_round_aggressor
    if aggressor is not None and aggressor in live:
        start = aggressor
        first_reason = f"last aggressor {rnd}"
    else:
        start = _first_to_act(record, live)
        rule = {
            ShowOrder.BUTTON: "first live seat left of the button",
            ShowOrder.HIGH_BOARD: "highest board showing",
            ShowOrder.LOW_BOARD: "lowest board showing",
        }[v.show_order]
        first_reason = f"no bet {rnd}: {rule}"
    clockwise = [(start + k) % n for k in range(n) if (start + k) % n in live]
    all_in = any(record.players[i].all_in for i in live)
    if pots is None:
        _, contrib = return_uncalled([p.contributed for p in record.players])
        pots = build_pots(contrib, [not p.folded for p in record.players], record.dead_money)
    depth = {i: sum(1 for pot in pots if i in pot.eligible) for i in live}
    if all_in:
        # R12: players in the outermost side pot show first, a main-pot-only all-in shows last.
        order = sorted(clockwise, key=lambda i: -depth[i])
        entries = []
        for k, i in enumerate(order):
            where = "main pot only" if depth[i] == 1 and len(pots) > 1 else (
                f"in {depth[i] - 1 and f'side pot {depth[i] - 1}' or 'the main pot'}")
            if k == 0:
                reason = f"all-in showdown (R7): every hand is tabled; shows first: {where}" + (
                    f", {first_reason}" if i == start else "")
            else:
                reason = f"all-in showdown (R7): must table; {where}"
            entries.append(ShowEntry(i, True, reason))
        return ShowdownPlan(False, True, tuple(entries))
    entries = [ShowEntry(clockwise[0], True, f"shows first: {first_reason} (R8)")]
    for i in clockwise[1:]:
        entries.append(ShowEntry(i, False, "then clockwise: shows to win, or may muck"))
    return ShowdownPlan(False, False, tuple(entries))


def _round_phrase(name: str) -> str:
    if name == "preflop":
        return "before the flop"
    if name in ("flop", "turn", "river"):
        return f"on the {name}"
    return f"on {name}"


# -------------------------------------------------------------------------------------------- awards
def _split(amount: int, winners: Sequence[int], chip: int,
           first_only: bool = False) -> tuple[dict[int, int], dict[int, int]]:
    """Split ``amount`` among ``winners`` (already in odd-chip order) down to ``chip``.

    Returns (amounts, odd chips per winner)."""
    k = len(winners)
    units, rest = divmod(amount, chip)
    share, odd = divmod(units, k)
    amounts = {w: share * chip for w in winners}
    odds = {w: 0 for w in winners}
    for j in range(odd):
        w = winners[0 if first_only else j]
        amounts[w] += chip
        odds[w] += 1
    if rest:  # chips smaller than the smallest denomination: cannot happen with real bets
        amounts[winners[0]] += rest
    return amounts, odds


def _odd_chip_order(rule: OddChip, winners: Sequence[int], readings: dict[int, HandReading]) -> list[int]:
    if rule is OddChip.SUIT:
        return sorted(winners, key=lambda w: -max(c.index for c in readings[w].best_five))
    return sorted(winners)


def _odd_chip_note(rule: OddChip, first: int, reading: HandReading | None, label: str, chips: int, chip: int) -> str:
    what = f"{chips} odd chip{'s' if chips > 1 else ''} of {chip}" if chips else ""
    if rule is OddChip.SUIT and reading is not None:
        top = max(reading.best_five, key=lambda c: c.index)
        why = f"highest card by suit in the best five ({top}) (R11)"
    elif rule is OddChip.SEAT:
        why = "lowest seat index (PokerKit's rule, not R11)"
    else:
        why = "first seat left of the button (R11)"
    return f"{label}: {what} to p{first + 1}: {why}"


def settle(record: HandRecord, rules: Rules = Rules()) -> ShowdownResult:
    """Judge a finished hand: show order, readings, pots and every chip of every award.

    :raises ShowdownError: if the record is inconsistent or a pot has no hand that can win it.
    """
    v = record.variant
    n = len(record.players)
    if n < 2:
        raise ShowdownError(f"a hand needs at least 2 players, got {n}")
    if record.smallest_chip <= 0:
        raise ShowdownError("smallest_chip must be > 0")
    seen: set[Card] = set()
    for c in [c for p in record.players for c in p.hole if c is not None] + list(record.board):
        if c in seen:
            raise ShowdownError(f"duplicate card {c}")
        seen.add(c)
    refunds, contrib = return_uncalled([p.contributed for p in record.players])
    live_flags = [not p.folded for p in record.players]
    pots = build_pots(contrib, live_flags, record.dead_money)
    plan = plan_showdown(record, pots)
    readings = read_hands(record)
    if rules.merge_same_contenders:
        # PokerKit kills every hand that wins nothing, then merges adjacent pots whose remaining
        # contenders match, and splits the merged pots: reproduce that for comparisons.
        # A hand survives if it is best for some half of some pot (a missing low never is).
        first = settle(record, dataclasses.replace(rules, merge_same_contenders=False,
                                                   low_scope_table=False))
        winners = {a.player for pa in first.pots for a in pa.awards}
        pots = build_pots(contrib, [i in winners for i in range(n)], record.dead_money,
                          merge_same_contenders=True)
    by_player = {r.player: r for r in readings}
    odd_rule = rules.odd_chip or v.odd_chip
    chip = record.smallest_chip
    any_low_at_table = any(r.low is not None and r.can_win for r in readings)
    winnings = list(refunds)
    results: list[PotAward] = []
    # R12: award outermost side pot first (the arithmetic of each pot is independent).
    for index in reversed(range(len(pots))):
        pot = pots[index]
        not_mucked = [i for i in pot.eligible if record.players[i].shown is not False]
        if not not_mucked and len(pot.eligible) == 1:  # a side pot nobody else could contest
            not_mucked = list(pot.eligible)
        able = [i for i in not_mucked if by_player[i].can_win]
        notes: list[str] = []
        name = "Main pot" if index == 0 else f"Side pot {index}"
        if len(not_mucked) == 1:
            awards = [Award(not_mucked[0], pot.amount, Half.WHOLE)]
            if len(pot.eligible) > 1:
                notes.append(f"{name}: every other hand was mucked")
            contenders = tuple(not_mucked)
        elif not able:
            raise ShowdownError(f"{name} ({pot.amount}) cannot be awarded: no eligible hand was tabled")
        else:
            contenders = tuple(able)
            awards = _award_pot(v, pot.amount, contenders, by_player, odd_rule, chip, name, notes,
                                any_low_at_table if rules.low_scope_table else None,
                                rules.odd_chips_to_first_only)
        for a in awards:
            winnings[a.player] += a.amount
        results.append(PotAward(index, pot, contenders, tuple(awards), tuple(notes)))
    results.reverse()
    total_in = sum(p.contributed + p.dead for p in record.players)
    if sum(winnings) != total_in:  # never a wrong award: refuse rather than lose a chip
        raise ShowdownError(f"chips not conserved: {sum(winnings)} paid out of {total_in}")
    final: tuple[int, ...] | None = None
    if all(p.starting_stack is not None for p in record.players):
        final = tuple(
            p.starting_stack - p.contributed - p.dead + winnings[i]  # type: ignore[operator]
            for i, p in enumerate(record.players)
        )
    return ShowdownResult(plan, readings, refunds, tuple(results), tuple(winnings), final)


def _best(players: Sequence[int], key) -> list[int]:  # type: ignore[no-untyped-def]
    top = max(key(p) for p in players)
    return [p for p in players if key(p) == top]


def _award_pot(v: Variant, amount: int, contenders: tuple[int, ...], readings: dict[int, Reading],
               odd_rule: OddChip, chip: int, name: str, notes: list[str],
               any_low_at_table: bool | None, first_only: bool = False) -> list[Award]:
    awards: list[Award] = []

    def give(share: int, winners: list[int], half: Half, which: str) -> None:
        reading_of = {w: (readings[w].low if which == "low" else readings[w].high) for w in winners}
        order = _odd_chip_order(odd_rule, winners, reading_of)  # type: ignore[arg-type]
        amounts, odds = _split(share, order, chip, first_only)
        for w in order:
            awards.append(Award(w, amounts[w], half, odds[w]))
        if len(winners) > 1:
            odd_total = sum(odds.values())
            label = f"{name}{'' if half is Half.WHOLE else ' ' + half.value + ' half'}"
            if odd_total:
                notes.append(_odd_chip_note(odd_rule, order[0], reading_of[order[0]], label, odd_total, chip))
            else:
                notes.append(f"{label}: split {len(winners)} ways evenly (R13)")

    if v.evaluation is Evaluation.A5_LOW:
        winners = _best(contenders, lambda p: readings[p].low.value)
        give(amount, winners, Half.WHOLE, "low")
        return awards
    high_winners = _best(contenders, lambda p: readings[p].high.value)
    if v.evaluation is Evaluation.HIGH:
        give(amount, high_winners, Half.WHOLE, "high")
        return awards
    lows = [p for p in contenders if readings[p].low is not None]
    split = bool(lows) if any_low_at_table is None else any_low_at_table
    if not split:
        notes.append(f"{name}: no qualifying low among its contenders: high takes all")
        give(amount, high_winners, Half.WHOLE, "high")
        return awards
    units, rest = divmod(amount, chip)
    high_share = (units - units // 2) * chip + rest
    low_share = amount - high_share
    if units % 2:
        notes.append(f"{name}: the odd chip of the pot goes to the high half (R11)")
    give(high_share, high_winners, Half.HIGH, "high")
    if lows:
        low_winners = _best(lows, lambda p: readings[p].low.value)
        give(low_share, low_winners, Half.LOW, "low")
    else:  # only with low_scope_table: PokerKit splits a low half nobody in the pot made
        give(low_share, sorted(contenders), Half.LOW, "low")
    return awards

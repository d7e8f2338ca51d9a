"""Random hands played through PokerKit (the independent oracle, pinned in pyproject) as PHH text.

Each hand: random stacks (many short, for multi-way all-ins and side pots), random legal actions
biased toward raises and all-ins, and hole cards that often copy another player's ranks so that
ties and split pots are common. PokerKit deals, bets, shows and pushes the chips; we keep its
final stacks and its own PHH export of the hand.
"""

from __future__ import annotations

import random
import warnings

import pokerkit
from pokerkit import Automation

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

CODES = ("NT", "FT", "PO", "FO/8", "F7S", "F7S/8", "FR")
"""The variants PokerKit can export as PHH (its other structures have no PHH code there)."""


def make_game(code: str, rng: random.Random, n: int):  # type: ignore[no-untyped-def]
    ante = rng.choice([0, 0, 1, 3])
    trimming = rng.random() < 0.5
    if code in ("NT", "PO"):
        cls = {"NT": pokerkit.NoLimitTexasHoldem, "PO": pokerkit.PotLimitOmahaHoldem}[code]
        return cls(AUTOMATIONS, trimming, ante, (1, 2), 2)
    if code in ("FT", "FO/8"):
        cls = {"FT": pokerkit.FixedLimitTexasHoldem,
               "FO/8": pokerkit.FixedLimitOmahaHoldemHighLowSplitEightOrBetter}[code]
        return cls(AUTOMATIONS, trimming, ante, (1, 2), 2, 4)
    cls = {"F7S": pokerkit.FixedLimitSevenCardStud,
           "F7S/8": pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
           "FR": pokerkit.FixedLimitRazz}[code]
    return cls(AUTOMATIONS, True, max(ante, 1), 1, 2, 4)


def _pick_card(deck: list, rng: random.Random, mirror: list) -> object:  # type: ignore[type-arg]
    """Usually a random card; sometimes one of the same rank as a card in ``mirror`` (ties)."""
    if mirror and rng.random() < 0.6:
        wanted = rng.choice(mirror).rank
        same = [c for c in deck if c.rank == wanted]
        if same:
            card = rng.choice(same)
            deck.remove(card)
            return card
    return deck.pop()


def random_hand(code: str, seed: int) -> tuple[str, tuple[int, ...], int]:
    """Play one random hand in PokerKit; return (PHH text, PokerKit's final stacks, player count)."""
    rng = random.Random(seed)
    n = rng.randint(2, 7 if code in ("F7S", "F7S/8", "FR") else 9)
    game = make_game(code, rng, n)
    stacks = tuple(rng.choice([rng.randint(1, 12), rng.randint(5, 40), rng.randint(20, 200)])
                   for _ in range(n))
    state = game(stacks, n)
    deck = list(pokerkit.Deck.STANDARD)
    rng.shuffle(deck)
    dealt: dict[int, list] = {}  # type: ignore[type-arg]
    tie_bias = rng.random() < 0.5
    stud = code in ("F7S", "F7S/8", "FR")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while state.status:
            if state.can_deal_hole():
                i = state.hole_dealee_index
                k = len(dealt.get(i, []))
                if stud:
                    # Stud: copy the rank another player got at the same position, so whole
                    # hands repeat (ties are otherwise rare with seven cards each).
                    others = [cs[k] for j, cs in dealt.items() if j != i and len(cs) > k]
                    same = [c for c in deck if others and c.rank == others[0].rank]
                    if tie_bias and same and rng.random() < 0.9:
                        card = rng.choice(same)
                        deck.remove(card)
                    else:
                        card = deck.pop()
                else:
                    others = [c for j, cs in dealt.items() if j != i for c in cs]
                    card = _pick_card(deck, rng, others if tie_bias else [])
                dealt.setdefault(i, []).append(card)
                state.deal_hole((card,))
            elif state.can_deal_board():
                state.deal_board((deck.pop(),))
            elif state.actor_index is not None:
                _random_action(state, rng, code.startswith("F"))
            elif state.can_show_or_muck_hole_cards():
                state.show_or_muck_hole_cards()
            else:  # pragma: no cover - automations cover everything else
                raise AssertionError(f"stuck PokerKit state in {code}")
    text = pokerkit.HandHistory.from_game_state(game, state).dumps()
    return text, pokerkit_final_stacks(text), n


def pokerkit_final_stacks(text: str) -> tuple[int, ...]:
    """PokerKit's final stacks for a PHH text: the oracle reads the same file the engine reads.

    (PokerKit's live state and its replay of its own export can disagree on dead antes once hands
    are killed; the replay is the comparison that matters: same input, two engines.)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = None
        for state in pokerkit.HandHistory.loads(text):
            pass
    assert state is not None
    return tuple(state.stacks)


def _random_action(state, rng: random.Random, fixed_limit: bool) -> None:  # type: ignore[no-untyped-def]
    if state.can_post_bring_in():
        # A bring-in player who cannot cover the bring-in just posts it all-in (PokerKit would
        # call that a completion and let the next player raise over it).
        if (rng.random() < 0.7 or not state.can_complete_bet_or_raise_to()
                or state.min_completion_betting_or_raising_to_amount <= state.bring_in):
            state.post_bring_in()
        else:
            state.complete_bet_or_raise_to(state.min_completion_betting_or_raising_to_amount)
        return
    r = rng.random()
    # PokerKit 0.7.7 plays FO/8 with pot-limit betting (its class mixes in PotLimitPokerMixin):
    # keep fixed-limit hands to fixed sizes and the four-bet cap ourselves.
    capped = fixed_limit and state.completion_betting_or_raising_count >= 4
    if state.can_complete_bet_or_raise_to() and r < 0.45 and not capped:
        lo = state.min_completion_betting_or_raising_to_amount
        hi = state.max_completion_betting_or_raising_to_amount
        if fixed_limit:
            amount = lo
        else:
            amount = hi if rng.random() < 0.35 else rng.randint(lo, hi)
        state.complete_bet_or_raise_to(amount)
        return
    if state.can_fold() and r > 0.85 and state.checking_or_calling_amount:
        state.fold()
        return
    state.check_or_call()

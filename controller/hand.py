"""One hand of poker as a state machine: antes, blinds, dealing, betting rounds, showdown actions.

Pure (no I/O, no clock). Used by the PHH importer to replay hand histories and by the live table.
Each action follows the check / answer / act triad: ``verify_fold(p)`` raises :class:`HandError` with
the reason, ``can_fold(p)`` answers yes or no, ``fold(p)`` acts. When the hand is over,
:meth:`HandState.record` gives the finished :class:`~controller.showdown.HandRecord` the showdown
engine judges.

Players are 0-based indices in seat order, clockwise. In flop games the last player holds the
button, so player 0 is the first seat left of it (PHH's convention); heads-up, the button posts the
small blind and player 0 the big blind.

>>> from controller.variants import variant_for_code
>>> h = HandState(variant_for_code("NT"), Stakes.holdem(3, 1, 2), [100, 100, 100])
>>> h.deal_hole(0, "AsAh"); h.deal_hole(1, "KsKh"); h.deal_hole(2, "7c2d")
>>> h.actor
2
>>> h.fold(2); h.complete_bet_raise_to(0, 10); h.check_call(1)
>>> h.street_name
'flop'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from controller.cards import Card, CardError, parse_cards
from controller.evaluation import razz_board_value, stud_board_value
from controller.variants import Family, ShowOrder, Structure, Variant


class HandError(ValueError):
    """An action that the rules or the state of the hand do not allow; the message says why."""


@dataclasses.dataclass(frozen=True, slots=True)
class Stakes:
    """Forced bets and bet sizes, one entry per player where it varies by seat."""

    antes: tuple[int, ...]
    """Ante per player (a big-blind ante is one non-zero entry)."""
    blinds_or_straddles: tuple[int, ...]
    """Blind or straddle per player, PHH order (small blind first)."""
    bring_in: int = 0
    """Stud bring-in."""
    small_bet: int = 0
    """Fixed-limit small bet (and stud completion)."""
    big_bet: int = 0
    """Fixed-limit big bet."""
    min_bet: int = 0
    """No-limit and pot-limit minimum bet (normally the big blind)."""
    ante_trimming: bool = False
    """True: antes count toward side-pot layers like any bet. False: antes are dead money in the
    main pot (a big-blind ante must be: nobody matches it)."""

    @classmethod
    def holdem(cls, players: int, small_blind: int, big_blind: int, ante: int = 0) -> Stakes:
        """Blinds on players 0 and 1, an optional ante from everyone, min bet = big blind."""
        blinds = (small_blind, big_blind) + (0,) * (players - 2)
        return cls((ante,) * players, blinds, min_bet=big_blind, ante_trimming=True)

    @classmethod
    def fixed(cls, players: int, small_bet: int, big_bet: int, *, ante: int = 0, bring_in: int = 0,
              blinds: tuple[int, int] = (0, 0)) -> Stakes:
        """Fixed-limit stakes: blinds for flop games, ante + bring-in for stud."""
        b = blinds + (0,) * (players - 2)
        return cls((ante,) * players, b, bring_in, small_bet, big_bet, min_bet=small_bet,
                   ante_trimming=True)


@dataclasses.dataclass(frozen=True, slots=True)
class StreetSpec:
    name: str
    hole: int
    """Hole cards dealt to each player on this street."""
    hole_up: tuple[bool, ...]
    """Whether each of those cards is dealt face up (stud)."""
    board: int
    """Community cards dealt on this street."""
    big: bool
    """Fixed-limit: big bet on this street."""


_HOLDEM_STREETS = (
    StreetSpec("preflop", 2, (False, False), 0, False),
    StreetSpec("flop", 0, (), 3, False),
    StreetSpec("turn", 0, (), 1, True),
    StreetSpec("river", 0, (), 1, True),
)
_STUD_STREETS = (
    StreetSpec("third street", 3, (False, False, True), 0, False),
    StreetSpec("fourth street", 1, (True,), 0, False),
    StreetSpec("fifth street", 1, (True,), 0, True),
    StreetSpec("sixth street", 1, (True,), 0, True),
    StreetSpec("seventh street", 1, (False,), 0, True),
)


def streets_for(variant: Variant) -> tuple[StreetSpec, ...]:
    """The streets of a variant, with how many cards each deals."""
    if variant.family is Family.STUD:
        return _STUD_STREETS
    if variant.family is Family.OMAHA:
        n = variant.hole_cards
        return (StreetSpec("preflop", n, (False,) * n, 0, False),) + _HOLDEM_STREETS[1:]
    return _HOLDEM_STREETS


FIXED_LIMIT_CAP = 4
"""Completions, bets and raises allowed per fixed-limit round (the bet and three raises)."""


@dataclasses.dataclass(slots=True)
class _Round:
    """Betting bookkeeping for the current street."""

    opener: int | None = None
    aggressor: int | None = None
    raise_size: int = 0
    raises: int = 0
    completed: bool = True
    """Stud: False until someone completes the bring-in to a full small bet."""
    acted: set[int] = dataclasses.field(default_factory=set)
    short_all_in: int = 0
    """Chips of short all-in raises since the last full raise (they do not reopen the betting)."""
    last_actor: int | None = None
    street: int = 0


class HandState:
    """The live hand. Mutated only through its action methods; query it freely."""

    def __init__(self, variant: Variant, stakes: Stakes, starting_stacks: Sequence[int],
                 *, smallest_chip: int = 1) -> None:
        n = len(starting_stacks)
        if not 2 <= n <= 10:
            raise HandError(f"a hand needs 2 to 10 players, got {n}")
        for i, s in enumerate(starting_stacks):
            if not isinstance(s, int) or s <= 0:
                raise HandError(f"bad starting stack {s!r} for p{i + 1}: must be a whole number > 0")
        for name, values in (("antes", stakes.antes), ("blinds_or_straddles", stakes.blinds_or_straddles)):
            if len(values) != n:
                raise HandError(f"{name} has {len(values)} entries for {n} players")
            if any(v < 0 for v in values):
                raise HandError(f"{name} has a negative amount: {list(values)}")
        for name in ("bring_in", "small_bet", "big_bet", "min_bet"):
            if getattr(stakes, name) < 0:
                raise HandError(f"{name} is negative")
        if variant.structure is Structure.FIXED_LIMIT and (stakes.small_bet <= 0 or stakes.big_bet <= 0):
            raise HandError("fixed-limit needs small_bet and big_bet > 0")
        if variant.structure is not Structure.FIXED_LIMIT and stakes.min_bet <= 0:
            raise HandError(f"{variant.structure} needs min_bet > 0")
        if smallest_chip <= 0:
            raise HandError("smallest_chip must be > 0")
        self.variant = variant
        self.stakes = stakes
        self.smallest_chip = smallest_chip
        self.n = n
        self.starting_stacks = tuple(starting_stacks)
        self.stacks = list(starting_stacks)
        self.bets = [0] * n
        """Chips in front of each player on this street."""
        self.contributed = [0] * n
        """Chips each player put in on earlier streets (and trimmed antes)."""
        self.dead = [0] * n
        """Chips each player put in as dead money (antes without trimming)."""
        self.folded = [False] * n
        self.hole: list[list[Card | None]] = [[] for _ in range(n)]
        self.hole_up: list[list[bool]] = [[] for _ in range(n)]
        self.board: list[Card] = []
        self._seen: set[Card] = set()
        """Every card dealt or shown so far (duplicate checks)."""
        self.shown: dict[int, tuple[Card | None, ...]] = {}
        self.mucked: set[int] = set()
        self.streets = streets_for(variant)
        streets = self.streets
        self._hole_before = tuple(sum(s.hole for s in streets[:k]) for k in range(len(streets)))
        """Hole cards each player is dealt before each street (before its own)."""
        self._board_through = tuple(sum(s.board for s in streets[: k + 1]) for k in range(len(streets)))
        """Board cards out once each street is dealt."""
        self.street = 0
        self.round = _Round()
        self.rounds: list[_Round] = []
        """Finished betting rounds, in order (with their opener and last aggressor)."""
        self.betting = False
        self.over = False
        self.log: list[str] = []
        """Actions applied, in PHH notation (``d dh p1 AsKd``, ``p2 cbr 300``...)."""
        self._post_forced_bets()

    # ----------------------------------------------------------------- queries
    @property
    def street_name(self) -> str:
        return self.streets[self.street].name

    def is_all_in(self, p: int) -> bool:
        return not self.folded[p] and self.stacks[p] == 0

    def live_players(self) -> list[int]:
        """Players who have not folded (all-in players included)."""
        return [p for p, folded in enumerate(self.folded) if not folded]

    def can_act_players(self) -> list[int]:
        return [p for p in range(self.n) if not self.folded[p] and self.stacks[p] > 0]

    @property
    def max_bet(self) -> int:
        return max(self.bets)

    @property
    def total_pot(self) -> int:
        """Everything in the middle and in front of the players."""
        return sum(self.contributed) + sum(self.dead) + sum(self.bets)

    @property
    def actor(self) -> int | None:
        """Whose turn it is to bet, or None while dealing or after the betting."""
        if not self.betting:
            return None
        return self._next_actor()

    def needs_to_act(self, p: int) -> bool:
        if self.folded[p] or self.stacks[p] == 0:
            return False
        if self.bets[p] < self.max_bet:
            return True
        # A player who has not acted this round still gets the option (the big blind with every
        # caller all-in checks, as PHH records it); a street where at most one player can act at
        # all is skipped by _start_betting.
        return p not in self.round.acted

    def pending_deal(self) -> tuple[list[int], int]:
        """Who still needs hole cards on this street, and how many board cards are due."""
        if self.betting or self.over:
            return [], 0
        spec = self.streets[self.street]
        dealt = self._dealt_this_street()
        if self._community_river():
            return [], 0  # R18: one community card replaces every player's seventh card
        hole_due = [p for p in self.live_players() if len(self.hole[p]) < dealt + spec.hole]
        board_due = self._board_target() - len(self.board)
        return hole_due, max(0, board_due)

    def betting_closed(self) -> bool:
        """True when no more betting can happen in this hand (one live player, or all-in)."""
        if self.over:
            return True
        live = self.live_players()
        if len(live) <= 1:
            return True
        if self.betting:
            return False
        return len(self.can_act_players()) <= 1 and all(
            self.bets[p] >= self.max_bet or self.stacks[p] == 0 for p in live
        )

    # ------------------------------------------------------------------ dealing
    def verify_deal_hole(self, p: int, cards: Sequence[Card | None]) -> None:
        self._check_player(p)
        if self.over:
            raise HandError("the hand is over")
        if self.betting:
            raise HandError(f"cannot deal to p{p + 1}: betting on {self.street_name} is not finished")
        if self.folded[p]:
            raise HandError(f"cannot deal to p{p + 1}: the player has folded")
        spec = self.streets[self.street]
        have = len(self.hole[p]) - self._dealt_this_street()
        if have + len(cards) > spec.hole:
            raise HandError(
                f"p{p + 1} gets {spec.hole} hole card(s) on {spec.name}, "
                f"not {have + len(cards)}"
            )
        self._check_new_cards(cards)

    def deal_hole(self, p: int, cards: str | Iterable[Card | None]) -> None:
        """Deal hole cards to player ``p`` (``None`` or ``??`` for a card nobody saw)."""
        parsed = _parse_maybe_cards(cards)
        self.verify_deal_hole(p, parsed)
        spec = self.streets[self.street]
        start = len(self.hole[p]) - self._dealt_this_street()
        for k, c in enumerate(parsed):
            self.hole[p].append(c)
            if c is not None:
                self._seen.add(c)
            self.hole_up[p].append(spec.hole_up[start + k])
        self.log.append(f"d dh p{p + 1} " + "".join(str(c) if c else "??" for c in parsed))
        self._after_deal()

    def verify_deal_board(self, cards: Sequence[Card]) -> None:
        if self.over:
            raise HandError("the hand is over")
        if self.betting:
            raise HandError(f"cannot deal the board: betting on {self.street_name} is not finished")
        if self.variant.family is Family.STUD:
            if not (self.street == len(self.streets) - 1 and len(self.board) + len(cards) == 1):
                raise HandError("stud has no board except one community card on seventh street (R18)")
            dealt = self._dealt_this_street()
            if any(len(self.hole[p]) > dealt for p in self.live_players()):
                raise HandError("seventh street cards are already being dealt: no community card (R18)")
        elif len(self.board) + len(cards) > self._board_target():
            raise HandError(
                f"{self.street_name} has {self._board_target()} board card(s), "
                f"not {len(self.board) + len(cards)}"
            )
        self._check_new_cards(cards)

    def deal_board(self, cards: str | Iterable[Card]) -> None:
        """Deal community cards (in stud, only R18's single community card on seventh street)."""
        parsed = parse_cards(cards)
        self.verify_deal_board(parsed)
        self.board.extend(parsed)
        self._seen.update(parsed)
        self.log.append("d db " + "".join(map(str, parsed)))
        self._after_deal()

    # ------------------------------------------------------------------ betting
    def verify_fold(self, p: int) -> None:
        self._check_turn(p, "fold")

    def can_fold(self, p: int) -> bool:
        return _can(self.verify_fold, p)

    def fold(self, p: int) -> None:
        self.verify_fold(p)
        self.folded[p] = True
        self.round.acted.add(p)
        self.round.last_actor = p
        self.log.append(f"p{p + 1} f")
        self._after_bet()

    def call_amount(self, p: int) -> int:
        return min(self.stacks[p], self.max_bet - self.bets[p])

    def verify_check_call(self, p: int) -> None:
        self._check_turn(p, "check or call")

    def can_check_call(self, p: int) -> bool:
        return _can(self.verify_check_call, p)

    def check_call(self, p: int) -> None:
        self.verify_check_call(p)
        self._move(p, self.call_amount(p))
        self.round.acted.add(p)
        self.round.last_actor = p
        self.log.append(f"p{p + 1} cc")
        self._after_bet()

    def verify_post_bring_in(self, p: int) -> None:
        self._check_turn(p, "post the bring-in")
        if not (self.variant.family is Family.STUD and self.street == 0 and self.stakes.bring_in
                and self.max_bet == 0 and not self.round.acted):
            raise HandError(f"p{p + 1} cannot post a bring-in now")

    def can_post_bring_in(self, p: int) -> bool:
        return _can(self.verify_post_bring_in, p)

    def post_bring_in(self, p: int) -> None:
        self.verify_post_bring_in(p)
        self._move(p, min(self.stacks[p], self.stakes.bring_in))
        self.round.acted.add(p)
        self.round.last_actor = p
        self.log.append(f"p{p + 1} pb")
        self._after_bet()

    def bet_limits(self, p: int) -> tuple[int, int]:
        """``(min, max)`` raise-to amounts for player ``p`` (both capped by the stack).

        :raises HandError: if ``p`` may not complete, bet or raise now, with the reason.
        """
        self._check_turn(p, "bet or raise")
        r = self.round
        stack_total = self.stacks[p] + self.bets[p]
        if stack_total <= self.max_bet:
            raise HandError(f"p{p + 1} can only call or fold: the stack does not cover the bet")
        if not any(q != p and self.stacks[q] + self.bets[q] > self.max_bet for q in self.live_players()):
            raise HandError(f"p{p + 1} cannot raise: every other player is all-in or covered by the bet")
        if self.variant.structure is Structure.FIXED_LIMIT and r.raises >= FIXED_LIMIT_CAP:
            raise HandError(f"the betting is capped at {FIXED_LIMIT_CAP} bets on {self.street_name}")
        if p in r.acted and r.short_all_in:
            raise HandError(
                f"p{p + 1} already acted and faces only a short all-in, which does not reopen the betting"
            )
        size = self._bet_size()
        if not r.completed:  # stud: complete the bring-in to a full small bet
            low = size
        else:
            low = self.max_bet + max(r.raise_size, size)
        if self.variant.structure is Structure.FIXED_LIMIT:
            high = low
        elif self.variant.structure is Structure.POT_LIMIT:
            high = max(low, 2 * self.max_bet - self.bets[p] + self.total_pot)
        else:
            high = stack_total
        return min(low, stack_total), min(high, stack_total)

    def verify_complete_bet_raise_to(self, p: int, amount: int) -> None:
        low, high = self.bet_limits(p)
        if not isinstance(amount, int) or amount <= 0:
            raise HandError(f"bad amount {amount!r}")
        if amount < low:
            raise HandError(f"p{p + 1} raises to {amount}, below the minimum {low}")
        if amount > high:
            stack_total = self.stacks[p] + self.bets[p]
            why = "the stack" if amount > stack_total else f"the {self.variant.structure} maximum"
            raise HandError(f"p{p + 1} raises to {amount}, above {why} {high}")

    def can_complete_bet_raise_to(self, p: int, amount: int) -> bool:
        try:
            self.verify_complete_bet_raise_to(p, amount)
        except HandError:
            return False
        return True

    def complete_bet_raise_to(self, p: int, amount: int) -> None:
        """Complete (stud), bet, or raise to ``amount`` chips in front of the player this street."""
        self.verify_complete_bet_raise_to(p, amount)
        r = self.round
        size = self._bet_size()
        increment = amount - self.max_bet
        if not r.completed:  # stud third street: completing the bring-in is a full bet
            full = amount >= size
            if full:
                r.completed = True
                r.raise_size = size
        else:
            full = increment >= r.raise_size
            if full:
                r.raise_size = increment
        if full:
            r.acted = set()
            r.short_all_in = 0
        else:  # a short all-in: it reopens the betting only once such raises add up to a full one
            r.short_all_in += increment
            if r.short_all_in >= r.raise_size:
                r.acted = set()
                r.short_all_in = 0
        r.raises += 1
        r.aggressor = p
        self._move(p, amount - self.bets[p])
        r.acted.add(p)
        r.last_actor = p
        self.log.append(f"p{p + 1} cbr {amount}")
        self._after_bet()

    # ----------------------------------------------------------------- showdown
    def verify_show(self, p: int, cards: Sequence[Card | None] = ()) -> None:
        self._check_player(p)
        if self.folded[p]:
            raise HandError(f"p{p + 1} has folded and has no hand to show")
        if not self.betting_closed():
            raise HandError(f"p{p + 1} cannot show down: betting is not finished")
        if p in self.mucked:
            raise HandError(f"p{p + 1} has already mucked")
        if cards:
            known = self.hole[p]
            if len(cards) != len(known) and len(cards) != self.variant.hole_cards:
                raise HandError(f"p{p + 1} shows {len(cards)} cards but holds {len(known)}")
            for held, shown in zip(known, cards):
                if held is not None and shown is not None and held != shown:
                    raise HandError(f"p{p + 1} shows {shown} but was dealt {held}")
            fresh = [c for c, h in zip(cards, known + [None] * len(cards)) if h is None and c is not None]
            self._check_new_cards(fresh)

    def show(self, p: int, cards: str | Iterable[Card | None] = ()) -> None:
        """Player ``p`` tables the hand (cards as dealt; given cards fill in unknown ones)."""
        parsed = _parse_maybe_cards(cards)
        self.verify_show(p, parsed)
        if parsed:
            known = self.hole[p]
            merged = [h if h is not None else c for h, c in zip(known + [None] * len(parsed), parsed)]
            self.hole[p] = merged
            self._seen.update(c for c in merged if c is not None)
            self.hole_up[p] = self.hole_up[p] + [False] * (len(merged) - len(self.hole_up[p]))
        self.shown[p] = tuple(self.hole[p])
        self.log.append(f"p{p + 1} sm " + "".join(str(c) if c else "??" for c in self.hole[p]))

    def muck(self, p: int) -> None:
        """Player ``p`` throws the hand away unshown at showdown: it can win nothing (R3)."""
        self.verify_show(p)
        self.mucked.add(p)
        self.shown.pop(p, None)
        self.log.append(f"p{p + 1} sm")

    # ---------------------------------------------------------------- internals
    def _post_forced_bets(self) -> None:
        n = self.n
        # Heads-up, PHH lists blinds small-then-big but the button (last player) posts the small one.
        antes = self.stakes.antes[::-1] if n == 2 else self.stakes.antes
        blinds = self.stakes.blinds_or_straddles[::-1] if n == 2 else self.stakes.blinds_or_straddles
        for p in range(n):
            a = min(antes[p], self.stacks[p])
            self.stacks[p] -= a
            if self.stakes.ante_trimming:
                self.contributed[p] += a
            else:
                self.dead[p] += a
        for p in range(n):
            b = min(blinds[p], self.stacks[p])
            self.stacks[p] -= b
            self.bets[p] += b
        self._blinds = blinds

    def _bet_size(self) -> int:
        if self.variant.structure is Structure.FIXED_LIMIT:
            return self.stakes.big_bet if self.streets[self.street].big else self.stakes.small_bet
        return self.stakes.min_bet

    def _community_river(self) -> bool:
        return (self.variant.family is Family.STUD and self.street == len(self.streets) - 1
                and len(self.board) == 1)

    def _board_target(self) -> int:
        return self._board_through[self.street]

    def _dealt_this_street(self) -> int:
        return self._hole_before[self.street]

    def _check_player(self, p: int) -> None:
        if not isinstance(p, int) or not 0 <= p < self.n:
            raise HandError(f"no player p{p + 1 if isinstance(p, int) else p} at a {self.n}-player table")

    def _check_turn(self, p: int, what: str) -> None:
        self._check_player(p)
        if self.over:
            raise HandError(f"p{p + 1} cannot {what}: the hand is over")
        if not self.betting:
            raise HandError(f"p{p + 1} cannot {what}: no betting now (cards are being dealt)")
        actor = self._next_actor()
        if actor != p:
            who = f"p{actor + 1}" if actor is not None else "nobody"
            raise HandError(f"p{p + 1} cannot {what}: out of turn, it is {who}'s turn")
        if self.variant.family is Family.STUD and self.street == 0 and self.max_bet == 0 \
                and self.stakes.bring_in and what not in ("post the bring-in", "bet or raise"):
            raise HandError(f"p{p + 1} must post the bring-in or complete")

    def _check_new_cards(self, cards: Iterable[Card | None]) -> None:
        seen = self._seen
        batch: set[Card] = set()
        for c in cards:
            if c is None:
                continue
            if c in seen or c in batch:
                raise HandError(f"duplicate card {c}: it is already on the table")
            batch.add(c)

    def _move(self, p: int, chips: int) -> None:
        self.stacks[p] -= chips
        self.bets[p] += chips

    def _after_deal(self) -> None:
        hole_due, board_due = self.pending_deal()
        if hole_due or board_due:
            return
        self._start_betting()

    def _start_betting(self) -> None:
        self.round = _Round()
        r = self.round
        if self.variant.family is Family.STUD and self.street == 0 and self.stakes.bring_in:
            r.completed = False
        r.opener = self._first_to_act()
        r.raise_size = self._bet_size()
        r.street = self.street
        # A player nobody can bet against (every other live stack is covered by this player's
        # bet) has nothing to decide on this street.
        totals = sorted(self.stacks[p] + self.bets[p] for p in self.live_players())
        second = totals[-2] if len(totals) > 1 else 0
        able = []
        for p in self.can_act_players():
            if min(self.stacks[p], max(0, second - self.bets[p])) == 0:
                r.acted.add(p)
            else:
                able.append(p)
        if len(able) <= 1 and all(self.bets[p] >= self.max_bet for p in able):
            self._end_round()  # nobody left to bet against: no betting on this street
            return
        self.betting = True
        if self._next_actor() is None:
            self._end_round()

    def _first_to_act(self) -> int:
        n = self.n
        live = [p for p in range(n) if not self.folded[p]]
        if self.variant.family is not Family.STUD:
            if self.street == 0 and any(self._blinds):
                top = max(range(n), key=lambda i: (self.bets[i], i))
                start = (top + 1) % n
            else:
                start = 0
            return start
        ups = {p: [c for c, u in zip(self.hole[p], self.hole_up[p]) if u and c is not None] for p in live}
        if self.street == 0:
            razz = self.variant.show_order is ShowOrder.LOW_BOARD
            def door(p: int) -> tuple[int, int]:
                c = ups[p][0] if ups[p] else None
                if c is None:  # a door card nobody saw cannot be judged the bring-in
                    return (-99, -99)
                rank = 1 if (razz and c.rank == 14) else int(c.rank)
                return (rank, c.suit.order) if razz else (-rank, -c.suit.order)
            return max(live, key=lambda p: (door(p), -p))
        return first_by_board(self.variant, {p: ups[p] for p in live})

    def _next_actor(self) -> int | None:
        start = self.round.opener if self.round.last_actor is None else (self.round.last_actor + 1) % self.n
        if start is None:
            start = 0
        for k in range(self.n):
            p = (start + k) % self.n
            if self.needs_to_act(p):
                return p
        return None

    def _after_bet(self) -> None:
        if self.folded.count(False) == 1:
            self._end_round()
            self.over = True
            return
        if self._next_actor() is None:
            self._end_round()

    def _end_round(self) -> None:
        self.betting = False
        self.rounds.append(self.round)
        for p in range(self.n):
            self.contributed[p] += self.bets[p]
            self.bets[p] = 0
        if self.folded.count(False) <= 1:
            self.over = True
            return
        if self.street + 1 < len(self.streets):
            self.street += 1
            hole_due, board_due = self.pending_deal()
            if not hole_due and not board_due:  # nothing to deal (cannot happen with real specs)
                self._start_betting()
        else:
            self.over = True

    # ----------------------------------------------------------------- the end
    @property
    def complete(self) -> bool:
        """All betting done and every card of the last street dealt."""
        if self.folded.count(False) <= 1:
            return True
        return self.over

    def record(self, shown: Sequence[bool | None] | None = None) -> "HandRecord":
        """The finished hand for the showdown engine.

        :param shown: each player's :attr:`~controller.showdown.PlayerRecord.shown`, when someone
            else keeps track of the showdown (the live table); by default what :meth:`show` and
            :meth:`muck` recorded.
        :raises HandError: if the hand is not finished (betting or dealing still pending).
        """
        from controller.showdown import HandRecord, PlayerRecord

        if not self.complete:
            hole_due, board_due = self.pending_deal()
            if self.betting:
                raise HandError(f"the hand is not finished: p{self.actor + 1 if self.actor is not None else '?'} to act on {self.street_name}")
            raise HandError(f"the hand is not finished: {self.street_name} still to deal")
        contributed = [self.contributed[p] + self.bets[p] for p in range(self.n)]
        betting_rounds = [r for r in self.rounds if r.acted]
        final = betting_rounds[-1] if betting_rounds else (self.rounds[-1] if self.rounds else None)
        players = tuple(
            PlayerRecord(
                contributed=contributed[p],
                folded=self.folded[p],
                all_in=self.stacks[p] == 0 and not self.folded[p],
                hole=tuple(self.hole[p]),
                up=tuple(self.hole_up[p]),
                shown=(shown[p] if shown is not None
                       else None if p not in self.shown and p not in self.mucked else p in self.shown),
                starting_stack=self.starting_stacks[p],
                dead=self.dead[p],
            )
            for p in range(self.n)
        )
        return HandRecord(
            variant=self.variant,
            players=players,
            board=tuple(self.board),
            final_round_aggressor=final.aggressor if final else None,
            final_round_opener=final.opener if final else None,
            final_round_name=self.streets[final.street].name if final else self.street_name,
            smallest_chip=self.smallest_chip,
        )


def first_by_board(variant: Variant, up_cards: dict[int, Sequence[Card]]) -> int:
    """Stud: the player showing the highest board (razz: the lowest) acts first; ties go to the
    first of them clockwise from seat 1 (suits never break board ties)."""
    value = razz_board_value if variant.show_order is ShowOrder.LOW_BOARD else stud_board_value
    players = sorted(up_cards)
    return max(players, key=lambda p: (value(tuple(up_cards[p])) if up_cards[p] else -1, -p))


def _can(check, *args) -> bool:  # type: ignore[no-untyped-def]
    try:
        check(*args)
    except HandError:
        return False
    return True


def _parse_maybe_cards(cards: str | Iterable[Card | None]) -> tuple[Card | None, ...]:
    if isinstance(cards, str):
        compact = "".join(cards.split())
        if len(compact) % 2:
            raise CardError(f"bad card run {cards!r}: odd number of characters")
        out: list[Card | None] = []
        for i in range(0, len(compact), 2):
            tok = compact[i : i + 2]
            out.append(None if tok == "??" else parse_cards(tok)[0])
        return tuple(out)
    return tuple(cards)

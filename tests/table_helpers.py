"""Building tables and playing random legal hands through them, for the table tests and benches."""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.cards import FULL_DECK
from controller.hand import Stakes
from controller.table import Log, MemoryLog, SeatStatus, SeeHandRule, Table, TableError, TableSettings
from controller.variants import Structure, variant_for_code


def stakes_for(code: str, ante: int = 0) -> Callable[[int], Stakes]:
    v = variant_for_code(code)
    if v.is_stud:
        return lambda n: Stakes.fixed(n, 2, 4, ante=max(ante, 1), bring_in=1)
    if v.structure is Structure.FIXED_LIMIT:
        return lambda n: Stakes.fixed(n, 2, 4, ante=ante, blinds=(1, 2))
    return lambda n: Stakes.holdem(n, 1, 2, ante)


def make_table(code: str = "NT", players: dict[int, int] | None = None, log: Log | None = None,
               clock: Callable[[], float] | None = None, **settings) -> Table:  # type: ignore[no-untyped-def]
    if "see_hand" in settings:
        settings["see_hand"] = SeeHandRule(settings["see_hand"])
    s = TableSettings(variant_for_code(code), stakes_for(code, settings.pop("ante", 0)), **settings)
    table = Table(s, log if log is not None else MemoryLog(), **({"clock": clock} if clock else {}))
    for seat, stack in (players or {1: 100, 2: 100, 3: 100}).items():
        table.seat_player(seat, f"player{seat}", stack)
    return table


def deal_street(table: Table, rng: random.Random, deck: list) -> None:  # type: ignore[type-arg]
    """Deal whatever the hand is waiting for, from ``deck``."""
    h = table.hand
    assert h is not None
    hole_due, board_due = h.state.pending_deal()
    spec = h.state.streets[h.state.street]
    for i in hole_due:
        table.deal(h.seat(i), [deck.pop() for _ in range(spec.hole)], source="reader")
    if board_due:
        table.deal(None, [deck.pop() for _ in range(board_due)], source="reader")


def random_action(table: Table, rng: random.Random) -> None:
    h = table.hand
    assert h is not None
    i = h.state.actor
    assert i is not None
    seat = h.seat(i)
    if table.can(seat, "bring_in") and rng.random() < 0.7:
        table.post_bring_in(seat)
        return
    r = rng.random()
    try:
        lo, hi = h.state.bet_limits(i)
    except Exception:
        lo = hi = None
    if lo is not None and r < 0.4:
        amount = hi if rng.random() < 0.3 else rng.randint(lo, hi)
        table.bet_raise_to(seat, amount)
        return
    if r > 0.85 and h.state.call_amount(i) and table.can(seat, "fold"):
        table.fold(seat)
        return
    if table.can(seat, "check_call"):
        table.check_call(seat)
    else:
        table.bet_raise_to(seat, lo)  # type: ignore[arg-type]


def play_random_hand(table: Table, rng: random.Random, button: int | None = None) -> None:
    """Start, deal, bet, show down (winners tabled, losers mucked) and push one random hand."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    table.start_hand(button if button is not None else table.next_button())
    h = table.hand
    assert h is not None
    guard = 0
    while not h.state.complete:
        guard += 1
        assert guard < 500
        if h.state.betting:
            random_action(table, rng)
        else:
            if table.river_instruction() and "community card" in table.river_instruction():
                table.deal(None, [deck.pop()], source="dealer")
                continue
            deal_street(table, rng, deck)
    if len(h.state.live_players()) > 1:
        for entry in table.snapshot()["hand"]["showdown"]["order"]:
            table.table_hand(entry["seat"])
        table.muck_losers()
    table.push()


def seat_status(table: Table, seat: int) -> SeatStatus:
    assert table.hand is not None
    return table.hand.showdown[seat].status


__all__ = ["make_table", "play_random_hand", "deal_street", "random_action", "TableError", "seat_status"]

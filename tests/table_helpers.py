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


def random_command(table: Table, rng: random.Random) -> tuple[str, dict]:  # type: ignore[type-arg]
    """A random legal betting command for the seat to act, as the dealer's console sends it."""
    h = table.hand
    assert h is not None
    i = h.state.actor
    assert i is not None
    seat = h.seat(i)
    if table.can(seat, "bring_in") and rng.random() < 0.7:
        return "post_bring_in", {"seat": seat}
    r = rng.random()
    try:
        lo, hi = h.state.bet_limits(i)
    except Exception:
        lo = hi = None
    if lo is not None and r < 0.4:
        amount = hi if rng.random() < 0.3 else rng.randint(lo, hi)
        return "bet_raise_to", {"seat": seat, "amount": amount}
    if r > 0.85 and h.state.call_amount(i) and table.can(seat, "fold"):
        return "fold", {"seat": seat}
    if table.can(seat, "check_call"):
        return "check_call", {"seat": seat}
    return "bet_raise_to", {"seat": seat, "amount": lo}


def random_action(table: Table, rng: random.Random) -> None:
    name, args = random_command(table, rng)
    getattr(table, name)(**args)


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


class ProductDriver:
    """Random hands driven the way the product drives a table (see ``bench/bench_table.py``).

    - the dealer's console: every entry (rebuy, start, each betting action, each hand tabled, muck
      the losers, push) is one :meth:`TableService.command`, so one transaction and one commit;
    - the reader: the cards of one deal round (a street's hole cards, or the burn and the board
      cards) reach :class:`~firmware_bridge.table_sink.TableSink` as one batch, stored with the
      acknowledged seq in one transaction (``per_card=True``: every card its own batch, as when the
      reader is read faster than the dealer pitches);
    - the cameras: one frame at the showdown, its views of the live seats in one transaction.

    Not simulated: the cards going back to the muck and the shoe after the hand (more sightings),
    camera frames that change nothing (they store nothing), JPEG frames kept on disk.
    """

    def __init__(self, service, rng: random.Random, *, per_card: bool = False) -> None:  # type: ignore[no-untyped-def]
        from firmware_bridge.table_sink import TableSink

        self.service = service
        self.sink = TableSink(service)
        self.rng = rng
        self.per_card = per_card
        self.reader_seq = 0

    def _sighting(self, card, place: str):  # type: ignore[no-untyped-def]
        from firmware_bridge.records import CardSighting, antenna_of

        self.reader_seq += 1
        return CardSighting(self.reader_seq, "enter", card, place, antenna_of(place),
                            bytes([0xE0, 0x04, 0, 0, 0, 0, 0, card.index]))

    def _read(self, records: list) -> None:  # type: ignore[type-arg]
        if self.per_card:
            for r in records:
                self.sink.store([r], ack_seq=r.seq)
        else:
            self.sink.store(records, ack_seq=records[-1].seq)

    def _camera_frame(self) -> None:
        def look(table: Table) -> None:
            h = table.hand
            assert h is not None
            for seat in h.order:
                i = h.index(seat)
                if h.state.folded[i] or h.showdown[seat].status not in (SeatStatus.TABLED, SeatStatus.WAITING):
                    continue
                table.camera_view(seat, identifiable=True, cards=[str(c) for c in h.state.hole[i] if c])

        self.service.run(look)

    def play_hand(self) -> None:
        svc, rng = self.service, self.rng
        table = svc.table
        for seat, (_, stack) in list(table.players.items()):
            if stack == 0:
                svc.command("add_chips", {"seat": seat, "amount": 200})
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        svc.command("start_hand", {"button": table.next_button()})
        h = table.hand
        assert h is not None and not h.state.variant.is_stud
        while not h.state.complete:
            if h.state.betting:
                name, args = random_command(table, rng)
                svc.command(name, args)
                continue
            hole_due, board_due = h.state.pending_deal()
            records = []
            if hole_due:
                for _ in range(h.state.streets[h.state.street].hole):  # one card each, round the table
                    records += [self._sighting(deck.pop(), f"seat{h.seat(i)}") for i in hole_due]
            if board_due:
                records.append(self._sighting(deck.pop(), "burn"))
                records += [self._sighting(deck.pop(), "board") for _ in range(board_due)]
            self._read(records)
        if len(h.state.live_players()) > 1:
            result = table.plan()
            assert result is not None
            for entry in result.plan.order:
                svc.command("table_hand", {"seat": h.seat(entry.player)})
            self._camera_frame()
            svc.command("muck_losers")
        svc.command("push")


def seat_status(table: Table, seat: int) -> SeatStatus:
    assert table.hand is not None
    return table.hand.showdown[seat].status


__all__ = ["make_table", "play_random_hand", "deal_street", "random_action", "random_command", "ProductDriver",
           "TableError", "seat_status"]

"""The live table: betting, dealing and the showdown procedure as an event-sourced state machine.

Every change is an event appended to a log (:class:`MemoryLog` here; the SQLite
:class:`~controller.eventlog.EventLog` at a real table) *before* anyone is told of it, and the
table's state is a fold over those events: :meth:`Table.open` rebuilds it exactly after a crash.
Inside :meth:`Table.transaction` the events of one command (or one reader batch, one camera frame)
are applied as they come and written together in one commit, all or none, before anyone is told.

Each command follows the check / answer / act triad: ``verify_fold(seat)`` raises
:class:`TableError` with the reason, ``can_fold(seat)`` answers, ``fold(seat)`` appends the event
and returns it. Seats are the table's seat numbers (1..10). Inside a hand the players are ordered
as PHH orders them: first seat left of the button first, the button last.

Pure apart from the log it is given and the clock it is given: no I/O of its own.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from controller.cards import Card, CardError, parse_cards, unaccounted
from controller.hand import HandError, HandState, Stakes
from controller.showdown import HandRecord, PlayerRecord, ShowdownError, ShowdownResult, settle
from controller.variants import Family, Variant


class TableError(ValueError):
    """A command the rules or the table's state refuse; the message says why. Nothing changed."""


# ------------------------------------------------------------------------------------------ the log
@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """One stored table event."""

    seq: int
    kind: str
    payload: Mapping[str, Any]
    hand_no: int | None = None
    ts: float = 0.0


class Log(Protocol):
    """What the table needs from its event log (the SQLite log and :class:`MemoryLog` both fit).

    A log that also has ``prepare`` and ``append_many`` (with ``meta``, ``ts`` and ``expect_seq``),
    as both of these do, lets :meth:`Table.transaction` write a group of events in one commit; with
    any other log every event is its own append."""

    def append(self, kind: str, payload: Mapping[str, Any], *, hand_no: int | None = None) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class MemoryLog:
    """An in-memory log for tests and simulations (same interface as the SQLite log)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.events: list[Event] = []
        self.clock = clock
        self.meta: dict[str, str] = {}
        self.commits = 0
        """Appends so far (one per :meth:`append`, one per :meth:`append_many`): what a disk log
        would flush."""

    def prepare(self, kind: str, payload: Mapping[str, Any], hand_no: int | None = None) -> tuple[Any, ...]:
        return (kind, dict(payload), hand_no, None)

    def append(self, kind: str, payload: Mapping[str, Any], *, hand_no: int | None = None) -> Event:
        return self.append_many([(kind, payload, hand_no)])[0]

    def append_many(self, events: Iterable[tuple[Any, ...]], *, meta: Mapping[str, str | None] | None = None,
                    ts: float | None = None, expect_seq: int | None = None) -> list[Event]:
        """Append a group of events (all with one timestamp), and set ``meta``, at once."""
        items = [e if len(e) == 4 else self.prepare(*e) for e in events]
        if expect_seq is not None and items and expect_seq != len(self.events) + 1:
            raise ValueError(f"another writer appended to the log (row {expect_seq} expected next, "
                             f"the log has {len(self.events)})")
        ts = self.clock() if ts is None else ts
        out = [Event(len(self.events) + k, kind, payload, hand_no, ts)
               for k, (kind, payload, hand_no, _) in enumerate(items, 1)]
        self.events.extend(out)
        for k, v in (meta or {}).items():
            if v is None:
                self.meta.pop(k, None)
            else:
                self.meta[k] = v
        self.commits += 1
        return out

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self.events))


class Transaction:
    """The events of one command or one source batch, written to the log in one commit.

    Made by :meth:`Table.transaction`; ``events`` are those emitted so far (already applied to the
    table's state, not yet written). :meth:`set_meta` adds a log meta key to the same commit (the
    reader's acknowledged seq goes with the cards it acknowledges)."""

    __slots__ = ("events", "items", "meta", "ts", "first_seq")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.items: list[Any] = []
        self.meta: dict[str, str | None] = {}
        self.ts: float | None = None
        self.first_seq: int | None = None

    def set_meta(self, key: str, value: str | None) -> None:
        self.meta[key] = value


# ------------------------------------------------------------------------------------------ settings
class SeeHandRule(enum.StrEnum):
    """R10: who may ask to see a called hand at showdown (house option)."""

    TDA = "tda"
    """A caller of the river bet who kept or showed his cards may see the last aggressor's hand."""
    NONE = "none"
    ANY_DEALT_IN = "any_dealt_in"
    STILL_IN_ON_TURN = "still_in_on_turn"
    """Only players still in on the turn (fifth street in stud)."""


@dataclasses.dataclass(frozen=True, slots=True)
class TableSettings:
    """What the table needs to know about the game; built from ``config/table.toml``."""

    variant: Variant
    stakes: Callable[[int], Stakes]
    """Stakes for N players in PHH order (first seat left of the button first)."""
    table_id: str = "table-1"
    seats: int = 10
    smallest_chip: int = 1
    tournament: bool = False
    see_hand: SeeHandRule = SeeHandRule.TDA
    enforce_show_order: bool = False
    dispute_window_s: float = 60.0
    """R14: at a break, corrections stay open this long after the pot is pushed."""


def settings_from_game(game: Mapping[str, Any]) -> TableSettings:
    """Table settings from a ``table_configured`` payload (see ``TableConfig.game``)."""
    from controller.config import StakesSection, build_stakes
    from controller.variants import variant_for_code

    variant = variant_for_code(game["variant"])
    stakes = StakesSection(**game["stakes"])
    return TableSettings(
        variant=variant,
        stakes=lambda n: build_stakes(variant, stakes, n),
        table_id=game.get("table_id", "table-1"),
        seats=game.get("seats", 10),
        smallest_chip=game.get("smallest_chip", 1),
        tournament=game.get("tournament", False),
        see_hand=SeeHandRule(game.get("see_hand", "tda")),
        enforce_show_order=game.get("enforce_show_order", False),
        dispute_window_s=game.get("dispute_window_s", 60.0),
    )


def iter_hand_histories(events: Iterable[Any]) -> Iterator[tuple[int, str]]:
    """Replay a table log and yield ``(hand_no, PHH text)`` for every hand that was pushed or voided."""
    table: Table | None = None
    for stored in events:
        e = _as_event(stored)
        if e.kind == "table_configured":
            players = table.players if table is not None else {}
            table = Table(settings_from_game(e.payload), MemoryLog())
            table.players = dict(players)
            continue
        if table is None:
            continue
        table._apply(e)
        if e.kind in ("pot_pushed", "misdeal") and table.hand is not None:
            yield table.hand.hand_no, table.history_phh()


# ----------------------------------------------------------------------------------------- the state
class SeatStatus(enum.StrEnum):
    """Where a seat stands in the showdown procedure."""

    WAITING = "waiting"
    """In the hand, not yet shown or mucked."""
    FOLDED = "folded"
    TABLED = "tabled"
    """All cards face up (R2)."""
    MUCKED = "mucked"
    KILLED = "killed"


@dataclasses.dataclass(slots=True)
class SeatShowdown:
    status: SeatStatus = SeatStatus.WAITING
    identifiable: bool | None = None
    """Camera verdict (R2, R3): None when no camera has judged this seat."""
    why_not: str = ""
    camera_cards: tuple[str | None, ...] = ()
    shown_cards: tuple[Card, ...] = ()
    """Cards shown so far when only part of the hand was shown (R5)."""
    face_down_muck: bool = False
    tabled_cards: tuple[str, ...] = ()
    was_tabled: bool = False
    """Shown face up at some point (a tabled loser mucked afterwards was still shown)."""
    declared: str = ""
    killed_reason: str = ""


@dataclasses.dataclass(slots=True)
class HandRun:
    """The hand in progress (or the last one, until the next starts)."""

    hand_no: int
    button: int
    order: list[int]
    """Seats in PHH order: first seat left of the button first, the button last."""
    names: dict[int, str]
    start_stacks: dict[int, int]
    state: HandState
    showdown: dict[int, SeatShowdown]
    actions: list[Event] = dataclasses.field(default_factory=list)
    """Betting and dealing events in effect (an undo removes the last action)."""
    warnings: list[str] = dataclasses.field(default_factory=list)
    pushed: bool = False
    pushed_at: float | None = None
    voided: bool = False
    award_transfers: list[tuple[int, int, int, str]] = dataclasses.field(default_factory=list)
    """R14 award corrections: (from seat, to seat, chips, reason)."""
    burns: int = 0
    requests: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    shown_to: set[int] = dataclasses.field(default_factory=set)
    """R16: seats whose hand was shown to one player, to be shown to all after the hand."""
    at_break: bool = False
    next_hand_actions: int = 0
    plan_published: bool = False

    def index(self, seat: int) -> int:
        return self.order.index(seat)

    def seat(self, index: int) -> int:
        return self.order[index]


# ----------------------------------------------------------------------------------------- the table
class _Scope:
    """One ``with table.transaction():`` block (the outermost one commits)."""

    __slots__ = ("table", "tx", "outer", "mark", "meta")

    def __init__(self, table: Table) -> None:
        self.table = table

    def __enter__(self) -> Transaction:
        table = self.table
        if table._lost is not None:
            table._restore()
        tx = table._tx
        self.outer = tx is None
        if tx is None:
            tx = table._tx = Transaction()
        self.tx = tx
        self.mark = len(tx.events)
        self.meta = dict(tx.meta)
        return tx

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        table, tx = self.table, self.tx
        if self.outer:
            table._tx = None
        if exc_type is None:
            if self.outer:
                table._commit(tx)
            return
        tx.meta = self.meta
        if len(tx.events) > self.mark:
            del tx.events[self.mark:], tx.items[self.mark:]
            table._recover()


class Table:
    """One live table. Build it with :meth:`open` (which replays the log) and drive it with its
    commands; read :meth:`snapshot` for the views."""

    def __init__(self, settings: TableSettings, log: Log, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.log = log
        self.clock = clock
        self.players: dict[int, tuple[str, int]] = {}
        """Seat -> (name, stack) between hands."""
        self.hand: HandRun | None = None
        self.hands_played = 0
        self.placements: list[dict[str, Any]] = []
        """Tournament eliminations (R15), in order."""
        self.listeners: list[Callable[[Event], None]] = []
        self._replaying = False
        self._game: dict[str, Any] | None = None
        self._version = 0
        self._settled: tuple[tuple[int, int], ShowdownResult] | None = None
        self._previous: HandRun | None = None
        """The hand before this one: award corrections stay open until substantial action (R14)."""
        self._initial_settings = settings
        self._seq = 0
        """seq of the last event applied."""
        self._grouped = _groups(log)
        self._tx: Transaction | None = None
        self._lost: BaseException | None = None
        """Why the state could not be rebuilt after a failed write (None: it matches the log)."""

    # ------------------------------------------------------------------ plumbing
    @classmethod
    def open(cls, settings: TableSettings, log: Log, clock: Callable[[], float] = time.time) -> Table:
        """A table continuing exactly where its log stands (crash recovery is a replay)."""
        table = cls(settings, log, clock)
        table._replaying = True
        try:
            for stored in log:
                table._apply(_as_event(stored))
        finally:
            table._replaying = False
        return table

    def _emit(self, kind: str, payload: Mapping[str, Any], hand_no: int | None = None) -> Event:
        """Store first, then change state, then tell listeners.

        Inside :meth:`transaction` the event is checked and applied at once (the rest of the command
        sees it) and written with the others at the end; listeners hear of it after that commit."""
        if self._lost is not None:  # the command was checked against a state that was not the log's
            self._restore()
            raise TableError("the table was rebuilt from its log after a failed write: enter it again")
        if hand_no is None and self.hand is not None and kind != "hand_started":
            hand_no = self.hand.hand_no
        tx = self._tx
        if tx is not None and self._grouped:
            item = self.log.prepare(kind, payload, hand_no)  # type: ignore[attr-defined]
            if tx.first_seq is None:
                tx.first_seq = self._seq + 1  # checked when written: another writer is refused
                tx.ts = float(getattr(self.log, "clock", self.clock)())
            event = Event(self._seq + 1, kind, item[1], hand_no, tx.ts)  # type: ignore[arg-type]
            tx.items.append(item)
            tx.events.append(event)
            self._apply(event)
            return event
        stored = self.log.append(kind, payload, hand_no=hand_no)
        event = _as_event(stored)
        self._apply(event)
        for listener in list(self.listeners):
            listener(event)
        return event

    def transaction(self) -> _Scope:
        """Group every event emitted inside into one commit: ``with table.transaction(): ...``.

        Events are checked and applied to the table as they are emitted, so later checks in the
        same command see them; they are written in one :meth:`~controller.eventlog.EventLog.append_many`
        when the outermost transaction ends, and listeners are told only after that commit (an
        event is stored before anyone hears of it). All or none: when the block raises, or the
        write fails, nothing of it is written and the table's state is rebuilt from the log (plus
        the enclosing transaction's events, for a nested one), then the error goes on. Nested
        transactions join the outer one. Outside a transaction every event is its own commit.

        ``with`` gives the :class:`Transaction` (for :meth:`Transaction.set_meta`)."""
        return _Scope(self)

    def _commit(self, tx: Transaction) -> None:
        if tx.events:
            try:
                self.log.append_many(tx.items, meta=tx.meta or None, ts=tx.ts,  # type: ignore[attr-defined]
                                     expect_seq=tx.first_seq)
            except BaseException:
                self._recover()
                raise
        elif tx.meta:
            append_many = getattr(self.log, "append_many", None)
            if append_many is not None:
                append_many([], meta=tx.meta)
            elif hasattr(self.log, "set_meta"):
                for key, value in tx.meta.items():
                    self.log.set_meta(key, value)  # type: ignore[attr-defined]
        error: BaseException | None = None
        for event in tx.events:
            for listener in list(self.listeners):
                try:
                    listener(event)
                except Exception as exc:  # every listener hears of every event; the first error goes on
                    error = error or exc
        if error is not None:
            raise error

    def _recover(self) -> None:
        """After a failed write or an aborted transaction: back to what the log holds."""
        try:
            self._restore()
        except Exception as exc:  # the log cannot be read either: try again before the next event
            self._lost = exc
            self.hand, self.players, self._previous, self._settled = None, {}, None, None

    def _restore(self) -> None:
        """Rebuild the state by replaying the log (as :meth:`open` does), then the events of the
        transaction still open, if any (they are not written yet)."""
        fresh = Table.open(self._initial_settings, self.log, self.clock)
        for name in ("settings", "players", "hand", "hands_played", "placements", "_game", "_previous", "_seq"):
            setattr(self, name, getattr(fresh, name))
        self._version += fresh._version + 1
        self._settled = None
        self._lost = None
        if self._tx is not None:
            for event in self._tx.events:
                self._apply(event)

    def _warn(self, text: str) -> Event:
        return self._emit("warning", {"text": text})

    def configure(self, game: Mapping[str, Any]) -> Event | None:
        """Record the game in the log (once, and again whenever it changes between hands), so the
        log replays and exports without the configuration file."""
        if self._game == dict(game):
            return None
        if self.hand_in_progress:
            raise TableError("the game can change only between hands: finish or void the hand first")
        return self._emit("table_configured", dict(game))

    # ----------------------------------------------------------------- seating
    def seat_player(self, seat: int, name: str, stack: int) -> Event:
        """Seat a player with a stack (between hands)."""
        if not 1 <= seat <= self.settings.seats:
            raise TableError(f"no seat {seat}: the table has seats 1 to {self.settings.seats}")
        if not isinstance(stack, int) or stack <= 0:
            raise TableError(f"bad stack {stack!r} for seat {seat}: must be a whole number > 0")
        if stack % self.settings.smallest_chip:
            raise TableError(f"stack {stack} is not a multiple of the smallest chip {self.settings.smallest_chip}")
        if self.hand_in_progress:
            raise TableError("players are seated between hands")
        if seat in self.players:
            raise TableError(f"seat {seat} is taken by {self.players[seat][0]}")
        return self._emit("player_seated", {"seat": seat, "name": name, "stack": stack})

    def remove_player(self, seat: int) -> Event:
        if seat not in self.players:
            raise TableError(f"seat {seat} is empty")
        if self.hand_in_progress:
            raise TableError("players leave between hands")
        return self._emit("player_left", {"seat": seat})

    def add_chips(self, seat: int, amount: int) -> Event:
        """Cash games: a player buys more chips between hands."""
        if seat not in self.players:
            raise TableError(f"seat {seat} is empty")
        if self.settings.tournament:
            raise TableError("no rebuys at this tournament table")
        if self.hand_in_progress:
            raise TableError("chips are added between hands")
        if amount <= 0 or amount % self.settings.smallest_chip:
            raise TableError(f"bad amount {amount}")
        return self._emit("chips_added", {"seat": seat, "amount": amount})

    @property
    def hand_in_progress(self) -> bool:
        return self.hand is not None and not self.hand.pushed and not self.hand.voided

    # ----------------------------------------------------------------- hands
    def verify_start_hand(self, button: int) -> None:
        if self.hand_in_progress:
            h = self.hand
            assert h is not None
            if h.state.complete:
                raise TableError(f"push the pot of hand {h.hand_no} first")
            raise TableError(f"hand {h.hand_no} is still in progress")
        live = [s for s, (_, stack) in self.players.items() if stack > 0]
        if len(live) < 2:
            raise TableError("a hand needs at least two seated players with chips")
        if button not in self.players:
            raise TableError(f"the button must be on an occupied seat, not seat {button}")

    def can_start_hand(self, button: int) -> bool:
        return _can(self.verify_start_hand, button)

    def start_hand(self, button: int) -> Event:
        """Start the next hand with the button on ``button``; blinds and antes are posted.

        The next hand's start closes the previous one (R14, R17)."""
        self.verify_start_hand(button)
        seats = sorted(s for s, (_, stack) in self.players.items() if stack > 0)
        after = [s for s in seats if s > button] + [s for s in seats if s <= button]
        if button not in after:
            after.append(button)
        payload = {
            "hand_no": self.hands_played + 1,
            "button": button,
            "order": after,
            "names": {str(s): self.players[s][0] for s in after},
            "stacks": {str(s): self.players[s][1] for s in after},
        }
        return self._emit("hand_started", payload, hand_no=self.hands_played + 1)

    def next_button(self) -> int:
        """The seat the button moves to for the next hand (next occupied seat clockwise)."""
        seats = sorted(s for s, (_, stack) in self.players.items() if stack > 0)
        if not seats:
            raise TableError("nobody is seated")
        if self.hand is None:
            return seats[-1]
        later = [s for s in seats if s > self.hand.button]
        return later[0] if later else seats[0]

    def _need_hand(self) -> HandRun:
        if self.hand is None or self.hand.pushed or self.hand.voided:
            raise TableError("no hand in progress")
        return self.hand

    def _index(self, seat: int) -> int:
        h = self._need_hand()
        if seat not in h.order:
            raise TableError(f"seat {seat} is not in hand {h.hand_no}")
        return h.index(seat)

    # ----------------------------------------------------------------- dealing
    def verify_deal(self, seat: int | None, cards: Sequence[Card]) -> None:
        h = self._need_hand()
        try:
            if seat is None:
                h.state.verify_deal_board(cards)
            else:
                h.state.verify_deal_hole(self._index(seat), cards)
        except HandError as exc:
            raise TableError(_seatify(str(exc), h)) from None

    def deal(self, seat: int | None, cards: str | Iterable[Card], *, source: str = "dealer") -> Event:
        """Cards dealt to ``seat`` (hole cards) or to the board (``seat=None``); from the reader or
        entered by hand."""
        parsed = _cards(cards)
        self.verify_deal(seat, parsed)
        kind = "board_dealt" if seat is None else "cards_dealt"
        payload: dict[str, Any] = {"cards": [str(c) for c in parsed], "source": source}
        if seat is not None:
            payload["seat"] = seat
        event = self._emit(kind, payload)
        self._after_street_change()
        return event

    def burn(self, card: str | None = None, *, source: str = "reader") -> Event:
        """A burn card (the reader's burn antenna); counted for the stud river shortage (R18)."""
        self._need_hand()
        return self._emit("card_burned", {"card": card, "source": source})

    # ----------------------------------------------------------------- betting
    def _act(self, seat: int, kind: str, amount: int | None = None) -> Event:
        h = self._need_hand()
        i = self._index(seat)
        try:
            _verify_action(h.state, i, kind, amount)
            if kind == "bet_raise_to" and amount is not None and amount % self.settings.smallest_chip:
                raise HandError(f"{amount} is not a multiple of the smallest chip {self.settings.smallest_chip}")
        except HandError as exc:
            raise TableError(_seatify(str(exc), h)) from None
        payload: dict[str, Any] = {"seat": seat, "action": kind, "street": h.state.street}
        if amount is not None:
            payload["amount"] = amount
        event = self._emit("action", payload)
        self._after_street_change()
        return event

    def fold(self, seat: int) -> Event:
        return self._act(seat, "fold")

    def check_call(self, seat: int) -> Event:
        return self._act(seat, "check_call")

    def post_bring_in(self, seat: int) -> Event:
        return self._act(seat, "bring_in")

    def bet_raise_to(self, seat: int, amount: int) -> Event:
        return self._act(seat, "bet_raise_to", amount)

    def all_in(self, seat: int) -> Event:
        """Bet or raise everything; a call when the stack does not cover more than the bet."""
        h = self._need_hand()
        i = self._index(seat)
        total = h.state.stacks[i] + h.state.bets[i]
        try:
            _, high = h.state.bet_limits(i)
        except HandError:
            high = 0
        if total <= h.state.max_bet or high < total:
            # Nothing to raise against (or a pot/fixed limit): the most this player can put in now.
            return self.check_call(seat) if high <= h.state.max_bet else self._act(seat, "bet_raise_to", high)
        return self._act(seat, "bet_raise_to", total)

    def can(self, seat: int, kind: str, amount: int | None = None) -> bool:
        """Yes/no form of every betting command."""
        try:
            h = self._need_hand()
            if kind not in _VERIFY:
                return False
            _verify_action(h.state, self._index(seat), kind, amount or 0)
        except (HandError, TableError):
            return False
        return True

    def undo(self) -> Event:
        """Undo the last betting or dealing entry (a mis-entered action). An event, never a deletion."""
        h = self._need_hand()
        if not h.actions:
            raise TableError("nothing to undo in this hand")
        if any(s.status in (SeatStatus.TABLED, SeatStatus.MUCKED, SeatStatus.KILLED)
               for s in h.showdown.values()):
            raise TableError("the showdown has begun: use a correction (R14) instead of undo")
        return self._emit("action_undone", {"undone_seq": h.actions[-1].seq})

    def misdeal(self, reason: str = "") -> Event:
        """Void the hand: every stack goes back to where it stood at the start."""
        h = self._need_hand()
        if h.state.street > 0 and not h.state.variant.is_stud:
            self._warn("misdeal declared after the first betting round: floor decision")
        return self._emit("misdeal", {"reason": reason})

    # ----------------------------------------------------------------- showdown procedure
    def plan(self) -> ShowdownResult | None:
        """The engine's judgement of the hand as it stands (None before the betting is over)."""
        h = self.hand
        if h is None or h.voided or not h.state.complete:
            return None
        return self._settle(h)

    def _record(self, h: HandRun) -> HandRecord:
        return showdown_record(self.settings, h)

    def _settle(self, h: HandRun) -> ShowdownResult:
        # Every change goes through _apply, which bumps the version unless the event cannot change
        # the engine's hand record (see _SAME_JUDGEMENT): a result stays valid until then.
        key = (id(h), self._version)
        if self._settled is not None and self._settled[0] == key:
            return self._settled[1]
        result = settle(self._record(h))
        self._settled = (key, result)
        return result

    def _unidentifiable(self, h: HandRun) -> set[int]:
        return {s for s, sd in h.showdown.items()
                if sd.status is SeatStatus.TABLED and sd.identifiable is False}

    def winners(self) -> dict[int, int]:
        """Seat -> chips each would collect now (refunds included), by the engine."""
        h = self.hand
        result = self.plan()
        if h is None or result is None:
            return {}
        return {h.seat(i): w for i, w in enumerate(result.winnings) if w}

    def _winning_seats(self, h: HandRun) -> set[int]:
        result = self._settle(h)
        return {h.seat(a.player) for pa in result.pots for a in pa.awards if a.amount > 0}

    def _showdown_ready(self, h: HandRun) -> None:
        if not h.state.complete:
            raise TableError("the betting is not over")
        if len(h.state.live_players()) < 2:
            raise TableError("uncontested pot: no showdown (R9)")

    def verify_table_hand(self, seat: int) -> None:
        h = self._need_hand()
        self._showdown_ready(h)
        i = self._index(seat)
        sd = h.showdown[seat]
        if h.state.folded[i]:
            raise TableError(f"seat {seat} folded")
        if sd.status is SeatStatus.KILLED:
            raise TableError(f"seat {seat}'s hand is dead: {sd.killed_reason}")
        if sd.status is SeatStatus.TABLED:
            raise TableError(f"seat {seat} has already tabled")
        if sd.status is SeatStatus.MUCKED and not sd.face_down_muck:
            raise TableError(f"seat {seat}'s hand reached the muck")
        if self.settings.enforce_show_order:
            first = self._first_to_show(h)
            if first is not None and first != seat and h.showdown[first].status is SeatStatus.WAITING:
                raise TableError(f"seat {first} shows first (R8); seat {seat} waits")

    def table_hand(self, seat: int, cards: str | Iterable[Card] = ()) -> Event:
        """Seat ``seat`` turns every card face up (R2). Cards not yet known (no reader) may be given."""
        self.verify_table_hand(seat)
        parsed = _cards(cards) if cards else ()
        h = self._need_hand()
        i = self._index(seat)
        if parsed:
            try:
                h.state.verify_show(i, parsed)
            except HandError as exc:
                raise TableError(_seatify(str(exc), h)) from None
        event = self._emit("hand_tabled", {"seat": seat, "cards": [str(c) for c in parsed]})
        self._check_declaration(seat)
        return event

    def show_cards(self, seat: int, cards: str | Iterable[Card]) -> Event:
        """Seat ``seat`` shows some of its cards (R5: showing only part is not tabling)."""
        h = self._need_hand()
        self._showdown_ready(h)
        parsed = _cards(cards)
        i = self._index(seat)
        held = [c for c in h.state.hole[i] if c is not None]
        for c in parsed:
            if held and c not in held:
                raise TableError(f"seat {seat} does not hold {c}")
        event = self._emit("cards_shown", {"seat": seat, "cards": [str(c) for c in parsed]})
        need = h.state.variant.hole_cards
        if len(h.showdown[seat].shown_cards) < need and seat in self._winning_seats(h):
            self._warn(f"seat {seat} showed {len(parsed)} card(s) of a hand that would win: "
                       f"ask for every card to be shown; a refusal goes to the floor (R5)")
        return event

    def camera_view(self, seat: int, *, identifiable: bool, reason: str = "",
                    cards: Sequence[str | None] = ()) -> Event | None:
        """The cameras' verdict for a seat (R2, R3). Repeats of the same verdict store nothing."""
        h = self._need_hand()
        self._index(seat)
        sd = h.showdown[seat]
        cards_t = tuple(cards)
        if sd.identifiable == identifiable and sd.why_not == reason and sd.camera_cards == cards_t:
            return None
        event = self._emit("seat_view", {"seat": seat, "identifiable": identifiable, "reason": reason,
                                         "cards": list(cards_t)})
        i = h.index(seat)
        known = [str(c) for c in h.state.hole[i] if c is not None]
        seen = [c for c in cards_t if c]
        if known and unaccounted(seen, known, len(h.state.hole[i]) - len(known)):
            self._emit("alert", {"alert": "camera_reader_mismatch", "seat": seat,
                                 "camera": seen, "reader": known})
        return event

    def declare(self, seat: int, text: str) -> Event:
        """A player's spoken declaration (R1): recorded; a mismatch with the cards is flagged."""
        h = self._need_hand()
        self._index(seat)
        event = self._emit("declaration", {"seat": seat, "text": text})
        self._check_declaration(seat)
        return event

    def _check_declaration(self, seat: int) -> None:
        h = self._need_hand()
        said = h.showdown[seat].declared
        if not said or not h.state.complete:
            return
        result = self._settle(h)
        i = h.index(seat)
        reading = next((r for r in result.readings if r.player == i), None)
        if reading is None or reading.high is None and reading.low is None:
            return
        texts = [r.text.lower() for r in (reading.high, reading.low) if r is not None]
        cats = [r.category.label.lower() for r in (reading.high,) if r is not None and r.category is not None]
        if not any(said.lower() in t or t in said.lower() for t in texts + cats):
            self._warn(f"seat {seat} declared '{said}' but the cards read {' / '.join(texts)}: "
                       f"cards speak; a deliberate miscall may forfeit the pot, floor's decision (R1)")

    def verify_muck(self, seat: int, *, override: bool = False) -> None:
        self._verify_muck(seat, override)

    def _verify_muck(self, seat: int, override: bool,
                     judged: tuple[ShowdownResult, set[int]] | None = None) -> None:
        h = self._need_hand()
        self._showdown_ready(h)
        i = self._index(seat)
        sd = h.showdown[seat]
        if h.state.folded[i]:
            raise TableError(f"seat {seat} folded")
        if sd.status in (SeatStatus.MUCKED, SeatStatus.KILLED):
            raise TableError(f"seat {seat}'s hand is already {sd.status.value}")
        result = self._settle(h) if judged is None else judged[0]
        if result.plan.all_in and sd.status is not SeatStatus.TABLED and not override:
            raise TableError(f"all-in showdown: seat {seat}'s hand must be tabled, not mucked (R7)")
        if (sd.status is SeatStatus.TABLED and not override
                and seat in (self._winning_seats(h) if judged is None else judged[1])):
            raise TableError(f"seat {seat}'s tabled hand wins: it cannot be mucked (R4)")

    def muck(self, seat: int, *, face_down: bool = True, override: bool = False) -> Event:
        """The hand goes to the muck. A tabled winner cannot be mucked (R4) without a floor override."""
        return self._muck(seat, face_down, override)

    def _muck(self, seat: int, face_down: bool, override: bool,
              judged: tuple[ShowdownResult, set[int]] | None = None) -> Event:
        h = self._need_hand()
        i = self._index(seat) if h else 0
        would_win = False
        if judged is not None:
            would_win = seat in judged[1]
        else:
            try:
                would_win = seat in self._winning_seats(h) if h.state.complete else False
            except ShowdownError:
                pass
        self._verify_muck(seat, override, judged)
        sd = h.showdown[seat]
        identifiable = sd.identifiable is True or (
            sd.identifiable is None and all(c is not None for c in h.state.hole[i]))
        event = self._emit("hand_mucked", {"seat": seat, "face_down": face_down, "override": override})
        if override and would_win:
            self._warn(f"floor override: seat {seat}'s winning hand was mucked (R4)")
        if face_down and identifiable:
            self._warn(f"seat {seat}'s hand was mucked face down while still identifiable: "
                       f"it can be recovered until it is unidentifiable (R3)")
        return event

    def muck_losers(self) -> list[Event]:
        """Muck every hand that wins nothing, face up, once the winners are tabled (R17)."""
        h = self._need_hand()
        self._showdown_ready(h)
        result = self._settle(h)
        winners = self._winning_seats(h)
        for seat in winners:
            if h.showdown[seat].status is not SeatStatus.TABLED:
                raise TableError(f"seat {seat} wins: table that hand before mucking the others")
        # Each muck is checked against this one judgement: mucking a hand that wins nothing changes
        # neither who wins what (each pot still goes to the best hands among the others) nor the
        # plan (it depends on the betting), so judging again after every muck would find the same.
        judged = (result, winners)
        out = []
        for seat in h.order:
            i = h.index(seat)
            if (not h.state.folded[i] and seat not in winners
                    and h.showdown[seat].status in (SeatStatus.WAITING, SeatStatus.TABLED)):
                out.append(self._muck(seat, False, False, judged))
        return out

    def kill(self, seat: int, reason: str) -> Event:
        """Declare a hand dead (floor decision, a hand shown on request after a loser asked, R10)."""
        h = self._need_hand()
        self._index(seat)
        if h.showdown[seat].status is SeatStatus.KILLED:
            raise TableError(f"seat {seat}'s hand is already dead")
        return self._emit("hand_killed", {"seat": seat, "reason": reason})

    def verify_request_show(self, by: int, of: int) -> None:
        h = self._need_hand()
        self._showdown_ready(h)
        rule = self.settings.see_hand
        bi, oi = self._index(by), self._index(of)
        st = h.state
        if rule is SeeHandRule.NONE:
            raise TableError("house rule: no right to see a hand (R10)")
        live = st.live_players()
        if len(live) == 2 and oi in live and bi in live:
            winner = self._winning_seats(h)
            if of not in winner and by in winner:
                raise TableError("no right to see a called losing hand heads-up (R10)")
        if rule is SeeHandRule.TDA:
            if st.folded[bi] or h.showdown[by].status in (SeatStatus.MUCKED, SeatStatus.KILLED):
                raise TableError(f"seat {by} has no cards, so no right to see a hand (R10, TDA)")
            agg = self._last_aggressor(h)
            if agg is None or agg != of:
                raise TableError(f"under TDA rules a caller may see only the last aggressor's hand (R10)")
        elif rule is SeeHandRule.STILL_IN_ON_TURN:
            if not self._was_in_on_turn(h, bi):
                raise TableError(f"seat {by} was not in the hand on the turn (R10)")

    def request_show(self, by: int, of: int) -> Event:
        """Seat ``by`` asks to see seat ``of``'s hand (R10). If a player other than the winner asks,
        the hand is killed before it is shown."""
        self.verify_request_show(by, of)
        h = self._need_hand()
        event = self._emit("show_requested", {"by": by, "of": of})
        winners = self._winning_seats(h)
        if by not in winners and h.showdown[of].status is not SeatStatus.KILLED:
            self._emit("hand_killed", {"seat": of, "reason": f"shown at seat {by}'s request (R10)"})
        return event

    def show_to(self, seat: int, to_seat: int) -> Event:
        """A hand shown to one player: any player may then see it, after the hand (R16)."""
        self._index(seat)
        self._index(to_seat)
        return self._emit("shown_to_one", {"seat": seat, "to": to_seat})

    def _last_aggressor(self, h: HandRun) -> int | None:
        rounds = [r for r in h.state.rounds if r.acted]
        if not rounds:
            return None
        a = rounds[-1].aggressor
        return None if a is None else h.seat(a)

    def _was_in_on_turn(self, h: HandRun, index: int) -> bool:
        """Still holding cards when the turn (fifth street in stud) was dealt."""
        seat = h.seat(index)
        for e in h.actions:
            if e.kind == "action" and e.payload["action"] == "fold" and e.payload["seat"] == seat:
                return e.payload.get("street", 0) >= 2
        return True

    def _first_to_show(self, h: HandRun) -> int | None:
        result = self._settle(h)
        if not result.plan.order:
            return None
        return h.seat(result.plan.order[0].player)

    # ----------------------------------------------------------------- corrections (R14)
    def correction_window(self) -> tuple[bool, bool, str]:
        """(readings open, awards open, why) for the hand on record."""
        h = self.hand
        if h is None:
            return False, False, "no hand"
        if not h.pushed:
            return True, True, "the pot has not been pushed"
        if h.at_break:
            open_ = self.clock() - (h.pushed_at or 0) <= self.settings.dispute_window_s
            return open_, open_, ("within one minute of the award at a break" if open_
                                  else "more than one minute after the award at a break (R14)")
        return True, True, "until the next hand starts (reading) / substantial action (award)"

    def correct_cards(self, seat: int, cards: str | Iterable[Card], reason: str) -> Event:
        """Correct a misread hand (R14): the awards are recomputed from the corrected cards."""
        h = self.hand
        if h is None or h.voided:
            raise TableError("no hand to correct")
        readings_open, _, why = self.correction_window()
        if not readings_open:
            raise TableError(f"too late to challenge the reading: {why}")
        parsed = _cards(cards)
        i = h.index(seat) if seat in h.order else None
        if i is None:
            raise TableError(f"seat {seat} is not in hand {h.hand_no}")
        if len(parsed) != len(h.state.hole[i]):
            raise TableError(f"seat {seat} holds {len(h.state.hole[i])} cards, not {len(parsed)}")
        others = {c for j, hole in enumerate(h.state.hole) if j != i for c in hole if c is not None}
        others |= set(h.state.board)
        for c in parsed:
            if c in others:
                raise TableError(f"duplicate card {c}: it is already on the table")
        return self._emit("cards_corrected", {"seat": seat, "cards": [str(c) for c in parsed], "reason": reason})

    def correct_award(self, from_seat: int, to_seat: int, amount: int, reason: str) -> Event:
        """Move chips pushed to the wrong player (R14): allowed until substantial action in the next
        hand (two actions), or at a break until one minute after the award."""
        if amount <= 0:
            raise TableError("a correction moves a positive number of chips")
        h = self.hand
        if h is None or h.voided:
            raise TableError("no hand to correct")
        if not h.pushed:
            target = self._previous
            if target is None or not target.pushed:
                raise TableError("the pot has not been pushed: correct the reading instead")
            if target.at_break and self.clock() - (target.pushed_at or 0) > self.settings.dispute_window_s:
                raise TableError("too late to correct the award: more than one minute after the award at a break (R14)")
            if self._substantial_action_since(target):
                raise TableError("too late to correct the award: there has been substantial action "
                                 "in the next hand (R14)")
        else:
            target = h
            _, awards_open, why = self.correction_window()
            if not awards_open:
                raise TableError(f"too late to correct the award: {why}")
        for seat in (from_seat, to_seat):
            if seat not in target.order:
                raise TableError(f"seat {seat} was not in hand {target.hand_no}")
        if from_seat in self.players and self.players[from_seat][1] < amount and target is h:
            raise TableError(f"seat {from_seat} has only {self.players[from_seat][1]} chips")
        return self._emit("award_corrected", {"hand": target.hand_no, "from": from_seat, "to": to_seat,
                                              "amount": amount, "reason": reason})

    def _substantial_action_since(self, h: HandRun) -> bool:
        return h.next_hand_actions >= 2

    def set_break(self, at_break: bool = True) -> Event:
        """The hand ended at a break: corrections stay open one minute after the award (R14)."""
        return self._emit("break", {"at_break": at_break})

    # ----------------------------------------------------------------- the push (R17)
    def verify_push(self) -> None:
        h = self._need_hand()
        if not h.state.complete:
            raise TableError("the betting is not over")
        result = self._settle(h)
        if result.plan.uncontested:
            return
        winners = self._winning_seats(h)
        for seat in h.order:
            i = h.index(seat)
            sd = h.showdown[seat]
            if h.state.folded[i]:
                continue
            if seat in winners:
                if sd.status is not SeatStatus.TABLED:
                    raise TableError(f"seat {seat} wins but has not tabled every card (R2)")
                if sd.identifiable is False:
                    raise TableError(f"seat {seat}'s hand is not identifiable: {sd.why_not or 'look again'} (R3)")
            elif sd.status in (SeatStatus.WAITING, SeatStatus.TABLED):
                raise TableError(f"seat {seat}'s losing hand must be mucked or killed before the push (R17)")

    def can_push(self) -> bool:
        return _can(self.verify_push)

    def push(self) -> Event:
        """The dealer confirms the push: the awards become final (R17)."""
        self.verify_push()
        h = self._need_hand()
        result = self._settle(h)
        awards = {str(h.seat(i)): w for i, w in enumerate(result.winnings)}
        event = self._emit("pot_pushed", {"winnings": awards})
        for seat in sorted(h.shown_to):
            self._warn(f"seat {seat}'s hand was shown to one player: show it to the table (R16)")
        return event

    # ----------------------------------------------------------------- R18
    def river_instruction(self) -> str | None:
        """Seven-card stud: what the dealer must do on seventh street if the deck runs short (R18)."""
        h = self.hand
        if h is None or not h.state.variant.is_stud or h.state.street != len(h.state.streets) - 1:
            return None
        if h.state.betting or h.state.over:
            return None
        live = len(h.state.live_players())
        dealt = sum(len(x) for x in h.state.hole) + len(h.state.board)
        burns = max(h.burns, h.state.street - 1)  # one burn each on fourth, fifth and sixth street
        deck = 52 - dealt - burns
        if deck - 1 >= live:
            return None
        if deck + burns >= live:
            return (f"Deck short: {deck} card(s) left for {live} players. Shuffle the {burns} burn cards "
                    f"with the rest of the deck and deal each player a last card down (R18).")
        return (f"Deck short: {deck} card(s) left and {burns} burns cannot serve {live} players. "
                f"Shuffle the burn cards and turn one community card for all players (R18). "
                f"Folded cards are never used.")

    # ----------------------------------------------------------------- hand histories
    def history_phh(self) -> str:
        """The hand on record as PHH (PokerKit reads it back to the same final stacks)."""
        h = self.hand
        if h is None:
            raise TableError("no hand to export")
        return hand_to_phh(self.settings, h)

    # ----------------------------------------------------------------- views
    def snapshot(self) -> dict[str, Any]:
        """Everything the views project from (the surveillance view is this, unredacted)."""
        out: dict[str, Any] = {
            "table_id": self.settings.table_id,
            "variant": self.settings.variant.code,
            "variant_name": self.settings.variant.name,
            "players": {str(s): {"name": n, "stack": st} for s, (n, st) in sorted(self.players.items())},
            "hand": None,
            "placements": list(self.placements),
        }
        h = self.hand
        if h is None:
            return out
        st = h.state
        hand: dict[str, Any] = {
            "hand_no": h.hand_no,
            "button": h.button,
            "order": h.order,
            "street": st.street_name,
            "pot": st.total_pot,
            "board": [str(c) for c in st.board],
            "actor": h.seat(st.actor) if st.actor is not None else None,
            "complete": st.complete,
            "pushed": h.pushed,
            "voided": h.voided,
            "warnings": list(h.warnings),
            "river_instruction": self.river_instruction(),
            "seats": {},
        }
        for i, seat in enumerate(h.order):
            sd = h.showdown[seat]
            hand["seats"][str(seat)] = {
                "name": h.names.get(seat, ""),
                "stack": st.stacks[i],
                "bet": st.bets[i],
                "folded": st.folded[i],
                "all_in": st.is_all_in(i),
                "cards": [str(c) if c else None for c in st.hole[i]],
                "up": list(st.hole_up[i]),
                "status": SeatStatus.FOLDED.value if st.folded[i] else sd.status.value,
                "identifiable": sd.identifiable,
                "why_not": sd.why_not,
                "was_tabled": sd.was_tabled,
                "face_down_muck": sd.face_down_muck,
                "declared": sd.declared,
            }
        if st.betting:
            i = st.actor
            if i is not None:
                try:
                    lo, hi = st.bet_limits(i)
                except HandError:
                    lo = hi = None
                hand["to_act"] = {"seat": h.seat(i), "call": st.call_amount(i), "min_raise_to": lo, "max_raise_to": hi}
        result = None
        if not h.voided and st.complete:
            try:
                result = self._settle(h)
            except ShowdownError as exc:
                hand["error"] = str(exc)
        if result is not None:
            hand["showdown"] = _result_view(h, result)
        out["hand"] = hand
        return out

    # ----------------------------------------------------------------- the fold
    def _apply(self, e: Event) -> None:
        self._seq = e.seq
        k, p = e.kind, e.payload
        if k not in _SAME_JUDGEMENT:
            self._version += 1
        if k == "table_configured":
            self._game = dict(p)
            if not self._replaying or self.hand is None or not self.hand_in_progress:
                self.settings = settings_from_game(p)
        elif k == "player_seated":
            self.players[p["seat"]] = (p["name"], p["stack"])
        elif k == "player_left":
            self.players.pop(p["seat"], None)
        elif k == "chips_added":
            name, stack = self.players[p["seat"]]
            self.players[p["seat"]] = (name, stack + p["amount"])
        elif k == "hand_started":
            self._close_previous()
            self._previous = self.hand
            order = list(p["order"])
            names = {int(s): n for s, n in p["names"].items()}
            stacks = {int(s): v for s, v in p["stacks"].items()}
            state = HandState(self.settings.variant, self.settings.stakes(len(order)),
                              [stacks[s] for s in order], smallest_chip=self.settings.smallest_chip)
            self.hand = HandRun(p["hand_no"], p["button"], order, names, stacks, state,
                                {s: SeatShowdown() for s in order})
            self.hands_played = p["hand_no"]
        elif k in ("cards_dealt", "board_dealt", "action"):
            h = self.hand
            assert h is not None
            _apply_hand_event(h, e)
            h.actions.append(e)
            if k == "action" and self._previous is not None:
                self._previous.next_hand_actions += 1
        elif k == "action_undone":
            h = self.hand
            assert h is not None
            h.actions = [a for a in h.actions if a.seq != p["undone_seq"]]
            h.state = _rebuild(self.settings, h)
        elif k == "card_burned":
            assert self.hand is not None
            self.hand.burns += 1
        elif k == "misdeal":
            assert self.hand is not None
            self.hand.voided = True
        elif k == "hand_tabled":
            h = self.hand
            assert h is not None
            seat = p["seat"]
            h.state.show(h.index(seat), p.get("cards") or ())
            h.showdown[seat].tabled_cards = tuple(p.get("cards") or ())
            h.showdown[seat].status = SeatStatus.TABLED
            h.showdown[seat].was_tabled = True
            h.showdown[seat].face_down_muck = False
        elif k == "cards_shown":
            h = self.hand
            assert h is not None
            sd = h.showdown[p["seat"]]
            sd.shown_cards = tuple(dict.fromkeys(sd.shown_cards + tuple(parse_cards(p["cards"]))))
        elif k == "seat_view":
            h = self.hand
            assert h is not None
            sd = h.showdown[p["seat"]]
            if (sd.identifiable is False) != (p["identifiable"] is False):
                self._version += 1  # the engine sees only whether a tabled hand is unidentifiable
            sd.identifiable = p["identifiable"]
            sd.why_not = p.get("reason", "")
            sd.camera_cards = tuple(p.get("cards", ()))
        elif k == "declaration":
            assert self.hand is not None
            self.hand.showdown[p["seat"]].declared = p["text"]
        elif k == "hand_mucked":
            assert self.hand is not None
            sd = self.hand.showdown[p["seat"]]
            sd.status = SeatStatus.MUCKED
            sd.face_down_muck = bool(p.get("face_down"))
            if not sd.face_down_muck:
                sd.was_tabled = True  # mucked face up: everyone saw it
        elif k == "hand_killed":
            assert self.hand is not None
            sd = self.hand.showdown[p["seat"]]
            sd.status = SeatStatus.KILLED
            sd.killed_reason = p.get("reason", "")
        elif k == "show_requested":
            assert self.hand is not None
            self.hand.requests.append((p["by"], p["of"]))
        elif k == "shown_to_one":
            assert self.hand is not None
            self.hand.shown_to.add(p["seat"])
        elif k == "cards_corrected":
            h = self.hand
            assert h is not None
            before = self._settle(h).winnings if h.pushed else None
            # The corrected cards replace the dealt ones; the hand is refolded from its actions.
            h.actions = _replace_hole(h.actions, p["seat"], parse_cards(p["cards"]))
            h.state = _rebuild(self.settings, h)
            self._version += 1  # the hand changed inside this event: drop the cached judgement
            for seat_, sd in h.showdown.items():
                if sd.status is SeatStatus.MUCKED and sd.was_tabled and not sd.face_down_muck:
                    sd.status = SeatStatus.TABLED  # a shown hand misread and mucked is read again
                if sd.status is SeatStatus.TABLED and h.state.complete:
                    h.state.show(h.index(seat_), sd.tabled_cards)
            if before is not None:  # after the push: move the chips the correction moves
                after = self._settle(h).winnings
                for i, seat_ in enumerate(h.order):
                    if seat_ in self.players and after[i] != before[i]:
                        name, stack = self.players[seat_]
                        self.players[seat_] = (name, stack + after[i] - before[i])
        elif k == "award_corrected":
            target = self.hand if self.hand is not None and self.hand.hand_no == p.get("hand") else self._previous
            assert target is not None
            target.award_transfers.append((p["from"], p["to"], p["amount"], p.get("reason", "")))
            self._move_chips(p["from"], p["to"], p["amount"])
        elif k == "pot_pushed":
            h = self.hand
            assert h is not None
            h.pushed = True
            h.pushed_at = e.ts
            self._finish(h, {int(s): w for s, w in p["winnings"].items()})
        elif k == "break":
            if self.hand is not None:
                self.hand.at_break = bool(p.get("at_break", True))
        elif k == "showdown_plan":
            if self.hand is not None:
                self.hand.plan_published = True
        elif k == "warning":
            if self.hand is not None:
                self.hand.warnings.append(p["text"])
        # alerts, placements and unknown kinds change nothing here (surveillance reads them)

    def _move_chips(self, frm: int, to: int, amount: int) -> None:
        for seat, delta in ((frm, -amount), (to, amount)):
            if seat in self.players:
                name, stack = self.players[seat]
                self.players[seat] = (name, stack + delta)

    def _finish(self, h: HandRun, winnings: dict[int, int]) -> None:
        st = h.state
        busted = []
        for i, seat in enumerate(h.order):
            final = st.starting_stacks[i] - st.contributed[i] - st.dead[i] - st.bets[i] + winnings.get(seat, 0)
            name = h.names.get(seat, "")
            if seat in self.players:
                self.players[seat] = (name, final)
            if final == 0:
                busted.append(seat)
        if self.settings.tournament and busted:
            # R15: players eliminated in the same hand are placed by their stacks at its start.
            remaining = sum(1 for s, (_, stack) in self.players.items() if stack > 0)
            ranked = sorted(busted, key=lambda s: -h.start_stacks[s])
            place = remaining + 1
            for seat in ranked:
                self.placements.append({"seat": seat, "name": h.names.get(seat, ""), "place": place,
                                        "hand_no": h.hand_no, "start_stack": h.start_stacks[seat]})
                place += 1
            for seat in busted:
                self.players.pop(seat, None)

    def _close_previous(self) -> None:
        h = self.hand
        if h is not None and h.voided:
            for seat, stack in h.start_stacks.items():
                if seat in self.players:
                    self.players[seat] = (self.players[seat][0], stack)

    def _after_street_change(self) -> None:
        if self._replaying:
            return
        h = self.hand
        if h is None or h.voided:
            return
        instruction = self.river_instruction()
        if instruction and instruction not in h.warnings:
            self._warn(instruction)
        if h.state.complete and not h.plan_published:
            # Betting is over: publish the engine's plan (who shows, in what order, why).
            result = self._settle(h)
            self._emit("showdown_plan", {
                "uncontested": result.plan.uncontested,
                "all_in": result.plan.all_in,
                "order": [{"seat": h.seat(x.player), "must_show": x.must_show, "reason": x.reason}
                          for x in result.plan.order],
            })


# ---------------------------------------------------------------------------------------- helpers
def hand_to_phh(settings: TableSettings, h: HandRun) -> str:
    """PHH text of a finished (or voided) hand: actions in order, then the showdown in show order."""
    from controller import phh

    st = h.state
    lines = [line for line in st.log if " sm" not in line]  # the showdown is written below
    extra: dict[str, Any] = {
        "table": settings.table_id,
        "hand": h.hand_no,
        "seats": list(h.order),
        "players": [h.names.get(s, f"seat {s}") for s in h.order],
    }
    if h.voided:
        extra["comment"] = "misdeal: the hand was voided and every stack restored"
        return phh.dumps(state=st, fields=extra)
    if st.complete and len(st.live_players()) > 1:
        record = showdown_record(settings, h)
        result = settle(record)
        # PHH readers replay the showdown clockwise from the player who shows first by R8, right
        # after the last betting action (before an all-in runout is dealt).
        first = min(result.plan.order, key=lambda e: 0 if e.must_show and "first" in e.reason else 1).player
        n = len(h.order)
        order = [(first + k) % n for k in range(n) if not st.folded[(first + k) % n]]
        if result.plan.all_in and record.final_round_aggressor is not None:
            start = record.final_round_aggressor
            order = [(start + k) % n for k in range(n) if not st.folded[(start + k) % n]]
        last_bet = max((k for k, line in enumerate(lines) if line.startswith("p")), default=len(lines) - 1)
        held = [0] * n  # hole cards each player holds when the betting closes
        for line in lines[: last_bet + 1]:
            if line.startswith("d dh "):
                who, cards = line[5:].split(" ")
                held[int(who[1:]) - 1] += len(cards) // 2
        showing = [i for i in order if h.showdown[h.seat(i)].was_tabled
                   and h.showdown[h.seat(i)].identifiable is not False
                   and h.showdown[h.seat(i)].status is not SeatStatus.KILLED]

        def show_line(i: int, k: int) -> str:
            if i not in showing:
                return f"p{i + 1} sm"
            return f"p{i + 1} sm " + "".join(str(c) if c else "??" for c in st.hole[i][:k])

        shows = [show_line(i, held[i]) for i in order]
        lines = lines[: last_bet + 1] + shows + lines[last_bet + 1:]
        if any(len(st.hole[i]) > held[i] for i in order):  # stud: cards dealt after an all-in
            lines += [show_line(i, len(st.hole[i])) for i in order if i in showing]
        final = list(result.final_stacks or ())
    elif st.complete:
        final = list(settle(showdown_record(settings, h)).final_stacks or ())
    else:
        final = []
    text = phh.dumps(state=st, fields=extra)
    import tomllib
    import tomli_w

    data = tomllib.loads(text)
    data["actions"] = lines
    if final:
        data["finishing_stacks"] = final
    return tomli_w.dumps(data)


def showdown_record(settings: TableSettings, h: HandRun) -> HandRecord:
    """The engine's hand record with the showdown as it stands: a tabled hand the camera does not
    call unidentifiable can win; a mucked or killed hand cannot (R2, R3); others are undecided."""
    shown_by_player: list[bool | None] = []
    for i, seat in enumerate(h.order):
        sd = h.showdown[seat]
        shown: bool | None = None
        if not h.state.folded[i]:
            if sd.status is SeatStatus.TABLED and sd.identifiable is not False:
                shown = True
            elif sd.status in (SeatStatus.MUCKED, SeatStatus.KILLED):
                shown = False
        shown_by_player.append(shown)
    rec = h.state.record(shown_by_player)
    return dataclasses.replace(rec, smallest_chip=settings.smallest_chip)


def _apply_hand_event(h: HandRun, e: Event) -> None:
    st = h.state
    p = e.payload
    if e.kind == "cards_dealt":
        st.deal_hole(h.index(p["seat"]), "".join(c or "??" for c in p["cards"]))
    elif e.kind == "board_dealt":
        st.deal_board("".join(p["cards"]))
    elif e.kind == "action" and p["action"] in _ACTIONS:
        _call_action(st, _ACTIONS[p["action"]][0], h.index(p["seat"]), p["action"], p.get("amount"))


def _rebuild(settings: TableSettings, h: HandRun) -> HandState:
    state = HandState(settings.variant, settings.stakes(len(h.order)),
                      [h.start_stacks[s] for s in h.order], smallest_chip=settings.smallest_chip)
    h.state = state
    for e in h.actions:
        _apply_hand_event(h, e)
    return state


def _replace_hole(actions: list[Event], seat: int, cards: Sequence[Card]) -> list[Event]:
    out = []
    remaining = list(cards)
    for e in actions:
        if e.kind == "cards_dealt" and e.payload["seat"] == seat:
            n = len(e.payload["cards"])
            mine, remaining = remaining[:n], remaining[n:]
            e = dataclasses.replace(e, payload={**e.payload, "cards": [str(c) for c in mine]})
        out.append(e)
    return out


def _result_view(h: HandRun, r: ShowdownResult) -> dict[str, Any]:
    def reading(x):  # type: ignore[no-untyped-def]
        if x is None:
            return None
        return {"text": x.text, "best_five": [str(c) for c in x.best_five]}

    return {
        "uncontested": r.plan.uncontested,
        "all_in": r.plan.all_in,
        "order": [{"seat": h.seat(e.player), "must_show": e.must_show, "reason": e.reason}
                  for e in r.plan.order],
        "readings": [{"seat": h.seat(x.player), "high": reading(x.high), "low": reading(x.low),
                      "can_win": x.can_win, "why_not": x.why_not} for x in r.readings],
        "refunds": {str(h.seat(i)): v for i, v in enumerate(r.refunds) if v},
        "pots": [{"name": pa.name, "amount": pa.pot.amount,
                  "eligible": [h.seat(i) for i in pa.pot.eligible],
                  "awards": [{"seat": h.seat(a.player), "amount": a.amount, "half": a.half.value,
                              "odd_chips": a.odd_chips} for a in pa.awards],
                  "notes": list(pa.notes)} for pa in r.award_order],
        "push": [f"{pa.name}: {a.amount:,} to seat {h.seat(a.player)}"
                 + ("" if a.half.value == "whole" else f" ({a.half.value} half)")
                 for pa in r.award_order for a in pa.awards if a.amount],
    }


_ACTIONS = {  # betting action -> (the HandState method that takes it, the one that checks it)
    "fold": ("fold", "verify_fold"),
    "check_call": ("check_call", "verify_check_call"),
    "bring_in": ("post_bring_in", "verify_post_bring_in"),
    "bet_raise_to": ("complete_bet_raise_to", "verify_complete_bet_raise_to"),
}
_VERIFY = tuple(_ACTIONS)


def _call_action(state: Any, method: str, i: int, kind: str, amount: int | None) -> None:
    if kind == "bet_raise_to":
        assert amount is not None
        getattr(state, method)(i, amount)
    else:
        getattr(state, method)(i)


def _verify_action(state: Any, i: int, kind: str, amount: int | None) -> None:
    """Raise :class:`HandError` with the reason when player ``i`` may not take this betting action."""
    if kind in _ACTIONS:
        _call_action(state, _ACTIONS[kind][1], i, kind, amount)


def _seatify(message: str, h: HandRun) -> str:
    """Rename PHH players (p1..pn) to table seats in a message from the hand state."""
    import re

    return re.sub(r"\bp(\d+)\b", lambda m: f"seat {h.seat(int(m[1]) - 1)}"
                  if 0 < int(m[1]) <= len(h.order) else m[0], message)


def _cards(cards: str | Iterable[Card]) -> tuple[Card, ...]:
    try:
        return parse_cards(cards)  # type: ignore[arg-type]
    except CardError as exc:
        raise TableError(str(exc)) from None


def _as_event(stored: Any) -> Event:
    if isinstance(stored, Event):
        return stored
    return Event(stored.seq, stored.kind, stored.payload, getattr(stored, "hand_no", None),
                 getattr(stored, "ts", 0.0))


_SAME_JUDGEMENT = frozenset({
    "card_seen", "alert", "warning", "showdown_plan", "declaration", "show_requested", "shown_to_one",
    "break", "cards_shown", "card_burned", "pot_pushed", "award_corrected", "player_seated",
    "player_left", "chips_added", "seat_view",
})
"""Events that leave :func:`showdown_record` of the hand as it was (neither the hand's state, nor a
seat's status, nor the settings), so the engine's cached judgement stays valid (``seat_view``
changes it only when a seat becomes or stops being unidentifiable, handled where it is applied)."""


def _groups(log: Any) -> bool:
    """Whether ``log`` can write a group of events in one commit."""
    return hasattr(log, "append_many") and hasattr(log, "prepare")


def _can(check: Callable[..., None], *args: Any) -> bool:
    try:
        check(*args)
    except (TableError, HandError, ShowdownError):
        return False
    return True

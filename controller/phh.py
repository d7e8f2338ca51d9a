"""PHH, the open Poker Hand History format (TOML): read hands, replay them, write them back.

A ``.phh`` file holds one hand; a ``.phhs`` file holds several, each in its own TOML table. Replaying
a hand's actions through :class:`~controller.hand.HandState` validates every action (turn, minimum,
stack, duplicate card) and yields the :class:`~controller.showdown.HandRecord` the engine judges.

Supported variant codes: every structure (``N``, ``P``, ``F``) of Hold'em ``T``, Omaha ``O``,
Omaha hi/lo ``O/8``, seven-card stud ``7S``, stud hi/lo ``7S/8`` and razz ``R``; for example
``NT``, ``FT``, ``PO``, ``PO/8``, ``FO/8``, ``F7S``, ``F7S/8``, ``FR``.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from controller.cards import CardError
from controller.hand import HandError, HandState, Stakes
from controller.showdown import HandRecord
from controller.variants import Structure, Variant, VariantError, variant_for_code


class PhhError(ValueError):
    """A hand history that cannot be read or replayed.

    ``str(error)`` is one line naming the file, the action (if any) and the problem.
    """

    def __init__(self, problem: str, *, source: str = "", action: str | None = None,
                 index: int | None = None) -> None:
        self.problem = problem
        self.source = source
        self.action = action
        self.index = index
        where = source or "<hand>"
        if action is not None:
            where += f": action {index} {action!r}" if index is not None else f": {action!r}"
        super().__init__(f"{where}: {problem}")


@dataclasses.dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand as written in PHH."""

    variant: Variant
    stakes: Stakes
    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    fields: Mapping[str, Any]
    """Every field of the TOML table, including the ones the engine does not use."""
    source: str = ""
    """File name (and ``[table]`` for a ``.phhs`` hand) for messages."""

    @property
    def players(self) -> tuple[str, ...]:
        names = self.fields.get("players")
        if isinstance(names, list) and len(names) == len(self.starting_stacks):
            return tuple(str(n) for n in names)
        return tuple(f"p{i + 1}" for i in range(len(self.starting_stacks)))

    @property
    def finishing_stacks(self) -> tuple[int, ...] | None:
        fs = self.fields.get("finishing_stacks")
        return tuple(fs) if isinstance(fs, list) else None


def _int_list(fields: Mapping[str, Any], key: str, n: int, source: str, default: int | None = 0) -> tuple[int, ...]:
    value = fields.get(key, default)
    if value is None:
        raise PhhError(f"missing field {key!r}", source=source)
    if isinstance(value, bool):
        raise PhhError(f"{key} must be a number or a list of numbers", source=source)
    if isinstance(value, int):
        return (value,) * n
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise PhhError(f"{key} must be a number or a list of numbers, got {value!r}", source=source)
    if len(value) != n:
        raise PhhError(f"{key} has {len(value)} entries for {n} players", source=source)
    if any(v < 0 for v in value):
        raise PhhError(f"{key} has a negative amount: {value}", source=source)
    return tuple(value)


def _int(fields: Mapping[str, Any], key: str, source: str) -> int:
    value = fields.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PhhError(f"{key} must be a whole number >= 0, got {value!r}", source=source)
    return value


def hand_from_fields(fields: Mapping[str, Any], source: str = "") -> HandHistory:
    """Build a :class:`HandHistory` from a parsed TOML table.

    :raises PhhError: for an unknown variant, a missing or malformed field, a negative stack.
    """
    code = fields.get("variant")
    try:
        variant = variant_for_code(code)  # type: ignore[arg-type]
    except VariantError as exc:
        raise PhhError(str(exc), source=source) from None
    stacks = fields.get("starting_stacks")
    if not isinstance(stacks, list) or not stacks:
        raise PhhError("missing or empty starting_stacks", source=source)
    for i, s in enumerate(stacks):
        if isinstance(s, bool) or not isinstance(s, int):
            raise PhhError(f"starting stack of p{i + 1} is not a whole number: {s!r}", source=source)
        if s <= 0:
            raise PhhError(f"starting stack of p{i + 1} is {s}: stacks must be positive", source=source)
    n = len(stacks)
    if not 2 <= n <= 10:
        raise PhhError(f"{n} players: a table seats 2 to 10", source=source)
    antes = _int_list(fields, "antes", n, source)
    blinds = _int_list(fields, "blinds_or_straddles", n, source)
    bring_in = _int(fields, "bring_in", source)
    small_bet = _int(fields, "small_bet", source)
    big_bet = _int(fields, "big_bet", source)
    min_bet = _int(fields, "min_bet", source)
    trimming = fields.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise PhhError(f"ante_trimming_status must be true or false, got {trimming!r}", source=source)
    if variant.structure is Structure.FIXED_LIMIT:
        if small_bet <= 0 or big_bet <= 0:
            raise PhhError(f"{code} is fixed-limit: small_bet and big_bet must be > 0", source=source)
        min_bet = min_bet or small_bet
    elif min_bet <= 0:
        raise PhhError(f"{code} needs min_bet > 0", source=source)
    actions = fields.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError("actions must be a list of strings", source=source)
    stakes = Stakes(antes, blinds, bring_in, small_bet, big_bet, min_bet, trimming)
    return HandHistory(variant, stakes, tuple(stacks), tuple(actions), dict(fields), source)


def loads(text: str, source: str = "") -> list[HandHistory]:
    """Parse PHH text: one hand, or several (``.phhs``: one TOML table per hand, in file order).

    :raises PhhError: for malformed TOML or a bad hand.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"malformed TOML: {exc}", source=source) from None
    if "variant" in data:
        return [hand_from_fields(data, source)]
    hands = [(k, v) for k, v in data.items() if isinstance(v, dict)]
    if not hands:
        raise PhhError("no hand found (no 'variant' key and no [hand] tables)", source=source)
    return [hand_from_fields(v, f"{source}[{k}]") for k, v in hands]


def load(path: str | pathlib.Path) -> list[HandHistory]:
    """Read a ``.phh`` or ``.phhs`` file.

    :raises PhhError: naming the file for unreadable or malformed input.
    """
    p = pathlib.Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PhhError(f"cannot read: {exc}", source=str(p)) from None
    return loads(text, str(p))


def iter_paths(path: str | pathlib.Path) -> Iterator[pathlib.Path]:
    """A file, or every ``.phh``/``.phhs`` file under a folder, sorted by path."""
    p = pathlib.Path(path)
    if p.is_dir():
        yield from sorted(q for q in p.rglob("*") if q.suffix in (".phh", ".phhs") and q.is_file())
    else:
        yield p


_ACTION = re.compile(r"^\s*(?P<actor>d|p\d+)\s+(?P<verb>[a-z]+)(?:\s+(?P<args>.*?))?\s*$")


def replay(hand: HandHistory, *, smallest_chip: int = 1) -> HandState:
    """Replay every action; return the finished state.

    :raises PhhError: naming the action and the problem (out of turn, below the minimum, more than
        the stack, a duplicate card, a wrong number of hole cards, an unsupported action).
    """
    try:
        state = HandState(hand.variant, hand.stakes, hand.starting_stacks, smallest_chip=smallest_chip)
    except HandError as exc:
        raise PhhError(str(exc), source=hand.source) from None
    n = state.n
    for index, raw in enumerate(hand.actions, start=1):
        text = raw.split("#", 1)[0]
        m = _ACTION.match(text)
        if not m:
            raise PhhError("cannot parse the action", source=hand.source, action=raw, index=index)
        actor, verb, args = m["actor"], m["verb"], (m["args"] or "").strip()
        try:
            if actor == "d":
                if verb == "dh":
                    who, _, cards = args.partition(" ")
                    p = _player(who, n)
                    state.deal_hole(p, cards.strip())
                elif verb == "db":
                    state.deal_board(args)
                else:
                    raise PhhError(f"unsupported dealer action {verb!r} (draw games are not supported)",
                                   source=hand.source, action=raw, index=index)
            else:
                p = _player(actor, n)
                if verb == "f":
                    state.fold(p)
                elif verb == "cc":
                    state.check_call(p)
                elif verb == "cbr":
                    try:
                        amount = int(args)
                    except ValueError:
                        raise HandError(f"bad amount {args!r}") from None
                    state.complete_bet_raise_to(p, amount)
                elif verb == "pb":
                    state.post_bring_in(p)
                elif verb == "sm":
                    if args and args != "-":
                        state.show(p, args)
                    else:
                        state.muck(p)
                else:
                    raise PhhError(f"unsupported action {verb!r}", source=hand.source, action=raw, index=index)
        except (HandError, CardError) as exc:
            raise PhhError(str(exc), source=hand.source, action=raw, index=index) from None
    if not state.complete:
        try:
            state.record()
        except HandError as exc:
            raise PhhError(str(exc), source=hand.source) from None
    return state


def record_of(hand: HandHistory, *, smallest_chip: int = 1) -> HandRecord:
    """Replay ``hand`` and return the finished hand record."""
    state = replay(hand, smallest_chip=smallest_chip)
    try:
        return state.record()
    except HandError as exc:
        raise PhhError(str(exc), source=hand.source) from None


def _player(token: str, n: int) -> int:
    m = re.fullmatch(r"p(\d+)", token)
    if not m:
        raise HandError(f"bad player {token!r}: expected p1..p{n}")
    i = int(m[1])
    if not 1 <= i <= n:
        raise HandError(f"no player {token} at a {n}-player table")
    return i - 1


def dumps(hand: HandHistory | None = None, *, state: HandState | None = None,
          fields: Mapping[str, Any] | None = None) -> str:
    """Write a hand as PHH text: a history as read, or a live hand's state with its log."""
    import tomli_w

    if hand is not None:
        return tomli_w.dumps(dict(hand.fields))
    if state is None:
        raise ValueError("dumps needs a hand or a state")
    s = state.stakes
    out: dict[str, Any] = {
        "variant": state.variant.code,
        "ante_trimming_status": s.ante_trimming,
        "antes": list(s.antes),
        "blinds_or_straddles": list(s.blinds_or_straddles),
    }
    if state.variant.is_stud:
        out["bring_in"] = s.bring_in
    if state.variant.structure is Structure.FIXED_LIMIT:
        out["small_bet"] = s.small_bet
        out["big_bet"] = s.big_bet
    else:
        out["min_bet"] = s.min_bet
    out["starting_stacks"] = list(state.starting_stacks)
    out["actions"] = list(state.log)
    out.update(fields or {})
    return tomli_w.dumps(out)


def hands_in(paths: Sequence[str | pathlib.Path]) -> Iterator[HandHistory]:
    for path in paths:
        for p in iter_paths(path):
            yield from load(p)

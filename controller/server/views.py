"""The three audiences' projections of a table snapshot, with their visibility rules.

Pure functions over the JSON dicts of :meth:`controller.table.Table.snapshot` (through
:class:`~controller.service.TableService`): no I/O, no clock. The server sends nothing to a role
that did not pass through its function here.

- **dealer** (:func:`dealer_view`): live, but a hole card appears only once its seat has tabled
  (R2), or when it is dealt face up (stud door cards). Readings, best five cards and awards follow
  the same rule: a pot's winners and push instructions appear once every winner of that pot has
  tabled (R17, R19). Warnings that could describe a hidden hand are withheld.
- **surveillance** (:func:`surveillance_view`): everything, live, plus every card and where it lies.
- **broadcast** (:func:`broadcast_view`): built only from ``TableService.delayed_snapshot()`` (the
  table as it stood the secure delay ago); there every live hand's hole cards are shown, as a
  hole-card camera would, with equities and the hand strength in words.

>>> snap = {"table_id": "t", "hand": {"hand_no": 1, "board": ["Qs", "9h", "4c"], "warnings": [],
...         "seats": {"1": {"cards": ["As", "Ah"], "up": [False, False], "status": "tabled"},
...                   "3": {"cards": ["Kd", "Kc"], "up": [False, False], "status": "waiting"}}}}
>>> v = dealer_view(snap)
>>> v["hand"]["seats"]["1"]["cards"], v["hand"]["seats"]["3"]["cards"]
(['As', 'Ah'], [None, None])
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from controller.cards import CardError

__all__ = [
    "dealer_view", "surveillance_view", "broadcast_view", "card_locations", "equities_for",
    "strength_for", "redact_event_for_dealer", "hidden_seats",
]

_CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][shdc])(?![A-Za-z0-9])")
_DECLARED = re.compile(r"^seat (\d+) declared ")
WITHHELD = "a warning about a hand that is not tabled is withheld until it is tabled"


# ------------------------------------------------------------------------------------------- dealer
def _visible_seats(hand: Mapping[str, Any], tabled: Collection[int] | None) -> set[int]:
    seats = hand.get("seats") or {}
    out = {int(s) for s, sd in seats.items() if sd.get("status") == "tabled"}
    if tabled is not None:
        out |= {int(s) for s in tabled if str(s) in seats}
    return out


def hidden_seats(hand: Mapping[str, Any], tabled: Collection[int] | None = None) -> set[int]:
    """Seats of ``hand`` whose hole cards the dealer must not see."""
    return {int(s) for s in (hand.get("seats") or {})} - _visible_seats(hand, tabled)


def _hidden_cards(hand: Mapping[str, Any], visible: set[int]) -> set[str]:
    out: set[str] = set()
    for s, sd in (hand.get("seats") or {}).items():
        if int(s) in visible:
            continue
        for c, up in zip(sd.get("cards") or (), list(sd.get("up") or ()) + [False] * 10):
            if c and not up:
                out.add(c)
    return out


def _mentions(text: str, cards: set[str]) -> bool:
    return any(m in cards for m in _CARD.findall(text or ""))


def dealer_view(snapshot: Mapping[str, Any], tabled: Collection[int] | None = None) -> dict[str, Any]:
    """What the dealer's screen may show (live).

    :param snapshot: ``TableService.snapshot()``.
    :param tabled: seats that tabled in the current hand (a tabled hand mucked afterwards was still
        shown); seats whose status is ``tabled`` now are always visible.

    A hidden seat's cards become ``None`` (face-up stud cards stay); its reading loses its cards and
    words; a pot's awards and push lines stay hidden until every seat awarded in it is visible.

    >>> snap = {"hand": {"hand_no": 2, "board": [], "warnings": ["seat 3 declared 'two pair' but "
    ...         "the cards read pair of kings: cards speak (R1)"], "seats": {"3": {"cards": ["Kd", "Kc"],
    ...         "up": [False, False], "status": "waiting"}}}}
    >>> dealer_view(snap)["hand"]["warnings"] == [WITHHELD]
    True
    """
    out: dict[str, Any] = {k: copy.deepcopy(v) for k, v in snapshot.items() if k != "hand"}
    hand = snapshot.get("hand")
    if hand is None:
        out["hand"] = None
        return out
    visible = _visible_seats(hand, tabled)
    hidden = _hidden_cards(hand, visible)
    h: dict[str, Any] = {k: copy.deepcopy(v) for k, v in hand.items()
                         if k not in ("seats", "showdown", "warnings", "error")}
    seats: dict[str, Any] = {}
    for s, sd in (hand.get("seats") or {}).items():
        d = {k: copy.deepcopy(v) for k, v in sd.items() if k not in ("cards", "camera_cards")}
        cards = list(sd.get("cards") or ())
        up = list(sd.get("up") or ()) + [False] * len(cards)
        shown = int(s) in visible
        d["cards"] = [c if (shown or up[i]) else None for i, c in enumerate(cards)]
        d["card_count"] = len(cards)
        d["shown"] = shown
        seats[s] = d
    h["seats"] = seats
    warnings = []
    for text in hand.get("warnings") or ():
        m = _DECLARED.match(text)
        if (m and int(m[1]) not in visible) or _mentions(text, hidden):
            warnings.append(WITHHELD)
        else:
            warnings.append(text)
    h["warnings"] = warnings
    if hand.get("error"):
        h["error"] = WITHHELD if _mentions(hand["error"], hidden) else hand["error"]
    sd_in = hand.get("showdown")
    if sd_in is not None:
        h["showdown"] = _dealer_showdown(sd_in, visible)
    out["hand"] = h
    return out


def _dealer_showdown(sd: Mapping[str, Any], visible: set[int]) -> dict[str, Any]:
    out: dict[str, Any] = {k: copy.deepcopy(sd[k]) for k in ("uncontested", "all_in", "order", "refunds")
                           if k in sd}
    readings = []
    for r in sd.get("readings") or ():
        if r["seat"] in visible:
            readings.append(copy.deepcopy(dict(r)))
        else:
            readings.append({"seat": r["seat"], "high": None, "low": None, "hidden": True,
                             "can_win": r.get("can_win"), "why_not": r.get("why_not", "")})
    out["readings"] = readings
    pots = []
    push = []
    lines = list(sd.get("push") or ())
    for pot in sd.get("pots") or ():
        winners = {a["seat"] for a in pot.get("awards") or () if a.get("amount")}
        known = bool(sd.get("uncontested")) or winners <= visible
        p = {k: copy.deepcopy(v) for k, v in pot.items() if k not in ("awards", "notes")}
        p["awards"] = copy.deepcopy(pot.get("awards") or []) if known else None
        p["notes"] = copy.deepcopy(pot.get("notes") or []) if known else []
        p["decided"] = known
        pots.append(p)
        if known:
            push += [line for line in lines if line.startswith(f"{pot['name']}:")]
    out["pots"] = pots
    out["push"] = push
    out["push_ready"] = all(p["decided"] for p in pots)
    return out


_DEALER_PUBLIC_CARD_EVENTS = {"board_dealt", "hand_tabled"}


def redact_event_for_dealer(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event as the dealer may receive it: card fields are removed except board cards and a
    tabling's cards.

    >>> redact_event_for_dealer({"seq": 7, "kind": "cards_dealt", "hand_no": 1, "ts": 0.0,
    ...                          "payload": {"seat": 3, "cards": ["Kd", "Kc"], "source": "reader"}})
    {'seq': 7, 'ts': 0.0, 'kind': 'cards_dealt', 'hand_no': 1, 'payload': {'seat': 3, 'source': 'reader'}}
    """
    payload = dict(event.get("payload") or {})
    if event.get("kind") not in _DEALER_PUBLIC_CARD_EVENTS:
        for key in ("cards", "card", "camera", "reader"):
            payload.pop(key, None)
    if event.get("kind") == "warning":
        payload = {"text": "a warning (see the screen)"}
    return {"seq": event.get("seq"), "ts": event.get("ts"), "kind": event.get("kind"),
            "hand_no": event.get("hand_no"), "payload": payload}


# -------------------------------------------------------------------------------------- surveillance
def card_locations(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every known card and where it lies: a seat's hand (face up or down), the board, the muck.

    >>> card_locations({"hand": {"board": ["Qs"], "seats": {"2": {"cards": ["As", None],
    ...                 "up": [False, False], "status": "folded"}}}})
    [{'card': 'Qs', 'place': 'board', 'seat': None, 'face': 'up'}, {'card': 'As', 'place': 'muck (folded)', 'seat': 2, 'face': 'down'}]
    """
    hand = snapshot.get("hand")
    if not hand:
        return []
    out = [{"card": c, "place": "board", "seat": None, "face": "up"} for c in hand.get("board") or ()]
    for s, sd in (hand.get("seats") or {}).items():
        status = sd.get("status")
        place = {"folded": "muck (folded)", "mucked": "muck", "killed": "muck (killed)"}.get(
            status, f"seat {s}")
        ups = list(sd.get("up") or ()) + [False] * 10
        for i, c in enumerate(sd.get("cards") or ()):
            if c is None:
                continue
            face = "up" if ups[i] or status == "tabled" else "down"
            out.append({"card": c, "place": place, "seat": int(s), "face": face})
    return out


def surveillance_view(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Everything, live, plus :func:`card_locations` as ``cards``."""
    out = copy.deepcopy(dict(snapshot))
    out["cards"] = card_locations(snapshot)
    return out


# ---------------------------------------------------------------------------------------- broadcast
_BROADCAST_HAND_KEYS = ("hand_no", "button", "order", "street", "pot", "board", "actor", "complete",
                        "pushed", "voided")

EQUITY_SAMPLES = 6000
EQUITY_SEED = 20240601


@functools.lru_cache(maxsize=256)
def _equity_cached(hands: tuple[tuple[str, ...], ...], board: tuple[str, ...], dead: tuple[str, ...],
                   exact: bool) -> tuple[tuple[float, float], ...]:
    from controller.equity import equity

    res = equity([list(h) for h in hands], list(board), list(dead), exact=exact,
                 samples=EQUITY_SAMPLES, seed=EQUITY_SEED)
    return tuple((r.win, r.tie) for r in res)


RULES_EQUITY_SAMPLES = 1500


@functools.lru_cache(maxsize=256)
def _rules_equity_cached(code: str, hands: tuple[tuple[str, ...], ...], board: tuple[str, ...],
                         dead: tuple[str, ...]) -> tuple[tuple[float, float], ...]:
    from controller.equity import equity_by_rules
    from controller.variants import variant_for_code

    res = equity_by_rules(variant_for_code(code), [list(h) for h in hands], list(board), list(dead),
                          samples=RULES_EQUITY_SAMPLES, seed=EQUITY_SEED)
    return tuple((r.win, r.tie) for r in res)


def equities_for(variant_code: str, hands: Mapping[int, Sequence[str]], board: Sequence[str],
                 dead: Iterable[str] = ()) -> dict[str, Any] | None:
    """Win and tie shares: Hold'em and Omaha high exact heads-up from the flop on (and on the turn
    and river), Monte Carlo with a fixed seed otherwise; stud, razz and hi/lo games by Monte Carlo
    over the engine's own readings. ``None`` with fewer than two hands or unknown cards.

    >>> e = equities_for("NT", {1: ["As", "Ah"], 3: ["Kd", "Kc"]}, ["Qs", "9h", "4c"])
    >>> e["method"], round(e["seats"]["1"]["win"], 4)
    ('exact', 0.9)
    """
    from controller.variants import Evaluation, Family, variant_for_code

    try:
        v = variant_for_code(variant_code)
    except (KeyError, ValueError):
        return None
    if len(hands) < 2:
        return None
    seats = sorted(hands)
    cards = [tuple(hands[s]) for s in seats]
    if any(c is None for h in cards for c in h):
        return None
    if v.family is Family.STUD or v.evaluation is not Evaluation.HIGH:
        # Stud, razz and hi/lo: Monte Carlo by the engine's own readings (exact with nothing to come).
        try:
            res = _rules_equity_cached(variant_code, tuple(cards), tuple(board), tuple(sorted(set(dead))))
        except (CardError, ValueError):
            return None
        complete = all(len(h) == v.hole_cards for h in cards) and (v.is_stud or len(board) == 5)
        return {"method": "exact" if complete else f"monte carlo ({RULES_EQUITY_SAMPLES:,} runouts)",
                "seats": {str(s): {"win": w, "tie": t, "equity": w + t} for s, (w, t) in zip(seats, res)}}
    if len({len(h) for h in cards}) != 1:
        return None
    exact = (len(seats) == 2 and len(board) >= 3) or len(board) >= 4
    try:
        res = _equity_cached(tuple(cards), tuple(board), tuple(sorted(set(dead))), exact)
    except (CardError, ValueError):
        return None
    return {"method": "exact" if exact else f"monte carlo ({EQUITY_SAMPLES:,} runouts)",
            "seats": {str(s): {"win": w, "tie": t, "equity": w + t} for s, (w, t) in zip(seats, res)}}


def strength_for(variant_code: str, hole: Sequence[str], board: Sequence[str]) -> str | None:
    """The hand's strength in words with the cards dealt so far (``None`` before it means anything).

    >>> strength_for("NT", ["As", "Ah"], ["Ad", "9h", "4c"])
    'Three of a kind, aces'
    >>> strength_for("NT", ["As", "Ah"], []) is None
    True
    """
    from controller import evaluation as ev
    from controller.variants import Evaluation, Family, variant_for_code

    try:
        v = variant_for_code(variant_code)
        known = [c for c in hole if c]
        if v.family is Family.STUD:
            if len(known) < 5:
                return None
            if v.evaluation is Evaluation.A5_LOW:
                return ev.evaluate_a5_low(known).text
            words = ev.evaluate_high(known).text
            if v.evaluation is Evaluation.HIGH_LOW8:
                low = ev.evaluate_low8(known)
                words += f" / {low.text}" if low else " / no low"
            return words
        if len(board) < 3 or len(known) != len(hole):
            return None
        if v.family is Family.OMAHA:
            words = ev.evaluate_omaha_high(known, board).text
            if v.evaluation is Evaluation.HIGH_LOW8:
                low = ev.evaluate_omaha_low8(known, board)
                words += f" / {low.text}" if low else " / no low"
            return words
        return ev.evaluate_high(list(known) + list(board)).text
    except (CardError, KeyError, ValueError):
        return None


def broadcast_view(delayed: Mapping[str, Any], *, with_equity: bool = True) -> dict[str, Any]:
    """The overlay's view, from ``TableService.delayed_snapshot()`` only.

    Every live hand's hole cards are shown (the snapshot is already the secure delay old); folded
    and mucked hands are not. No event list, no live sequence number.

    >>> d = {"table_id": "t", "variant": "NT", "as_of_seq": 9, "delay_seconds": 30, "players": {},
    ...      "hand": {"hand_no": 1, "street": "flop", "pot": 20, "board": ["Qs", "9h", "4c"],
    ...               "seats": {"1": {"name": "Ann", "cards": ["As", "Ah"], "status": "waiting"},
    ...                         "3": {"name": "Bob", "cards": ["Kd", "Kc"], "status": "waiting"},
    ...                         "5": {"name": "Cy", "cards": ["7c", "2d"], "status": "folded"}}}}
    >>> b = broadcast_view(d)
    >>> b["hand"]["seats"]["5"]["cards"], b["hand"]["seats"]["1"]["strength"]
    ([], 'Pair of aces')
    >>> round(b["hand"]["equity"]["seats"]["3"]["equity"], 4)
    0.1052
    """
    out: dict[str, Any] = {
        "table_id": delayed.get("table_id"),
        "variant": delayed.get("variant"),
        "variant_name": delayed.get("variant_name"),
        "players": copy.deepcopy(delayed.get("players") or {}),
        "as_of_seq": delayed.get("as_of_seq"),
        "delay_seconds": delayed.get("delay_seconds"),
        "hand": None,
    }
    hand = delayed.get("hand")
    if not hand:
        return out
    code = str(delayed.get("variant") or "")
    h: dict[str, Any] = {k: copy.deepcopy(hand.get(k)) for k in _BROADCAST_HAND_KEYS}
    board = list(hand.get("board") or ())
    seats: dict[str, Any] = {}
    live: dict[int, list[str]] = {}
    dead: list[str] = []
    for s, sd in (hand.get("seats") or {}).items():
        status = sd.get("status")
        in_hand = status in ("waiting", "tabled")
        cards = list(sd.get("cards") or ())
        d = {k: sd.get(k) for k in ("name", "stack", "bet", "folded", "all_in", "status")}
        d["cards"] = cards if in_hand else []
        d["strength"] = strength_for(code, cards, board) if in_hand and cards else None
        seats[s] = d
        if in_hand:
            live[int(s)] = cards
        else:
            dead += [c for c in cards if c]
    h["seats"] = seats
    h["equity"] = None
    if with_equity and not hand.get("voided") and len(live) >= 2:
        h["equity"] = equities_for(code, live, board, dead)
    sd_in = hand.get("showdown")
    if sd_in:
        h["winners"] = [{"pot": p["name"], "amount": p["amount"],
                         "awards": [{"seat": a["seat"], "amount": a["amount"]} for a in p.get("awards") or ()]}
                        for p in sd_in.get("pots") or ()]
    out["hand"] = h
    return out

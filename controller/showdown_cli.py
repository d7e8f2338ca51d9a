"""``cardroom showdown FILE``: the show order, readings, pots and awards of hand histories."""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

from controller import phh
from controller.evaluation import HandReading
from controller.showdown import ShowdownError, ShowdownResult, settle


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "showdown",
        help="judge hand histories (PHH): show order, readings, pots, awards",
        description="Read a PHH hand history (.phh), several (.phhs) or a folder of them, and print "
        "who shows first and why, each hand's reading, each pot with its eligible players, the "
        "awards and every odd chip with its reason.",
    )
    p.add_argument("file", help="a .phh or .phhs file, or a folder (read sorted by path)")
    p.add_argument("--json", action="store_true", help="one JSON object per hand, one per line")
    p.add_argument("--chip", type=int, default=1, metavar="N",
                   help="smallest chip denomination in play (default 1): pots split down to it")
    p.set_defaults(func=run)


def _reading_json(r: HandReading | None) -> dict[str, Any] | None:
    if r is None:
        return None
    category = r.category.label if r.category is not None else (
        "8-or-better low" if r.kind == "low8" else "A-5 low")
    return {"category": category, "best_five": [str(c) for c in r.best_five], "text": r.text}


def result_json(result: ShowdownResult) -> dict[str, Any]:
    """The ``--json`` object of one hand (players 1-based, as PHH's p1..pn)."""
    hands = []
    if not result.plan.uncontested:
        for r in result.readings:
            hands.append({
                "player": r.player + 1,
                "cards": [str(c) if c is not None else "??" for c in r.cards],
                "high": _reading_json(r.high),
                "low": _reading_json(r.low),
            })
    return {
        "show_order": [e.player + 1 for e in result.plan.order],
        "hands": hands,
        "pots": [
            {
                "amount": pa.pot.amount,
                "eligible": [i + 1 for i in pa.pot.eligible],
                "awards": [{"player": a.player + 1, "amount": a.amount, "half": a.half.value}
                           for a in pa.awards],
            }
            for pa in result.pots
        ],
        "final_stacks": list(result.final_stacks) if result.final_stacks is not None else None,
    }


def _chips(n: int) -> str:
    return f"{n:,}"


def result_text(hand: phh.HandHistory, result: ShowdownResult) -> str:
    """The report for a person: order with reasons, readings, pots, awards, odd chips."""
    lines = [f"{hand.source or 'hand'}: {hand.variant.name}, {len(hand.starting_stacks)} players"]
    plan = result.plan
    if plan.uncontested:
        w = plan.winner_without_show
        lines.append(f"Uncontested: everyone else folded; p{w + 1} wins and need not show (R9).")  # type: ignore[operator]
    else:
        lines.append("Show order:")
        for k, e in enumerate(plan.order, 1):
            lines.append(f"  {k}. p{e.player + 1} {e.reason}" if k == 1 else
                         f"  {k}. p{e.player + 1}: {e.reason}")
        lines.append("Hands (cards speak, R1):")
        for r in result.readings:
            cards = " ".join(str(c) if c else "??" for c in r.cards)
            if not r.can_win:
                lines.append(f"  p{r.player + 1}  {cards}  cannot win: {r.why_not}")
                continue
            parts = []
            if r.high is not None:
                parts.append(f"{r.high.text} [{' '.join(map(str, r.high.best_five))}]")
            if r.low is not None:
                parts.append(f"low {r.low.text} [{' '.join(map(str, r.low.best_five))}]")
            elif hand.variant.is_hi_lo:
                parts.append("no qualifying low")
            lines.append(f"  p{r.player + 1}  {cards}  " + "; ".join(parts))
    for i, refund in enumerate(result.refunds):
        if refund:
            lines.append(f"Uncalled bet: {_chips(refund)} back to p{i + 1} (R6)")
    lines.append("Pots, awarded outermost first (R12):")
    for pa in result.award_order:
        eligible = " ".join(f"p{i + 1}" for i in pa.pot.eligible)
        lines.append(f"  {pa.name}: {_chips(pa.pot.amount)}, eligible {eligible}")
        for a in pa.awards:
            half = "" if a.half.value == "whole" else f" ({a.half.value} half)"
            lines.append(f"    {_chips(a.amount)} to p{a.player + 1}{half}")
        for note in pa.notes:
            lines.append(f"    note: {note}")
    if result.final_stacks is not None:
        lines.append("Final stacks: " + ", ".join(
            f"p{i + 1} {_chips(s)}" for i, s in enumerate(result.final_stacks)))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    path = pathlib.Path(args.file)
    if args.chip <= 0:
        print(f"{path}: --chip must be > 0", file=sys.stderr)
        return 2
    if not path.exists():
        print(f"{path}: no such file or folder", file=sys.stderr)
        return 2
    multi = path.is_dir() or path.suffix == ".phhs"
    status = 0
    first = True
    for file in phh.iter_paths(path):
        try:
            hands = phh.load(file)
        except phh.PhhError as exc:
            print(str(exc), file=sys.stderr)
            status = 2
            continue
        for hand in hands:
            try:
                result = settle(phh.record_of(hand, smallest_chip=args.chip))
            except (phh.PhhError, ShowdownError) as exc:
                msg = str(exc)
                if not msg.startswith(hand.source):
                    msg = f"{hand.source}: {msg}"
                print(msg, file=sys.stderr)
                status = 2
                continue
            if args.json:
                obj = result_json(result)
                if multi:
                    obj = {"file": hand.source, **obj}
                print(json.dumps(obj))
            else:
                if not first:
                    print()
                print(result_text(hand, result))
            first = False
            sys.stdout.flush()
    return status

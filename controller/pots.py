"""Pots: the uncalled bet back (R6), then layered side pots with their eligible players (R12).

Players are 0-based indices here (the engine prints them 1-based, as PHH's ``p1..pn``).

>>> refunds, contributions = return_uncalled([100, 300, 50])
>>> refunds, contributions
((0, 200, 0), (100, 100, 50))
>>> for pot in build_pots(contributions, live=[True, True, True]):
...     print(pot)
150 eligible p1 p2 p3
100 eligible p1 p2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence


class PotError(ValueError):
    """Contributions that cannot make pots (a negative amount, no live player)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Pot:
    """One pot: its chips and the players who can win it."""

    amount: int
    """Chips in the pot."""
    eligible: tuple[int, ...]
    """0-based indices of the live players who contributed to every layer of this pot, ascending."""

    def __str__(self) -> str:
        return f"{self.amount} eligible " + " ".join(f"p{i + 1}" for i in self.eligible)


def return_uncalled(contributions: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Give the uncalled part of the largest contribution back to its bettor (R6).

    Nobody matched the part of the top contribution above the second largest one, so it returns
    before any pot is built. Returns ``(refunds, contributions_after)``.

    :raises PotError: for a negative contribution.
    """
    _check(contributions)
    refunds = [0] * len(contributions)
    after = list(contributions)
    if len(after) >= 2:
        order = sorted(range(len(after)), key=lambda i: after[i], reverse=True)
        top, second = order[0], order[1]
        excess = after[top] - after[second]
        if excess > 0:
            refunds[top] = excess
            after[top] -= excess
    return tuple(refunds), tuple(after)


def build_pots(
    contributions: Sequence[int],
    live: Sequence[bool],
    dead: int = 0,
    *,
    merge_same_contenders: bool = False,
) -> tuple[Pot, ...]:
    """Layer the contributions into a main pot and side pots, main pot first.

    Each distinct contribution level of a live player closes a layer; every player's chips up to
    that level go into it (folded money stays in), and the live players who reached the level are
    eligible. ``dead`` chips (antes posted as dead money, a dead blind) go into the main pot.
    Call :func:`return_uncalled` first.

    ``merge_same_contenders`` merges adjacent pots with identical eligible players, as PokerKit
    does; the rules (R12) split each side pot on its own, so the engine never sets it.

    :raises PotError: for a negative contribution, mismatched lengths, or no live player.
    """
    _check(contributions)
    if len(live) != len(contributions):
        raise PotError(f"{len(contributions)} contributions but {len(live)} live flags")
    if dead < 0:
        raise PotError(f"negative dead money {dead}")
    if not any(live):
        raise PotError("no live player to win the pot")
    everyone = tuple(i for i, alive in enumerate(live) if alive)
    pots: list[Pot] = []
    if dead:
        # Dead money (antes that are not bets) belongs to every live hand, even one all-in for
        # its ante alone; it joins the first layer when that layer has the same contenders.
        pots.append(Pot(dead, everyone))
    levels = sorted({c for c, alive in zip(contributions, live) if alive and c > 0})
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        eligible = tuple(i for i, c in enumerate(contributions) if live[i] and c >= level)
        if previous == 0 and pots and pots[0].eligible == eligible:
            pots[0] = Pot(pots[0].amount + amount, eligible)
        else:
            pots.append(Pot(amount, eligible))
        previous = level
    # Money above the highest live level (cannot happen after return_uncalled, but never lose it).
    leftover = sum(max(0, c - previous) for c in contributions)
    if leftover:
        if pots:
            pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
        else:
            pots.append(Pot(leftover, everyone))
    if merge_same_contenders:
        merged: list[Pot] = []
        for pot in pots:
            if merged and merged[-1].eligible == pot.eligible:
                merged[-1] = Pot(merged[-1].amount + pot.amount, pot.eligible)
            else:
                merged.append(pot)
        pots = merged
    return tuple(pots)


def _check(contributions: Sequence[int]) -> None:
    for i, c in enumerate(contributions):
        if not isinstance(c, int) or c < 0:
            raise PotError(f"bad contribution {c!r} for p{i + 1}: must be a whole number >= 0")

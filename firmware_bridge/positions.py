"""Where every card lies: reader events in, card sightings and alerts out. Pure; the clock is injected.

Rules (``PROTOCOL.md``, Delivery):

* a TAG_ENTER for a tag already on that antenna is a repeat read, not a new card;
* a tag read on two antennas is ambiguous: its place does not change until one antenna reports
  TAG_LEAVE (an ``ambiguous`` alert is raised if that takes longer than ``leave_after``);
* a card leaves a place only after ``leave_after`` seconds unseen, because readers drop reads
  for a moment; a re-read within that time cancels the leave;
* a tag in no active deck is announced as a ``foreign_tag`` alert, never as a card;
* the same card lying twice on the table (two decks mixed) raises ``duplicate_card``.

>>> from firmware_bridge.deck import DeckRegistry, make_deck
>>> deck = make_deck("A"); uid = next(iter(deck.cards)); now = [0.0]
>>> t = PositionTracker(DeckRegistry([deck]), leave_after=0.5, clock=lambda: now[0])
>>> [r.to_json()["event"] + " " + r.place for r in t.enter(0, uid, seq=1)]
['enter shoe']
>>> t.enter(0, uid, seq=2)  # repeat read
[]
>>> t.enter(3, uid, seq=3)  # now on shoe and seat 3: ambiguous, nothing moves yet
[]
>>> [r.to_json()["event"] + " " + r.place for r in t.leave(0, uid, seq=4)]
['leave shoe', 'enter seat3']
>>> t.leave(3, uid, seq=5); now[0] = 0.4; t.tick()
[]
[]
>>> now[0] = 0.6; [r.to_json()["event"] + " " + r.place for r in t.tick()]
['leave seat3']
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping

from controller.cards import Card
from firmware_bridge.deck import DeckRegistry, uid_hex
from firmware_bridge.records import Alert, AlertKind, CardSighting, Record, place_name

ALL_ANTENNAS = 0xFF


@dataclasses.dataclass(slots=True)
class _Presence:
    last_seen: float
    leaving_since: float | None = None
    leave_seq: int | None = None


class PositionTracker:
    """Folds reader events into card places.

    :param registry: the active decks (foreign tags become alerts).
    :param leave_after: seconds a tag must stay unseen after TAG_LEAVE before its card leaves.
    :param clock: monotonic seconds; injected so tests are fast and deterministic.
    """

    def __init__(
        self,
        registry: DeckRegistry,
        *,
        leave_after: float = 0.3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = registry
        self.leave_after = leave_after
        self.clock = clock
        self._tags: dict[bytes, dict[int, _Presence]] = {}
        self._placed: dict[bytes, int] = {}
        self._leaving: set[bytes] = set()
        self._ambiguous: dict[bytes, list[float | bool]] = {}
        self._by_card: dict[Card, set[bytes]] = {}
        self.repeat_reads = 0
        """TAG_ENTERs for a tag already present on that antenna."""
        self.stray_leaves = 0
        """TAG_LEAVEs for a tag not known on that antenna (e.g. after a restart without resume)."""

    # --- queries ---------------------------------------------------------------------------------

    def placed(self) -> dict[bytes, int]:
        """Antenna at which each tag is announced (foreign tags included)."""
        return dict(self._placed)

    def where(self, uid: bytes) -> str | None:
        """Announced place of ``uid``, or ``None``."""
        a = self._placed.get(uid)
        return None if a is None else place_name(a)

    def ambiguous(self) -> dict[bytes, tuple[str, ...]]:
        """Tags now read on two or more antennas, with those places."""
        out = {}
        for uid in self._ambiguous:
            out[uid] = tuple(place_name(a) for a in sorted(self._tags.get(uid, {})))
        return out

    # --- events ----------------------------------------------------------------------------------

    def seed(self, placed: Mapping[bytes, int]) -> None:
        """Start from known places (a resumed log) so that re-reads after a restart are repeats.

        Seeded tags count as not seen since; :meth:`inventory_done` removes those the reader does
        not report again.
        """
        for uid, antenna in placed.items():
            self._tags[uid] = {antenna: _Presence(last_seen=float("-inf"))}
            self._placed[uid] = antenna
            card = self.registry.card(uid)
            if card is not None:
                self._by_card.setdefault(card, set()).add(uid)

    def enter(self, antenna: int, uid: bytes, seq: int | None = None) -> list[Record]:
        """Apply a TAG_ENTER; returns the sightings and alerts it causes (none for a repeat read)."""
        now = self.clock()
        pres = self._tags.setdefault(uid, {})
        p = pres.get(antenna)
        if p is not None:
            p.last_seen = now
            self.repeat_reads += 1
            if p.leaving_since is None:
                return []
            p.leaving_since = None  # the read dropped for a moment: cancel the leave
            p.leave_seq = None
        else:
            pres[antenna] = _Presence(last_seen=now)
        return self._resolve(uid, seq, now)

    def leave(self, antenna: int, uid: bytes, seq: int | None = None) -> list[Record]:
        """Apply a TAG_LEAVE; the card leaves only after ``leave_after`` unless it moves elsewhere."""
        now = self.clock()
        p = self._tags.get(uid, {}).get(antenna)
        if p is None:
            self.stray_leaves += 1
            return []
        if p.leaving_since is None:
            p.leaving_since = now
            p.leave_seq = seq
            self._leaving.add(uid)
        return self._resolve(uid, seq, now)

    def inventory_done(self, sent_at: float, antenna: int = ALL_ANTENNAS) -> None:
        """The reader answered an INVENTORY sent at ``sent_at``: tags it did not report since then
        start leaving (they left while the link or the host was down)."""
        now = self.clock()
        for uid, pres in self._tags.items():
            for a, p in pres.items():
                if (antenna == ALL_ANTENNAS or a == antenna) and p.leaving_since is None and p.last_seen < sent_at:
                    p.leaving_since = now
                    self._leaving.add(uid)

    def tick(self) -> list[Record]:
        """Expire leaves older than ``leave_after`` and raise long ambiguities."""
        now = self.clock()
        out: list[Record] = []
        for uid in list(self._leaving):
            pres = self._tags.get(uid, {})
            expired = [
                a
                for a, p in pres.items()
                if p.leaving_since is not None and now - p.leaving_since >= self.leave_after
            ]
            if not any(p.leaving_since is not None for p in pres.values()):
                self._leaving.discard(uid)
            if not expired:
                continue
            seq = pres[expired[0]].leave_seq
            for a in expired:
                del pres[a]
            if not any(p.leaving_since is not None for p in pres.values()):
                self._leaving.discard(uid)
            out += self._resolve(uid, seq, now)
            if not pres:
                self._tags.pop(uid, None)
        for uid, state in self._ambiguous.items():
            since, alerted = state
            if not alerted and now - float(since) >= self.leave_after:
                state[1] = True
                card = self.registry.card(uid)
                places = sorted(self._tags.get(uid, {}))
                out.append(
                    Alert(
                        AlertKind.AMBIGUOUS,
                        {
                            "card": None if card is None else str(card),
                            "uid": uid_hex(uid),
                            "places": [place_name(a) for a in places],
                        },
                    )
                )
        return out

    # --- internals -------------------------------------------------------------------------------

    def _resolve(self, uid: bytes, seq: int | None, now: float) -> list[Record]:
        pres = self._tags.get(uid, {})
        candidates = [a for a, p in pres.items() if p.leaving_since is None]
        current = self._placed.get(uid)
        if len(candidates) == 1:
            target: int | None = candidates[0]
        else:
            # Nothing clearly read (all leaving) or read twice: the card stays where it was, as long
            # as it is still seen there.
            target = current if current in pres else None
        if len(candidates) >= 2:
            self._ambiguous.setdefault(uid, [now, False])
        else:
            self._ambiguous.pop(uid, None)
        if target == current:
            return []
        out: list[Record] = []
        if current is not None:
            out += self._withdraw(uid, current, seq)
        if target is not None:
            out += self._announce(uid, target, seq)
        return out

    def _announce(self, uid: bytes, antenna: int, seq: int | None) -> list[Record]:
        self._placed[uid] = antenna
        card = self.registry.card(uid)
        place = place_name(antenna)
        if card is None:
            return [Alert(AlertKind.FOREIGN_TAG, {"seq": seq, "uid": uid_hex(uid), "place": place, "antenna": antenna})]
        out: list[Record] = [CardSighting(seq, "enter", card, place, antenna, uid)]
        twins = self._by_card.setdefault(card, set())
        twins.add(uid)
        if len(twins) > 1:
            ordered = sorted(twins)
            out.append(
                Alert(
                    AlertKind.DUPLICATE_CARD,
                    {
                        "seq": seq,
                        "card": str(card),
                        "uids": [uid_hex(u) for u in ordered],
                        "places": [place_name(self._placed[u]) for u in ordered],
                        "decks": [self.registry.deck_of(u) for u in ordered],
                    },
                )
            )
        return out

    def _withdraw(self, uid: bytes, antenna: int, seq: int | None) -> list[Record]:
        del self._placed[uid]
        card = self.registry.card(uid)
        if card is None:
            return []
        self._by_card.get(card, set()).discard(uid)
        return [CardSighting(seq, "leave", card, place_name(antenna), antenna, uid)]

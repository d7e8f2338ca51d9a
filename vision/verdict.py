"""Per-seat verdict: is this seat's hand 100% identifiable (R2, R3)?

Pure logic over :class:`~vision.recognize.Detection` values; no OpenCV, no model.

A seat is identifiable only when exactly the cards the variant needs are face up, each read at or
above the confidence threshold, none twice, nothing else card-like unexplained in the zone, and the
same reading has held for ``stable_frames`` consecutive frames. Otherwise it is not, with one
:class:`Reason`. Errors are lopsided (a wrong read awards a pot to the wrong player; "not
identifiable" only sends the dealer to look again), so every doubt lands on "not identifiable".
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence

from controller.cards import Card, unaccounted
from vision.recognize import Detection


class Reason(enum.StrEnum):
    """Why a seat is (not) identifiable."""

    OK = "ok"
    """Identifiable."""
    MISSING = "missing"
    """Fewer cards in the zone than the variant needs."""
    FACE_DOWN = "face_down"
    """A card in the zone shows its back."""
    COVERED = "covered"
    """A card is there but its indices cannot be seen (chip, finger, another card)."""
    UNSURE = "unsure"
    """A card is read below the threshold, its two corners disagree, there are too many cards, or
    the reading has not yet held for enough frames."""
    DUPLICATE = "duplicate"
    """The same card is read twice (in this zone or another)."""
    MISMATCH = "mismatch"
    """The cameras read cards the reader does not place at this seat: a surveillance alert."""


@dataclasses.dataclass(frozen=True)
class SeatEvidence:
    """What the camera found in one seat zone in one frame."""

    seat: int
    detections: tuple[Detection, ...] = ()
    """Face-up cards found (read or unreadable)."""
    face_down: int = 0
    """Card backs found."""
    unexplained: float = 0.0
    """Card stock in the zone not covered by any detection, in card areas (a card whose corners
    could not be found at all)."""
    edge_width: float | None = None
    """The width of the card edges in the zone (pixels, :func:`vision.focus.edge_width`), where it
    was measured this frame: how far out of focus the camera is there."""


@dataclasses.dataclass(frozen=True)
class SeatView:
    """The camera's view of one seat in one frame: what the table receives."""

    seat: int
    """Seat number."""
    cards: tuple[Card, ...]
    """Cards read at or above the threshold, in no particular meaning of order."""
    identifiable: bool
    """True only when the hand is 100% identifiable (R2, R3)."""
    reason: Reason
    """``OK`` when identifiable, else why not."""
    needed: int
    """Cards the variant needs."""
    frame: int = 0
    """Frame number in the source."""
    confidence: float = 0.0
    """Lowest confidence among the needed cards (0 when not all were read)."""
    detail: str = ""
    """A human sentence about the reason."""
    stable_for: int = 0
    """Consecutive frames this reading has held."""
    mismatch: tuple[Card, ...] = ()
    """Cards read here that the reader does not place at this seat."""

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "identifiable": self.identifiable,
            "reason": str(self.reason),
            "needed": self.needed,
            "frame": self.frame,
            "confidence": round(self.confidence, 4),
            "stable_for": self.stable_for,
            "detail": self.detail,
            "mismatch": [str(c) for c in self.mismatch],
        }


def judge_seat(
    evidence: SeatEvidence,
    needed: int,
    threshold: float,
    *,
    frame: int = 0,
    reader_cards: Iterable[Card] | None = None,
    duplicates: frozenset[Card] = frozenset(),
) -> SeatView:
    """Single-frame verdict for one seat.

    :param reader_cards: the cards the RFID reader places at this seat, when it knows them (some
        or all of them: a camera card the reader does not have is a mismatch only when the reader
        knows the whole hand, or the camera reads more such cards than the reader is missing).
    :param duplicates: cards read more than once anywhere in the frame.
    """
    sure = [d for d in evidence.detections if d.card is not None and d.confidence >= threshold]
    unsure = [d for d in evidence.detections if d.card is not None and d.confidence < threshold]
    unread = [d for d in evidence.detections if d.card is None]
    cards = tuple(d.card for d in sure if d.card is not None)
    conf = min((d.confidence for d in sure), default=0.0)

    def view(ok: bool, reason: Reason, detail: str, mismatch: tuple[Card, ...] = ()) -> SeatView:
        return SeatView(evidence.seat, cards, ok, reason, needed, frame, conf if ok else 0.0, detail,
                        0, mismatch)

    seen: set[Card] = set()
    twice = sorted({c for c in cards if c in seen or seen.add(c)} | (set(cards) & duplicates),
                   key=lambda c: c.index)
    if twice:
        return view(False, Reason.DUPLICATE, f"{twice[0]} read more than once")
    if reader_cards is not None:
        known = set(reader_cards)
        extra = unaccounted(cards, known, needed - len(known))
        if extra:
            return view(False, Reason.MISMATCH,
                        f"camera reads {' '.join(map(str, extra))}, reader has "
                        f"{' '.join(sorted(map(str, known))) or 'nothing'}", extra)
    if evidence.face_down:
        return view(False, Reason.FACE_DOWN, f"{evidence.face_down} card(s) face down")
    if len(cards) > needed:
        return view(False, Reason.UNSURE, f"{len(cards)} cards read, the hand has {needed}")
    if unsure:
        worst = min(unsure, key=lambda d: d.confidence)
        return view(False, Reason.UNSURE, f"{worst.card} read at {worst.confidence:.3f}, below {threshold:.3f}")
    if unread:
        blurred = sum(1 for d in unread if d.out_of_focus)
        return view(False, Reason.COVERED if all(d.confidence < 0.5 for d in unread) else Reason.UNSURE,
                    f"{len(unread)} card(s) seen but not readable"
                    + (f" ({blurred} of them because the camera is out of focus)" if blurred else ""))
    if len(cards) == needed:
        return view(True, Reason.OK, f"{needed} cards read")
    if evidence.unexplained >= 0.3:
        return view(False, Reason.COVERED, f"{needed - len(cards)} card(s) present but indices hidden")
    return view(False, Reason.MISSING, f"{len(cards)} of {needed} cards in view")


def duplicate_cards(evidence: Sequence[SeatEvidence], threshold: float) -> frozenset[Card]:
    """Cards read at or above ``threshold`` more than once across all zones of a frame."""
    seen: set[Card] = set()
    dup: set[Card] = set()
    for ev in evidence:
        for d in ev.detections:
            if d.card is not None and d.confidence >= threshold:
                (dup if d.card in seen else seen).add(d.card)
    return frozenset(dup)


def judge_frame(
    evidence: Sequence[SeatEvidence],
    needed: int,
    threshold: float,
    *,
    frame: int = 0,
    reader: Mapping[int, Iterable[Card]] | None = None,
) -> list[SeatView]:
    """Single-frame verdicts for every seat, with duplicates checked across the whole frame."""
    dup = duplicate_cards(evidence, threshold)
    return [
        judge_seat(ev, needed, threshold, frame=frame, duplicates=dup,
                   reader_cards=None if reader is None or ev.seat not in reader else reader[ev.seat])
        for ev in evidence
    ]


class StabilityFilter:
    """Holds a seat identifiable only once its reading has held for ``frames`` consecutive frames.

    >>> from controller.cards import Card
    >>> f = StabilityFilter(2)
    >>> v = SeatView(1, (Card.parse("As"), Card.parse("Kd")), True, Reason.OK, 2)
    >>> f.update(v).identifiable, f.update(v).identifiable
    (False, True)
    """

    def __init__(self, frames: int = 3) -> None:
        self.frames = frames
        self._last: dict[int, tuple[frozenset[Card], int]] = {}

    def update(self, view: SeatView) -> SeatView:
        key = frozenset(view.cards) if view.identifiable else None
        prev = self._last.get(view.seat)
        if key is None:
            self._last.pop(view.seat, None)
            return view
        count = prev[1] + 1 if prev is not None and prev[0] == key else 1
        self._last[view.seat] = (key, count)
        if count >= self.frames:
            return dataclasses.replace(view, stable_for=count)
        return dataclasses.replace(view, identifiable=False, reason=Reason.UNSURE, confidence=0.0,
                                   stable_for=count,
                                   detail=f"reading held {count} of {self.frames} frames")

    def reset(self) -> None:
        self._last.clear()

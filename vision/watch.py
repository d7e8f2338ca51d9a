"""From frames to per-seat views: ``frame -> Detection -> SeatEvidence -> SeatView``.

:class:`TableWatcher` holds a camera's zones, a :class:`~vision.recognize.Recognizer` and a
:class:`~vision.verdict.StabilityFilter`; ``watch(frame)`` returns one frozen
:class:`~vision.verdict.SeatView` per seat zone for that frame, which the table consumes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from controller.cards import Card
from vision import detect, light
from vision.config import CameraConfig, SeatZone
from vision.recognize import Detection, Recognizer
from vision.verdict import SeatEvidence, SeatView, StabilityFilter, judge_frame


def zone_evidence(frame: np.ndarray, zone: SeatZone, recognizer: Recognizer,
                  card_width: float | None = None,
                  felt: tuple[float, float, float] | None = None) -> SeatEvidence:
    """Look at one seat zone: cards read, backs, and card stock no detection explains."""
    return zones_evidence(frame, [zone], recognizer, card_width, felt)[0]


def zones_evidence(frame: np.ndarray, zones: Sequence[SeatZone], recognizer: Recognizer,
                   card_width: float | None = None,
                   felt: tuple[float, float, float] | None = None,
                   wanted: int | None = None,
                   measure_focus: bool = False) -> list[SeatEvidence]:
    """:func:`zone_evidence` for several zones; a recogniser that can (``recognize_zones``) reads
    every zone's corner crops in one model call, and with ``wanted`` (the cards a hand has) looks
    harder only in the zones where fewer cards were read and no card lies face down (a back makes
    the seat not identifiable whatever else is read there). ``measure_focus``: each zone's
    :attr:`SeatEvidence.edge_width` is measured too (about 0.3 ms a zone)."""
    h, w = frame.shape[:2]
    rois = [zone.bounds(w, h) for zone in zones]
    widths = [zone.card_width or card_width for zone in zones]  # a zone's own width, else the camera's
    masks = [detect.card_masks(frame[y : y + rh, x : x + rw], widths[k], felt) if rw and rh else None
             for k, (x, y, rw, rh) in enumerate(rois)]
    live = [k for k, m in enumerate(masks) if m is not None]
    backs = {k: _zone_backs(zones[k], rois[k], masks[k], widths[k], frame) for k in live}  # type: ignore[arg-type]
    found: dict[int, list[Detection]] = {}
    if hasattr(recognizer, "recognize_zones"):
        more = None if wanted is None else [0 if backs[k][1] else wanted for k in live]
        dets = recognizer.recognize_zones(frame, [(rois[k], masks[k]) for k in live], felt, card_width, more,
                                          [zones[k].card_width for k in live])
        found = dict(zip(live, dets))
    elif hasattr(recognizer, "recognize_masks"):
        found = {k: recognizer.recognize_masks(frame, rois[k], masks[k], felt, card_width, zones[k].card_width)
                 for k in live}
    else:
        found = {k: recognizer.recognize(frame, rois[k]) for k in live}
    out = []
    for k, zone in enumerate(zones):
        m = masks[k]
        if m is None:
            out.append(SeatEvidence(zone.seat))
            continue
        ev = _finish_zone(zone, rois[k], m, found[k], *backs[k])
        out.append(dataclasses.replace(ev, edge_width=m.edge_width()) if measure_focus else ev)
    return out


def _zone_backs(zone: SeatZone, roi: tuple[int, int, int, int], masks: detect.Masks, card_width: float | None,
                frame: np.ndarray) -> tuple[float | None, list[np.ndarray]]:
    """The card width used in a zone and the card backs lying in it (:func:`~vision.detect.find_backs`)."""
    x, y, rw, rh = roi
    width = card_width or masks.card_width()
    backs = detect.find_backs(masks, width, (x, y), frame[y : y + rh, x : x + rw])
    return width, [b for b in backs if zone.contains(*b.mean(axis=0))]


def _finish_zone(zone: SeatZone, roi: tuple[int, int, int, int], masks: detect.Masks, dets: list[Detection],
                 width: float | None, backs: list[np.ndarray]) -> SeatEvidence:
    import cv2

    x, y, rw, rh = roi
    dets = [d for d in dets if zone.contains(*d.center)]
    unexplained = 0.0
    if width:
        backs = [b for b in backs if not _own_picture(b, dets, width)]
        poly = np.array(zone.polygon, np.float32) - np.array([x, y], np.float32)
        zmask = np.zeros((rh, rw), np.uint8)
        cv2.fillPoly(zmask, [poly.astype(np.int32)], 255)
        left = cv2.bitwise_and(masks.white, zmask)
        for q in [np.array(d.corners, np.float32) for d in dets] + backs:
            q = q - np.array([x, y], np.float32)
            cv2.fillConvexPoly(left, q.astype(np.int32), 0)
        left = cv2.erode(left, np.ones((5, 5), np.uint8))
        unexplained = float(np.count_nonzero(left)) / (width * width * detect.ASPECT)
    return SeatEvidence(zone.seat, tuple(dets), len(backs), unexplained)


OWN_PICTURE_REACH = 0.15
"""A card back found whose centre lies within this many card widths of the centre of a card read in
the zone, inside that card's outline, is the card's own picture (:func:`_own_picture`)."""


def _own_picture(back: np.ndarray, dets: Sequence[Detection], width: float) -> bool:
    """Whether the back ``back`` (4x2 frame pixels) is a court card's picture: centred on a card
    read there (:data:`OWN_PICTURE_REACH`) and lying inside its outline. A picture is a coloured,
    patterned field with straight sides, and on a light felt its thin white margin can pass for
    a back's; a real back so placed would hide the index corners the card was read at.

    >>> from controller.cards import Card
    >>> face = Detection(Card.parse("Kc"), 0.99, ((0, 0), (72, 0), (72, 100), (0, 100)))
    >>> picture = np.array([[16, 20], [56, 20], [56, 80], [16, 80]], np.float32)
    >>> _own_picture(picture, [face], 72.0), _own_picture(picture + 40, [face], 72.0)
    (True, False)
    """
    import cv2

    centre = back.mean(axis=0)
    for d in dets:
        if d.card is None:
            continue
        if math.dist(d.center, centre) > OWN_PICTURE_REACH * width:
            continue
        quad = np.array(d.corners, np.float32)
        if all(cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(px), float(py)), True) > -0.05 * width
               for px, py in back):
            return True
    return False


FOCUS_EVERY = 10
"""A :class:`TableWatcher` measures the camera's focus on one frame in this many (a camera's focus
changes slowly; the measure costs about 3 ms a ten-seat frame)."""


PLACE_GRID = 3.0
"""Pixels a card's corners are rounded to when :class:`TableWatcher` asks whether a reading is the one
it checked before (:meth:`TableWatcher._check_ranks`): a card lying still is read at nearly the same
place from frame to frame."""


def _place(d: Detection) -> tuple[str, tuple[int, ...]]:
    """A card read and where: its name and its corners rounded to :data:`PLACE_GRID` pixels."""
    return str(d.card), tuple(round(v / PLACE_GRID) for xy in d.corners for v in xy)


class TableWatcher:
    """Per-seat verdicts, frame after frame, for one camera."""

    def __init__(self, camera: CameraConfig, recognizer: Recognizer, threshold: float | None = None) -> None:
        scale = getattr(recognizer, "index_scale", 1.0)
        if scale != camera.index_scale:  # the recogniser reads the index; the camera's deck says how large
            raise ValueError(f"camera.index_scale is {camera.index_scale:g} but the recogniser reads at {scale:g}: "
                             f"make it with index_scale={camera.index_scale:g}")
        self.camera = camera
        self.recognizer = recognizer
        self.threshold = float(threshold if threshold is not None else
                               camera.threshold if camera.threshold is not None else
                               getattr(recognizer, "threshold", 0.97))
        self.stability = StabilityFilter(camera.stable_frames)
        self.white_balance = bool(getattr(recognizer, "white_balance", True))
        """Correct a tinted light's cast on the card stock before looking (:func:`vision.light.white_balance`)."""
        self.frame_index = 0
        self.edge_width: float | None = None
        """The median width of the card edges over the seat zones (pixels,
        :func:`vision.focus.edge_width`) when last measured (every :data:`FOCUS_EVERY` frames
        looked at): past :data:`vision.focus.SHARP_EDGE` the camera is out of focus."""
        self.focus_checks = 0
        """How many times :attr:`edge_width` has been measured."""
        self._looked = 0
        self._ranks_checked: dict[int, tuple[frozenset, frozenset]] = {}  # type: ignore[type-arg]
        """Per seat: the places of the number cards last checked against their pips
        (:meth:`_check_ranks`) and those refused."""

    def evidence(self, frame: np.ndarray) -> list[SeatEvidence]:
        if self.white_balance:  # the card stock's colour measured on a coarse grid: a frame's cost is small
            frame = light.white_balance(frame, step=16)
        felt = detect.felt_stats(frame)
        zones = sorted(self.camera.zones, key=lambda z: z.seat)
        measure = self._looked % FOCUS_EVERY == 0
        self._looked += 1
        found = zones_evidence(frame, zones, self.recognizer, self.camera.card_width, felt, self.camera.cards_needed,
                               measure)
        found = self._check_ranks(frame, found)
        if measure:
            widths = [e.edge_width for e in found if e.edge_width is not None]
            self.edge_width = float(np.median(widths)) if widths else None
            self.focus_checks += 1
        return found

    def _check_ranks(self, frame: np.ndarray, found: list[SeatEvidence]) -> list[SeatEvidence]:
        """``found`` with the number cards whose two bodies deny the rank their index read refused
        (:meth:`vision.recognize.OnnxRecognizer.rank_veto`, for a recogniser that has it). A seat's
        reading is checked once, on the first frame that shows it: while the same cards are read at
        the same places (:func:`_place`) the answer is kept, so a hand lying still costs no body crop
        a frame (asked on every frame, the latency benchmark's frames took about 3.5 ms more)."""
        asks = getattr(self.recognizer, "rank_veto_asks", None)
        if asks is None:
            return found
        out = list(found)
        todo: list[tuple[int, list[int], frozenset]] = []  # type: ignore[type-arg]
        refused: dict[int, frozenset] = {}  # type: ignore[type-arg]
        for k, e in enumerate(found):
            mine = [i for i, d in enumerate(e.detections) if asks(d)]
            if not mine:
                self._ranks_checked.pop(e.seat, None)
                continue
            key = frozenset(_place(e.detections[i]) for i in mine)
            last = self._ranks_checked.get(e.seat)
            if last is not None and last[0] == key:
                refused[k] = last[1]
            else:
                todo.append((k, mine, key))
        if todo:
            groups = [[found[k].detections[i] for i in mine] for k, mine, _ in todo]
            self.recognizer.rank_veto(groups, frame)  # type: ignore[attr-defined]
            for (k, mine, key), group in zip(todo, groups):
                no = frozenset(_place(found[k].detections[i]) for i, d in zip(mine, group) if d.card is None)
                self._ranks_checked[found[k].seat] = (key, no)
                refused[k] = no
        for k, no in refused.items():
            if no:
                dets = tuple(self.recognizer.rank_refuse(d) if asks(d) and _place(d) in no  # type: ignore[attr-defined]
                             else d for d in found[k].detections)
                out[k] = dataclasses.replace(found[k], detections=dets)
        return out

    def watch(self, frame: np.ndarray, reader: Mapping[int, Iterable[Card]] | None = None,
              frame_index: int | None = None) -> list[SeatView]:
        """Verdicts for every zone in this frame (stability counted over calls)."""
        views = self.judge(frame, reader, frame_index)
        return [self.stability.update(v) for v in views]

    def judge(self, frame: np.ndarray, reader: Mapping[int, Iterable[Card]] | None = None,
              frame_index: int | None = None) -> list[SeatView]:
        """Single-frame verdicts, before the stability filter."""
        idx = self.frame_index if frame_index is None else frame_index
        self.frame_index = idx + 1
        return judge_frame(self.evidence(frame), self.camera.cards_needed, self.threshold,
                           frame=idx, reader=reader)


def detections_json(dets: Sequence[Detection]) -> list[dict]:
    return [d.to_json() for d in dets]

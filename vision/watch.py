"""From frames to per-seat views: ``frame -> Detection -> SeatEvidence -> SeatView``.

:class:`TableWatcher` holds a camera's zones, a :class:`~vision.recognize.Recognizer` and a
:class:`~vision.verdict.StabilityFilter`; ``watch(frame)`` returns one frozen
:class:`~vision.verdict.SeatView` per seat zone for that frame, which the table consumes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from controller.cards import Card
from vision import detect
from vision.config import CameraConfig, SeatZone
from vision.recognize import Detection, Recognizer
from vision.verdict import SeatEvidence, SeatView, StabilityFilter, judge_frame


def zone_evidence(frame: np.ndarray, zone: SeatZone, recognizer: Recognizer,
                  card_width: float | None = None,
                  felt: tuple[float, float, float] | None = None) -> SeatEvidence:
    """Look at one seat zone: cards read, backs, and card stock no detection explains."""
    import cv2

    h, w = frame.shape[:2]
    roi = zone.bounds(w, h)
    x, y, rw, rh = roi
    if rw == 0 or rh == 0:
        return SeatEvidence(zone.seat)
    sub = frame[y : y + rh, x : x + rw]
    masks = detect.card_masks(sub, card_width, felt)
    if hasattr(recognizer, "recognize_masks"):
        dets = recognizer.recognize_masks(frame, roi, masks, felt, card_width)
    else:
        dets = recognizer.recognize(frame, roi)
    dets = [d for d in dets if zone.contains(*d.center)]
    width = card_width or detect.estimate_card_width(masks.white)
    backs = detect.find_backs(masks, width, (x, y))
    backs = [b for b in backs if zone.contains(*b.mean(axis=0))]
    unexplained = 0.0
    if width:
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


class TableWatcher:
    """Per-seat verdicts, frame after frame, for one camera."""

    def __init__(self, camera: CameraConfig, recognizer: Recognizer, threshold: float | None = None) -> None:
        self.camera = camera
        self.recognizer = recognizer
        self.threshold = float(threshold if threshold is not None else
                               camera.threshold if camera.threshold is not None else
                               getattr(recognizer, "threshold", 0.97))
        self.stability = StabilityFilter(camera.stable_frames)
        self.frame_index = 0

    def evidence(self, frame: np.ndarray) -> list[SeatEvidence]:
        felt = detect.felt_stats(frame)
        return [zone_evidence(frame, z, self.recognizer, self.camera.card_width, felt)
                for z in sorted(self.camera.zones, key=lambda z: z.seat)]

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

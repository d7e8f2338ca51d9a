"""How much of the vision recall the index classifier itself allows: each readable card read at its
true index corners, against what the recogniser reads.

    python bench/vision_ceiling.py --set seen --scenes 1000 [--seed 424242] [--procs 2] [--json OUT]

Scenes are the benchmark's (``bench/bench_vision.py``: seeds ``default_rng([seed, i])``, read by
``OnnxRecognizer.recognize`` with the width searched, a read right by the benchmark's rule). Each
readable card (face up, an index corner fully in view) is also cropped at its true geometry: every
index corner fully in view, moved 0, 0.02 and 0.04 card widths in along each side (the proposers sit
a little inside the corner, and the classifier learnt that) at 0.95, 1 and 1.05 of its width, 54
crops at most, and the index classifier (``card_index.onnx``, the recogniser's own session) gives the
true card its highest probability over them. That is what a perfect proposer, with no check after
the classifier, would let it read; a card read right by either is within reach of the present models.

Prints one JSON object: per card-width band, the readable cards, the share the recogniser reads right,
the shares whose true corners read the card at the threshold or more and at 0.5 or more, and the share
read right by the recogniser or at the threshold at a true corner (``either``); and the same over all.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

BANDS = ((52, 60), (60, 70), (70, 80), (80, 100), (100, 120), (120, 151))
"""Card-width bands, pixels (the benchmark draws 52 to 150)."""
STEPS = (0.0, 0.02, 0.04)
"""How far in from the true corner (card widths, along each side) the crops are made."""
SCALES = (0.95, 1.0, 1.05)
"""The crops' widths, as a share of the card's true width."""


def true_corner_crops(gray: np.ndarray, truth) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    """The index crops of ``truth`` (a ``CardTruth``) at its true index corners fully in view
    (:data:`STEPS` in along each side, at :data:`SCALES` of its width)."""
    from vision import detect

    q = np.array(truth.corners, np.float64)
    crops = []
    for k, (a, b, c) in enumerate(((q[0], q[1], q[3]), (q[2], q[3], q[1]))):
        if truth.index_visible[k] < 0.98:
            continue
        w = float(np.linalg.norm(b - a))
        u, v = (b - a) / w, (c - a) / float(np.linalg.norm(c - a))
        for dx in STEPS:
            for dy in STEPS:
                p = a + dx * w * u + dy * w * v
                crops += [detect.crop_corner(gray, detect.Corner((float(p[0]), float(p[1])), (float(u[0]), float(u[1])),
                                                                 (float(v[0]), float(v[1])), w * s)) for s in SCALES]
    return crops


def ceiling_rows(rec, scene) -> list[tuple[float, float, bool]]:  # type: ignore[no-untyped-def]
    """``(card width, true-corner probability, read right)`` for each readable card of ``scene``."""
    import cv2
    from bench_vision import match_reads

    from controller.cards import Card
    from vision.recognize import preprocess

    _, hit, _ = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    rows = []
    for j, t in enumerate(scene.cards):
        if t.readable:
            crops = true_corner_crops(gray, t)
            p = float(rec.infer(preprocess(crops))[:, Card.parse(t.card).index].max()) if crops else 0.0
            rows.append((float(scene.card_width), p, j in hit))
    return rows


def _work(job: tuple[str, int, int, int]) -> list[tuple[float, float, bool]]:
    from vision_misses import scene_rows

    return scene_rows(job, ceiling_rows)


def summary(rows: list[tuple[float, float, bool]], threshold: float) -> dict:
    """The shares (percent) by band and over all (:data:`BANDS`)."""
    def table(rs: list[tuple[float, float, bool]]) -> dict:
        n = max(len(rs), 1)
        return {"readable": len(rs),
                "read_right_pct": round(100.0 * sum(r for _, _, r in rs) / n, 2),
                "true_corner_at_threshold_pct": round(100.0 * sum(p >= threshold for _, p, _ in rs) / n, 2),
                "true_corner_at_half_pct": round(100.0 * sum(p >= 0.5 for _, p, _ in rs) / n, 2),
                "either_pct": round(100.0 * sum(r or p >= threshold for _, p, r in rs) / n, 2)}

    return {"by_card_width": {f"{lo}-{hi}": table([r for r in rows if lo <= r[0] < hi]) for lo, hi in BANDS},
            "all": table(rows)}


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map
    from vision_misses import scene_args

    from vision.recognize import OnnxRecognizer

    args, jobs, procs = scene_args(__doc__.splitlines()[0], argv, 1000, 424242)
    rows = [r for part in pool_map(_work, jobs, procs) for r in part]
    threshold = OnnxRecognizer(threads=1).threshold
    emit({"set": args.set, "scenes": args.scenes, "seed": args.seed, "threshold": threshold,
          **summary(rows, threshold)}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

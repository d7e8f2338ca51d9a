"""Where the vision recall goes: every readable card the recogniser misses, put in one class.

    python bench/vision_misses.py --set seen --scenes 300 --seed 50505 [--procs 2] [--json OUT]
                                  [--montage PNG [--per-band 30]]

Scenes are read as ``bench/bench_vision.py`` reads them (``OnnxRecognizer.recognize``, the width
searched), from seeds ``default_rng([seed, i])`` (50505 and 60606 are the tuning seeds; the
benchmark's own is 424242). A readable card (face up, an index corner fully in view) is missed
when no detection within 0.45 card widths of its centre reads it at or above the threshold. Each
miss is then looked up at the true card width: the corner proposals of every proposer
(``vision.detect.find_corners`` with the cut-edge and glyph proposals) within 0.12 widths of a
visible index corner of the card, facing its way, and what the index classifier gives the true
card at each of them:

  no_proposal     no proposal there (the proposers miss the corner: it lies on another card, in
                  shadow, under a chip's edge);
  not_read        proposed, but the true card under 0.5 at every proposal (small or blurred print,
                  a deck the classifier does not know);
  lost_after_read read at 0.5 or more at a proposal and still missed, by what the recogniser made
                  of the card's place: ``contested`` (two cards at one place, or its index corners
                  reading different cards), ``refused`` (read but refused: print colour, a small club
                  or spade, the body, the queen check), ``unsure`` (the right card under the
                  threshold), ``elsewhere`` (no detection of its own: the width search chose another
                  width, or a sure card's place lies over it).

Prints one JSON object: the counts, their share of the readable cards, and the same by card width.
``--montage PNG`` also draws the missed cards' index corners as the camera saw them (each its first
corner in view, enlarged with its pixels kept square, labelled with the card and the class), a row
of up to ``--per-band`` for each card-width band: what the index classifier was given.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
from collections import Counter

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

NEAR = 0.45
"""A detection within this many card widths of a card's centre is that card's (the benchmark's rule)."""
PROPOSAL_REACH = 0.12
"""A proposal within this many card widths of a visible index corner, facing its way, is that corner's."""
BANDS = (("52-70", 0.0, 70.0), ("70-100", 70.0, 100.0), ("100-150", 100.0, 1e9))


def _band(width: float) -> str:
    return next(name for name, lo, hi in BANDS if lo <= width < hi)


def _decks(name: str):  # type: ignore[no-untyped-def]
    from vision import render

    return {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS, "letele": (render.LETELE,),
            "real": render.available(render.REAL_DECKS)}[name]


def classify_scene(rec, scene) -> list[tuple[str, str, float]]:  # type: ignore[no-untyped-def]
    """``(card, class, card width)`` for every readable card of ``scene``: ``right`` or a miss class."""
    import cv2

    from controller.cards import Card
    from vision import detect
    from vision.recognize import preprocess

    dets = rec.recognize(scene.image)
    W = scene.card_width
    masks = corners = gray = None
    out = []
    for t in scene.cards:
        if not t.readable:
            continue
        centre = np.array(t.center)
        near = [d for d in dets if np.linalg.norm(np.array(d.center) - centre) < NEAR * W]
        if any(d.card is not None and str(d.card) == t.card and d.confidence >= rec.threshold for d in near):
            out.append((t.card, "right", W))
            continue
        if masks is None:  # the proposals at the true width, once a scene
            masks = detect.card_masks(scene.image, W)
            corners = detect.find_corners(scene.image, W, None, masks)
            gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        quad = np.array(t.corners, np.float64)
        mine = []
        for k, (a, b) in enumerate(((quad[0], quad[1]), (quad[2], quad[3]))):
            if t.index_visible[k] < 0.98:
                continue
            u = (b - a) / np.linalg.norm(b - a)
            mine += [c for c in corners if math.dist(c.point, a) < PROPOSAL_REACH * W
                     and c.u[0] * u[0] + c.u[1] * u[1] > 0.9]
        if not mine:
            out.append((t.card, "no_proposal", W))
            continue
        probs = rec.infer(preprocess([detect.crop_corner(gray, c) for c in mine]))
        if float(probs[:, Card.parse(t.card).index].max()) < 0.5:
            out.append((t.card, "not_read", W))
            continue
        kind = "elsewhere"
        for d in near:
            if d.card is not None and str(d.card) == t.card:
                kind = "unsure"
                break
            if d.contested:
                kind = "contested"
            elif d.card is None and kind == "elsewhere":
                kind = "refused"
        out.append((t.card, kind, W))
    return out


TILE = (72, 126)
"""Width and height (pixels) of a ``--montage`` tile: the index corner, 0.32 by 0.56 card widths."""


def index_tile(image: np.ndarray, truth, width: float, label: str) -> np.ndarray | None:  # type: ignore[no-untyped-def]
    """The first fully visible index corner of the card ``truth`` in ``image``, upright, enlarged to
    :data:`TILE` nearest-neighbour (its pixels as the camera took them), with ``label`` under it."""
    import cv2

    quad = np.array(truth.corners, np.float64)
    k = next((k for k in (0, 1) if truth.index_visible[k] >= 0.98), None)
    if k is None:
        return None
    a, b, d = (quad[0], quad[1], quad[3]) if k == 0 else (quad[2], quad[3], quad[1])
    u = (b - a) / np.linalg.norm(b - a)
    v = (d - a) / np.linalg.norm(d - a)
    w, h = 0.32 * width, 0.56 * width
    src = np.float32([a, a + u * w, a + v * h])
    m = cv2.getAffineTransform(np.float32([[0, 0], [TILE[0], 0], [0, TILE[1]]]), src)
    tile = cv2.warpAffine(image, m, TILE, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT)
    bar = np.full((18, TILE[0], 3), 255, np.uint8)
    cv2.putText(bar, label, (2, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([tile, bar])


def classify_with_tiles(rec, scene) -> list:  # type: ignore[no-untyped-def]
    """:func:`classify_scene`'s rows, each with the :func:`index_tile` of a missed card (``None`` for
    a card read right)."""
    rows = classify_scene(rec, scene)
    readable = [t for t in scene.cards if t.readable]
    return [(card, kind, w, None if kind == "right" else index_tile(scene.image, t, w, f"{card} {kind[:9]}"))
            for (card, kind, w), t in zip(rows, readable)]


def montage(rows: list, per_band: int) -> np.ndarray:
    """The tiles of ``rows`` (:func:`classify_with_tiles`), a row of up to ``per_band`` a card-width
    band, each row named."""
    import cv2

    th, tw = TILE[1] + 18, TILE[0]
    lines = []
    for name, lo, hi in BANDS:
        tiles = [r[3] for r in rows if r[3] is not None and lo <= r[2] < hi][:per_band]
        line = np.full((th, 90 + per_band * (tw + 2), 3), 255, np.uint8)
        cv2.putText(line, f"{name} px", (4, th // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        for i, t in enumerate(tiles):
            line[:, 90 + i * (tw + 2) : 90 + i * (tw + 2) + tw] = t
        lines.append(line)
    return np.vstack(lines)


def scene_rows(job: tuple[str, int, int, int], per_scene) -> list:  # type: ignore[no-untyped-def]
    """``per_scene(recogniser, scene)``'s rows for the scenes of ``job`` (deck set, first and last
    scene index, seed), read by one recogniser on one thread: a worker's share of a deck-set tool."""
    name, lo, hi, seed = job
    import cv2
    from bench_vision import bench_scene

    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    rec = OnnxRecognizer(threads=1)
    decks = _decks(name)
    rows = []
    for i in range(lo, hi):
        rows += per_scene(rec, bench_scene(decks, seed, i))
    return rows


def _work(job: tuple[str, int, int, int]) -> list[tuple[str, str, float]]:
    return scene_rows(job, classify_scene)


def _work_tiles(job: tuple[str, int, int, int]) -> list:
    return scene_rows(job, classify_with_tiles)


def scene_args(description: str, argv: list[str] | None, scenes: int, seed: int,  # type: ignore[no-untyped-def]
               montage_args: bool = False):
    """The command line the deck-set tools share (``--set``, ``--scenes``, ``--seed``, ``--procs``,
    ``--json``), checked, and the jobs it makes for :func:`scene_rows`: ``(args, jobs, procs)``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--set", choices=("seen", "unseen", "letele", "real"), default="seen")
    ap.add_argument("--scenes", type=int, default=scenes)
    ap.add_argument("--seed", type=int, default=seed, help="scene seeds [seed, i]; the benchmark's is 424242")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--json", help="also write the result here")
    if montage_args:
        ap.add_argument("--montage", metavar="PNG", help="also draw the missed cards' index corners here")
        ap.add_argument("--per-band", type=int, default=30, help="tiles a card-width band in --montage")
    args = ap.parse_args(argv)
    if args.scenes < 1 or args.procs < 1:
        ap.error("--scenes and --procs must be at least 1")
    procs = min(args.procs, args.scenes)
    jobs = [(args.set, k * args.scenes // procs, (k + 1) * args.scenes // procs, args.seed) for k in range(procs)]
    return args, jobs, procs


def summary(rows: list[tuple[str, str, float]]) -> dict:
    """Counts and shares (percent of the readable cards) of each class, overall and by card width."""
    def table(rs: list[tuple[str, str, float]]) -> dict:
        n = len(rs)
        c = Counter(k for _, k, _ in rs)
        return {"readable": n, **{k: {"cards": c[k], "pct": round(100.0 * c[k] / n, 2) if n else 0.0}
                                  for k in ("right", "no_proposal", "not_read", "contested", "refused", "unsure",
                                            "elsewhere")}}

    return {"all": table(rows), "by_card_width": {b: table([r for r in rows if _band(r[2]) == b]) for b, _, _ in BANDS}}


def main(argv: list[str] | None = None) -> int:
    args, jobs, procs = scene_args(__doc__.splitlines()[0], argv, 300, 50505, montage_args=True)
    from bench_vision import emit, pool_map

    rows = [r for part in pool_map(_work_tiles if args.montage else _work, jobs, procs) for r in part]
    emit({"set": args.set, "scenes": args.scenes, "seed": args.seed, **summary([r[:3] for r in rows])}, args.json)
    if args.montage:
        import cv2

        if not cv2.imwrite(args.montage, montage(rows, max(1, args.per_band))):
            raise SystemExit(f"{args.montage}: cannot write the picture")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

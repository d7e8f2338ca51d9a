"""Close photographs: cards wider than the benchmark's 52 to 150 pixels, read with no width configured.

    python bench/vision_close.py [--widths 160,200,250,320,450] [--scenes 30] [--sets seen,unseen,letele,real,jumbo]
                                 [--frame 8,6] [--procs 2] [--json OUT]

Each scene is ``vision.render.render_scene`` with every card ``W`` pixels wide on a frame eight card
widths wide and six high (seeds ``[777001, W, i]``; ``--frame 4,3``: four by three, the cards then
filling the photograph's middle), read as ``cardroom vision read`` reads a
photograph (``OnnxRecognizer.recognize``: the width searched, the frame read halved where its cards
lie past the width ladder). Right and wrong reads are counted as ``bench/bench_vision.py`` counts
them (a sure read is right when a face-up card of that name lies within 0.45 card widths). The set
``jumbo`` (not run unless named) is the seen decks drawn with their index 1.8 times as large
(``vision.render.jumbo_decks``), as many card rooms' decks print it: read right, such a card is placed
right only where its width is measured (both its index corners, a whole card in view, its own edges).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

CHUNK = 5
"""Scenes a worker's job reads."""
SETS = ("seen", "unseen", "letele", "real", "jumbo")
JUMBO = 1.8
"""How many times as large the ``jumbo`` set's decks print their index (``bench/vision_jumbo.py``'s default)."""


def _set_decks(name: str):  # type: ignore[no-untyped-def]
    from vision_misses import _decks

    from vision import render

    return render.jumbo_decks(render.TRAIN_DECKS, JUMBO) if name == "jumbo" else _decks(name)


def close_scene(decks, width: float, i: int, frame: tuple[float, float] = (8, 6)):  # type: ignore[no-untyped-def]
    """Scene ``i`` of card width ``width``: every card that wide, the frame ``frame`` card widths."""
    import numpy as np

    from vision import render

    return render.render_scene(np.random.default_rng([777001, int(width), i]), decks, width=int(frame[0] * width),
                               height=int(frame[1] * width), card_width=float(width))


def _work(job: tuple[str, float, int, int, tuple[float, float]]) -> tuple[str, float, int, int, list]:
    name, width, lo, hi, frame = job
    import cv2

    from bench_vision import match_reads
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    rec = OnnxRecognizer(threads=1)
    decks = _set_decks(name)
    readable = right = 0
    wrong = []
    for i in range(lo, hi):
        scene = close_scene(decks, width, i, frame)
        _, hit, bad = match_reads(scene, rec.recognize(scene.image), rec.threshold)
        readable += sum(t.readable for t in scene.cards)
        right += sum(1 for j, t in enumerate(scene.cards) if t.readable and j in hit)
        wrong += [{"scene": i, "read": str(d.card), "conf": round(float(d.confidence), 4)} for d, _ in bad]
    return name, width, readable, right, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default="160,200,250,320,450", help="card widths in pixels, comma-separated")
    ap.add_argument("--scenes", type=int, default=30, help="scenes per width and deck set")
    ap.add_argument("--sets", default="seen,unseen,letele,real", help="deck sets, comma-separated")
    ap.add_argument("--frame", default="8,6", help="the frame's width and height in card widths")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    try:
        widths = [float(w) for w in args.widths.split(",")]
    except ValueError:
        ap.error(f"--widths {args.widths!r}: expected pixel widths separated by commas")
    try:
        fx, fy = (float(v) for v in args.frame.split(","))
    except ValueError:
        ap.error(f"--frame {args.frame!r}: expected the frame's width and height in card widths, e.g. 4,3")
    if fx < 2 or fy < 2:
        ap.error(f"--frame {args.frame!r}: at least 2 card widths each way")
    sets = args.sets.split(",")
    bad = [s for s in sets if s not in SETS]
    if bad or args.scenes < 1 or args.procs < 1 or any(w < 52 for w in widths):
        ap.error(f"--sets of {', '.join(SETS)}; --scenes and --procs at least 1; widths of 52 px or more")
    from bench_vision import emit, pool_map

    jobs = [(s, w, a, min(a + CHUNK, args.scenes), (fx, fy)) for s in sets for w in widths
            for a in range(0, args.scenes, CHUNK)]
    out: dict = {"scenes_per_width": args.scenes, "frame_card_widths": [fx, fy], "sets": {}}
    for name, width, readable, right, wrong in pool_map(_work, jobs, args.procs):
        row = out["sets"].setdefault(name, {}).setdefault(f"{width:g}", {"readable": 0, "right": 0, "wrong": []})
        row["readable"] += readable
        row["right"] += right
        row["wrong"] += wrong
    for rows in out["sets"].values():
        for row in rows.values():
            row["right_pct"] = round(100.0 * row["right"] / max(row["readable"], 1), 1)
            row["wrong_count"] = len(row["wrong"])
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

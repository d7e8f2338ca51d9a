"""Seats identifiable under one overhead camera against several, on the same tables.

    python bench/vision_cameras.py --tables 100 [--seed 616161] [--sets seen,unseen] [--procs 2] [--json OUT]

A ten-seat table under one 1920x1080 camera shows cards about 72 px wide, where the index
classifier is sure of fewer cards than from 120 px (``bench/vision_widths.py``). Each table here is
drawn once at 3840x2160 with cards 144 px wide (``vision.render.render_table`` with its chips,
fingers and glare, which scale with the cards; ``optics=False``) and seen by cameras of one kind, a
1920x1080 camera whose blur (up to a pixel), noise and compression (``vision.render.camera_optics``,
the same draw for every camera of a table) are in its own pixels, two ways:

  one camera    the view scaled to 1920x1080 (``cv2.INTER_AREA``), then the camera: the example
                table file's camera, its zones, 72 px cards;
  six cameras   six 1920x1080 parts of the view (:func:`cameras`), each centred on one or two seats
                (:data:`CAMERAS`) and through the camera, as six such cameras aimed at their seats
                would see them: ``[[cameras]]`` of 144 px cards.

Seats are scored as ``bench/bench_vision.py`` scores them (readable: both cards face up, an index
in view; wrong: identifiable with another card), and the seats' cards (``cards``: each card with an
index in view read at the threshold at its seat, and cards read there that are not). Each camera's frame is timed too (the median over
the tables of a camera's frame, one core).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

SCALE = 2
"""The rendered view is this many times 1920x1080, its cards this many times the example camera's."""
CAMERAS: dict[str, tuple[int, ...]] = {
    "west-far": (4, 5), "west-near": (2, 3), "head": (6,), "foot": (1,), "east-far": (7, 8), "east-near": (9, 10),
}
"""The six cameras and the seats each sees."""


def cameras() -> list:  # type: ignore[type-arg]
    """The six cameras as ``[[cameras]]`` would configure them, each with the top-left corner of its
    1920x1080 part of the 3840x2160 view: the part centred on its seats' zones (as an installer aims
    a camera), inside the view; the example file's zones scaled to the view and moved into each
    camera's own pixels, cards 144 px wide, one frame enough."""
    from vision.config import CameraConfig, load_camera_config, zones_off_frame

    one = load_camera_config(REPO / "config" / "table.toml")
    zones = {z.seat: [[x * SCALE, y * SCALE] for x, y in z.polygon] for z in one.zones}
    out = []
    for name, seats in CAMERAS.items():
        pts = np.array([p for s in seats for p in zones[s]], np.float64)
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
        x0, y0 = (int(np.clip(round(c - half), 0, full - 2 * half)) for c, half, full in
                  zip(centre, (960, 540), (1920 * SCALE, 1080 * SCALE)))
        own = [{"seat": s, "polygon": [[x - x0, y - y0] for x, y in zones[s]]} for s in seats]
        cam = CameraConfig(name=name, source=name, card_width=one.card_width * SCALE, stable_frames=1, zones=own)
        off = zones_off_frame(cam, 1920, 1080, least=1e-9)
        if off:
            raise ValueError(off[0][2])
        out.append(((x0, y0), cam))
    return out


def camera(view: np.ndarray, seed: int, table: int) -> np.ndarray:
    """``view`` as a camera of the one kind sees it: the same draw of blur, noise and compression for
    every camera of a table (``vision.render.camera_optics``)."""
    from vision import render

    return render.camera_optics(view, np.random.default_rng([seed, table, 1]))


def run(job: tuple[str, int, int, int]) -> dict:
    """Tables ``lo`` to ``hi`` of a deck set, both ways: the counts and each camera's frame times."""
    import cv2

    from bench_vision import count_seats, new_tally
    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import TableWatcher

    cv2.setNumThreads(1)
    name, lo, hi, seed = job
    decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
    one = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    six = cameras()
    rec_one = OnnxRecognizer(threads=1, card_width=one.card_width)
    rec_six = OnnxRecognizer(threads=1, card_width=six[0][1].card_width)
    tallies = {"one": new_tally(), "six": new_tally()}
    times: dict[str, list[float]] = {"one": [], "six": []}
    for i in range(lo, hi):
        scene = render.render_table(np.random.default_rng([seed, i]), decks, width=1920 * SCALE,
                                    height=1080 * SCALE, card_width=72.0 * SCALE, optics=False)
        frame = camera(cv2.resize(scene.image, (1920, 1080), interpolation=cv2.INTER_AREA), seed, i)
        t = time.perf_counter()
        views = TableWatcher(one, rec_one).watch(frame)
        times["one"].append(time.perf_counter() - t)
        count_seats(tallies["one"], i, scene, views)
        views = []
        for (x0, y0), cam in six:
            part = camera(np.ascontiguousarray(scene.image[y0 : y0 + 1080, x0 : x0 + 1920]), seed, i)
            t = time.perf_counter()
            views += TableWatcher(cam, rec_six).watch(part)
            times["six"].append(time.perf_counter() - t)
        count_seats(tallies["six"], i, scene, views)
    return {"tallies": tallies, "times": times}


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, merge_tally, pool_map, seat_report

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--seed", type=int, default=616161)
    ap.add_argument("--sets", default="seen,unseen")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    out: dict = {"tables": args.tables, "seed": args.seed, "view": f"{1920 * SCALE}x{1080 * SCALE}",
                 "cameras": {"one": "1920x1080, 72 px cards, ten seats",
                             "six": "six 1920x1080, 144 px cards: " + "; ".join(
                                 f"{cam.name} seats {', '.join(str(z.seat) for z in cam.zones)} from {x0},{y0}"
                                 for (x0, y0), cam in cameras())}}
    for name in args.sets.split(","):
        step = 25
        jobs = [(name, lo, min(args.tables, lo + step), args.seed) for lo in range(0, args.tables, step)]
        parts = pool_map(run, jobs, args.procs)
        out[name] = {}
        for way in ("one", "six"):
            tally = parts[0]["tallies"][way]
            for p in parts[1:]:
                merge_tally(tally, p["tallies"][way])
            report = seat_report(tally, args.tables)
            report["camera_frame_ms_median"] = round(1000 * statistics.median(
                [x for p in parts for x in p["times"][way]]), 1)
            out[name][way] = report
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Vision under a camera that looks at the table at an angle: the seats' verdicts when the near
seats' cards are larger than the far ones', read at the camera's one card width or at each seat
zone's own (``card_width`` in a zone of ``config/table.toml``).

    python bench/vision_angled.py --tables 100 [--tilt 0.25] [--sets seen,unseen] [--procs 2] [--json OUT]

The tables are the seat benchmark's (``bench/bench_vision.py --tables``, seeds ``[616161, i]`` by
default) with each hand drawn at the width a tilted camera sees it
(:func:`vision.render.tilted_widths`: 72 px at mid-height, ``1 - tilt`` times that at the top of the
frame, ``1 + tilt`` at the bottom; 54 to 90 px at the default tilt). Each table is judged twice:

  camera   ``camera.card_width`` (72) for every zone, as a camera installed without zone widths
  zones    each zone's ``card_width`` set to its seat's card width, as ``cardroom vision calibrate``
           measures it from one card laid in each seat, rounded to the pixel

and, for reference, the flat table (every card 72 px). Seats: identifiable, wrongly identifiable,
and why the readable ones were missed (the dealer screen's reasons).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

MODES = ("flat", "camera", "zones")


def _work(job: tuple[str, str, int, float, int]) -> tuple[str, str, dict]:
    name, mode, tables, tilt, seed = job
    import cv2
    from bench_vision import seat_safety

    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    centers = render.table_seat_centers()
    widths = render.tilted_widths(centers, cam.card_width or 72.0, tilt)
    table: dict = {} if mode == "flat" else {"hand_widths": widths}
    if mode == "zones":
        by_seat = dict(zip(range(1, len(centers) + 1), widths))
        zones = [z.model_copy(update={"card_width": float(round(by_seat[z.seat]))}) for z in cam.zones]
        cam = cam.model_copy(update={"zones": zones})
    decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
    s = seat_safety(OnnxRecognizer(threads=1), decks, tables, seed, cam=cam, **table)
    keys = ("seats_readable", "identified", "identified_pct", "wrong_identifiable", "missed_by_reason")
    out = {k: s[k] for k in keys}
    out["wrong_examples"] = s["wrong_examples"][:5]
    return name, mode, out


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--tilt", type=float, default=0.25, help="the far seats' cards 1 - TILT, the near 1 + TILT (0-0.5)")
    ap.add_argument("--seed", type=int, default=616161, help="table seeds [SEED, i]")
    ap.add_argument("--sets", default="seen,unseen", help="deck sets, comma-separated (seen, unseen)")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    if bad := [s for s in sets if s not in ("seen", "unseen")]:
        ap.error(f"--sets: unknown deck set(s) {', '.join(bad)}; expected seen, unseen")
    if bad := [m for m in modes if m not in MODES]:
        ap.error(f"--modes: unknown mode(s) {', '.join(bad)}; expected {', '.join(MODES)}")
    if not 0.0 <= args.tilt <= 0.5 or args.tables < 1 or args.procs < 1:
        ap.error("--tilt must be 0 to 0.5, --tables and --procs at least 1")
    result: dict = {"tables": args.tables, "tilt": args.tilt, "seed": args.seed, "sets": {}}
    jobs = [(s, m, args.tables, args.tilt, args.seed) for s in sets for m in modes]
    for name, mode, out in pool_map(_work, jobs, args.procs):
        result["sets"].setdefault(name, {})[mode] = out
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

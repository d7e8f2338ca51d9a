"""Vision on decks that print a "jumbo index": cards read at the card width, with and without
``camera.index_scale``.

    python bench/vision_jumbo.py [--scenes 150] [--tables 20] [--jumbo 1.8] [--index-scale 1.35]
                                 [--sets seen,unseen] [--modes ...] [--procs 2] [--json OUT]

Each deck of the set is drawn again with its index ``--jumbo`` times as large (its
``index_scale``, rank and suit; pips and pictures as they were), as the jumbo-index decks of
card rooms print it. Reads are counted by the benchmark's rule (``bench/bench_vision.py``: a sure
read is right when that card lies face up within 0.45 card widths of where it is placed), so a card
read right but placed at the wrong size counts wrong. Modes:

  standard   the decks as they are, read at each scene's card width (a configured camera)
  jumbo      the jumbo decks read the same way, ``index_scale`` 1.0
  scaled     the jumbo decks with ``index_scale`` ``--index-scale`` (what ``cardroom vision calibrate``
             advises for them), cards placed at the card width
  search     the jumbo decks with no width configured (the width search)

Scenes are the benchmark's (seeds ``[424242, i]``). Seats: the seat benchmark's tables (seeds
``[616161, i]``, 72 px cards) drawn with the jumbo decks and judged by ``TableWatcher`` at
``camera.card_width`` 72, with index scale 1.0 (``jumbo``) and ``--index-scale`` (``scaled``).
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

MODES = ("standard", "jumbo", "scaled", "search")
SEAT_MODES = ("jumbo", "scaled")


def jumbo_decks(decks, factor: float):  # type: ignore[no-untyped-def]
    """``decks`` with each index ``factor`` times as large (named ``<name>-jumbo``)."""
    return tuple(dataclasses.replace(d, index_scale=round(d.index_scale * factor, 3), name=f"{d.name}-jumbo")
                 for d in decks)


def _work(job: tuple[str, str, str, int, float, float]) -> tuple[str, str, str, dict]:
    kind, name, mode, n, factor, scale = job
    import cv2
    from bench_vision import read_accuracy, seat_safety

    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
    if mode != "standard":
        decks = jumbo_decks(decks, factor)
    index_scale = scale if mode == "scaled" else 1.0
    rec = OnnxRecognizer(threads=1, index_scale=index_scale)
    if kind == "cards":
        r = read_accuracy(rec, decks, n, at_width=mode != "search")
        keys = ("readable_cards", "right", "right_pct", "wrong", "wrong_per_1000_cards", "right_pct_by_card_width",
                "wrong_examples")
        return kind, name, mode, {k: r[k] for k in keys}
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(
        update={"stable_frames": 1, "index_scale": index_scale})
    s = seat_safety(rec, decks, n, 616161, cam=cam)
    keys = ("seats_readable", "identified", "identified_pct", "wrong_identifiable", "missed_by_reason")
    out = {k: s[k] for k in keys}
    out["wrong_examples"] = s["wrong_examples"][:5]
    return kind, name, mode, out


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map, variant_args

    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--jumbo", type=float, default=1.8, help="how many times as large each deck's index is drawn")
        ap.add_argument("--index-scale", type=float, default=1.35, help="camera.index_scale for the scaled mode")

    args, sets, modes = variant_args(__doc__.splitlines()[0], "--modes", MODES, "mode", argv, extra)
    if not 1.0 <= args.jumbo <= 2.5 or not 0.5 <= args.index_scale <= 3.0:
        raise SystemExit("vision_jumbo.py: --jumbo must be 1 to 2.5 and --index-scale 0.5 to 3")
    jobs = [("cards", s, m, args.scenes, args.jumbo, args.index_scale) for s in sets for m in modes if args.scenes]
    jobs += [("seats", s, m, args.tables, args.jumbo, args.index_scale) for s in sets for m in SEAT_MODES
             if m in modes and args.tables]
    jobs.sort(key=lambda j: j[2] != "search")  # the slowest first, so the pool ends together
    result: dict = {"scenes": args.scenes, "tables": args.tables, "jumbo": args.jumbo,
                    "index_scale": args.index_scale, "cards": {}, "seats": {}}
    for kind, name, mode, out in pool_map(_work, jobs, args.procs):
        result[kind].setdefault(name, {})[mode] = out
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Vision on other felts: the benchmark's card reads and seat verdicts with every scene's felt one
colour, the colours card rooms cover their tables with.

    python bench/vision_felt.py --scenes 150 --tables 20 [--sets seen,unseen] [--felts black,grey] [--procs 2] [--json OUT]

The benchmark's scenes draw their felt from greens, a blue and a red (:data:`vision.render.FELTS`).
Each felt here replaces every one of those colours (still scaled 0.75 to 1.25 by the scene's light),
so the scenes are the benchmark's own, cards, hands, light and seeds alike, on another cloth:

  as_rendered  the benchmark's felts: ``bench/bench_vision.py``'s figures
  black, charcoal, grey, silver    neutral felts, from black to light grey
  burgundy, purple, navy, teal, brown, tan, light_blue    coloured ones, dark to light
  white, cream     no card room's cloth, but the desk or tablecloth under a photograph of cards
  wood, check, carpet    no cloth: a wood grain, a checked tablecloth, a speckled carpet
                         (:func:`vision.render.table_surface`), as under a photograph of cards

Cards: right and wrong reads at the threshold, as ``bench/bench_vision.py`` counts them (scene
seeds ``[424242, i]``); seats: ten-seat tables (seeds ``[515151, i]``), identifiable and wrongly
identifiable.
"""

from __future__ import annotations

import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from vision import render as _render  # noqa: E402

FELTS: dict[str, tuple[int, int, int] | str | None] = {  # BGR, or a table surface
    "as_rendered": None,
    "black": (28, 28, 28),
    "charcoal": (60, 60, 60),
    "grey": (105, 105, 105),
    "silver": (160, 160, 160),
    "burgundy": (35, 25, 95),
    "purple": (95, 35, 80),
    "navy": (75, 30, 12),
    "teal": (95, 95, 20),
    "brown": (40, 70, 110),
    "tan": (120, 150, 170),
    "light_blue": (200, 150, 90),
    "white": (228, 230, 232),
    "cream": (200, 225, 235),
    **{name: name for name in _render.SURFACES},
}


def _work(job: tuple[str, str, int, int]) -> tuple[str, str, dict]:
    name, felt, scenes, tables = job
    import cv2
    from bench_vision import read_accuracy, seat_safety

    from vision import render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    colour = FELTS[felt]
    # as many entries as the benchmark's list, so every scene draws the same numbers as there
    render.FELTS = list(_RENDERED) if colour is None else [colour] * len(_RENDERED)
    try:
        rec = OnnxRecognizer(threads=1)
        decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
        out: dict = {}
        if scenes:
            r = read_accuracy(rec, decks, scenes)
            out["cards"] = {k: r[k] for k in ("readable_cards", "right", "right_pct", "wrong", "wrong_per_1000_cards")}
            out["cards"]["wrong_examples"] = r["wrong_examples"][:5]
        if tables:
            s = seat_safety(rec, decks, tables)
            out["seats"] = {k: s[k] for k in ("seats_readable", "identified", "identified_pct", "wrong_identifiable",
                                              "missed_by_reason")}
    finally:  # (with --procs 1 the jobs run in this process)
        render.FELTS = list(_RENDERED)
    return name, felt, out


_RENDERED = tuple(_render.FELTS)
"""The benchmark's own felts, as this module found them."""


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map, variant_args

    args, sets, felts = variant_args(__doc__.splitlines()[0], "--felts", FELTS, "felt", argv)

    result: dict = {"scenes": args.scenes, "tables": args.tables, "sets": {}}
    for name, felt, out in pool_map(_work, [(s, f, args.scenes, args.tables) for s in sets for f in felts], args.procs):
        result["sets"].setdefault(name, {})[felt] = out
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

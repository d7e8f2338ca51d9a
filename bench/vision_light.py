"""Vision under other light and optics: the benchmark's card reads and seat verdicts with each
scene's image changed the way a real room or camera changes it.

    python bench/vision_light.py --scenes 150 --tables 20 [--sets seen,unseen] [--procs 2] [--json OUT]

Conditions (applied to the rendered image, which already has mild blur, noise and JPEG):

  white      the image as rendered (white light): ``bench/bench_vision.py``'s figures
  warm       tungsten or warm-white lamps: blue x0.80, green x0.93 (the card stock's cast 1.25)
  warm_mild  blue x0.91, green x0.96 (cast 1.10)
  cool       a cold LED or a camera set for tungsten: red x0.82, green x0.95
  dim        a darker room: gamma 1.6
  bright     an exposure too high: x1.25 + 10 (the card stock clips)
  blur       a camera out of focus: Gaussian sigma 1.4 px more
  jpeg35     a heavily compressed stream: JPEG quality 35
  noise9     a noisy sensor: Gaussian noise sigma 9

Each condition's scenes are also measured for focus as the controller measures it
(:func:`vision.focus.edge_width`: the card edges' width, its 5th, 50th and 95th percentile over the
scenes, and how many scenes measure out of focus, past :data:`vision.focus.SHARP_EDGE`).

The tinted conditions are also read with the light's correction off (``warm_uncorrected``, ...:
``OnnxRecognizer.white_balance = False``, :mod:`vision.light`), to show what it does. Cards: right and
wrong reads at the threshold, as ``bench/bench_vision.py`` counts them (scene seeds
``[424242, i]``); seats: ten-seat tables (seeds ``[515151, i]``), identifiable and wrongly identifiable.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


def _gains(b: float, g: float, r: float):  # type: ignore[no-untyped-def]
    k = np.array([b, g, r], np.float32)
    return lambda im: np.clip(im.astype(np.float32) * k, 0, 255).astype(np.uint8)


def _dim(im: np.ndarray) -> np.ndarray:
    return np.clip(255.0 * (im / 255.0) ** 1.6, 0, 255).astype(np.uint8)


def _bright(im: np.ndarray) -> np.ndarray:
    return np.clip(im.astype(np.float32) * 1.25 + 10, 0, 255).astype(np.uint8)


def _blur(im: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.GaussianBlur(im, (0, 0), 1.4)


def _jpeg(im: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 35])[1], cv2.IMREAD_COLOR)


def _noise(im: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(int(im[::97, ::89].sum()) % 2**32)  # the same noise for the same image
    return np.clip(im.astype(np.float32) + rng.normal(0, 9, im.shape), 0, 255).astype(np.uint8)


CONDITIONS = {
    "white": None,
    "warm": _gains(0.80, 0.93, 1.0),
    "warm_mild": _gains(0.91, 0.96, 1.0),
    "cool": _gains(1.0, 0.95, 0.82),
    "dim": _dim,
    "bright": _bright,
    "blur": _blur,
    "jpeg35": _jpeg,
    "noise9": _noise,
}
TINTED = ("warm", "warm_mild", "cool")
"""Conditions also read with the light's correction off."""


def _work(job: tuple[str, str, int, int, str | None]) -> tuple[str, str, dict]:
    name, cond, scenes, tables, suit_model = job
    import cv2
    from bench_vision import read_accuracy, seat_safety

    from vision import render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    rec = OnnxRecognizer(threads=1) if suit_model is None else OnnxRecognizer(threads=1, suit_model_path=suit_model)
    base = cond.removesuffix("_uncorrected")
    rec.white_balance = base == cond
    transform = CONDITIONS[base]
    decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
    out: dict = {}
    if scenes:
        from vision import detect, focus

        widths: list[float | None] = []  # the camera's focus as the controller measures it (vision.focus)
        r = read_accuracy(rec, decks, scenes, transform=transform,
                          each=lambda image: widths.append(detect.card_masks(image).edge_width()))
        out["cards"] = {k: r[k] for k in ("readable_cards", "right", "right_pct", "wrong", "wrong_per_1000_cards")}
        out["cards"]["wrong_examples"] = r["wrong_examples"][:5]
        known = np.array([w for w in widths if w is not None])
        out["focus"] = {"edge_width_p5_median_p95": [round(float(v), 2) for v in np.percentile(known, [5, 50, 95])]
                        if len(known) else None, "measured": len(known),
                        "out_of_focus": int(sum(focus.blurred(w) for w in widths))}
    if tables:
        s = seat_safety(rec, decks, tables, transform=transform)
        out["seats"] = {k: s[k] for k in ("seats_readable", "identified", "identified_pct", "wrong_identifiable")}
    return name, cond, out


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map, variant_args

    def suit_model(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--suit-model", default=None, help="another body-suit model file (default: the shipped one)")

    args, sets, conds = variant_args(__doc__.splitlines()[0], "--conditions", CONDITIONS, "condition", argv,
                                     suit_model)
    jobs = [(s, c, args.scenes, args.tables, args.suit_model) for s in sets for c in conds]
    jobs += [(s, c + "_uncorrected", args.scenes, args.tables, args.suit_model)
             for s in sets for c in conds if c in TINTED]

    result: dict = {"scenes": args.scenes, "tables": args.tables, "sets": {}}
    for name, cond, out in pool_map(_work, jobs, args.procs):
        result["sets"].setdefault(name, {})[cond] = out
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

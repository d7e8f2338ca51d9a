"""What index models read of each deck design, card by card, at the cards' own index corners.

    python bench/vision_designs.py --sets real,seen,unseen [--decks NAME,...] [--width 100] [--scales 1.0]
        [--models models/card_index.onnx,var/tol/card_index.onnx] [--json OUT]

Every card of every deck of the named sets (``real``: ``letele`` and the Debian designs that
``python -m vision.fetch_deck`` has fetched; ``seen``: the named training decks; ``unseen``) is drawn
upright, ``--width`` pixels wide, on a green felt, lightly blurred, and cropped at both its index
corners exactly (no proposer; in colour for a model whose input takes three channels, ``--input color``),
the crop made at each of ``--scales`` times the card's width (1.0: the width a camera configured for the
card gives; the width search tries others). Each model reads the
crops as the recogniser reads its own (``vision.recognize.soften_index`` applied) and each crop is
counted:

  sure     the true card at the threshold (the shipped index classifier's, from its file, unless
           ``--threshold``) or more;
  wrong    another card at the threshold or more (before the print-colour check, which refuses a red
           suit read from black print and the reverse);
  same     those of the wrong reads whose suit has the true suit's colour (no print-colour check
           refuses them);
  argmax   the true card the most probable card, at any probability;
  index    the median probability that the crop is an index at all (``1 - p[not an index]``).

The designs the training never drew show where a model is too narrow: on the shipped
``card_index.onnx`` ``argmax`` is near all of them, but ``index`` is low, so ``sure`` is low (the
fifty-fourth session, models/HISTORY.md). With several scales, ``best`` counts the crops sure at any
of them (what a width search can reach), ``wrong`` and ``same`` those with a wrong read at any.

Prints one JSON object: per model, per deck, the counts (104 crops a deck a scale).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CARDS = tuple(r + s for r in "A23456789TJQK" for s in "shdc")


def deck_sets() -> dict:  # type: ignore[type-arg]
    from vision import render

    return {"real": render.available((render.LETELE,) + render.REAL_DECKS), "seen": render.TRAIN_DECKS,
            "unseen": render.UNSEEN_DECKS}


def corner_crops(deck, width: int,  # type: ignore[no-untyped-def]
                 scales, colour: bool = False) -> tuple[dict[float, list[np.ndarray]], np.ndarray]:
    """Each card of ``deck`` cropped at both its index corners at each scale, grayscale (``colour``: BGR,
    for a model trained on colour crops, ``--input color``); with the labels (``Card.index``, two a
    card)."""
    import dataclasses

    import cv2

    from controller.cards import Card
    from vision import detect, render

    height = int(round(width * detect.ASPECT))
    crops: dict[float, list[np.ndarray]] = {s: [] for s in scales}
    labels = []
    for card in CARDS:
        face = cv2.resize(render.card_face(deck, card)[..., ::-1], (width, height), interpolation=cv2.INTER_AREA)
        img, corners = detect.upright_card(face)
        source = img if colour else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        for s in scales:
            for corner in corners:
                crops[s].append(detect.crop_corner(source, dataclasses.replace(corner, width=width * s), color=colour))
        labels += [Card.parse(card).index] * 2
    return crops, np.array(labels)


def read_deck(session, crops: dict[float, list[np.ndarray]], labels: np.ndarray,  # type: ignore[no-untyped-def]
              threshold: float) -> dict:
    """The counts of one model on one deck's crops (module docstring)."""
    from vision.recognize import INDEX_HEAD_POWER, INDEX_SOFTEN_SURE, NOT_INDEX, preprocess, soften_index

    name = session.get_inputs()[0].name
    rows = np.arange(len(labels))
    out: dict = {"scales": {}}
    sure_any = np.zeros(len(labels), bool)
    wrong_any = np.zeros(len(labels), bool)
    same_any = np.zeros(len(labels), bool)
    black = np.isin(labels % 4, (0, 3))  # Card.index % 4: clubs, diamonds, hearts, spades
    for s, cs in crops.items():
        raw = session.run(None, {name: preprocess(cs)})[0]
        p = soften_index(raw, INDEX_HEAD_POWER, INDEX_SOFTEN_SURE)
        top = p[:, :NOT_INDEX].argmax(axis=1)
        conf = p[rows, top]
        sure = (top == labels) & (conf >= threshold)
        wrong = (top != labels) & (conf >= threshold)
        same = wrong & (np.isin(top % 4, (0, 3)) == black)
        sure_any |= sure
        wrong_any |= wrong
        same_any |= same
        out["scales"][f"{s:g}"] = {"sure": int(sure.sum()), "wrong": int(wrong.sum()), "same": int(same.sum()),
                                   "argmax": int((top == labels).sum()),
                                   "index": round(float(np.median(1.0 - raw[:, NOT_INDEX])), 3)}
    out.update(crops=len(labels), best=int(sure_any.sum()), wrong=int(wrong_any.sum()), same=int(same_any.sum()))
    return out


def main(argv: list[str] | None = None) -> int:
    import onnxruntime as ort

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="real,seen,unseen")
    ap.add_argument("--decks", default=None, help="only these decks of the sets, comma-separated")
    ap.add_argument("--width", type=int, default=100, help="card width, pixels")
    ap.add_argument("--scales", default="1.0", help="crop widths as shares of the card's, comma-separated")
    ap.add_argument("--models", default="models/card_index.onnx", help="index models, comma-separated")
    ap.add_argument("--threshold", type=float, default=None, help="default: card_index.onnx's own")
    ap.add_argument("--json", default=None, help="also write the result here")
    args = ap.parse_args(argv)
    sets = deck_sets()
    names = [s.strip() for s in args.sets.split(",")]
    bad = [s for s in names if s not in sets]
    if bad:
        ap.error(f"unknown deck set(s) {', '.join(bad)}: choose from {', '.join(sets)}")
    try:
        scales = [float(s) for s in args.scales.split(",")]
    except ValueError:
        ap.error(f"--scales {args.scales!r} is not comma-separated numbers")
    if args.width < 40 or not all(0.3 <= s <= 3.0 for s in scales):
        ap.error("--width must be at least 40 pixels and every scale from 0.3 to 3")
    models = [m.strip() for m in args.models.split(",")]
    paths = {m: next((p for p in (pathlib.Path(m), REPO / m) if p.is_file()), None) for m in models}
    missing = [m for m, p in paths.items() if p is None]
    if missing:
        ap.error(f"no model file {', '.join(missing)}")
    sessions = {m: ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]) for m, p in paths.items()}
    if args.threshold is None:
        from vision.recognize import DEFAULT_MODEL

        meta = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"]).get_modelmeta()
        args.threshold = float(meta.custom_metadata_map["threshold"])
    result: dict = {"width": args.width, "scales": scales, "threshold": args.threshold, "models": {}}
    for m in models:
        result["models"][m] = {}
    only = None if args.decks is None else {d.strip() for d in args.decks.split(",")}
    for s in names:
        for deck in sets[s]:
            if only is not None and deck.name not in only:
                continue
            kinds = {colour: corner_crops(deck, args.width, scales, colour)
                     for colour in {int(x.get_inputs()[0].shape[1]) == 3 for x in sessions.values()}}
            for m, session in sessions.items():
                crops, labels = kinds[int(session.get_inputs()[0].shape[1]) == 3]
                result["models"][m][deck.name] = dict(set=s, **read_deck(session, crops, labels, args.threshold))
            print(f"{deck.name:24s}", "  ".join(f"{r[deck.name]['best']:3d}/{r[deck.name]['wrong']}"
                                               for r in result["models"].values()), file=sys.stderr, flush=True)
    for m in models:
        rows = result["models"][m].values()
        result["models"][m]["all"] = {s: {"crops": sum(r["crops"] for r in rows if r["set"] == s),
                                          "best": sum(r["best"] for r in rows if r["set"] == s),
                                          "wrong": sum(r["wrong"] for r in rows if r["set"] == s),
                                          "same": sum(r["same"] for r in rows if r["set"] == s)} for s in names}
    text = json.dumps(result, indent=1)
    if args.json:
        pathlib.Path(args.json).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

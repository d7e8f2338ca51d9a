"""Vision on decks that print a "jumbo index": cards read at the card width, with and without
``camera.index_scale``.

    python bench/vision_jumbo.py [--scenes 150] [--tables 20] [--jumbo 1.8] [--index-scale 1.35]
                                 [--model MODEL] [--latency] [--sets seen,unseen] [--modes ...] [--procs 2]
                                 [--json OUT]

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

``--model``: the index model the jumbo decks are read with in those three modes (the standard mode
always reads with the shipped one): ``models/card_index_jumbo.onnx``, trained on jumbo indices for
the rooms that deal them (``python -m vision.train --decks jumbo,jumbo``), against the shipped model. The
recogniser runs that model only at the index scales it was trained at (1.2 to 1.55): the jumbo mode
reports it refused, and the search mode is given ``--index-scale`` (the width search proposes at its
own widths whatever the scale).

Scenes are the benchmark's (seeds ``[424242, i]``). Seats: the seat benchmark's tables (seeds
``[616161, i]``, 72 px cards) drawn with the jumbo decks and judged by ``TableWatcher`` at
``camera.card_width`` 72, with index scale 1.0 (``jumbo``) and ``--index-scale`` (``scaled``).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

MODES = ("standard", "jumbo", "scaled", "search")
SEAT_MODES = ("jumbo", "scaled")


def _work(job: tuple[str, str, str, int, float, float, str | None]) -> tuple[str, str, str, dict]:
    kind, name, mode, n, factor, scale, model = job
    import cv2
    from bench_vision import read_accuracy, seat_safety

    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    decks = {"seen": render.TRAIN_DECKS, "unseen": render.UNSEEN_DECKS}[name]
    if mode != "standard":
        decks = render.jumbo_decks(decks, factor)
    own = model is not None and mode != "standard"
    # the width search proposes at its own widths, whatever the index scale: a jumbo-index model, which
    # the recogniser runs only at the scales it was trained at, is given the scaled mode's there
    index_scale = scale if mode == "scaled" or (own and mode == "search") else 1.0
    try:
        rec = OnnxRecognizer(*([model] if own else []), threads=1, index_scale=index_scale)
    except ValueError as e:  # that model at index scale 1 (the jumbo mode): refused, as a camera would be
        return kind, name, mode, {"refused": str(e)}
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


def jumbo_latency(factor: float, scale: float, model: str | None) -> dict:
    """``bench_vision.latency`` on the latency views drawn with the seen decks' jumbo index, at index
    scale ``scale``: the shipped model's, then ``model``'s, then the shipped model's again (each figure
    the better of its two runs, so that the two models share the machine's spells alike)."""
    import cv2
    from bench_vision import latency

    from vision import render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    decks = render.jumbo_decks(render.TRAIN_DECKS, factor)
    recs = {"shipped": OnnxRecognizer(threads=1, index_scale=scale)}
    if model:
        recs["model"] = OnnxRecognizer(model, threads=1, index_scale=scale)
    runs: dict[str, list[dict]] = {k: [] for k in recs}
    for name in list(recs) + list(recs):
        runs[name].append(latency(recs[name], repeats=7, decks=decks))
    return {name: min(rs, key=lambda r: r["watch_ms_best"]) for name, rs in runs.items()}


def main(argv: list[str] | None = None) -> int:
    from bench_vision import emit, pool_map, variant_args

    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--jumbo", type=float, default=1.8, help="how many times as large each deck's index is drawn")
        ap.add_argument("--index-scale", type=float, default=1.35, help="camera.index_scale for the scaled mode")
        ap.add_argument("--latency", action="store_true",
                        help="also time a table frame of jumbo decks (the latency views), with the shipped model "
                             "and with --model, at --index-scale, in turn")
        ap.add_argument("--model", help="index model for the jumbo decks' modes (default: the shipped "
                        "models/card_index.onnx; models/card_index_jumbo.onnx is trained for such decks)")

    args, sets, modes = variant_args(__doc__.splitlines()[0], "--modes", MODES, "mode", argv, extra)
    if not 1.0 <= args.jumbo <= 2.5 or not 0.5 <= args.index_scale <= 3.0:
        raise SystemExit("vision_jumbo.py: --jumbo must be 1 to 2.5 and --index-scale 0.5 to 3")
    if args.model and not pathlib.Path(args.model).exists():
        raise SystemExit(f"vision_jumbo.py: --model {args.model}: no such file")
    jobs = [("cards", s, m, args.scenes, args.jumbo, args.index_scale, args.model) for s in sets for m in modes
            if args.scenes]
    jobs += [("seats", s, m, args.tables, args.jumbo, args.index_scale, args.model) for s in sets for m in SEAT_MODES
             if m in modes and args.tables]
    jobs.sort(key=lambda j: j[2] != "search")  # the slowest first, so the pool ends together
    result: dict = {"scenes": args.scenes, "tables": args.tables, "jumbo": args.jumbo,
                    "index_scale": args.index_scale, "model": args.model or "models/card_index.onnx",
                    "cards": {}, "seats": {}}
    for kind, name, mode, out in pool_map(_work, jobs, args.procs):
        result[kind].setdefault(name, {})[mode] = out
    if args.latency:  # last, alone on the machine
        result["latency"] = jumbo_latency(args.jumbo, args.index_scale, args.model)
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

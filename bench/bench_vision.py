"""Vision benchmark: card-read accuracy on rendered scenes (seen and unseen decks), seat verdict
safety on ten-seat table views, and per-frame latency on one core.

    python bench/bench_vision.py --scenes 300 --tables 40 [--json var/bench.json]
    python bench/bench_vision.py --scenes 0 --tables 100 --seat-seed 616161 --skip-latency   # seats only
    python bench/bench_vision.py --scenes 1000 --tables 0 --skip-latency --sets seen   # wrong reads

Where the misses come from (no proposal, not read, lost after a read): ``bench/vision_misses.py``.

Scenes are rendered from seeds no training run uses (``default_rng([424242, i])``). Deck sets: seen
(the training decks), unseen (procedural decks never trained on) and, when it has been fetched
(``python -m vision.fetch_deck``), letele (a real CC0 deck design, never trained on), and, when they have
been fetched (``python -m vision.fetch_deck --debian``), real (eight real deck designs from Debian's
card-game packages, GPL art kept for evaluation: ``vision.render.REAL_DECKS``).

Card reads:
  right  = face-up cards with an index corner fully in view, read as the right card at or above the
           threshold, over all such cards;
  wrong  = reads at or above the threshold that are not the card lying there, per 1,000 such cards.
Seats (ten-seat views, Hold'em):
  identifiable = seats whose two cards are face up and readable that are declared identifiable;
  wrong verdicts = seats declared identifiable with cards other than the truth (must be 0).
Latency: TableWatcher.watch on 1920x1080 frames, ten zones, one thread for OpenCV and onnxruntime:
  eight rendered table views, fifteen timed runs each (median, 90th percentile, slowest view, and
  the best: the median over the views of each one's fastest run, which other tenants of a shared
  machine do not slow down); a fixed piece of OpenCV work times the machine (reference).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def bench_scene(decks, seed: int, i: int):  # type: ignore[no-untyped-def]
    """Scene ``i`` of the seed: ``render_scene(default_rng([seed, i]))``, 800x600, every fifth 1200x800."""
    from vision import render

    w, h = (800, 600) if i % 5 else (1200, 800)
    return render.render_scene(np.random.default_rng([seed, i]), decks, width=w, height=h)


def pool_map(fn, jobs: list, procs: int) -> list:  # type: ignore[no-untyped-def]
    """``[fn(job) for job in jobs]``, in ``procs`` spawned processes when more than one (each job
    its own task, in order): the deck-set scripts' one way to use the machine's cores."""
    if procs <= 1 or len(jobs) <= 1:
        return [fn(j) for j in jobs]
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(procs) as pool:
        return pool.map(fn, jobs, chunksize=1)


def variant_args(description: str, flag: str, choices, noun: str, argv=None, extra=None):  # type: ignore[no-untyped-def]
    """The command line the benchmark's variants share (``bench/vision_light.py``,
    ``bench/vision_felt.py``): ``--scenes``, ``--tables``, ``--sets``, ``flag`` (comma-separated
    names of ``choices``, all by default), ``--procs`` and ``--json``, and what ``extra(parser)``
    adds; every name is checked. Returns ``(args, sets, names)``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--scenes", type=int, default=150)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--sets", default="seen,unseen", help="deck sets, comma-separated (seen, unseen)")
    ap.add_argument(flag, default=",".join(choices), help="comma-separated, of: " + ", ".join(choices))
    if extra is not None:
        extra(ap)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    names = [n for n in getattr(args, flag.lstrip("-").replace("-", "_")).split(",") if n]
    if bad := [s for s in sets if s not in ("seen", "unseen")]:
        ap.error(f"--sets: unknown deck set(s) {', '.join(bad)}; expected seen, unseen")
    if bad := [n for n in names if n not in choices]:
        ap.error(f"{flag}: unknown {noun}(s) {', '.join(bad)}; expected {', '.join(choices)}")
    if args.scenes < 0 or args.tables < 0 or args.procs < 1:
        ap.error("--scenes and --tables must be 0 or more, --procs at least 1")
    return args, sets, names


def emit(result: dict, path: str | None = None) -> None:
    """Print ``result`` as one line of JSON, and write it to ``path`` too when given."""
    text = json.dumps(result)
    print(text)
    if path:
        pathlib.Path(path).write_text(text + "\n")


def match_reads(scene, dets, threshold: float) -> tuple[int, set[int], list]:  # type: ignore[no-untyped-def]
    """The benchmark's rule for one scene: a read at ``threshold`` or more is right when one of the
    three truths nearest it, within 0.45 card widths, is that card face up. Returns the number of
    such reads, the indices of the truths read right, and each wrong read with the index of the
    truth nearest it (-1 with no truth)."""
    truths = scene.cards
    centres = np.array([t.center for t in truths]) if truths else np.zeros((0, 2))
    sure = 0
    hit: set[int] = set()
    wrong = []
    for d in dets:
        if d.card is None or d.confidence < threshold:
            continue
        sure += 1
        dist = np.linalg.norm(centres - np.array(d.center), axis=1) if len(truths) else np.array([])
        j = next((int(j) for j in (np.argsort(dist)[:3] if len(dist) else [])
                  if dist[j] < 0.45 * scene.card_width and truths[j].face_up and truths[j].card == str(d.card)), None)
        if j is None:
            wrong.append((d, int(np.argmin(dist)) if len(dist) else -1))
        else:
            hit.add(j)
    return sure, hit, wrong


def read_accuracy(rec, decks, n: int, seed: int = 424242, transform=None,  # type: ignore[no-untyped-def]
                  each=None, at_width: bool = False) -> dict:
    """Card reads on ``n`` scenes; ``transform``: applied to each scene's image first (another
    light, blur: ``bench/vision_light.py``); ``each``: called with each image as read (the light
    bench measures its focus), so no scene is rendered twice; ``at_width``: each scene read at its
    own card width, as a configured camera reads (``bench/vision_jumbo.py``), not searched for."""
    readable = right = wrong = reads = 0
    wrong_examples = []
    buckets = {"52-70": [0, 0], "70-100": [0, 0], "100-150": [0, 0]}  # card width px: [readable, right]
    by_deck: dict[str, list[int]] = {}  # deck: [readable, right, wrong] (a wrong read is its nearest card's deck's)
    for i in range(n):
        scene = bench_scene(decks, seed, i)
        image = scene.image if transform is None else transform(scene.image)
        if each is not None:
            each(image)
        if at_width:
            rec.card_width = scene.card_width
        dets = rec.recognize(image)
        truths = scene.cards
        sure, hit, missed = match_reads(scene, dets, rec.threshold)
        reads += sure
        for d, j in missed:
            wrong += 1
            if j >= 0:
                by_deck.setdefault(truths[j].deck, [0, 0, 0])[2] += 1
            if len(wrong_examples) < 10:
                wrong_examples.append({"scene": i, "read": str(d.card), "conf": round(d.confidence, 4),
                                       "nearest": truths[j].card if j >= 0 else None,
                                       "deck": truths[j].deck if j >= 0 else None})
        bucket = "52-70" if scene.card_width < 70 else "70-100" if scene.card_width < 100 else "100-150"
        for j, t in enumerate(truths):
            if t.readable:
                readable += 1
                right += j in hit
                buckets[bucket][0] += 1
                buckets[bucket][1] += j in hit
                tally = by_deck.setdefault(t.deck, [0, 0, 0])
                tally[0] += 1
                tally[1] += j in hit
    return {"scenes": n, "readable_cards": readable, "right": right, "right_pct": 100.0 * right / max(readable, 1),
            "confident_reads": reads, "wrong": wrong, "wrong_per_1000_cards": 1000.0 * wrong / max(readable, 1),
            "right_pct_by_card_width": {k: round(100.0 * r / max(n, 1), 1) for k, (n, r) in buckets.items()},
            "by_deck": {k: {"readable": a, "right": r, "wrong": w} for k, (a, r, w) in sorted(by_deck.items())},
            "wrong_examples": wrong_examples}


def seat_safety(rec, decks, n: int, seed: int = 515151, transform=None, cam=None,  # type: ignore[no-untyped-def]
                **table) -> dict:
    """Seat verdicts on ``n`` ten-seat tables; ``transform`` as for :func:`read_accuracy`; ``cam``:
    the camera (default: ``config/table.toml``'s, one frame enough); ``table``: more keywords for
    :func:`vision.render.render_table` (``hand_widths``: an angled camera, ``bench/vision_angled.py``)."""
    from vision import render
    from vision.config import load_camera_config
    from vision.watch import TableWatcher

    if cam is None:
        cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    tally = new_tally()
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        scene = render.render_table(rng, decks, **table)
        watcher = TableWatcher(cam, rec)
        count_seats(tally, i, scene, watcher.watch(scene.image if transform is None else transform(scene.image)))
    return seat_report(tally, n)


def new_tally() -> dict:
    """Empty counts for :func:`count_seats`."""
    return {"seats": 0, "eligible": 0, "identified": 0, "wrong": 0, "wrong_examples": [], "missed": {},
            "cards": 0, "cards_right": 0, "cards_wrong": 0}


def merge_tally(into: dict, other: dict) -> None:
    """Add the counts ``other`` (of :func:`new_tally`) to ``into``: the runs of several processes."""
    for k, v in other.items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                into[k][kk] = into[k].get(kk, 0) + vv
        else:
            into[k] += v


def count_seats(tally: dict, table: int, scene, views) -> None:  # type: ignore[no-untyped-def]
    """Add the seat verdicts ``views`` of table number ``table`` to ``tally``, against ``scene``'s cards:
    a seat is readable when both its cards are face up with an index in view; identifiable with
    other cards than its own (or a card face down) is wrong. Cards too: each readable card of a seat
    is right when its view reads it at the threshold (:attr:`vision.verdict.SeatView.cards`, whatever
    the verdict), and a card read there that is none of the seat's face-up cards is wrong."""
    for v in views:
        truth = [t for t in scene.cards if t.seat == v.seat]
        read = {str(c) for c in v.cards}
        tally["cards"] += sum(1 for t in truth if t.readable)
        tally["cards_right"] += sum(1 for t in truth if t.readable and t.card in read)
        tally["cards_wrong"] += len(read - {t.card for t in truth if t.face_up})
        tally["seats"] += 1
        good = all(t.readable for t in truth) and len(truth) == 2
        tally["eligible"] += good
        if v.identifiable:
            if sorted(map(str, v.cards)) != sorted(t.card for t in truth) or not all(t.face_up for t in truth):
                tally["wrong"] += 1
                tally["wrong_examples"].append({"table": table, "seat": v.seat, "read": [str(c) for c in v.cards],
                                                "truth": [t.card for t in truth],
                                                "decks": sorted({t.deck for t in truth}),
                                                "conf": round(v.confidence, 4)})
            elif good:
                tally["identified"] += 1
        elif good:  # why a seat that could have been identified was not (the dealer screen's reason)
            tally["missed"][str(v.reason)] = tally["missed"].get(str(v.reason), 0) + 1


def seat_report(tally: dict, n: int) -> dict:
    """:func:`seat_safety`'s figures from the counts of ``n`` tables."""
    eligible = tally["eligible"]
    return {"tables": n, "seats": tally["seats"], "seats_readable": eligible, "identified": tally["identified"],
            "identified_pct": 100.0 * tally["identified"] / max(eligible, 1), "wrong_identifiable": tally["wrong"],
            "missed_by_reason": dict(sorted(tally["missed"].items())), "wrong_examples": tally["wrong_examples"],
            "cards": {"readable": tally["cards"], "right": tally["cards_right"],
                      "right_pct": round(100.0 * tally["cards_right"] / max(tally["cards"], 1), 2),
                      "wrong": tally["cards_wrong"]}}


def table_views(frames: int = 8, decks=None) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    """The latency benchmark's rendered ten-seat table views (seeds 777, 778, ...), 1920x1080 BGR;
    ``decks``: drawn with these (default: the seen decks)."""
    from vision import render

    decks = render.TRAIN_DECKS if decks is None else decks
    return [render.render_table(np.random.default_rng(777 + k), decks).image for k in range(frames)]


def reference_ms(repeats: int = 7) -> tuple[float, float]:
    """The machine's speed, to compare latency figures measured on different machines: the median
    and the fastest time of a fixed piece of OpenCV work on one thread (a seeded 1920x1080
    image converted to HSV and to gray, blurred, edge-detected and its edges' outlines found), none
    of this project's code. Shared machines differ by more than twice in speed from one day to the
    next; the latency over this reference stays put when only the machine changed."""
    import cv2

    image = np.random.default_rng(7).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    image = cv2.GaussianBlur(image, (0, 0), 3)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        edges = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 20, 60)
        cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), min(times)


def latency(rec, repeats: int = 15, frames: int = 8, decks=None) -> dict:  # type: ignore[no-untyped-def]
    """Seat-zone watch time on ``frames`` different rendered table views (seeds 777, 778, ...),
    ``repeats`` timed runs each after one warm-up: how many near misses a frame holds decides how
    many crops its second look makes, so one frame is not enough.

    The median is what a frame costs on this machine as it is; ``watch_ms_best`` (the median over
    the views of each view's fastest run) is what it costs when nothing else runs beside it. On a
    shared machine other tenants' work makes single runs up to twice as slow, and the fastest of
    a view's runs is the figure that does not move with them (as ``timeit`` advises).

    ``decks``: the views drawn with these (:func:`table_views`); the camera reads at ``rec``'s index
    scale."""
    from vision.config import load_camera_config
    from vision.watch import TableWatcher

    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"index_scale": rec.index_scale})
    times: list[float] = []
    per_frame: list[float] = []
    fastest: list[float] = []
    views = table_views(frames, decks)
    for view in views:
        watcher = TableWatcher(cam, rec)
        watcher.watch(view)
        mine = []
        for _ in range(repeats):
            t = time.perf_counter()
            watcher.watch(view)
            mine.append((time.perf_counter() - t) * 1000)
        times += mine
        per_frame.append(statistics.median(mine))
        fastest.append(min(mine))
    full = []
    for _ in range(3):
        t = time.perf_counter()
        rec.recognize(views[-1])
        full.append((time.perf_counter() - t) * 1000)
    reference, reference_best = reference_ms()
    best = statistics.median(fastest)
    return {"frame": f"1920x1080, 10 seat zones, {frames} table views, {repeats} runs each",
            "reference_ms": round(reference, 1),
            "watch_over_reference": round(statistics.median(times) / reference, 2),
            "watch_ms_median": round(statistics.median(times), 1),
            "watch_ms_best": round(best, 1),
            "reference_ms_best": round(reference_best, 1),
            "watch_best_over_reference_best": round(best / reference_best, 2),
            "watch_ms_p90": round(sorted(times)[int(0.9 * (len(times) - 1))], 1),
            "watch_ms_slowest_view": round(max(per_frame), 1),
            "read_whole_frame_ms_median": round(statistics.median(full), 1)}


def main(argv=None) -> int:
    import cv2

    from vision import render
    from vision.recognize import (DEFAULT_LAYOUT_MODEL, DEFAULT_MODEL, DEFAULT_SUIT_LAYOUT_MODEL, DEFAULT_SUIT_MODEL,
                                  DEFAULT_TOLERANT_MODEL, DEFAULT_WHOLE_MODEL, OnnxRecognizer)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--suit-model", default=str(DEFAULT_SUIT_MODEL),
                    help="the body-suit model (vision.pips), or 'none' to read without it")
    ap.add_argument("--layout-model", default=str(DEFAULT_LAYOUT_MODEL),
                    help="the layout index model (read where the index classifier is not sure; needs the "
                         "body-suit model), or 'none' to read without it")
    ap.add_argument("--suit-layout-model", default=str(DEFAULT_SUIT_LAYOUT_MODEL),
                    help="the second body-suit model, trained with the layout decks (asked what the first leaves "
                         "unconfirmed), or 'none' to read without it")
    ap.add_argument("--whole-model", default=str(DEFAULT_WHOLE_MODEL),
                    help="the whole-card model (asked about the places left unsure or contested), or 'none' to "
                         "read without it")
    ap.add_argument("--tolerant-model", default=str(DEFAULT_TOLERANT_MODEL),
                    help="the scale-tolerant index model (read where the index classifier is not sure, on its "
                         "word and the body's; needs the body-suit model), or 'none' to read without it")
    ap.add_argument("--body-confirm", type=float, default=None,
                    help="what the body must give a suit to settle a club-against-spade contest "
                         "(default: the body-suit model's own)")
    ap.add_argument("--json")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--seat-seed", type=int, default=515151,
                    help="first seed of the ten-seat tables (another seed: more tables, the same kind)")
    ap.add_argument("--scene-seed", type=int, default=424242,
                    help="first seed of the scenes (another seed: more scenes, the same kind)")
    ap.add_argument("--sets", default="seen,unseen,letele,real",
                    help="deck sets to read, comma-separated (seen, unseen, letele, real); a set of decks "
                         "not fetched is left out")
    args = ap.parse_args(argv)
    try:  # a deck drawn in a fallback font is another deck: refuse rather than measure it
        render.require_fonts(render.TRAIN_DECKS + render.UNSEEN_DECKS)
    except RuntimeError as e:
        ap.error(str(e))
    cv2.setNumThreads(1)
    suit = None if args.suit_model == "none" else args.suit_model
    layout = None if args.layout_model == "none" else args.layout_model
    suit_layout = None if args.suit_layout_model == "none" else args.suit_layout_model
    whole = None if args.whole_model == "none" else args.whole_model
    tolerant = None if args.tolerant_model == "none" else args.tolerant_model
    try:
        rec = OnnxRecognizer(args.model, threads=1, suit_model_path=suit, layout_model_path=layout,
                             suit_layout_model_path=suit_layout, whole_model_path=whole,
                             tolerant_model_path=tolerant)
    except (FileNotFoundError, ValueError) as e:
        ap.error(f"--suit-model / --layout-model / --suit-layout-model / --whole-model / --tolerant-model: {e} "
                 "('none' reads without it)")
    if args.body_confirm is not None:
        rec.body_confirm = args.body_confirm
    out = {"date": time.strftime("%Y-%m-%d"), "model": pathlib.Path(args.model).name, "threshold": rec.threshold,
           "suit_model": None if suit is None else pathlib.Path(suit).name,
           "body_confirm": rec.body_confirm if suit is not None else None,
           "layout_model": None if rec.layout_session is None else pathlib.Path(str(layout)).name,
           "layout_threshold": None if rec.layout_session is None else rec.layout_threshold,
           "suit_layout_model": None if rec.suit_layout_session is None else pathlib.Path(str(suit_layout)).name,
           "whole_model": None if rec.whole_session is None else pathlib.Path(str(whole)).name,
           "tolerant_model": None if rec.tolerant_session is None else pathlib.Path(str(tolerant)).name,
           "tolerant_threshold": None if rec.tolerant_session is None else rec.tolerant_threshold}
    if not args.skip_latency:
        out["latency"] = latency(rec)
        print(json.dumps(out["latency"]), flush=True)
    wanted = [w.strip() for w in args.sets.split(",") if w.strip()]
    unknown = sorted(set(wanted) - {"seen", "unseen", "letele", "real"})
    if unknown:
        ap.error(f"--sets: unknown deck set(s) {', '.join(unknown)}; expected seen, unseen, letele, real")
    sets = [(name, decks) for name, decks in (("seen", render.TRAIN_DECKS), ("unseen", render.UNSEEN_DECKS))
            if name in wanted]
    if "letele" in wanted:
        if render.available((render.LETELE,)):  # fetched by `python -m vision.fetch_deck`
            sets.append(("letele", (render.LETELE,)))
        else:
            print("letele deck not fetched (python -m vision.fetch_deck): left out", flush=True)
    if "real" in wanted:
        real = render.available(render.REAL_DECKS)  # fetched by `python -m vision.fetch_deck --debian`
        if real:
            sets.append(("real", real))
        if len(real) < len(render.REAL_DECKS):
            print(f"{len(render.REAL_DECKS) - len(real)} of the real decks not fetched "
                  "(python -m vision.fetch_deck --debian): left out", flush=True)
    for name, decks in sets:
        if args.scenes:
            out[f"reads_{name}"] = read_accuracy(rec, decks, args.scenes, args.scene_seed)
            print(name, json.dumps({k: v for k, v in out[f"reads_{name}"].items() if k != "wrong_examples"}), flush=True)
        if args.tables:
            out[f"seats_{name}"] = seat_safety(rec, decks, args.tables, args.seat_seed)
            print(name, json.dumps(out[f"seats_{name}"]), flush=True)
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

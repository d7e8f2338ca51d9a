"""``cardroom vision ...``: read cards in an image, check seats, draw zones, render scenes.

    cardroom vision read IMAGE [--json]
    cardroom vision check IMAGE|VIDEO|DEVICE|URL --config config/table.toml [--camera NAME] [--json] [--frames N]
    cardroom vision calibrate IMAGE --config config/table.toml [--camera NAME] [--out zones.png]
    cardroom vision render OUT_DIR [--count N] [--seed S] [--unseen]
    cardroom vision demo-feed OUT.mp4 [--hands 3] [--fps 2]

OpenCV and onnxruntime are imported inside the commands, so ``cardroom --help`` stays light.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("vision", help="overhead cameras: read cards, check seats, calibrate zones")
    sub = p.add_subparsers(dest="vision_command", metavar="VISION_COMMAND")
    sub.required = True

    r = sub.add_parser("read", help="every card found in an image")
    r.add_argument("image")
    r.add_argument("--json", action="store_true", help="print JSON (default: one line per card)")
    _model_args(r)
    r.set_defaults(func=cmd_read)

    c = sub.add_parser("check", help="per-seat verdict for an image, video, device or stream")
    c.add_argument("source", help="image, folder of images, video file, device index or rtsp:// URL")
    c.add_argument("--config", default="config/table.toml", help="table file with a [camera] section")
    c.add_argument("--camera", metavar="NAME", help="which of the file's [[cameras]] sees the source "
                   "(needed where it has several)")
    c.add_argument("--json", action="store_true")
    c.add_argument("--frames", type=int, default=0, help="stop after N frames (0: all)")
    c.add_argument("--every", action="store_true", help="print verdicts for every frame, not only the last")
    c.add_argument("--variant", help="override the variant (holdem, omaha, stud, ...)")
    _model_args(c)
    c.set_defaults(func=cmd_check)

    k = sub.add_parser("calibrate", help="draw the seat zones over a still and judge the light, the felt, "
                       "the card width and the resolution, for an installer to check")
    k.add_argument("image")
    k.add_argument("--config", default="config/table.toml")
    k.add_argument("--camera", metavar="NAME", help="which of the file's [[cameras]] took the still "
                   "(needed where it has several)")
    k.add_argument("--out", default="zones.png")
    k.add_argument("--read", action="store_true", help="also draw the cards read")
    k.set_defaults(func=cmd_calibrate)

    g = sub.add_parser("render", help="write labelled synthetic table scenes (PNG + JSON)")
    g.add_argument("out")
    g.add_argument("--count", type=int, default=10)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--unseen", action="store_true", help="use the decks kept out of training")
    g.add_argument("--table", action="store_true", help="1920x1080 ten-seat views instead of close-ups")
    g.set_defaults(func=cmd_render)

    d = sub.add_parser("demo-feed", help="render the demo camera feed (video of several showdowns)")
    d.add_argument("out", nargs="?", default="var/demo_feed.mp4")
    d.add_argument("--hands", type=int, default=3)
    d.add_argument("--fps", type=float, default=2.0)
    d.add_argument("--seed", type=int, default=7)
    d.set_defaults(func=cmd_demo_feed)


def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="ONNX model (default: models/card_index.onnx or the config's)")
    p.add_argument("--threshold", type=float, help="confidence a read must reach")
    p.add_argument("--card-width", type=float, help="card width in pixels (default: estimated)")
    p.add_argument("--index-scale", type=float,
                   help="how large the deck prints its index against a standard one (default 1.0, or the config's; "
                        "a jumbo index about 1.35; `vision calibrate` measures it)")


def _recognizer(args, model: str | None = None, threshold=None, card_width=None, index_scale: float = 1.0):
    from vision.recognize import DEFAULT_MODEL, OnnxRecognizer

    scale = getattr(args, "index_scale", None)
    return OnnxRecognizer(args.model or model or DEFAULT_MODEL,
                          threshold=args.threshold if args.threshold is not None else threshold,
                          card_width=args.card_width if args.card_width is not None else card_width,
                          index_scale=scale if scale is not None else index_scale)


def _fail(msg: str) -> int:
    print(f"cardroom vision: {msg}", file=sys.stderr)
    return 2


def cmd_read(args) -> int:
    from vision.sources import SourceError, read_image

    try:
        frame = read_image(args.image)
    except SourceError as exc:
        return _fail(str(exc))
    try:
        rec = _recognizer(args)
    except (OSError, ValueError) as exc:  # an --index-scale out of range, a model file missing or not a model
        return _fail(str(exc))
    dets = rec.recognize(frame)
    if args.json:
        print(json.dumps([d.to_json() for d in dets]))
    else:
        for d in dets:
            j = d.to_json()
            print(f"{j['card'] or '??':3} {j['confidence']:.3f} at {j['corners'][0]}")
    return 0


def cmd_check(args) -> int:
    import hashlib

    from pydantic import ValidationError

    from vision.config import ConfigError, load_cameras, pick_camera, resolve
    from vision.sources import SourceError, open_source
    from vision.watch import TableWatcher

    cfg_path = pathlib.Path(args.config)
    try:
        key, cam = pick_camera(load_cameras(cfg_path), args.camera, cfg_path)
        update = {**({"variant": args.variant} if args.variant else {}),
                  **({"index_scale": args.index_scale} if args.index_scale is not None else {})}
        if update:  # the command line over the config, validated as the config is
            cam = type(cam).model_validate({**cam.model_dump(), **update})
    except ValidationError as exc:
        err = exc.errors()[0]
        return _fail(f"{'.'.join(str(p) for p in err['loc'])} (from the command line): {err['msg']}")
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    model = resolve(cfg_path, cam.model)
    if cam.model_sha256 and not args.model:
        try:
            digest = hashlib.sha256(pathlib.Path(model).read_bytes()).hexdigest()
        except OSError as exc:
            return _fail(f"{key}.model in {cfg_path}: {model}: {exc.strerror or exc}")
        if digest != cam.model_sha256:
            return _fail(f"{model}: SHA-256 {digest} does not match {key}.model_sha256 in {cfg_path}")
    try:
        rec = _recognizer(args, model, cam.threshold, cam.card_width, cam.index_scale)
    except (OSError, ValueError) as exc:  # an --index-scale out of range, a model file missing or not a model
        return _fail(str(exc))
    watcher = TableWatcher(cam, rec, args.threshold)
    try:
        src = open_source(args.source)
    except SourceError as exc:
        return _fail(str(exc))
    last = None
    judged = 0  # frames looked at (a camera's or a stream's indices skip the frames it sent meanwhile)
    try:
        with src:
            for i, frame in src:
                # a still is the same picture however long it is watched: hold it for the stability count
                if src.is_still:
                    raw = watcher.judge(frame, frame_index=i)
                    for _ in range(cam.stable_frames):
                        views = [watcher.stability.update(v) for v in raw]
                else:
                    views = watcher.watch(frame, frame_index=i)
                last = (i, views)
                judged += 1
                if args.every:
                    _print_views(args, i, views)
                if args.frames and judged >= args.frames:
                    break
    except SourceError as exc:  # a camera or a stream that stopped sending frames
        if last is not None and not args.every:
            _print_views(args, *last)
        return _fail(str(exc))
    if last is None:
        return _fail(f"{args.source}: no frames")
    if not args.every:
        _print_views(args, *last)
    if not args.json:
        from vision import focus

        if focus.blurred(watcher.edge_width, cam.card_width):  # why fewer hands are identifiable
            print(f"camera {focus.line(watcher.edge_width, cam.card_width)}")
    return 0


def _print_views(args, frame_index, views) -> None:
    if args.json:
        print(json.dumps({"frame": frame_index, "seats": [v.to_json() for v in views]}))
    else:
        for v in views:
            state = "IDENTIFIABLE" if v.identifiable else f"not identifiable ({v.reason})"
            cards = " ".join(map(str, v.cards)) or "-"
            print(f"frame {frame_index} seat {v.seat:2}: {cards:22} {state}: {v.detail}")


def cmd_calibrate(args) -> int:
    import cv2
    import numpy as np

    from vision.config import ConfigError, load_camera_config, zones_off_frame
    from vision.sources import SourceError, read_image

    try:
        cam = load_camera_config(args.config, args.camera)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        frame = read_image(args.image)
    except SourceError as exc:
        return _fail(str(exc))
    out = frame.copy()
    for z in cam.zones:
        pts = np.array(z.polygon, np.int32)
        cv2.polylines(out, [pts], True, (0, 255, 255), 3)
        x, y = pts.min(axis=0)
        cv2.putText(out, f"seat {z.seat}", (int(x) + 6, int(y) + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.9,
                    (0, 255, 255), 2, cv2.LINE_AA)
    if args.read:
        rec = _recognizer(argparse.Namespace(model=None, threshold=None, card_width=None),
                          None, cam.threshold, cam.card_width, cam.index_scale)
        for d in rec.recognize(frame):
            q = np.array(d.corners, np.int32)
            colour = (0, 200, 0) if d.card is not None and d.confidence >= rec.threshold else (0, 0, 255)
            cv2.polylines(out, [q], True, colour, 2)
            cv2.putText(out, str(d.card or "?"), (int(q[0][0]), int(q[0][1]) - 4), cv2.FONT_HERSHEY_SIMPLEX,
                        0.7, colour, 2, cv2.LINE_AA)
    if not cv2.imwrite(args.out, out):
        return _fail(f"{args.out}: cannot write")
    print(f"wrote {args.out}: {len(cam.zones)} zones" + (f" of camera {cam.name}" if args.camera else ""))
    for _, _, line in zones_off_frame(cam, frame.shape[1], frame.shape[0]):
        print(line)
    print(light_report(frame))
    print(felt_report(frame))
    import statistics

    from vision import detect, focus

    masks = detect.card_masks(frame)
    from vision.recognize import OnnxRecognizer, implied_cards

    reader = OnnxRecognizer(threshold=cam.threshold)  # the shipped models, no width: the measures below
    cards = detect.whole_cards(masks.white)
    what = "whole card"
    if not cards:  # no card lies on its own: the cards read at both index corners measure it
        cards, what = implied_cards(reader.recognize(frame), reader.threshold), "card read at both index corners"
    widths = [w for _, w in cards]
    print(card_width_report(frame, cam.card_width, widths, what))
    print(resolution_report(cam.card_width, widths))
    standard: dict[float, int] = {}
    print(index_scale_report(frame, cam, widths, reader, standard))
    cards_wide = cam.card_width or (statistics.median(widths) if widths else None)
    line = model_report(frame, cam, cards_wide, standard, _names_jumbo_model(args.config, cam.model))
    if line:
        print(line)
    print(focus.line(masks.edge_width(), cards_wide))
    for z in cam.zones:  # a seat zone of its own card width (a camera looking at the table at an angle)
        if z.card_width is not None:
            print(f"seat {z.seat}: {resolution_report(z.card_width, [])}")
    for line in zone_width_report(cam, cards):
        print(line)
    if not focus.blurred(masks.edge_width(), cards_wide):  # (out of focus as a whole: said above)
        for line in zone_focus_report(frame, cam):
            print(line)
    return 0


def _names_jumbo_model(config: str, model: str) -> bool:
    """Whether the table file ``config`` names the jumbo-index model as ``camera.model`` (its file name
    is :data:`JUMBO_MODEL`'s)."""
    from vision.config import resolve

    return pathlib.Path(resolve(pathlib.Path(config), model)).name == pathlib.Path(JUMBO_MODEL).name


WIDTH_CHECK = 0.15
"""How far (a share) the whole cards in view may measure from the configured card width before
``vision calibrate`` asks the installer to check it: the index classifier refuses crops more than
about that much off scale."""


def _whole_cards(frame) -> list[tuple[tuple[float, float], float]]:  # type: ignore[no-untyped-def]
    """The whole cards in view, centre and width (:func:`vision.detect.whole_cards`)."""
    from vision import detect

    return detect.whole_cards(detect.card_masks(frame).white)


def _whole_card_widths(frame) -> list[float]:  # type: ignore[no-untyped-def]
    """The widths of the whole cards in view (:func:`vision.detect.whole_card_widths`)."""
    return [w for _, w in _whole_cards(frame)]


INDEX_SCALE_STEPS = (0.85, 1.0, 1.2, 1.35, 1.55, 1.8, 2.1)
"""The index scales ``vision calibrate`` reads the frame at (:func:`index_scale_report`), besides the
configured ``camera.index_scale``."""
INDEX_SCALE_GAIN = (3, 1.5)
"""Another index scale is advised only where it reads at least this many more cards sure, and this
many times as many, as the configured one: with ten cards laid, a card or two either way is noise
(``letele`` read 5 cards at 0.85 and 3 at 1.0 in one frame, and the same 180 of 284 either way over
40 scenes), while a jumbo index reads none or one at 1.0 and five or more at its scale."""


def sure_counts(rec, frame, width: float, scales) -> dict[float, int]:  # type: ignore[no-untyped-def]
    """The cards ``rec`` reads at or above its threshold in ``frame`` at card width ``width``, with
    each index scale of ``scales`` (``rec`` is left as it was)."""
    keep = rec.card_width, rec.index_scale
    counts: dict[float, int] = {}
    try:
        rec.card_width = width
        for scale in sorted(set(scales)):
            rec.index_scale = scale
            counts[scale] = sum(1 for d in rec.recognize(frame) if d.card is not None and d.confidence >= rec.threshold)
    finally:
        rec.card_width, rec.index_scale = keep
    return counts


def index_scale_report(frame, cam, widths: list[float], recognizer=None,  # type: ignore[no-untyped-def]
                       out: dict[float, int] | None = None) -> str:
    """One line for the installer on ``camera.index_scale``: the frame read at the camera's card width
    (configured, else the median of the whole cards in view) with each index scale of
    :data:`INDEX_SCALE_STEPS` and the configured one, and the cards each reads at or above the
    threshold. A deck that prints a much larger index than the decks the models were trained on (a
    "jumbo index") reads few cards at 1.0 and many at about 1.35: the line then gives the scale to set.
    ``recognizer``: the one to read with (default: the shipped models at ``camera.threshold``, as the
    rest of ``vision calibrate`` reads). ``out``: filled with the cards read at each scale."""
    import statistics

    from vision.recognize import OnnxRecognizer

    width = cam.card_width or (statistics.median(widths) if widths else None)
    if width is None:
        return "index: not judged: no card width (configure camera.card_width or lay a card down)"
    rec = recognizer or OnnxRecognizer(threshold=cam.threshold)
    counts = sure_counts(rec, frame, width, {*INDEX_SCALE_STEPS, cam.index_scale})
    if out is not None:
        out.update(counts)
    now = counts[cam.index_scale]
    best = max(counts, key=lambda s: (counts[s], -abs(s - cam.index_scale)))
    each = ", ".join(f"{n} at {s:g}" for s, n in counts.items())
    if best != cam.index_scale and counts[best] >= max(now + INDEX_SCALE_GAIN[0], now * INDEX_SCALE_GAIN[1]):
        larger = "larger" if best > cam.index_scale else "smaller"
        return (f"index: cards read sure at {width:.0f} px: {each}: set index_scale = {best:g} in [camera] "
                f"(the deck prints its index {larger} than camera.index_scale {cam.index_scale:g} says)")
    return (f"index: cards read sure at {width:.0f} px: {each}; no other index scale reads clearly more than "
            f"camera.index_scale {cam.index_scale:g}")


JUMBO_MODEL = "models/card_index_jumbo.onnx"
"""The index model trained on decks that print a jumbo index (``python -m vision.train --decks
jumbo,jumbo``), as a table file names it (``camera.model``)."""
JUMBO_MODEL_SCALES = (1.2, 1.35, 1.55)
"""The index scales ``vision calibrate`` reads the frame at with :data:`JUMBO_MODEL` (those it was
trained at: :data:`vision.train.JUMBO_INDEX_SCALES`; calibrated at the middle one, which reads the
most on the jumbo benchmark, and which ties go to)."""


def model_report(frame, cam, width: float | None, standard: dict[float, int],  # type: ignore[no-untyped-def]
                 using_jumbo: bool, recognizer=None) -> str | None:
    """One line for the installer on ``camera.model``, where the jumbo-index model is shipped: the
    frame read with it at card width ``width`` at each of :data:`JUMBO_MODEL_SCALES`, beside
    ``standard``, what the shipped standard model read at each index scale (:func:`index_scale_report`).

    The deck prints a jumbo index where the standard model reads clearly more (:data:`INDEX_SCALE_GAIN`)
    at an index scale of 1.2 or more than at 1 or less. Then the jumbo model, trained on such decks,
    is advised (with the scale it reads most at) where it reads at least as many cards as the standard
    model at its best; for a deck printing a standard index, a table file naming the jumbo model is
    told to name the standard one. ``using_jumbo``: the table file names the jumbo model.
    ``recognizer``: the jumbo model's (default: the shipped file, at ``camera.threshold`` where the
    table file names it, else at its own threshold). ``None`` where there is no such model file, no
    width or no count."""
    from vision.recognize import DEFAULT_MODEL, OnnxRecognizer

    path = DEFAULT_MODEL.with_name(pathlib.Path(JUMBO_MODEL).name)
    if not path.exists() or width is None or not standard:
        return None
    rec = recognizer or OnnxRecognizer(path, threshold=cam.threshold if using_jumbo else None,
                                       index_scale=JUMBO_MODEL_SCALES[0])
    jumbo = sure_counts(rec, frame, width, JUMBO_MODEL_SCALES)
    near = cam.index_scale if using_jumbo else JUMBO_MODEL_SCALES[1]  # ties: the configured, else the middle
    j_best = max(jumbo, key=lambda s: (jumbo[s], -abs(s - near)))
    large = {s: n for s, n in standard.items() if s >= JUMBO_MODEL_SCALES[0]}
    small = {s: n for s, n in standard.items() if s <= 1.0}
    s_large = max(large, key=lambda s: (large[s], -s), default=None)
    s_small = max(small, key=lambda s: (small[s], s), default=None)
    if s_large is None or s_small is None:
        return None
    each = ", ".join(f"{n} at {s:g}" for s, n in jumbo.items())
    what = (f"model: cards read sure at {width:.0f} px with {JUMBO_MODEL}: {each}; with the standard model "
            f"{small[s_small]} at {s_small:g}, {large[s_large]} at {s_large:g}")
    jumbo_deck = large[s_large] >= max(small[s_small] + INDEX_SCALE_GAIN[0], small[s_small] * INDEX_SCALE_GAIN[1])
    if jumbo_deck and jumbo[j_best] >= large[s_large] and (not using_jumbo or j_best != cam.index_scale):
        return (f"{what}: set model = \"{JUMBO_MODEL}\" and index_scale = {j_best:g} in [camera] (the deck prints "
                f"a jumbo index)")
    if using_jumbo and not jumbo_deck and small[s_small] >= jumbo[j_best]:
        return (f"{what}: set model = \"models/card_index.onnx\" and index_scale = {s_small:g} in [camera] (the "
                f"deck prints a standard index)")
    return f"{what}; keep camera.model as it is"


def zone_width_report(cam, cards: list[tuple[tuple[float, float], float]]) -> list[str]:  # type: ignore[no-untyped-def]
    """One line for each seat zone whose whole cards in view (``cards``: centre and width) measure
    more than :data:`WIDTH_CHECK` off the width it is read at (its own ``card_width``, else the
    camera's): an angled camera sees near seats' cards larger and far ones' smaller, and the
    line gives the width to set in that zone."""
    import statistics

    lines = []
    for z in cam.zones:
        mine = [w for (x, y), w in cards if z.contains(x, y)]
        width = z.card_width or cam.card_width
        if not mine or width is None:
            continue
        measured = statistics.median(mine)
        if abs(measured / width - 1.0) > WIDTH_CHECK:
            n = f"{len(mine)} whole card{'s' if len(mine) > 1 else ''} in view measure{'' if len(mine) > 1 else 's'}"
            own = "its own card_width" if z.card_width else "camera.card_width"
            lines.append(f"seat {z.seat}: {n} {measured:.0f} px against {width:g} px ({own}): set card_width = "
                         f"{measured:.0f} in this seat's zone")
    return lines


def zone_focus_report(frame, cam) -> list[str]:  # type: ignore[no-untyped-def]
    """One line for each seat zone whose card edges measure out of focus (:mod:`vision.focus`): a
    camera looking at the table at an angle may hold the near seats in focus and not the far ones,
    and there the body checks raise no read."""
    from vision import detect, focus

    h, w = frame.shape[:2]
    lines = []
    for z in cam.zones:
        x, y, rw, rh = z.bounds(w, h)
        if not rw or not rh:
            continue
        width = z.card_width or cam.card_width
        edge = detect.card_masks(frame[y : y + rh, x : x + rw], width).edge_width()
        if focus.blurred(edge, width):
            lines.append(f"seat {z.seat}: {focus.line(edge, width)} on this seat")
    return lines


def card_width_report(frame, configured: float | None,  # type: ignore[no-untyped-def]
                      widths: list[float] | None = None, what: str = "whole card") -> str:
    """One line for the installer on ``camera.card_width``: the configured width against what the
    whole cards in view measure (``widths``, measured from ``frame`` when not given), or the width
    to set. ``what``: what measured ``widths`` (``vision calibrate`` falls back on the cards read
    at both index corners, :func:`vision.recognize.implied_cards`, where no card lies on its own)."""
    import numpy as np

    if widths is None:
        widths = _whole_card_widths(frame)
    if not widths:
        if configured is None:
            return ("card width: not configured (camera.card_width), and no whole card in view to measure: lay one "
                    "card down on its own, calibrate again and set the width it gives")
        return f"card width: {configured:g} px configured; no whole card in view to check it against"
    measured = float(np.median(widths))
    many = len(widths) > 1
    noun = what.replace("card", "cards", 1) if many else what
    seen = f"{len(widths)} {noun} in view measure{'' if many else 's'}"
    if configured is None:
        return (f"card width: not configured (camera.card_width); {seen} {measured:.0f} px: set card_width = "
                f"{measured:.0f} (measured per frame otherwise, and each frame's measure can be off)")
    if abs(measured / configured - 1.0) > WIDTH_CHECK:
        return (f"card width: {configured:g} px configured, but {seen} {measured:.0f} px: check camera.card_width "
                f"(the index classifier refuses crops more than about {WIDTH_CHECK:.0%} off scale)")
    return f"card width: {configured:g} px configured; {seen} {measured:.0f} px"


def resolution_report(configured: float | None, widths: list[float]) -> str:
    """One line for the installer on the camera's resolution (:mod:`vision.resolution`): what the
    shipped models read of cards as wide as ``camera.card_width`` (or, not configured, as the
    whole cards in view measure), and the width the seen-deck target needs."""
    import statistics

    from vision import resolution

    if configured is not None:
        return resolution.line(configured, "configured")
    return resolution.line(statistics.median(widths) if widths else None, "measured")


def felt_report(frame) -> str:  # type: ignore[no-untyped-def]
    """One line for the installer on the felt (:func:`vision.detect.felt_stats`): a coloured felt,
    whose hue tells it from the cards, a grey or black one, told from them by brightness, or a white
    or cream one (:data:`vision.detect.LIGHT_FELT_V`), where the cards are told by their edges.

    >>> import numpy as np
    >>> felt_report(np.full((40, 40, 3), (228, 230, 232), np.uint8))[:39]
    'felt: light (saturation 4, value 232 of'
    """
    from vision import detect

    h, s, v = detect.felt_stats(frame)
    if s < detect.NEUTRAL_FELT_SAT and v > detect.LIGHT_FELT_V:
        return (f"felt: light (saturation {s:.0f}, value {v:.0f} of 255): card stock is told from it by the "
                "edges round each card; a darker cloth reads small cards better")
    if s < detect.NEUTRAL_FELT_SAT:
        return (f"felt: grey or black (saturation {s:.0f}, value {v:.0f} of 255): card stock is told from it "
                "by brightness")
    return f"felt: coloured (hue {2 * h:.0f} degrees, saturation {s:.0f}, value {v:.0f} of 255)"


def light_report(frame) -> str:  # type: ignore[no-untyped-def]
    """One line for the installer on the light's colour over the card stock (:mod:`vision.light`)."""
    from vision import light

    paper = light.paper_colour(frame)
    if paper is None:
        return "light: no card stock in view to measure"
    cast = light.cast_of(paper)
    b, g, r = (int(round(v)) for v in paper)
    if cast < light.MIN_CAST:
        return f"light: white (card stock BGR {b},{g},{r}, cast {cast:.2f})"
    if not light.corrected(cast):
        return f"light: the brightest stock-like colour (BGR {b},{g},{r}) is too coloured to be card stock; nothing corrected"
    tint = "warm" if r >= b else "cold"
    return (f"light: {tint} (card stock BGR {b},{g},{r}, cast {cast:.2f}): corrected before reading; "
            "setting the camera's white balance saves the correction's time")


def cmd_render(args) -> int:
    import cv2
    import numpy as np

    from vision import render

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    decks = render.UNSEEN_DECKS if args.unseen else render.TRAIN_DECKS
    for i in range(args.count):
        rng = np.random.default_rng([args.seed, i])
        scene = render.render_table(rng, decks) if args.table else render.render_scene(rng, decks)
        name = f"scene_{args.seed}_{i:04d}"
        cv2.imwrite(str(out / f"{name}.png"), scene.image)
        labels = {"card_width": scene.card_width, "cards": [
            {"card": c.card, "face_up": c.face_up, "seat": c.seat, "deck": c.deck,
             "corners": [list(p) for p in c.corners], "index_visible": list(c.index_visible),
             "readable": c.readable} for c in scene.cards]}
        (out / f"{name}.json").write_text(json.dumps(labels, indent=1))
    print(f"wrote {args.count} scenes to {out}")
    return 0


def cmd_demo_feed(args) -> int:
    from vision.demo import write_demo_feed

    path = write_demo_feed(pathlib.Path(args.out), hands=args.hands, fps=args.fps, seed=args.seed)
    print(f"wrote {path}")
    return 0

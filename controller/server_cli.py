"""``cardroom serve --config FILE`` and ``cardroom demo``: the controller running, pages on 127.0.0.1."""

from __future__ import annotations

import argparse
import os
import pathlib
import secrets
import sys
import tempfile
import threading
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    s = sub.add_parser("serve", help="run the controller on a table's hardware (reader, cameras, web)",
                       description="Run the table from its configuration: the event log, the reader "
                       "on its port (the simulator when the file says port = \"sim\"), the cameras on "
                       "their source and the web server with the dealer, surveillance and broadcast pages.")
    s.add_argument("--config", required=True, metavar="FILE", help="the table file (config/table.toml)")
    s.add_argument("--no-camera", action="store_true", help="run without the cameras")
    s.set_defaults(func=run_serve)

    d = sub.add_parser("demo", help="run everything on simulated hardware and play scripted hands",
                       description="Start the reader simulator on a pseudo-terminal, the rendered camera, "
                       "an SQLite log, the table and the web server on 127.0.0.1:8000, and play scripted "
                       "hands on a loop (a three-way all-in with two side pots, an Omaha hi/lo split "
                       "with an odd chip, a stud hand, a hand won without a showdown, a covered card).")
    d.add_argument("--port", type=int, default=8000, help="web port on 127.0.0.1 (default 8000)")
    d.add_argument("--dir", default="var/demo", help="folder for the demo's log and pty (default var/demo)")
    d.add_argument("--hands", type=int, default=None, help="stop after N hands (default: loop forever)")
    d.add_argument("--pause", type=float, default=1.0, help="seconds between the dealer's entries")
    d.add_argument("--delay", type=float, default=20.0, help="broadcast secure delay in seconds (default 20)")
    d.add_argument("--no-camera", action="store_true", help="run without the camera")
    d.add_argument("--fresh", action="store_true", help="start a new log instead of continuing the last one")
    d.add_argument("--stay", action="store_true", help="with --hands: keep serving the pages afterwards")
    d.set_defaults(func=run_demo)


def _tokens(cfg: Any) -> dict[str, str]:
    return {r: cfg.token(r) for r in ("dealer", "surveillance", "broadcast")}


def _print_addresses(host: str, port: int, tokens: dict[str, str]) -> None:
    base = f"http://{host}:{port}"
    print(f"dealer screen and console: {base}/dealer?token={tokens['dealer']}")
    print(f"surveillance:              {base}/surveillance?token={tokens['surveillance']}")
    print(f"broadcast overlay:         {base}/overlay?token={tokens['broadcast']}")
    print(f"API (OpenAPI):             {base}/api/v1/openapi.json  (Authorization: Bearer <token>)")
    sys.stdout.flush()


def _cameras(cfg: Any, base: pathlib.Path, service: Any, where: str) -> list[Any]:
    """A camera link for each camera of the table file (``[camera]`` or every ``[[cameras]]``), each
    with its own recogniser at its own card width, after saying what each reads (a ``ConfigError``
    naming the key of a camera that does not validate)."""
    from controller.runtime import CameraLink
    from vision import resolution
    from vision.config import cameras_in
    from vision.recognize import OnnxRecognizer

    cameras = cameras_in(cfg.camera_data(), where)
    links = []
    for _, cam in cameras:
        # one camera keeps the lines it always had; several are told apart by name
        said = "camera" if len(cameras) == 1 else f"camera {cam.name}"
        model = pathlib.Path(cam.model)
        if not model.is_absolute():
            model = base / model
        rec = OnnxRecognizer(model, card_width=cam.card_width, index_scale=cam.index_scale)
        link = CameraLink(service, cam, rec)
        # what the shipped models read at the configured widths: the operator sees at start whether the
        # camera is close enough for the read-rate target (vision.resolution)
        print(f"{said}: {resolution.line(cam.card_width)}")
        if cam.index_scale != 1.0:  # a deck printing a larger (or smaller) index than the trained decks
            print(f"{said}: index_scale {cam.index_scale:g}: cards read at {cam.index_scale:g} times their width "
                  f"and placed at it")
        if link.recognizer.index_scales is not None:  # the jumbo-index model: right for such decks only
            print(f"{said}: {model.name} reads decks that print a jumbo index, and misreads standard decks "
                  f"(`cardroom vision calibrate` says which the table deals)")
        for z in cam.zones:  # a seat zone of its own card width
            if z.card_width is not None:
                print(f"{said} seat {z.seat}: {resolution.line(z.card_width)}")
        links.append(link)
    return links


def run_serve(args: argparse.Namespace) -> int:
    from controller.config import ConfigError, load_config
    from controller.eventlog import LogError
    from controller.runtime import CameraRunner, open_service
    from controller.server.app import create_app, run_server
    from firmware_bridge.table_sink import ReaderRunner

    base = pathlib.Path.cwd()
    try:
        cfg = load_config(args.config, base_dir=base)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    try:
        service = open_service(cfg, base)
    except LogError as exc:
        print(f"cardroom serve: {exc}", file=sys.stderr)
        return 2
    links = []
    if cfg.has_cameras and not args.no_camera:
        try:  # before anything starts: a camera model that cannot run is a configuration error
            links = _cameras(cfg, base, service, args.config)
        except (OSError, ValueError) as exc:
            print(f"cardroom serve: camera: {exc}", file=sys.stderr)
            service.close()
            return 2
    sim = None
    port = cfg.reader.port
    if port == "sim":
        sim, port = _start_simulator(base / "var", cfg.deck_paths(base))
    reader = ReaderRunner(service, port, cfg.deck_paths(base), leave_after=cfg.reader.leave_after).start()
    cameras = []
    for link in links:
        source = link.camera.source
        if not (source.isdigit() or "://" in source or pathlib.Path(source).is_absolute()):
            source = str(base / source)
        cameras.append(CameraRunner(link, source).start())
    tokens = _tokens(cfg)
    if cfg.generated_tokens:
        print("demo mode: generated tokens (never on a real table)")
    _print_addresses(cfg.server.host, cfg.server.port, tokens)
    try:
        run_server(create_app(service, tokens=tokens), cfg.server.host, cfg.server.port)
    finally:
        reader.stop()
        for camera in cameras:
            camera.stop()
        if sim is not None:
            sim.stop()
        service.close()
    return 0


def _start_simulator(folder: pathlib.Path, decks: list[pathlib.Path]) -> tuple[Any, str]:
    from firmware_bridge.deck import load_deck
    from firmware_bridge.simulator import Simulator
    from firmware_bridge.transport import PtyDevice

    folder.mkdir(parents=True, exist_ok=True)
    link = tempfile.mkdtemp(prefix="cardroom-reader-") + "/reader0"
    sim = Simulator(PtyDevice(link), deck=load_deck(decks[0])).start()
    print(f"reader simulator on {sim.address}")
    return sim, sim.address


def demo_config(folder: pathlib.Path, port: int, delay: float, tokens: dict[str, str]) -> pathlib.Path:
    """Write the demo's table file (the example file with the demo's log, port, delay and tokens)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    text = (root / "config" / "table.toml").read_text(encoding="utf-8")
    text = text.replace('database = "var/table.db"', f'database = "{(folder / "table.db").as_posix()}"')
    text = text.replace("delay_seconds = 1800", f"delay_seconds = {delay}")
    text = text.replace("port = 8000", f"port = {port}")
    text = text.replace('decks = ["config/deck-A.csv"]', f'decks = ["{(root / "config" / "deck-A.csv").as_posix()}"]')
    text = text.replace('model = "models/card_index.onnx"', f'model = "{(root / "models" / "card_index.onnx").as_posix()}"')
    text = text.replace('source = "config/demo_feed.mp4"', f'source = "{(root / "config" / "demo_feed.mp4").as_posix()}"')
    body = "\n".join(f'{role} = "{tok}"' for role, tok in tokens.items())
    text = text.replace("[tokens]\n", f"[tokens]\n{body}\n", 1)
    path = folder / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_demo(args: argparse.Namespace) -> int:
    from controller.config import load_config
    from controller.runtime import DemoDealer, open_service
    from controller.server.app import create_app, run_server
    from firmware_bridge.table_sink import ReaderRunner

    folder = pathlib.Path(args.dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if args.fresh and (folder / "table.db").exists():
        for suffix in ("", "-wal", "-shm"):
            p = folder / f"table.db{suffix}"
            if p.exists():
                p.unlink()
    tokens = {r: os.environ.get(f"CARDROOM_{r.upper()}_TOKEN") or f"demo-{r}-{secrets.token_urlsafe(12)}"
              for r in ("dealer", "surveillance", "broadcast")}
    cfg_path = demo_config(folder, args.port, args.delay, tokens)
    cfg = load_config(cfg_path, base_dir=folder)
    service = open_service(cfg, folder)
    sim, address = _start_simulator(folder, cfg.deck_paths(folder))
    reader = ReaderRunner(service, address, cfg.deck_paths(folder), leave_after=cfg.reader.leave_after).start()
    links = [] if args.no_camera or not cfg.has_cameras else _cameras(cfg, folder, service, str(cfg_path))
    link = links[0] if links else None  # the demo's table file has one camera
    dealer = DemoDealer(service, sim, camera_link=link, pause=args.pause)
    print(f"event log: {cfg.database_path(folder)}   table file: {cfg_path}")
    print(f"broadcast delay: {args.delay:g} s (a real table uses 1800)")
    _print_addresses("127.0.0.1", args.port, tokens)
    app = create_app(service, tokens=tokens)
    server = threading.Thread(target=run_server, args=(app, "127.0.0.1", args.port),
                              kwargs={"log_level": "warning"}, daemon=True)
    server.start()
    try:
        dealer.run(args.hands)
        print(f"demo: {dealer.hands_done} hand(s) played", flush=True)
        if args.stay:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        dealer.stop()
        reader.stop()
        sim.stop()
        service.close()
    return 0

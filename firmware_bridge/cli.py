"""``cardroom reader ...`` subcommands: ``simulate``, ``listen``, ``make-decks``.

``cardroom reader simulate --pty [--link PATH] [--deck DECK.csv] [--script FILE]`` runs the reader's
firmware on a pseudo-terminal and prints the path to open (a stable symlink that survives ``unplug``)
on its first stdout line; ``--tcp PORT`` serves TCP instead and prints ``socket://127.0.0.1:PORT``.
Steps (see :mod:`firmware_bridge.simulator`) come from ``--script`` then stdin, one per line; end of
stdin quits unless ``--no-stdin``.

``cardroom reader listen --port PORT --deck DECK.csv --json`` prints one JSON object per line: card
events and alerts. Each batch is printed and flushed before the reader is acknowledged.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from firmware_bridge.records import Alert, CardSighting, Record
from firmware_bridge.sinks import EventSink, JsonLinesSink


def register(subparsers: Any) -> None:
    """Add ``reader`` and its subcommands to the ``cardroom`` parser."""
    reader = subparsers.add_parser("reader", help="RFID table reader: simulate it, listen to it")
    sub = reader.add_subparsers(dest="reader_command", metavar="SUBCOMMAND")
    sub.required = True

    sim = sub.add_parser("simulate", help="run the reader's firmware on a pseudo-terminal or TCP port")
    where = sim.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal (prints its path)")
    where.add_argument("--tcp", type=int, metavar="PORT", help="serve on TCP PORT (0: any free port)")
    sim.add_argument("--link", metavar="PATH", help="stable symlink to the pty (default: in a temporary folder)")
    sim.add_argument("--deck", metavar="CSV", help="deck whose cards the script names")
    sim.add_argument("--script", metavar="FILE", help="steps to run first")
    sim.add_argument("--seed", type=int, default=0, help="seed for shuffles and garbage")
    sim.add_argument("--step-delay", type=float, default=0.02, help="seconds between a card's moves")
    sim.add_argument("--first-seq", type=int, default=1, help="seq of the first event (e.g. 65530 to test wrap-around)")
    sim.add_argument("--device-id", default="43415244534D3031", help="8-byte device id, hex")
    sim.add_argument("--no-stdin", action="store_true", help="do not read steps from stdin")
    sim.add_argument("--exit-when-done", action="store_true", help="quit once the script has run")
    sim.set_defaults(func=_simulate)

    listen = sub.add_parser("listen", help="print card events and alerts from a reader")
    listen.add_argument("--port", required=True, help="device path or pyserial URL (socket://, loop://)")
    listen.add_argument("--deck", action="append", required=True, metavar="CSV", help="active deck (repeatable)")
    listen.add_argument("--json", action="store_true", help="one JSON object per line")
    listen.add_argument("--leave-after", type=float, default=0.3, help="seconds unseen before a card leaves")
    listen.add_argument("--heartbeat-timeout", type=float, default=3.0, help="seconds without heartbeat: offline")
    listen.add_argument("--duration", type=float, help="stop after this many seconds")
    listen.add_argument("--stats", action="store_true", help="print counters to stderr at exit")
    listen.set_defaults(func=_listen)

    decks = sub.add_parser("make-decks", help="write deterministic example decks deck-A.csv, deck-B.csv")
    decks.add_argument("directory", nargs="?", default="config")
    decks.add_argument("--names", default="A,B", help="comma-separated deck names")
    decks.set_defaults(func=_make_decks)


class TextSink(EventSink):
    """Human-readable lines, flushed before returning."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def store(self, records: Sequence[Record], ack_seq: int | None = None) -> None:
        if not records:
            return
        for r in records:
            if isinstance(r, CardSighting):
                self.stream.write(f"#{r.seq} {r.card} {r.event} {r.place}\n")
            elif isinstance(r, Alert):
                rest = " ".join(f"{k}={v}" for k, v in r.detail.items())
                self.stream.write(f"ALERT {r.kind} {rest}\n")
        self.stream.flush()


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def _listen(args: argparse.Namespace) -> int:
    from firmware_bridge.deck import DeckError, DeckRegistry, load_deck
    from firmware_bridge.delivery import ReaderBridge
    from firmware_bridge.transport import open_transport

    try:
        registry = DeckRegistry(load_deck(p) for p in args.deck)
    except (DeckError, OSError) as exc:
        print(f"cardroom reader listen: {exc}", file=sys.stderr)
        return 2
    sink: EventSink = JsonLinesSink(sys.stdout) if args.json else TextSink(sys.stdout)
    bridge = ReaderBridge(
        open_transport(args.port),
        sink,
        registry,
        leave_after=args.leave_after,
        heartbeat_timeout=args.heartbeat_timeout,
    )
    stop = threading.Event()
    _stop_on_signals(stop)
    end = None if args.duration is None else time.monotonic() + args.duration
    announced = False
    try:
        while not stop.is_set() and (end is None or time.monotonic() < end):
            bridge.step()
            if not announced and bridge.hello is not None:
                # Tell the installer (and scripts) the link is up; JSON lines stay on stdout.
                h = bridge.hello
                print(f"connected: reader {h.device_id.hex().upper()} firmware {h.fw_version}, "
                      f"{h.antenna_count} antennas, last seq {h.last_seq}", file=sys.stderr, flush=True)
                announced = True
    finally:
        bridge.close()
        if args.stats:
            print(json.dumps(bridge.info()), file=sys.stderr)
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from firmware_bridge.deck import DeckError, load_deck
    from firmware_bridge.simulator import Firmware, Simulator
    from firmware_bridge.transport import DeviceEndpoint, PtyDevice, TcpDevice

    try:
        deck = load_deck(args.deck) if args.deck else None
    except (DeckError, OSError) as exc:
        print(f"cardroom reader simulate: {exc}", file=sys.stderr)
        return 2
    tmpdir = None
    endpoint: DeviceEndpoint
    if args.pty:
        link = args.link
        if link is None:
            tmpdir = tempfile.mkdtemp(prefix="cardroom-reader-")
            link = str(pathlib.Path(tmpdir) / "reader0")
        endpoint = PtyDevice(link)
    else:
        endpoint = TcpDevice(args.tcp)
    firmware = Firmware(device_id=bytes.fromhex(args.device_id), first_seq=args.first_seq)
    sim = Simulator(endpoint, firmware, deck, seed=args.seed, step_delay=args.step_delay)
    stop = threading.Event()
    _stop_on_signals(stop)
    try:
        sim.start()
        print(sim.address, flush=True)
        if args.script:
            sim.run_script(pathlib.Path(args.script).read_text(encoding="utf-8"))
        if not args.no_stdin:
            threading.Thread(target=_feed_stdin, args=(sim, stop), daemon=True).start()
        while not stop.is_set() and not sim.quit.is_set():
            if args.exit_when_done and sim.wait_idle(0):
                time.sleep(0.05)  # let the last frames go out
                break
            time.sleep(0.02)
    finally:
        sim.stop()
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
    return 1 if sim.errors and args.exit_when_done else 0


def _feed_stdin(sim: Any, stop: threading.Event) -> None:
    for line in sys.stdin:
        sim.submit(line)
    sim.submit("quit")  # end of stdin: the controlling process is gone


def _make_decks(args: argparse.Namespace) -> int:
    from firmware_bridge.deck import write_example_decks

    for path in write_example_decks(args.directory, [n for n in args.names.split(",") if n]):
        print(path)
    return 0

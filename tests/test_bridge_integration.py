"""End to end: the simulator as a separate process on a pseudo-terminal (or TCP), real pyserial."""

from __future__ import annotations

import collections
import json
import pathlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from firmware_bridge.deck import DeckRegistry, load_deck
from firmware_bridge.delivery import ReaderBridge
from firmware_bridge.records import AlertKind
from firmware_bridge.sinks import MemorySink
from firmware_bridge.transport import SerialTransport

REPO = pathlib.Path(__file__).resolve().parents[1]
DECK_PATH = REPO / "config" / "deck-A.csv"
DECK = load_deck(DECK_PATH)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

_procs: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def no_simulator_left_open() -> Iterator[None]:
    """Fail a test that leaves a simulator (or listener) process running."""
    yield
    leaked = [p for p in _procs if p.poll() is None]
    for p in leaked:
        p.kill()
        p.wait(5)
    _procs.clear()
    assert not leaked, f"{len(leaked)} process(es) left running"


def spawn(*args: str) -> subprocess.Popen[str]:
    p = subprocess.Popen(
        [sys.executable, "-m", "controller", "reader", *args],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    _procs.append(p)
    return p


def start_sim(*extra: str) -> tuple[subprocess.Popen[str], str]:
    p = spawn("simulate", "--deck", str(DECK_PATH), "--step-delay", "0.005", *extra)
    assert p.stdout is not None
    address = p.stdout.readline().strip()
    assert address, p.stderr.read() if p.stderr else ""
    return p, address


def stop(p: subprocess.Popen[str]) -> None:
    if p.poll() is None:
        try:
            p.stdin.write("quit\n")  # type: ignore[union-attr]
            p.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.terminate()
        p.wait(5)


def send(p: subprocess.Popen[str], *steps: str) -> None:
    p.stdin.write("".join(s + "\n" for s in steps))  # type: ignore[union-attr]
    p.stdin.flush()  # type: ignore[union-attr]


def wait_echo(p: subprocess.Popen[str], text: str, timeout: float = 20) -> None:
    done = threading.Event()

    def reader() -> None:
        for line in p.stdout:  # type: ignore[union-attr]
            if line.strip() == text:
                done.set()
                return

    threading.Thread(target=reader, daemon=True).start()
    assert done.wait(timeout), f"simulator never reached {text!r}"


class BridgeThread:
    def __init__(self, address: str, sink: MemorySink) -> None:
        self.bridge = ReaderBridge(
            SerialTransport(address), sink, DeckRegistry([DECK]), leave_after=0.15, backoff=(0.05, 0.3)
        )
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.bridge.run(self.stop)
        except BaseException as exc:  # surfaced by close()
            self.error = exc

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.bridge.close()
        assert self.error is None, self.error


def assert_exactly_once(sink: MemorySink) -> None:
    keys = [(s.seq, s.event, s.uid, s.place) for s in sink.sightings()]
    assert not [k for k, n in collections.Counter(keys).items() if n > 1]
    where: dict[bytes, str] = {}
    for s in sink.sightings():
        if s.event == "enter":
            assert s.uid not in where
            where[s.uid] = s.place
        else:
            assert where.pop(s.uid) == s.place


def test_hands_through_noise_and_an_unplugged_cable_on_a_pty(tmp_path: pathlib.Path) -> None:
    sim, address = start_sim("--pty", "--link", str(tmp_path / "reader0"), "--first-seq", "65500")
    assert address == str(tmp_path / "reader0")
    sink = MemorySink()
    host = BridgeThread(address, sink)
    try:
        send(sim, "wait 0.3", "hand 1,2,3", "garbage 64", "badcrc 3", "dup 4", "drop 3",
             "deal As seat4", "deal Kd seat5", "unplug 0.8", "deal Qh seat6", "move As seat4 muck",
             "remove As muck", "deal 7c board", "dup 2", "drop 1",
             "move Kd seat5 muck", "move Qh seat6 muck", "move 7c board muck",
             "remove Kd muck", "remove Qh muck", "remove 7c muck", "wait 0.1", "echo done")
        wait_echo(sim, "done")
        assert sink.wait_for(lambda s: host.bridge.online and host.bridge.positions.placed() == {}
                             and not host.bridge._ahead and len(s.sightings()) >= 18 * 6, 10)
        time.sleep(0.6)  # any straggling resend would show up as a double now
    finally:
        host.close()
        stop(sim)
    assert_exactly_once(sink)
    # 18 cards dealt (6 hole cards, 3 burns, 5 board, then As Kd Qh 7c): each enters and leaves
    # the shoe, its place and the muck.
    assert len(sink.sightings()) == 18 * 6
    assert sink.alerts(AlertKind.READER_OFFLINE)[0].detail["reason"] == "link"
    assert sink.alerts(AlertKind.READER_ONLINE)
    assert not sink.alerts(AlertKind.EVENTS_LOST)
    info = host.bridge.info()
    # "dup" and "drop" may fall on heartbeats; corrupted frames are always counted.
    assert info["decoder_bad_crc"] >= 3 and info["connects"] >= 2
    assert any(s.seq is not None and s.seq < 100 for s in sink.sightings())  # wrapped past 65535


def test_overflow_and_tamper_become_alerts(tmp_path: pathlib.Path) -> None:
    sim, address = start_sim("--pty", "--link", str(tmp_path / "reader0"))
    sink = MemorySink()
    host = BridgeThread(address, sink)
    try:
        send(sim, "wait 0.3", "deal As seat1", "overflow 30", "tamper", "echo done")
        wait_echo(sim, "done")
        assert sink.wait_for(lambda s: bool(s.alerts(AlertKind.TAMPER)) and any("count" in a.detail for a in s.alerts(AlertKind.EVENTS_LOST)), 10)
    finally:
        host.close()
        stop(sim)
    lost = [a for a in sink.alerts(AlertKind.EVENTS_LOST) if "count" in a.detail]
    assert lost[0].detail["count"] >= 30
    assert_exactly_once(sink)


def test_listen_command_prints_json_lines_over_tcp() -> None:
    sim, address = start_sim("--tcp", "0", "--seed", "3")
    assert address.startswith("socket://127.0.0.1:")
    listen = spawn("listen", "--port", address, "--deck", str(DECK_PATH), "--json", "--duration", "4",
                   "--leave-after", "0.1")
    try:
        # Deal only once the listener has its HELLO: events before that are history to it.
        first = listen.stderr.readline()
        assert first.startswith("connected: reader "), first
        send(sim, "hand 1,2", "foreign 0102030405060708 board")
        out, err = listen.communicate(timeout=20)
    finally:
        stop(sim)
        if listen.poll() is None:
            listen.kill()
            listen.wait(5)
    rows = [json.loads(line) for line in out.splitlines()]
    cards = [r for r in rows if "event" in r]
    assert len(cards) == 12 * 6  # 4 hole cards, 3 burns, 5 board: shoe, place, muck in and out
    assert all(set(r) == {"seq", "event", "card", "place", "antenna", "uid"} for r in cards)
    assert {r["place"] for r in cards} == {"shoe", "seat1", "seat2", "burn", "board", "muck"}
    assert [r for r in rows if r.get("alert") == "foreign_tag"][0]["uid"] == "0102030405060708"

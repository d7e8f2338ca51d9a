"""A table reader in software: the firmware's behaviour (``PROTOCOL.md``) on a pty, TCP or in memory.

:class:`Firmware` is the device, pure and clock-driven: event counter, ring buffer of 1024
unacknowledged events with the 500 ms resend timer, HELLO at power-up and on HELLO_REQ, INVENTORY,
HEARTBEAT every second, FAULT and the heartbeat flags. :class:`Simulator` runs a firmware on a
:class:`~firmware_bridge.transport.DeviceEndpoint` in a thread, executes script steps (scripted
hands and fault injection) and damages outgoing frames on demand.

In process::

    sim = Simulator(PtyDevice(link), deck=load_deck("config/deck-A.csv")).start()
    sim.submit("hand 1,2,3")          # or sim.run_script(text)
    ...                               # a host opens sim.address
    sim.stop()

As a process: ``cardroom reader simulate --pty --deck config/deck-A.csv`` prints the path to open
on its first line and reads steps from stdin (and ``--script FILE``).

Script steps, one per line (``#`` starts a comment)::

    wait S                  pause the script
    place CARD PLACE        a tag appears on an antenna (TAG_ENTER); PLACE: shoe seat1..seat10 board muck burn
    remove CARD PLACE       it leaves (TAG_LEAVE)
    reread CARD PLACE       a repeat read of a resting tag (TAG_ENTER again)
    move CARD FROM TO       enter TO, then leave FROM (a moment on both antennas)
    deal CARD PLACE         draw from the shoe to PLACE
    hand SEATS [BOARD]      deal a hand: 2 cards per seat (e.g. 1,2,3), burn + flop, burn + turn,
                            burn + river (BOARD cards, default 5), then everything to the muck and away
    foreign UIDHEX PLACE    an unregistered tag appears
    garbage N | badcrc N | drop N | dup N     damage the next N bytes/frames on the wire
    unplug [S] | replug     pull the cable (for S seconds)
    overflow N              while unplugged, RING + N events overflow the buffer (events lost)
    deaf S                  ignore the host for S seconds (acknowledgements withheld: resends)
    tamper | fault CODE [ANTENNA] [TEXT] | clear | reboot
    echo TEXT               print TEXT on stdout when reached (to synchronise a test)
    quit
"""

from __future__ import annotations

import collections
import dataclasses
import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import IO

from controller.cards import Card
from firmware_bridge.codec import (
    HEARTBEAT_ANTENNA_FAULT,
    HEARTBEAT_OVERFLOW,
    HEARTBEAT_TAMPER,
    NO_ANTENNA,
    SEQ_MOD,
    AckEvents,
    CmdAck,
    CmdStatus,
    Decoder,
    Fault,
    FaultCode,
    Hello,
    HelloReq,
    Heartbeat,
    Inventory,
    Message,
    TagEnter,
    TagLeave,
    encode,
    seq_diff,
)
from firmware_bridge.deck import Deck
from firmware_bridge.records import BOARD, BURN, MUCK, SHOE, antenna_of
from firmware_bridge.transport import DeviceEndpoint, MemoryTransport, TransportError, _Pipe, register_backend


class Firmware:
    """The reader's firmware, driven by :meth:`receive` (host bytes) and :meth:`tick` (time).

    Outgoing frames accumulate until :meth:`take_output`. Physical actions: :meth:`place`,
    :meth:`remove`, :meth:`reread`, :meth:`fault`, :meth:`reboot`.
    """

    def __init__(
        self,
        *,
        device_id: bytes = b"CARDSIM1",
        antenna_count: int = 14,
        fw_version: str = "sim-1.0",
        clock: Callable[[], float] = time.monotonic,
        ring_size: int = 1024,
        resend_after: float = 0.5,
        heartbeat_every: float = 1.0,
        first_seq: int = 1,
    ) -> None:
        self.device_id = device_id
        self.antenna_count = antenna_count
        self.fw_version = fw_version
        self.clock = clock
        self.ring_size = ring_size
        self.resend_after = resend_after
        self.heartbeat_every = heartbeat_every
        self.tags: dict[int, dict[bytes, None]] = {a: {} for a in range(antenna_count)}
        """Tags lying on each antenna (insertion-ordered)."""
        self.deaf_until = 0.0
        """Host frames are ignored until this time (acknowledgements withheld)."""
        self.stats: collections.Counter[str] = collections.Counter()
        self._first_seq = first_seq
        self._decoder = Decoder()
        self._out: list[bytes] = []
        self._boot(first_seq)

    def _boot(self, first_seq: int) -> None:
        self.boot_time = self.clock()
        self.counter = (first_seq - 1) % SEQ_MOD
        """Seq of the newest event issued."""
        self.last_acked = self.counter
        self.ring: collections.deque[tuple[int, bytes]] = collections.deque()
        self.flags = 0
        self._timer_start: float | None = None
        self._next_heartbeat = self.boot_time + self.heartbeat_every
        self._send(self._hello())

    # --- host side -------------------------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host."""
        for msg in self._decoder.feed(data):
            if self.clock() < self.deaf_until:
                self.stats["ignored"] += 1
                continue
            self._command(msg)

    def _command(self, msg: Message) -> None:
        if isinstance(msg, AckEvents):
            self.stats["acks"] += 1
            up = msg.up_to_seq
            if seq_diff(up, self.counter) > 0:
                self._send(CmdAck(msg.seq, CmdStatus.BAD_ARGUMENT))
                return
            if seq_diff(up, self.last_acked) > 0:
                self.last_acked = up
                while self.ring and seq_diff(self.ring[0][0], up) <= 0:
                    self.ring.popleft()
                self._timer_start = self.clock() if self.ring else None
                if not self.ring:
                    self.flags &= ~HEARTBEAT_OVERFLOW
            self._send(CmdAck(msg.seq, CmdStatus.DONE))
        elif isinstance(msg, HelloReq):
            self._send(self._hello())
            self._resend()
            self._send(CmdAck(msg.seq, CmdStatus.DONE))
        elif isinstance(msg, Inventory):
            if msg.antenna != NO_ANTENNA and msg.antenna >= self.antenna_count:
                self._send(CmdAck(msg.seq, CmdStatus.BAD_ARGUMENT))
                return
            antennas = range(self.antenna_count) if msg.antenna == NO_ANTENNA else [msg.antenna]
            for a in antennas:
                for uid in list(self.tags[a]):
                    self._event(TagEnter(a, uid, -45, self.uptime_ms()))
            self._send(CmdAck(msg.seq, CmdStatus.DONE))
        elif msg.TYPE >= 0x80:  # pragma: no cover - every host type is handled above
            self._send(CmdAck(msg.seq, CmdStatus.UNKNOWN_COMMAND))
        else:
            self.stats["ignored"] += 1  # a device message sent to us: not a command

    # --- time ------------------------------------------------------------------------------------

    def uptime_ms(self) -> int:
        """Milliseconds since boot, as a u32."""
        return int((self.clock() - self.boot_time) * 1000) & 0xFFFFFFFF

    def tick(self) -> None:
        """Send the heartbeat and resend unacknowledged events when they are due."""
        now = self.clock()
        if now >= self._next_heartbeat:
            self._send(Heartbeat(self.uptime_ms(), self.flags))
            self._next_heartbeat += self.heartbeat_every
            if self._next_heartbeat <= now:
                self._next_heartbeat = now + self.heartbeat_every
        if self.ring and self._timer_start is not None and now - self._timer_start >= self.resend_after:
            self._resend()

    def take_output(self) -> list[bytes]:
        """Frames produced since the last call."""
        out, self._out = self._out, []
        return out

    # --- physical world --------------------------------------------------------------------------

    def place(self, antenna: int, uid: bytes, rssi: int = -45) -> None:
        """A tag comes within range of ``antenna``."""
        self.tags[antenna][uid] = None
        self._event(TagEnter(antenna, uid, rssi, self.uptime_ms()))

    def reread(self, antenna: int, uid: bytes, rssi: int = -47) -> None:
        """The reader reports a resting tag again."""
        self.tags[antenna][uid] = None
        self._event(TagEnter(antenna, uid, rssi, self.uptime_ms()))

    def remove(self, antenna: int, uid: bytes) -> None:
        """A tag leaves ``antenna``'s range (ignored if it was not there)."""
        if self.tags[antenna].pop(uid, 0) is None:
            self._event(TagLeave(antenna, uid, self.uptime_ms()))

    def fault(self, code: int, antenna: int = NO_ANTENNA, text: str = "") -> None:
        """Raise a FAULT event (and its heartbeat flag for codes 1 and 4)."""
        if code == FaultCode.ANTENNA_OPEN:
            self.flags |= HEARTBEAT_ANTENNA_FAULT
        elif code == FaultCode.TAMPER:
            self.flags |= HEARTBEAT_TAMPER
        if not text:
            text = FaultCode(code).name.lower() if code in {c.value for c in FaultCode} else f"fault {code}"
        self._event(Fault(code, antenna, text))

    def clear_flags(self) -> None:
        """Clear the antenna-fault and tamper flags (a technician closed the case)."""
        self.flags &= ~(HEARTBEAT_ANTENNA_FAULT | HEARTBEAT_TAMPER)

    def reboot(self) -> None:
        """Power cycle: the buffer and counter start over; the tags stay where they lie."""
        self.stats["reboots"] += 1
        self._out.clear()
        self._boot(self._first_seq)

    # --- internals -------------------------------------------------------------------------------

    def _hello(self) -> Hello:
        return Hello(1, self.device_id, self.antenna_count, self.counter, self.fw_version)

    def _send(self, msg: Message) -> None:
        self._out.append(encode(msg))

    def _event(self, msg: TagEnter | TagLeave | Fault) -> None:
        if len(self.ring) >= self.ring_size:
            self.ring.popleft()
            self.stats["lost"] += 1
            if not self.flags & HEARTBEAT_OVERFLOW:
                self.flags |= HEARTBEAT_OVERFLOW
                self._push(Fault(FaultCode.BUFFER_OVERFLOW, NO_ANTENNA, "event buffer overflow"))
        self._push(msg)

    def _push(self, msg: TagEnter | TagLeave | Fault) -> None:
        if len(self.ring) >= self.ring_size:
            self.ring.popleft()
            self.stats["lost"] += 1
        self.counter = (self.counter + 1) % SEQ_MOD
        frame = encode(dataclasses.replace(msg, seq=self.counter))
        self.ring.append((self.counter, frame))
        self.stats["events"] += 1
        if self._timer_start is None:
            self._timer_start = self.clock()
        self._out.append(frame)

    def _resend(self) -> None:
        self.stats["resends"] += 1
        self._out.extend(frame for _, frame in self.ring)
        self._timer_start = self.clock()


NOISE_TAG = b"\xff" * 8
"""UID of the foreign tag the ``overflow`` step reads when no tag lies on the table."""


class LinkFaults:
    """Damage applied to outgoing frames: drop, duplicate, corrupt the CRC, insert garbage."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.drop = 0
        self.dup = 0
        self.corrupt = 0
        self.garbage = 0
        self.applied: collections.Counter[str] = collections.Counter()

    def apply(self, frames: Iterable[bytes]) -> bytes:
        """The bytes to put on the wire for ``frames``."""
        out = bytearray()
        if self.garbage:
            out += bytes(self.rng.randrange(256) for _ in range(self.garbage))
            self.applied["garbage_bytes"] += self.garbage
            self.garbage = 0
        for frame in frames:
            if self.drop:
                self.drop -= 1
                self.applied["dropped"] += 1
                continue
            if self.corrupt:
                self.corrupt -= 1
                self.applied["corrupted"] += 1
                # Flip a bit of the last CRC byte; avoid creating a flag or escape byte.
                b = bytearray(frame)
                i = len(b) - 2
                b[i] ^= 0x01
                if b[i] in (0x7E, 0x7D) or b[i - 1] == 0x7D:
                    b[i] ^= 0x03
                frame = bytes(b)
            out += frame
            if self.dup:
                self.dup -= 1
                self.applied["duplicated"] += 1
                out += frame
        return bytes(out)


class MemoryDevice(DeviceEndpoint):
    """Device end of an in-process link; :meth:`host` gives the host's transport."""

    name = "memory"

    def __init__(self) -> None:
        super().__init__()
        self._to_host, self._to_dev = _Pipe(), _Pipe()
        self.address = "sim"
        self._host = MemoryTransport(self._to_host, self._to_dev)
        self._dev = MemoryTransport(self._to_dev, self._to_host)

    def host(self) -> MemoryTransport:
        """The host's end (opened by the bridge)."""
        return self._host

    def _open(self) -> None:
        self._dev.open()

    def unplug(self) -> None:
        self._to_host.closed = self._to_dev.closed = True
        self._to_host.q.put(b"")  # wake a blocked reader

    def replug(self) -> None:
        for p in (self._to_host, self._to_dev):
            with p.q.mutex:
                p.q.queue.clear()
            p.closed = False

    def _read(self, timeout: float | None) -> bytes:
        if self._to_dev.closed:
            time.sleep(timeout or 0)
            return b""
        try:
            return self._dev.read(timeout)
        except TransportError:
            self._dev.open()
            return b""

    def _write(self, data: bytes) -> None:
        if self._to_host.closed:
            self.dropped_bytes += len(data)
            return
        self._to_host.q.put(data)

    def _close(self) -> None:
        self.unplug()


class ScriptError(ValueError):
    """A script step that cannot be run; names the step."""


class Simulator:
    """Runs a :class:`Firmware` on a device endpoint in a background thread, with scripted steps.

    :param endpoint: where the host connects (:class:`~firmware_bridge.transport.PtyDevice`,
        :class:`~firmware_bridge.transport.TcpDevice`, :class:`MemoryDevice`).
    :param deck: the deck whose cards scripts name (required for card steps).
    :param step_delay: pause between the physical moves of one card (a card slides across).
    :param echo: where ``echo`` steps print (stdout by default).
    """

    def __init__(
        self,
        endpoint: DeviceEndpoint,
        firmware: Firmware | None = None,
        deck: Deck | None = None,
        *,
        seed: int = 0,
        step_delay: float = 0.02,
        echo: IO[str] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.firmware = firmware or Firmware()
        self.deck = deck
        self.rng = random.Random(seed)
        self.step_delay = step_delay
        self.echo = echo
        self.faults = LinkFaults(self.rng)
        self.errors: list[str] = []
        self._uid_by_card: dict[Card, bytes] = {c: u for u, c in deck.cards.items()} if deck else {}
        self._inbox: queue.Queue[str] = queue.Queue()
        self._steps: collections.deque[str] = collections.deque()
        self._resume_at = 0.0
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread: threading.Thread | None = None
        self.quit = threading.Event()
        """Set when a ``quit`` step ran."""
        self.steps_done = 0

    # --- control ---------------------------------------------------------------------------------

    @property
    def address(self) -> str:
        """What the host opens."""
        return self.endpoint.address

    def start(self) -> Simulator:
        """Open the endpoint and run in a daemon thread; returns ``self``."""
        self.endpoint.open()
        self._thread = threading.Thread(target=self._loop, name="reader-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and close the endpoint."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self.endpoint.close()

    @property
    def running(self) -> bool:
        """The thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def submit(self, line: str) -> None:
        """Queue one script step (thread-safe)."""
        self._idle.clear()
        self._inbox.put(line)

    def run_script(self, text: str) -> None:
        """Queue every step of a script text."""
        for line in text.splitlines():
            self.submit(line)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every submitted step has run; False on timeout."""
        return self._idle.wait(timeout)

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- loop ------------------------------------------------------------------------------------

    def _loop(self) -> None:
        fw = self.firmware
        while not self._stop.is_set():
            try:
                data = self.endpoint.read(0.004)
            except TransportError:
                data = b""
            if data:
                fw.receive(data)
            self._take_steps()
            fw.tick()
            frames = fw.take_output()
            if frames or self.faults.garbage:
                try:
                    self.endpoint.write(self.faults.apply(frames))
                except TransportError:
                    pass

    def _take_steps(self) -> None:
        while True:
            try:
                line = self._inbox.get_nowait()
            except queue.Empty:
                break
            self._steps.append(line)
        while self._steps and time.monotonic() >= self._resume_at and not self._stop.is_set():
            line = self._steps.popleft()
            try:
                self._run(line)
            except (ScriptError, ValueError, KeyError) as exc:
                msg = f"step {line.strip()!r}: {exc}"
                self.errors.append(msg)
                print(f"reader-sim: {msg}", file=sys.stderr, flush=True)
            self.steps_done += 1
        if not self._steps and self._inbox.empty() and time.monotonic() >= self._resume_at:
            self._idle.set()

    # --- steps -----------------------------------------------------------------------------------

    def _uid(self, card_text: str) -> bytes:
        if not self._uid_by_card:
            raise ScriptError("no deck loaded")
        return self._uid_by_card[Card.parse(card_text)]

    def _wait(self, seconds: float) -> None:
        self._resume_at = time.monotonic() + seconds

    def _later(self, lines: list[str]) -> None:
        self._steps.extendleft(reversed(lines))

    def _run(self, line: str) -> None:
        words = line.split("#", 1)[0].split()
        if not words:
            return
        op, args = words[0].lower(), words[1:]
        fw = self.firmware
        d = f"wait {self.step_delay}"
        if op == "wait":
            self._wait(float(args[0]))
        elif op == "place":
            fw.place(antenna_of(args[1]), self._uid(args[0]))
        elif op == "remove":
            fw.remove(antenna_of(args[1]), self._uid(args[0]))
        elif op == "reread":
            fw.reread(antenna_of(args[1]), self._uid(args[0]))
        elif op == "move":
            card, src, dst = args
            self._later([f"place {card} {dst}", d, f"remove {card} {src}", d])
        elif op == "deal":
            card, dst = args
            self._later([f"place {card} shoe", d, f"move {card} shoe {dst}"])
        elif op == "hand":
            self._later(self._hand([int(s) for s in args[0].split(",")], int(args[1]) if len(args) > 1 else 5))
        elif op == "foreign":
            fw.place(antenna_of(args[1]), bytes.fromhex(args[0]))
        elif op in ("garbage", "badcrc", "drop", "dup"):
            n = int(args[0]) if args else 1
            attr = {"badcrc": "corrupt"}.get(op, op)
            setattr(self.faults, attr, getattr(self.faults, attr) + n)
        elif op == "unplug":
            self.endpoint.unplug()
            if args:
                self._later([f"wait {args[0]}", "replug"])
        elif op == "replug":
            self.endpoint.replug()
        elif op == "overflow":
            self._overflow(int(args[0]) if args else 10)
        elif op == "deaf":
            fw.deaf_until = time.monotonic() + float(args[0])
        elif op == "tamper":
            fw.fault(FaultCode.TAMPER, NO_ANTENNA, "case opened")
        elif op == "fault":
            code = int(args[0])
            antenna = int(args[1]) if len(args) > 1 else NO_ANTENNA
            fw.fault(code, antenna, " ".join(args[2:]))
        elif op == "clear":
            fw.clear_flags()
        elif op == "reboot":
            fw.reboot()
        elif op == "echo":
            print(" ".join(args), file=self.echo or sys.stdout, flush=True)
        elif op == "quit":
            self.quit.set()
        else:
            raise ScriptError(f"unknown step {op!r}")

    def _overflow(self, extra: int) -> None:
        # Events pile up while no host can acknowledge them: the oldest are dropped.
        fw = self.firmware
        replug = not self.endpoint_unplugged()
        if replug:
            self.endpoint.unplug()
        tag = next((uid for a in range(fw.antenna_count) for uid in fw.tags[a]), None)
        antenna = next((a for a in range(fw.antenna_count) if fw.tags[a]), SHOE)
        placed_noise = tag is None
        if placed_noise:
            tag = NOISE_TAG  # a foreign tag resting on the shoe, read over and over
            fw.place(antenna, tag)
        for _ in range(fw.ring_size + extra):
            fw.reread(antenna, tag)
        if placed_noise:
            fw.remove(antenna, tag)
        fw.take_output()  # nobody hears them
        if replug:
            self.endpoint.replug()

    def endpoint_unplugged(self) -> bool:
        """The simulated cable is pulled."""
        return bool(getattr(self.endpoint, "unplugged", False) or getattr(self.endpoint, "_to_dev", _Pipe()).closed)

    def _hand(self, seats: list[int], board: int) -> list[str]:
        cards = [str(c) for c in self._uid_by_card]
        self.rng.shuffle(cards)
        draw = iter(cards)
        d = f"wait {self.step_delay}"
        steps: list[str] = []
        held: list[tuple[str, str]] = []
        for _ in range(2):
            for s in seats:
                c = next(draw)
                steps += [f"deal {c} seat{s}"]
                held.append((c, f"seat{s}"))
        for street in ([3, 1, 1][: max(0, board - 2)] if board >= 3 else []):
            c = next(draw)
            steps.append(f"deal {c} burn")
            held.append((c, "burn"))
            for _ in range(street):
                c = next(draw)
                steps.append(f"deal {c} board")
                held.append((c, "board"))
        for c, place in held:
            steps.append(f"move {c} {place} muck")
        for c, _ in held:
            steps += [f"remove {c} muck", d]
        return steps


# --- in-process backend -------------------------------------------------------------------------


class SimTransport(MemoryTransport):
    """Host transport wired to an in-process :class:`Simulator` (``open_transport("sim")``).

    The simulator starts with this object; call :meth:`shutdown` to stop it.
    """

    name = "sim"

    def __init__(self, deck: Deck | None = None, firmware: Firmware | None = None, **options: object) -> None:
        self.device = MemoryDevice()
        host = self.device.host()
        super().__init__(host._in, host._out)
        self.simulator = Simulator(self.device, firmware, deck, **options).start()  # type: ignore[arg-type]

    def describe(self) -> str:
        return "sim"

    def shutdown(self) -> None:
        """Close the link and stop the simulator."""
        self.close()
        self.simulator.stop()


register_backend("sim", SimTransport)

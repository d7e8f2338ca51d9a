"""Delivery, deterministic: the bridge against the in-process firmware on a fake clock."""

from __future__ import annotations

import collections
import random

import pytest

from controller.cards import FULL_DECK
from firmware_bridge.codec import AckEvents, Decoder, HelloReq, Inventory
from firmware_bridge.deck import DeckRegistry, make_deck
from firmware_bridge.delivery import ReaderBridge
from firmware_bridge.records import AlertKind, CardSighting
from firmware_bridge.simulator import Firmware, LinkFaults, MemoryDevice
from firmware_bridge.sinks import MemorySink

DECK = make_deck("A")
REG = DeckRegistry([DECK])
UIDS = [DECK.uid_of(c) for c in FULL_DECK]


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Rig:
    """Firmware <-> memory link <-> bridge, stepped by hand on one fake clock."""

    def __init__(self, first_seq: int = 1, sink: MemorySink | None = None, **kw: object) -> None:
        self.clock = Clock()
        self.fw = Firmware(clock=self.clock, first_seq=first_seq)
        self.device = MemoryDevice()
        self.device.open()
        self.faults = LinkFaults(random.Random(7))
        self.sink = sink or MemorySink()
        self.log: list[tuple[str, int]] = []
        self.cmds: list[object] = []
        self._dec = Decoder()
        self.host_down = False
        self.bridge = self.new_bridge(**kw)

    def new_bridge(self, **kw: object) -> ReaderBridge:
        host = self.device.host()
        sink = self.sink
        log = self.log
        real_store = sink.store

        def store(records, ack_seq=None):  # type: ignore[no-untyped-def]
            real_store(records, ack_seq)
            if ack_seq is not None:
                log.append(("store", ack_seq))

        sink.store = store  # type: ignore[method-assign]
        kw.setdefault("leave_after", 0.3)
        self.bridge = ReaderBridge(host, sink, REG, clock=self.clock, sleep=lambda s: None, **kw)  # type: ignore[arg-type]
        return self.bridge

    def pump(self, seconds: float = 0.05, dt: float = 0.01, fw_alive: bool = True) -> None:
        for _ in range(max(1, round(seconds / dt))):
            self.clock.t += dt
            data = self.device.read(0)
            if data:
                for m in self._dec.feed(data):
                    self.cmds.append(m)
                    if isinstance(m, AckEvents):
                        self.log.append(("ack", m.up_to_seq))
                if fw_alive:
                    self.fw.receive(data)
            if fw_alive:
                self.fw.tick()
                frames = self.fw.take_output()
                if frames:
                    self.device.write(self.faults.apply(frames))
            if not self.host_down:
                self.bridge.step(0)

    def deal(self, uid: bytes, seat: int) -> None:
        self.fw.place(0, uid)
        self.pump(0.02)
        self.fw.place(seat, uid)
        self.pump(0.02)
        self.fw.remove(0, uid)
        self.pump(0.02)

    def muck(self, uid: bytes, seat: int) -> None:
        self.fw.place(12, uid)
        self.fw.remove(seat, uid)
        self.pump(0.02)

    def placed_cards(self) -> dict[bytes, int]:
        return {u: a for u, a in self.bridge.positions.placed().items()}

    def table(self) -> dict[bytes, int]:
        return {u: a for a, tags in self.fw.tags.items() for u in tags}


def assert_exactly_once(sink: MemorySink) -> None:
    keys = [(s.seq, s.event, s.uid, s.place) for s in sink.sightings()]
    dup = [k for k, n in collections.Counter(keys).items() if n > 1]
    assert not dup, f"doubled sightings: {dup[:3]}"
    # Each card alternates enter/leave, place by place.
    where: dict[bytes, str] = {}
    for s in sink.sightings():
        if s.event == "enter":
            assert s.uid not in where, f"{s.card} entered {s.place} while at {where[s.uid]}"
            where[s.uid] = s.place
        else:
            assert where.pop(s.uid) == s.place


def test_connect_sends_hello_req_then_inventory() -> None:
    rig = Rig()
    rig.pump(0.05)
    assert isinstance(rig.cmds[0], HelloReq) and isinstance(rig.cmds[1], Inventory)
    assert rig.cmds[1].antenna == 0xFF
    assert rig.bridge.online and rig.bridge.hello is not None


def test_every_ack_follows_the_store_of_its_events() -> None:
    rig = Rig()
    for i in range(10):
        rig.deal(UIDS[i], 1 + i % 10)
    rig.pump(0.5)
    acks = [i for i, (k, _) in enumerate(rig.log) if k == "ack"]
    assert acks
    for i in acks:
        seq = rig.log[i][1]
        assert ("store", seq) in rig.log[:i]
    assert rig.table() == rig.placed_cards()


def test_exactly_once_through_noise_duplicates_and_withheld_acks() -> None:
    rig = Rig()
    rig.pump(0.1)
    for i in range(40):
        if i % 5 == 0:
            rig.faults.drop += 1
        if i % 7 == 0:
            rig.faults.dup += 2
        if i % 6 == 0:
            rig.faults.corrupt += 1
        if i % 9 == 0:
            rig.faults.garbage += 30
        if i == 20:
            rig.fw.deaf_until = rig.clock.t + 1.5  # acknowledgements lost: the reader resends
        rig.deal(UIDS[i], 1 + i % 10)
    rig.pump(3.0)
    for i in range(40):
        rig.muck(UIDS[i], 1 + i % 10)
    rig.pump(3.0)
    assert_exactly_once(rig.sink)
    assert rig.table() == rig.placed_cards()
    assert not rig.sink.alerts(AlertKind.EVENTS_LOST)
    assert rig.bridge.stats["duplicates"] > 0 and rig.fw.stats["resends"] > 0
    assert rig.bridge.cursor == rig.fw.counter
    assert len(rig.sink.sightings()) == 40 * 5  # shoe in and out, seat in and out, muck in


def test_sequence_wraps_around() -> None:
    rig = Rig(first_seq=65520)
    for i in range(20):
        rig.deal(UIDS[i], 1 + i % 10)
    rig.pump(1.0)
    assert rig.fw.counter < 100 and rig.bridge.cursor == rig.fw.counter
    assert_exactly_once(rig.sink)
    assert rig.table() == rig.placed_cards()
    seqs = {s.seq for s in rig.sink.sightings()}
    assert {65520, 65535, 0} <= seqs and any(0 < s < 100 for s in seqs)


def test_overflow_is_reported_as_events_lost() -> None:
    rig = Rig()
    rig.deal(UIDS[0], 1)
    rig.pump(0.5)
    rig.device.unplug()
    rig.pump(0.2)
    for _ in range(1024 + 50):
        rig.fw.reread(1, UIDS[0])
    rig.fw.remove(1, UIDS[0])
    rig.pump(0.3)
    rig.device.replug()
    rig.pump(4.0)
    lost = [a for a in rig.sink.alerts(AlertKind.EVENTS_LOST) if "count" in a.detail]
    assert len(lost) == 1
    assert lost[0].detail["count"] == rig.fw.stats["lost"]
    assert rig.bridge.stats["events"] + rig.bridge.stats["events_lost"] == rig.fw.stats["events"]
    assert rig.sink.alerts(AlertKind.READER_OFFLINE) and rig.sink.alerts(AlertKind.READER_ONLINE)
    assert rig.table() == rig.placed_cards() == {}


def test_unplug_mid_hand_loses_and_doubles_nothing() -> None:
    rig = Rig(backoff=(0.05, 0.4))
    for i in range(6):
        rig.deal(UIDS[i], 1 + i)
    rig.device.unplug()
    for i in range(6, 12):
        rig.deal(UIDS[i], 1 + i % 10)  # dealt while the cable is out
    rig.fw.remove(1, UIDS[0])
    rig.pump(1.0)
    connects = rig.bridge.stats["connects"]
    rig.device.replug()
    rig.pump(1.5)
    assert rig.bridge.stats["connects"] == connects + 1
    assert_exactly_once(rig.sink)
    assert rig.table() == rig.placed_cards()
    offline = rig.sink.alerts(AlertKind.READER_OFFLINE)
    assert len(offline) == 1 and offline[0].detail["reason"] == "link"
    assert sum(isinstance(c, HelloReq) for c in rig.cmds) == 2


def test_heartbeat_watchdog() -> None:
    rig = Rig()
    rig.pump(1.05)  # the first heartbeat comes 1 s after power-up
    rig.pump(2.9, fw_alive=False)
    assert not rig.sink.alerts(AlertKind.READER_OFFLINE)
    rig.pump(0.3, fw_alive=False)
    [alert] = rig.sink.alerts(AlertKind.READER_OFFLINE)
    assert alert.detail["reason"] == "heartbeat" and not rig.bridge.online
    rig.pump(1.2)
    assert rig.sink.alerts(AlertKind.READER_ONLINE) and rig.bridge.online
    assert sum(isinstance(c, HelloReq) for c in rig.cmds) == 2  # resync after the silence


def test_store_failure_means_no_ack_and_a_clean_resume() -> None:
    rig = Rig()
    rig.deal(UIDS[0], 1)
    rig.pump(0.5)
    acked = rig.fw.last_acked
    rig.sink.fail = RuntimeError("disk full")
    rig.fw.place(0, UIDS[1])
    with pytest.raises(RuntimeError):
        rig.pump(0.05)
    assert rig.fw.last_acked == acked
    # The host restarts: a new bridge resumes from the sink.
    rig.device.host().close()
    rig.new_bridge()
    rig.fw.place(2, UIDS[1])
    rig.fw.remove(0, UIDS[1])
    rig.pump(1.5)
    assert_exactly_once(rig.sink)
    assert rig.table() == rig.placed_cards()
    assert rig.fw.last_acked == rig.fw.counter


def test_host_restart_with_lost_acks_doubles_nothing() -> None:
    rig = Rig()
    for i in range(8):
        rig.deal(UIDS[i], 1 + i)
    rig.fw.deaf_until = rig.clock.t + 10  # none of these acks arrive
    rig.pump(0.5)
    rig.host_down = True
    rig.device.host().close()
    rig.fw.remove(3, UIDS[2])  # a card leaves while the host is down
    rig.pump(0.5)
    rig.fw.deaf_until = 0
    rig.host_down = False
    rig.new_bridge()
    rig.pump(2.0)
    assert_exactly_once(rig.sink)
    assert rig.table() == rig.placed_cards()
    assert rig.fw.last_acked == rig.fw.counter


def test_fault_tamper_and_flags_become_alerts() -> None:
    rig = Rig()
    rig.pump(0.2)
    rig.fw.fault(1, 5, "antenna 5 open")
    rig.fw.fault(4)
    rig.pump(1.5)
    kinds = [a.kind for a in rig.sink.alerts()]
    assert kinds.count(AlertKind.FAULT) == 2
    assert kinds.count(AlertKind.TAMPER) == 1  # the FAULT and the flag are one incident
    assert kinds.count(AlertKind.ANTENNA_FAULT) == 1
    fault = rig.sink.alerts(AlertKind.FAULT)[0].to_json()
    assert fault["code"] == 1 and fault["antenna"] == 5 and fault["text"] == "antenna 5 open"


def test_reader_reboot_restarts_the_count() -> None:
    rig = Rig(first_seq=500)
    for i in range(3):
        rig.deal(UIDS[i], 1 + i)
    rig.pump(0.5)
    rig.fw.reboot()
    rig.fw.place(0, UIDS[10])
    rig.pump(1.5)
    assert any(s.uid == UIDS[10] for s in rig.sink.sightings())
    assert rig.bridge.cursor == rig.fw.counter

"""The host side of the reader link: no card event lost, none doubled.

:class:`ReaderBridge` owns one :class:`~firmware_bridge.transport.Transport` and one
:class:`~firmware_bridge.sinks.EventSink`. Each :meth:`ReaderBridge.step` reads what arrived,
decodes it, drops duplicate events by seq (RFC 1982 serial arithmetic, so seq 0 follows 65535),
puts events back in seq order, turns them into card sightings and alerts, stores those, and only
then sends ACK_EVENTS. On every connect it sends HELLO_REQ then INVENTORY. A heartbeat watchdog
raises ``reader_offline`` after 3 s of silence; a failed port is reopened with exponential backoff.

A seq gap (a frame lost on a noisy link) is held open while the reader resends; if it never fills
(the reader's buffer overflowed and dropped the oldest events) an ``events_lost`` alert names the
missing seqs and delivery goes on. So every event reaches the sink exactly once, or an alert says
it was lost.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.codec import (
    NO_ANTENNA,
    SEQ_MOD,
    AckEvents,
    CmdAck,
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
from firmware_bridge.deck import DeckRegistry
from firmware_bridge.positions import PositionTracker
from firmware_bridge.records import Alert, AlertKind, Record
from firmware_bridge.sinks import EventSink
from firmware_bridge.transport import Transport, TransportError

RING_SIZE = 1024
"""The reader's event buffer; no legitimate resend is older than this behind the newest."""
_RESTART_DISTANCE = RING_SIZE + 64

Event = TagEnter | TagLeave | Fault


class ReaderBridge:
    """One reader link, from bytes to stored records.

    :param transport: the link (not necessarily open; the bridge opens and reopens it).
    :param sink: where records go; ACK_EVENTS is sent only after ``sink.store`` returns.
    :param registry: active decks.
    :param clock: monotonic seconds, injectable for tests.
    :param sleep: used while waiting to reconnect, injectable for tests.
    :param leave_after: seconds a tag must stay unseen before its card leaves a place.
    :param heartbeat_timeout: seconds without HEARTBEAT before ``reader_offline``.
    :param gap_timeout: seconds a seq gap may stay open before its events are declared lost.
    :param overflow_gap_timeout: the same once the reader signalled an overflow (the missing
        events are gone for good; two resend periods are enough to be sure).
    :param backoff: first and longest wait between reconnection attempts.
    :param resume: start from ``sink.resume()`` (last acknowledged seq and card places).
    """

    def __init__(
        self,
        transport: Transport,
        sink: EventSink,
        registry: DeckRegistry,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        leave_after: float = 0.3,
        heartbeat_timeout: float = 3.0,
        gap_timeout: float = 5.0,
        overflow_gap_timeout: float = 1.2,
        backoff: tuple[float, float] = (0.05, 2.0),
        read_timeout: float = 0.02,
        resume: bool = True,
    ) -> None:
        self.transport = transport
        self.sink = sink
        self.clock = clock
        self.sleep = sleep
        self.heartbeat_timeout = heartbeat_timeout
        self.gap_timeout = gap_timeout
        self.overflow_gap_timeout = overflow_gap_timeout
        self.backoff_initial, self.backoff_max = backoff
        self.read_timeout = read_timeout
        self.decoder = Decoder()
        self.positions = PositionTracker(registry, leave_after=leave_after, clock=clock)
        self.cursor: int | None = None
        """Seq of the last event stored (and acknowledged); ``None`` until the first event."""
        point = sink.resume() if resume else None
        if point is not None:
            self.cursor = point.ack_seq
            self.positions.seed(point.placed)
        # With no history, the first HELLO's last_seq is the base: what the reader holds up to it
        # predates this host (INVENTORY reports the tags themselves), and every later event must
        # arrive, even if its first frame is lost on the line.
        self._base_from_hello = self.cursor is None
        self.hello: Hello | None = None
        """The reader's last HELLO."""
        self.online = False
        """A HELLO or HEARTBEAT arrived and the watchdog has not fired since."""
        self.stats: collections.Counter[str] = collections.Counter()
        """events, store_calls, duplicates, acks_sent, reacks, connects, link_failures, gaps_skipped,
        events_lost, restarts, ..."""
        self._ahead: dict[int, Event] = {}
        self._gap_since: float | None = None
        self._overflow_seen = False
        self._offline_alerted = False
        self._last_heartbeat = 0.0
        self._uptime_ms: int | None = None
        self._flags = 0
        self._episode: set[str] = set()
        self._cmd_seq = 0
        self._inventories: dict[int, float] = {}
        self._next_connect = 0.0
        self._backoff = self.backoff_initial
        self._need_reack = False
        self._records: list[Record] = []

    # --- public ----------------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None, duration: float | None = None) -> None:
        """Call :meth:`step` until ``stop`` is set or ``duration`` seconds have passed.

        :raises Exception: whatever the sink raises (nothing is acknowledged then).
        """
        end = None if duration is None else self.clock() + duration
        while not (stop is not None and stop.is_set()) and (end is None or self.clock() < end):
            self.step()

    def step(self, timeout: float | None = None) -> None:
        """Read once (up to ``timeout``, default ``read_timeout``), process, store, acknowledge.

        Link failures are handled here (alert, backoff, reconnect); only sink failures escape.

        :raises Exception: whatever ``sink.store`` raises; the bridge must then be discarded and a
            new one started (it resumes from the sink).
        """
        timeout = self.read_timeout if timeout is None else timeout
        start_cursor = self.cursor
        if not self.transport.is_open and not self._connect(timeout):
            self._finish(start_cursor)
            return
        try:
            data = self.transport.read(timeout)
        except TransportError as exc:
            self._link_down(str(exc))
            self._finish(start_cursor)
            return
        if data:
            for msg in self.decoder.feed(data):
                self._dispatch(msg)
        self._finish(start_cursor)

    def close(self) -> None:
        """Close the transport (the sink belongs to the caller)."""
        self.transport.close()

    def info(self) -> dict[str, Any]:
        """Counters and state, for logs and tests."""
        return {
            "cursor": self.cursor,
            "online": self.online,
            **self.stats,
            **{f"decoder_{k}": v for k, v in self.decoder.stats().items()},
            "repeat_reads": self.positions.repeat_reads,
        }

    # --- connection ------------------------------------------------------------------------------

    def _connect(self, timeout: float) -> bool:
        now = self.clock()
        if now < self._next_connect:
            self.sleep(min(timeout, self._next_connect - now))
            return False
        try:
            self.transport.open()
        except TransportError as exc:
            self._link_down(str(exc))
            return False
        self.stats["connects"] += 1
        self.decoder.reset()
        self._last_heartbeat = self.clock()  # the watchdog counts from the connection
        return self._resync()

    def _resync(self) -> bool:
        """HELLO_REQ then INVENTORY: the reader resends what we have not acknowledged, then reports
        every tag present so the positions are rebuilt."""
        try:
            self._send(HelloReq(seq=self._next_cmd()))
            inv_seq = self._next_cmd()
            self._inventories[inv_seq] = self.clock()
            self._send(Inventory(NO_ANTENNA, seq=inv_seq))
        except TransportError as exc:
            self._link_down(str(exc))
            return False
        return True

    def _link_down(self, reason: str) -> None:
        self.transport.close()
        self.stats["link_failures"] += 1
        self.online = False
        if not self._offline_alerted:
            self._offline_alerted = True
            self._records.append(Alert(AlertKind.READER_OFFLINE, {"reason": "link", "error": reason}))
        self._next_connect = self.clock() + self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_max)

    def _alive(self) -> None:
        self._backoff = self.backoff_initial
        if not self.online:
            self.online = True
            if self._offline_alerted:
                self._offline_alerted = False
                self._records.append(Alert(AlertKind.READER_ONLINE, {}))

    def _next_cmd(self) -> int:
        self._cmd_seq = (self._cmd_seq + 1) % SEQ_MOD
        return self._cmd_seq

    def _send(self, msg: Message) -> None:
        self.transport.write(encode(msg))

    # --- messages --------------------------------------------------------------------------------

    def _dispatch(self, msg: Message) -> None:
        if isinstance(msg, (TagEnter, TagLeave, Fault)):
            self._alive()
            self._accept(msg)
        elif isinstance(msg, Heartbeat):
            self._heartbeat(msg)
        elif isinstance(msg, Hello):
            self._on_hello(msg)
        elif isinstance(msg, CmdAck):
            sent_at = self._inventories.pop(msg.cmd_seq, None)
            if msg.status != 0:
                self._records.append(Alert(AlertKind.COMMAND_FAILED, {"cmd_seq": msg.cmd_seq, "status": msg.status}))
            elif sent_at is not None:
                self.positions.inventory_done(sent_at)
        else:
            self.stats["ignored_host_messages"] += 1  # a host command echoed back (loop://)

    def _on_hello(self, msg: Hello) -> None:
        prev, self.hello = self.hello, msg
        self._alive()
        if self._base_from_hello:
            self._base_from_hello = False
            if self.cursor is None:
                self.cursor = msg.last_seq
                return
        if prev is not None and prev.device_id != msg.device_id:
            self._restarted("device_id changed")
        elif self.cursor is not None and seq_diff(self.cursor, msg.last_seq) > 0:
            # The reader's newest event is older than what we stored: its counter started over.
            # Forget our cursor so its new events are not taken for duplicates.
            self.stats["hello_behind"] += 1
            self._reset_cursor()

    def _heartbeat(self, msg: Heartbeat) -> None:
        was_offline = not self.online and self._offline_alerted
        self._last_heartbeat = self.clock()
        self._alive()
        if self._uptime_ms is not None and msg.uptime_ms < self._uptime_ms:
            self._restarted("uptime went back")
        self._uptime_ms = msg.uptime_ms
        rising = msg.flags & ~self._flags
        falling = self._flags & ~msg.flags
        self._flags = msg.flags
        if rising & 0x01:
            self._raise_once("antenna_fault", Alert(AlertKind.ANTENNA_FAULT, {"source": "heartbeat"}))
        if rising & 0x02:
            self._overflow_seen = True
            self._raise_once("events_lost", Alert(AlertKind.EVENTS_LOST, {"reason": "overflow", "source": "heartbeat"}))
        if rising & 0x04:
            self._raise_once("tamper", Alert(AlertKind.TAMPER, {"source": "heartbeat"}))
        for bit, name in ((0x01, "antenna_fault"), (0x02, "events_lost"), (0x04, "tamper")):
            if falling & bit:
                self._episode.discard(name)
        if was_offline:
            # Back after a silence: the reader may have rebooted; ask again.
            self._resync()

    def _raise_once(self, episode: str, alert: Alert) -> None:
        # The heartbeat flag and the FAULT event report the same incident: one alert per incident.
        if episode not in self._episode:
            self._episode.add(episode)
            self._records.append(alert)

    def _restarted(self, reason: str) -> None:
        self.stats["restarts"] += 1
        self._records.append(Alert(AlertKind.READER_RESTARTED, {"reason": reason}))
        self._reset_cursor()

    def _reset_cursor(self) -> None:
        self.cursor = None
        self._ahead.clear()
        self._gap_since = None

    # --- delivery --------------------------------------------------------------------------------

    def _accept(self, ev: Event) -> None:
        s = ev.seq
        if self.cursor is None:
            self.cursor = (s - 1) % SEQ_MOD
        d = seq_diff(s, self.cursor)
        if d <= 0 or d == SEQ_MOD // 2:
            if -d > _RESTART_DISTANCE:
                # No resend can be this old: the reader's counter started over.
                self._restarted("seq went back")
                self._accept(ev)
                return
            self.stats["duplicates"] += 1
            self._need_reack = True
            return
        if d > 1:
            if s in self._ahead:
                self.stats["duplicates"] += 1
            else:
                self._ahead[s] = ev
                if self._gap_since is None:
                    self._gap_since = self.clock()
                if isinstance(ev, Fault) and ev.code == FaultCode.BUFFER_OVERFLOW:
                    self._overflow_seen = True
            return
        self._apply(ev)
        self._drain()

    def _drain(self) -> None:
        assert self.cursor is not None
        while self._ahead:
            nxt = (self.cursor + 1) % SEQ_MOD
            ev = self._ahead.pop(nxt, None)
            if ev is None:
                break
            self._apply(ev)
        for k in [k for k in self._ahead if seq_diff(k, self.cursor) <= 0]:
            del self._ahead[k]
        self._gap_since = self.clock() if self._ahead else None
        if not self._ahead:
            self._overflow_seen = False

    def _apply(self, ev: Event) -> None:
        self.cursor = ev.seq
        self.stats["events"] += 1
        if isinstance(ev, TagEnter):
            self._records += self.positions.enter(ev.antenna, ev.uid, ev.seq)
        elif isinstance(ev, TagLeave):
            self._records += self.positions.leave(ev.antenna, ev.uid, ev.seq)
        else:
            self._records.append(
                Alert(AlertKind.FAULT, {"seq": ev.seq, "code": ev.code, "antenna": ev.antenna, "text": ev.text})
            )
            if ev.code == FaultCode.BUFFER_OVERFLOW:
                self._raise_once("events_lost", Alert(AlertKind.EVENTS_LOST, {"seq": ev.seq, "reason": "overflow", "source": "fault"}))
            elif ev.code == FaultCode.TAMPER:
                self._raise_once("tamper", Alert(AlertKind.TAMPER, {"seq": ev.seq, "source": "fault"}))

    def _skip_gap(self) -> None:
        assert self.cursor is not None
        first = min(self._ahead, key=lambda k: seq_diff(k, self.cursor))  # type: ignore[arg-type]
        count = seq_diff(first, self.cursor) - 1
        self.stats["gaps_skipped"] += 1
        self.stats["events_lost"] += count
        self._records.append(
            Alert(
                AlertKind.EVENTS_LOST,
                {
                    "reason": "overflow" if self._overflow_seen else "gap",
                    "from_seq": (self.cursor + 1) % SEQ_MOD,
                    "to_seq": (first - 1) % SEQ_MOD,
                    "count": count,
                },
            )
        )
        self.cursor = (first - 1) % SEQ_MOD
        self._drain()

    def _tick(self) -> None:
        now = self.clock()
        if self._ahead and self._gap_since is not None:
            limit = self.overflow_gap_timeout if self._overflow_seen else self.gap_timeout
            if now - self._gap_since >= limit or len(self._ahead) > 2 * RING_SIZE:
                self._skip_gap()
        if self.transport.is_open and now - self._last_heartbeat > self.heartbeat_timeout and not self._offline_alerted:
            self.online = False
            self._offline_alerted = True
            self._records.append(
                Alert(AlertKind.READER_OFFLINE, {"reason": "heartbeat", "silent_s": round(now - self._last_heartbeat, 3)})
            )
        self._records += self.positions.tick()

    def _finish(self, start_cursor: int | None) -> None:
        self._tick()
        records, self._records = self._records, []
        advanced = self.cursor is not None and self.cursor != start_cursor
        if advanced:
            self.sink.store(records, ack_seq=self.cursor)
            self.stats["store_calls"] += 1
        elif records:
            self.sink.store(records, ack_seq=None)
        if (advanced or self._need_reack) and self.cursor is not None and self.transport.is_open:
            self._need_reack = False
            try:
                self._send(AckEvents(self.cursor, seq=self._next_cmd()))
                self.stats["acks_sent"] += 1
            except TransportError as exc:
                self._link_down(str(exc))
                extra, self._records = self._records, []
                if extra:
                    self.sink.store(extra, ack_seq=None)

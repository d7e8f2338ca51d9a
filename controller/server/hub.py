"""Live fan-out: one subscription to the table service, one redacted message per role per change,
copied to every connected stream of that role.

A thread reads the service's subscription queue (events arrive there after they are stored),
drains whatever else is waiting (a burst becomes one message), builds the dealer and surveillance
messages once, and hands them to each client's buffer on the event loop. The broadcast overlay does
not use the hub: it polls the delayed snapshot on a timer, so nothing live can reach it.
"""

from __future__ import annotations

import asyncio
import collections
import json
import queue
import threading
from collections.abc import Iterable
from typing import Any

from controller.server import views
from controller.service import TableService

SSE_HEARTBEAT = b": heartbeat\n\n"


def sse(data: Any, *, event_id: int | None = None) -> bytes:
    """One server-sent event carrying ``data`` as JSON.

    >>> sse({"a": 1}, event_id=4)
    b'id: 4\\ndata: {"a":1}\\n\\n'
    """
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class TabledTracker:
    """Seats that tabled in the current hand, folded from the stored events (a hand tabled and then
    mucked was still shown, which the snapshot alone does not say)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.upto = 0
        self.hand_no: int | None = None
        self.seats: set[int] = set()

    def feed(self, events: Iterable[dict[str, Any]]) -> None:
        with self._lock:
            for e in events:
                if e["seq"] <= self.upto:
                    continue
                self.upto = e["seq"]
                if e["kind"] == "hand_started":
                    self.hand_no = e["payload"].get("hand_no", e.get("hand_no"))
                    self.seats = set()
                elif e["kind"] == "hand_tabled" and e.get("hand_no") == self.hand_no:
                    self.seats.add(int(e["payload"]["seat"]))

    def tabled(self, hand_no: int | None) -> set[int]:
        with self._lock:
            return set(self.seats) if hand_no is not None and hand_no == self.hand_no else set()


def dealer_state(service: TableService, tracker: TabledTracker) -> dict[str, Any]:
    """The dealer's view of the table now (snapshot and tabled seats read under one lock)."""
    with service.lock:
        snap = service.snapshot()
        tracker.feed(service.events(tracker.upto))
        hand_no = snap["hand"]["hand_no"] if snap.get("hand") else None
        return views.dealer_view(snap, tracker.tabled(hand_no))


class Client:
    """One connected stream: a short buffer of messages (the oldest drop first) and a wake-up."""

    def __init__(self, view: str, loop: asyncio.AbstractEventLoop, maxlen: int = 64) -> None:
        self.view = view
        self.loop = loop
        self.buffer: collections.deque[bytes | None] = collections.deque(maxlen=maxlen)
        self.wake = asyncio.Event()

    def push(self, message: bytes | None) -> None:  # runs on the event loop
        self.buffer.append(message)
        self.wake.set()

    async def next_batch(self, timeout: float) -> list[bytes | None]:
        """Messages waiting, after waiting up to ``timeout`` s for one (empty list: time for a heartbeat)."""
        if not self.buffer:
            try:
                await asyncio.wait_for(self.wake.wait(), timeout)
            except TimeoutError:
                return []
        self.wake.clear()
        out = list(self.buffer)
        self.buffer.clear()
        return out


class LiveHub:
    """The dealer and surveillance streams' source."""

    def __init__(self, service: TableService, tracker: TabledTracker) -> None:
        self.service = service
        self.tracker = tracker
        self._clients: set[Client] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._sub = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._thread is not None:
            return
        self._loop = loop
        self._stop.clear()
        self._sub = self.service.subscribe()
        self._thread = threading.Thread(target=self._run, name="cardroom-live-hub", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._sub is not None:
            self._sub.queue.put_nowait({"__stop__": True})
            self._sub.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None
        self._sub = None
        self.end_streams()

    def end_streams(self) -> None:
        """End every open stream (its page reconnects and catches up from the stored events)."""
        with self._lock:
            clients = list(self._clients)
        for c in clients:
            c.loop.call_soon_threadsafe(c.push, None)

    def connect(self, view: str) -> Client:
        """A new stream of the ``dealer`` or ``surveillance`` view."""
        client = Client(view, asyncio.get_running_loop())
        with self._lock:
            self._clients.add(client)
        return client

    def disconnect(self, client: Client) -> None:
        with self._lock:
            self._clients.discard(client)

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    def _run(self) -> None:
        assert self._sub is not None
        q = self._sub.queue
        while not self._stop.is_set():
            try:
                first = q.get(timeout=0.5)
            except queue.Empty:
                continue
            batch = [first]
            while True:
                try:
                    batch.append(q.get_nowait())
                except queue.Empty:
                    break
            events = [e for e in batch if "__stop__" not in e]
            if self._stop.is_set():
                return
            if events:
                try:
                    self._publish(events)
                except Exception:  # noqa: BLE001 - a bad message must not kill the streams
                    import logging

                    logging.getLogger(__name__).exception("live hub: could not publish")

    def _publish(self, events: list[dict[str, Any]]) -> None:
        with self._lock:
            clients = list(self._clients)
        if not clients:
            self.tracker.feed(events)
            return
        roles = {c.view for c in clients}
        last = events[-1]
        meta = {"seq": last["seq"], "ts": last["ts"], "kind": last["kind"]}
        messages: dict[str, bytes] = {}
        with self.service.lock:
            snap = self.service.snapshot()
            self.tracker.feed(self.service.events(self.tracker.upto))
            if "dealer" in roles:
                hand_no = snap["hand"]["hand_no"] if snap.get("hand") else None
                view = views.dealer_view(snap, self.tracker.tabled(hand_no))
                messages["dealer"] = sse({"type": "state", **meta, "state": view}, event_id=last["seq"])
        if "surveillance" in roles:
            messages["surveillance"] = sse({"type": "state", **meta, "events": events,
                                            "state": views.surveillance_view(snap)}, event_id=last["seq"])
        for c in clients:
            msg = messages.get(c.view)
            if msg is not None:
                c.loop.call_soon_threadsafe(c.push, msg)

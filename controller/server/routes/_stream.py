"""Server-sent event responses shared by the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from controller.server.hub import SSE_HEARTBEAT, sse

SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def live_stream(request: Request, view: str, initial: Callable[[], dict[str, Any]]) -> StreamingResponse:
    """A stream of the hub's ``view`` messages, starting with ``initial()`` (the state now)."""
    hub = request.app.state.hub
    heartbeat = request.app.state.heartbeat_s

    async def gen() -> AsyncIterator[bytes]:
        client = hub.connect(view)  # before the first read: no change can fall between the two
        try:
            state = await run_in_threadpool(initial)
            yield sse({"type": "state", "seq": state.get("last_seq"), "ts": None, "kind": None,
                       "state": state}, event_id=state.get("last_seq"))
            while True:
                batch = await client.next_batch(heartbeat)
                if not batch:
                    yield SSE_HEARTBEAT
                    continue
                for message in batch:
                    if message is None:  # the server is shutting down
                        return
                    yield message
        finally:
            hub.disconnect(client)

    return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

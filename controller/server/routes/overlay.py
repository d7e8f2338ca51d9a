"""The broadcast overlay: the table as it stood the secure delay ago, with equities.

Both routes read only ``TableService.delayed_snapshot()``. The stream polls it on a timer; it is
never fed by live events, so nothing younger than the delay can reach it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from controller.server.deps import BroadcastReader
from controller.server.hub import SSE_HEARTBEAT, sse
from controller.server.routes._stream import SSE_HEADERS

router = APIRouter(tags=["overlay"])


@router.get("/state", summary="The delayed table: hole cards of live hands, equities, strength, pot")
def get_state(request: Request, role: BroadcastReader) -> dict[str, Any]:
    return request.app.state.overlay.get()  # type: ignore[no-any-return]


@router.get("/stream", summary="Server-sent events of the delayed state (polled on a timer)",
            response_class=StreamingResponse)
def stream(request: Request, role: BroadcastReader) -> StreamingResponse:
    cache = request.app.state.overlay
    interval = request.app.state.overlay_interval_s
    heartbeat = request.app.state.heartbeat_s

    async def gen() -> AsyncIterator[bytes]:
        last_key: Any = object()
        quiet = 0.0
        while True:
            view = await run_in_threadpool(cache.get)
            key = (view.get("as_of_seq"), view.get("delay_seconds"))
            if key != last_key:
                last_key = key
                quiet = 0.0
                yield sse({"type": "state", "state": view}, event_id=view.get("as_of_seq"))
            elif quiet >= heartbeat:
                quiet = 0.0
                yield SSE_HEARTBEAT
            await asyncio.sleep(interval)
            quiet += interval

    return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

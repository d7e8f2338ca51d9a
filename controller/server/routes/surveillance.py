"""Surveillance: every card live, the event log, alerts, the hash chain, hand histories, frames."""

from __future__ import annotations

import threading
import tomllib
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from controller.server import views
from controller.server.deps import ServiceDep, SurveillanceOnly
from controller.server.routes._stream import live_stream
from controller.service import TableService

router = APIRouter(tags=["surveillance"])

_cache_lock = threading.Lock()


@router.get("/state", summary="Everything, live, with every card and where it lies")
def get_state(role: SurveillanceOnly, service: ServiceDep) -> dict[str, Any]:
    return views.surveillance_view(service.snapshot())


@router.get("/events", summary="Stored events after a sequence number")
def get_events(role: SurveillanceOnly, service: ServiceDep,
               since: Annotated[int, Query(ge=0)] = 0,
               limit: Annotated[int, Query(ge=1, le=5000)] = 500) -> dict[str, Any]:
    events = service.events(since, limit)
    return {"events": events, "next_since": events[-1]["seq"] if events else since}


@router.get("/alerts", summary="Reader and camera alerts")
def get_alerts(role: SurveillanceOnly, service: ServiceDep) -> dict[str, Any]:
    return {"alerts": service.alerts()}


@router.get("/cameras", summary="Each camera's state: live or offline, its seats, its last frame")
def get_cameras(role: SurveillanceOnly, service: ServiceDep) -> dict[str, Any]:
    return {"cameras": service.cameras()}


@router.get("/audit", summary="The event log's hash chain: verified now")
def get_audit(role: SurveillanceOnly, service: ServiceDep) -> dict[str, Any]:
    return service.audit()


def _summaries(request: Request, service: TableService) -> list[dict[str, Any]]:
    """Hand summaries, rebuilt only when the log grew."""
    state = request.app.state
    last = service.snapshot().get("last_seq")
    with _cache_lock:
        cached = getattr(state, "history_cache", None)
        if cached is not None and cached[0] == last:
            return cached[1]  # type: ignore[no-any-return]
    out = []
    for h in service.histories():
        try:
            data = tomllib.loads(h["phh"])
        except tomllib.TOMLDecodeError:
            data = {}
        out.append({"hand_no": h["hand_no"], "variant": data.get("variant"), "table": data.get("table"),
                    "players": data.get("players", []), "seats": data.get("seats", []),
                    "starting_stacks": data.get("starting_stacks", []),
                    "finishing_stacks": data.get("finishing_stacks", []),
                    "comment": data.get("comment", "")})
    with _cache_lock:
        state.history_cache = (last, out)
    return out


@router.get("/histories", summary="Finished hands, searchable by hand number, player and variant")
def get_histories(request: Request, role: SurveillanceOnly, service: ServiceDep,
                  hand_no: int | None = None,
                  player: Annotated[str | None, Query(description="part of a player's name")] = None,
                  variant: Annotated[str | None, Query(description="PHH code, e.g. NT")] = None) -> dict[str, Any]:
    hands = _summaries(request, service)
    if hand_no is not None:
        hands = [h for h in hands if h["hand_no"] == hand_no]
    if player:
        p = player.lower()
        hands = [h for h in hands if any(p in str(n).lower() for n in h["players"])]
    if variant:
        hands = [h for h in hands if str(h["variant"]).lower() == variant.lower()]
    return {"hands": hands}


@router.get("/histories/{hand_no}/phh", summary="One hand as PHH (TOML text)",
            response_class=PlainTextResponse, responses={404: {"description": "no such hand"}})
def get_phh(hand_no: int, role: SurveillanceOnly, service: ServiceDep) -> PlainTextResponse:
    try:
        text = service.history_phh(hand_no)
    except KeyError:
        raise HTTPException(404, f"no finished hand {hand_no}") from None
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="hand-{hand_no}.phh"'})


@router.get("/frames/{seq}", summary="The camera frame stored with a showdown event (JPEG)",
            response_class=Response, responses={200: {"content": {"image/jpeg": {}}}, 404: {}})
def get_frame(seq: int, role: SurveillanceOnly, service: ServiceDep) -> Response:
    jpeg = service.frame(seq)
    if jpeg is None:
        raise HTTPException(404, f"no frame stored with event {seq}")
    return Response(jpeg, media_type="image/jpeg")


@router.get("/stream", summary="Server-sent events: new events and the full state after every change",
            response_class=StreamingResponse)
def stream(request: Request, role: SurveillanceOnly) -> StreamingResponse:
    service = request.app.state.service
    return live_stream(request, "surveillance", lambda: views.surveillance_view(service.snapshot()))

"""The dealer's screen and console: live state (hole cards only once tabled), commands, stream."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from controller.server import views
from controller.server.deps import DealerOnly, DealerReader, ServiceDep
from controller.server.hub import dealer_state
from controller.server.routes._stream import live_stream
from controller.service import COMMANDS, CommandError

router = APIRouter(tags=["dealer"])


class Command(BaseModel):
    """A console command: one of ``GET /commands`` with its arguments."""

    name: str = Field(description="command name, e.g. fold, check_call, bet_raise_to, undo")
    args: dict[str, Any] = Field(default_factory=dict, description="arguments, e.g. {\"seat\": 3}")


@router.get("/state", summary="The dealer's view of the table now")
def get_state(request: Request, role: DealerReader) -> dict[str, Any]:
    return dealer_state(request.app.state.service, request.app.state.tracker)


@router.get("/commands", summary="Console commands and their required arguments")
def list_commands(role: DealerReader) -> dict[str, list[str]]:
    return {name: list(args) for name, args in COMMANDS.items()}


@router.post("/commands", summary="Run a console command",
             responses={400: {"description": "refused: {\"error\": reason in words}"}})
def post_command(request: Request, command: Command, role: DealerOnly, service: ServiceDep) -> dict[str, Any]:
    """Runs the command; returns the events it stored (card fields removed) and the new state.
    A refused command changes nothing and answers 400 with the reason."""
    try:
        events = service.command(command.name, command.args)
    except CommandError as exc:
        raise HTTPException(400, str(exc)) from None
    except (ValueError, TypeError, KeyError) as exc:  # a refusal the table did not word itself
        raise HTTPException(400, f"{command.name}: {exc}") from None
    return {"events": [views.redact_event_for_dealer(e) for e in events],
            "state": dealer_state(service, request.app.state.tracker)}


@router.get("/stream", summary="Server-sent events: the dealer's view after every change",
            response_class=StreamingResponse)
def stream(request: Request, role: DealerReader) -> StreamingResponse:
    return live_stream(request, "dealer",
                       lambda: dealer_state(request.app.state.service, request.app.state.tracker))

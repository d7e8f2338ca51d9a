"""The web app: ``create_app(service, tokens=...)`` builds a FastAPI app for one table.

No module-level app or settings: everything the routes need is on ``app.state`` (the service, the
token table, the live hub, the overlay cache) and reaches them through :mod:`controller.server.deps`.
The JSON API lives under ``/api/v1`` (OpenAPI at ``/api/v1/openapi.json``); the pages under
``/dealer``, ``/surveillance`` and ``/overlay`` are static files that call only that API.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pathlib
import re
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from controller.server import views
from controller.server.deps import TokenAuth, get_role
from controller.server.hub import LiveHub, TabledTracker
from controller.service import TableService

API = "/api/v1"
STATIC = pathlib.Path(__file__).resolve().parent / "static"

__all__ = ["create_app", "run_server", "API", "OverlayCache"]


class OverlayCache:
    """The broadcast view of the delayed snapshot, recomputed (equities included) only when the
    delayed snapshot moved on."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._lock = threading.Lock()
        self._key: Any = None
        self._view: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        with self._lock:
            delayed = self.service.delayed_snapshot()
            key = (delayed.get("as_of_seq"), delayed.get("delay_seconds"))
            if self._view is None or key != self._key:
                self._view = views.broadcast_view(delayed)
                self._key = key
            return self._view


def create_app(service: TableService, *, tokens: Mapping[str, str], title: str = "cardroom",
               heartbeat_s: float = 15.0, overlay_interval_s: float = 1.0) -> FastAPI:
    """The table's web app.

    :param service: the running table.
    :param tokens: role -> secret token for ``dealer``, ``surveillance``, ``broadcast`` (a role
        without a token is disabled).
    :param heartbeat_s: seconds between SSE heartbeat comments on an idle stream.
    :param overlay_interval_s: how often the overlay stream re-reads the delayed snapshot.
    :raises ValueError: no token at all, an unknown role, or two roles sharing a token.
    """
    from controller.server.routes import dealer, overlay, surveillance

    auth = TokenAuth(tokens)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.hub.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            app.state.hub.stop()

    app = FastAPI(title=title, version="1", lifespan=lifespan, openapi_url=f"{API}/openapi.json",
                  docs_url=None, redoc_url=None,
                  description="Showdown controller API. Authenticate with a role token: "
                              "`Authorization: Bearer <token>`, or `?token=<token>` for pages and "
                              "EventSource streams. Missing or unknown token: 401; wrong role: 403.")
    tracker = TabledTracker()
    app.state.service = service
    app.state.auth = auth
    app.state.tracker = tracker
    app.state.hub = LiveHub(service, tracker)
    app.state.overlay = OverlayCache(service)
    app.state.heartbeat_s = heartbeat_s
    app.state.overlay_interval_s = overlay_interval_s

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        words = "; ".join(f"{'.'.join(str(x) for x in e.get('loc', ()) if x != 'body') or 'body'}: "
                          f"{e.get('msg', 'invalid')}" for e in exc.errors())
        return JSONResponse({"error": f"bad request: {words}"}, status_code=400)

    app.include_router(dealer.router, prefix=f"{API}/dealer")
    app.include_router(surveillance.router, prefix=f"{API}/surveillance")
    app.include_router(overlay.router, prefix=f"{API}/overlay")

    @app.get(f"{API}/whoami", tags=["auth"], summary="The role of the token given")
    def _whoami(role: Annotated[str, Depends(get_role)]) -> dict[str, str]:
        return {"role": role, "table_id": service.snapshot().get("table_id", "")}

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def page(name: str) -> Any:
        def serve() -> FileResponse:
            return FileResponse(STATIC / f"{name}.html", headers={"Cache-Control": "no-store",
                                                                    "Referrer-Policy": "no-referrer"})
        serve.__name__ = f"page_{name}"
        return serve

    for name in ("dealer", "surveillance", "overlay"):
        app.get(f"/{name}", include_in_schema=False)(page(name))

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse("<!doctype html><title>cardroom</title><h1>cardroom</h1><ul>"
                            "<li><a href='/dealer'>dealer</a><li><a href='/surveillance'>surveillance</a>"
                            "<li><a href='/overlay'>broadcast overlay</a></ul>"
                            "<p>Open a page with <code>?token=...</code> (the role's token).</p>")

    return app


class _MaskTokens(logging.Filter):
    """Access logs never print a ``?token=`` value."""

    _re = re.compile(r"(token=)[^&\s\"']+")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(self._re.sub(r"\1***", a) if isinstance(a, str) else a
                                for a in (record.args if isinstance(record.args, tuple) else (record.args,)))
        return True


def run_server(app: FastAPI, host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "info") -> None:
    """Serve ``app`` with uvicorn until interrupted (open streams are closed on shutdown)."""
    import uvicorn

    logging.getLogger("uvicorn.access").addFilter(_MaskTokens())
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=2)
    uvicorn.Server(config).run()

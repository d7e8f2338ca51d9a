"""Building a table service and its web app for the server tests; a real uvicorn server in a thread."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from controller.server import create_app
from controller.service import TableService
from controller.table import MemoryLog

GAME = {"table_id": "t", "variant": "NT", "seats": 9, "stakes": {"small_blind": 1, "big_blind": 2},
        "smallest_chip": 1}
TOKENS = {"dealer": "dealer-token-123", "surveillance": "surv-token-456", "broadcast": "bcast-token-789"}


def auth(role: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[role]}"}


class FakeClock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make_service(clock: Any = None, delay: float = 30.0, game: dict[str, Any] | None = None) -> TableService:
    clock = clock or time.time
    return TableService(game or GAME, MemoryLog(clock=clock), broadcast_delay=delay, clock=clock)


def make_app(service: TableService, **kw: Any):  # type: ignore[no-untyped-def]
    return create_app(service, tokens=TOKENS, **kw)


def seat_three(svc: TableService) -> None:
    svc.command("seat_player", {"seat": 1, "name": "Ann", "stack": 200})
    svc.command("seat_player", {"seat": 3, "name": "Bob", "stack": 100})
    svc.command("seat_player", {"seat": 5, "name": "Cy", "stack": 300})


def play_to_showdown(svc: TableService) -> None:
    """Seats 1 (AsAh), 3 (KdKc, all-in) and 5 (7c2d, folds): an all-in showdown on the river,
    nobody tabled yet."""
    c = svc.command
    c("start_hand", {"button": 5})
    c("deal", {"seat": 1, "cards": "AsAh"})
    c("deal", {"seat": 3, "cards": "KdKc"})
    c("deal", {"seat": 5, "cards": "7c2d"})
    c("check_call", {"seat": 5})
    c("check_call", {"seat": 1})
    c("check_call", {"seat": 3})
    c("deal", {"seat": None, "cards": "Qs9h4c"})
    c("bet_raise_to", {"seat": 1, "amount": 10})
    c("all_in", {"seat": 3})
    c("fold", {"seat": 5})
    c("all_in", {"seat": 1})
    c("deal", {"seat": None, "cards": "Jd"})
    c("deal", {"seat": None, "cards": "2s"})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(base: str, headers: dict[str, str], seconds: float = 60) -> None:
    """Wait for a ``cardroom serve`` started in another process to answer ``whoami`` at ``base``."""
    import httpx2 as httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/v1/whoami", headers=headers, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("serve did not come up")


@contextlib.contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 in a thread; yields the base URL; stops it on exit."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            timeout_graceful_shutdown=1, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)

"""The server's visibility rules, one test per rule: 401 without a token, 403 for the wrong role,
the dealer never receives an untabled hole card, broadcast never receives a hole card or an event
younger than the secure delay."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from server_helpers import (TOKENS, FakeClock, auth, live_server, make_app, make_service,
                            play_to_showdown, seat_three)

ROUTES = [  # (method, path, roles allowed)
    ("GET", "/api/v1/dealer/state", {"dealer", "surveillance"}),
    ("GET", "/api/v1/dealer/commands", {"dealer", "surveillance"}),
    ("POST", "/api/v1/dealer/commands", {"dealer"}),
    ("GET", "/api/v1/dealer/stream", {"dealer", "surveillance"}),
    ("GET", "/api/v1/surveillance/state", {"surveillance"}),
    ("GET", "/api/v1/surveillance/events", {"surveillance"}),
    ("GET", "/api/v1/surveillance/alerts", {"surveillance"}),
    ("GET", "/api/v1/surveillance/cameras", {"surveillance"}),
    ("GET", "/api/v1/surveillance/audit", {"surveillance"}),
    ("GET", "/api/v1/surveillance/histories", {"surveillance"}),
    ("GET", "/api/v1/surveillance/histories/1/phh", {"surveillance"}),
    ("GET", "/api/v1/surveillance/frames/1", {"surveillance"}),
    ("GET", "/api/v1/surveillance/stream", {"surveillance"}),
    ("GET", "/api/v1/overlay/state", {"broadcast", "surveillance"}),
    ("GET", "/api/v1/overlay/stream", {"broadcast", "surveillance"}),
    ("GET", "/api/v1/whoami", {"dealer", "surveillance", "broadcast"}),
]


@pytest.fixture(scope="module")
def client() -> TestClient:
    svc = make_service(FakeClock())
    seat_three(svc)
    return TestClient(make_app(svc))


def test_every_api_route_is_in_the_table_above(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    listed = {re.sub(r"/\d+", "/{}", p) for _, p, _ in ROUTES}
    assert {re.sub(r"\{[a-z_]+\}", "{}", p) for p in paths} == listed


@pytest.mark.parametrize("method,path,roles", ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_no_token_is_401(client: TestClient, method: str, path: str, roles: set[str]) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic eDp5"}):
        r = client.request(method, path, headers=headers, json={"name": "undo"} if method == "POST" else None)
        assert r.status_code == 401, (headers, r.text)
        assert r.headers["www-authenticate"] == "Bearer"
        assert "error" in r.json()
    r = client.request(method, path + ("&" if "?" in path else "?") + "token=wrong",
                       json={"name": "undo"} if method == "POST" else None)
    assert r.status_code == 401


@pytest.mark.parametrize("method,path,roles", ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_wrong_role_is_403(client: TestClient, method: str, path: str, roles: set[str]) -> None:
    for role in set(TOKENS) - roles:
        r = client.request(method, path, headers=auth(role), json={"name": "undo"} if method == "POST" else None)
        assert r.status_code == 403, (role, r.text)
        assert r.json() == {"error": f"the {role} role may not use this endpoint"}


def test_dealer_may_not_read_the_overlay(client: TestClient) -> None:
    # After the delay the overlay shows every live hole card: the dealer must not get it there.
    assert client.get("/api/v1/overlay/state", headers=auth("dealer")).status_code == 403
    assert client.get(f"/api/v1/overlay/state?token={TOKENS['dealer']}").status_code == 403


# ------------------------------------------------------------------ the dealer and hole cards
HOLES = {1: ("As", "Ah"), 3: ("Kd", "Kc"), 5: ("7c", "2d")}
HAND2 = {1: ("Th", "Ts"), 5: ("8h", "8s")}


def _quoted_cards(text: str) -> set[str]:
    return set(re.findall(r'"([2-9TJQKA][shdc])"', text))


class SSEReader(threading.Thread):
    def __init__(self, url: str, headers: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.url, self.headers = url, headers
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=10) as c, c.stream("GET", self.url, headers=self.headers) as r:
            for line in r.iter_lines():
                if line.startswith("data: "):
                    self.raw.append(line[6:])
                    self.messages.append(json.loads(line[6:]))
                if self.stop.is_set():
                    return

    def wait_for(self, pred, timeout: float = 5) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not any(pred(m) for m in list(self.messages)):
            assert time.monotonic() < deadline, self.messages[-1:]
            time.sleep(0.01)


def test_dealer_never_receives_an_untabled_hole_card() -> None:
    """A whole scripted hand (all-in showdown, one hand tabled then mucked, a fold) and a second,
    uncontested hand, through the API and the live stream: a seat's hole cards reach the dealer only
    after that seat tabled."""
    svc = make_service()
    seat_three(svc)
    app = make_app(svc, heartbeat_s=0.5)
    received: list[tuple[int, str]] = []  # (last seq the payload reflects, JSON text)
    tabled_at: dict[tuple[int, int], int] = {}  # (hand, seat) -> seq of its tabling
    with live_server(app) as base, httpx.Client(base_url=base, headers=auth("dealer"), timeout=10) as http:
        reader = SSEReader(f"{base}/api/v1/dealer/stream", auth("dealer"))
        reader.start()
        reader.wait_for(lambda m: m["type"] == "state")

        def cmd(name: str, **args: Any) -> None:
            r = http.post("/api/v1/dealer/commands", json={"name": name, "args": args})
            assert r.status_code == 200, r.text
            body = r.json()
            received.append((body["state"]["last_seq"], r.text))
            if name == "table_hand":
                tabled_at[(body["state"]["hand"]["hand_no"], args["seat"])] = body["events"][0]["seq"]
            st = http.get("/api/v1/dealer/state")
            received.append((st.json()["last_seq"], st.text))

        cmd("start_hand", button=5)
        for seat, cards in HOLES.items():
            cmd("deal", seat=seat, cards="".join(cards))
        for seat in (5, 1, 3):
            cmd("check_call", seat=seat)
        cmd("deal", seat=None, cards="Qs9h4c")
        cmd("bet_raise_to", seat=1, amount=10)
        cmd("all_in", seat=3)
        cmd("fold", seat=5)
        cmd("all_in", seat=1)
        cmd("deal", seat=None, cards="Jd")
        cmd("deal", seat=None, cards="2s")
        cmd("table_hand", seat=3)
        cmd("table_hand", seat=1)
        cmd("muck_losers")  # seat 3 was tabled, then mucked: still shown
        cmd("push")
        cmd("start_hand", button=1)  # hand 2: uncontested, the winner never shows
        for seat, cards in HAND2.items():
            cmd("deal", seat=seat, cards="".join(cards))
        cmd("fold", seat=http.get("/api/v1/dealer/state").json()["hand"]["actor"])
        last = http.get("/api/v1/dealer/state").json()
        assert last["hand"]["showdown"]["uncontested"] is True
        reader.wait_for(lambda m: m.get("seq") == last["last_seq"])
        reader.stop.set()
        reader.join(3)
    for raw, m in zip(reader.raw, reader.messages):
        received.append((m["seq"], raw))
    assert len(reader.messages) >= 10

    hand1_start = next(seq for seq, text in received if '"hand_no":1' in text.replace(" ", ""))
    hand2_start = min(seq for seq, text in received if json.loads(text).get("state", json.loads(text)).get("hand")
                      and json.loads(text).get("state", json.loads(text))["hand"]["hand_no"] == 2)
    for seq, text in received:
        seen = _quoted_cards(text)
        for seat, cards in HOLES.items():
            when = tabled_at.get((1, seat))
            if seq < hand2_start and (when is None or seq < when):
                assert not seen & set(cards), (seat, seq, text[:300])
        assert not seen & set(HOLES[5])  # folded, never tabled
        assert not seen & {c for cards in HAND2.values() for c in cards}  # hand 2: nobody tabled
    # And the dealer did see the tabled hands, with their readings and the push.
    final_hand1 = [t for s, t in received if tabled_at[(1, 1)] <= s < hand2_start]
    assert any('"As"' in t and "Pair of aces" in t and "Main pot: 202 to seat 1" in t for t in final_hand1)
    assert hand1_start >= 1


def test_dealer_warnings_never_name_a_hidden_card() -> None:
    """R3/R4/R5 warnings and a miscalled declaration on untabled hands: no card of a hidden hand in
    the dealer's warnings."""
    svc = make_service()
    seat_three(svc)
    play_to_showdown(svc)
    svc.command("declare", {"seat": 1, "text": "a flush"})  # miscall (R1): the reading is withheld
    svc.command("show_cards", {"seat": 1, "cards": "As"})  # one card of a winning hand (R5)
    c = TestClient(make_app(svc))
    st = c.get("/api/v1/dealer/state", headers=auth("dealer")).json()
    surveillance = c.get("/api/v1/surveillance/state", headers=auth("surveillance")).json()
    assert any("declared 'a flush'" in w for w in surveillance["hand"]["warnings"])
    assert any("(R5)" in w for w in st["hand"]["warnings"])
    for w in st["hand"]["warnings"]:
        assert "Pair of aces".lower() not in w.lower()
        assert not set(re.findall(r"\b[2-9TJQKA][shdc]\b", w)) & {"As", "Ah", "Kd", "Kc", "7c", "2d"}
    assert st["hand"]["seats"]["1"]["cards"] == [None, None]
    for r in st["hand"]["showdown"]["readings"]:
        assert r["high"] is None
    assert st["hand"]["showdown"]["push"] == []  # who wins is not told before the hands are tabled


# ------------------------------------------------------------------ broadcast and the delay
def _events_in(view: dict[str, Any], svc: Any) -> list[dict[str, Any]]:
    return [e for e in svc.events() if e["seq"] <= (view.get("as_of_seq") or 0)]


def test_broadcast_never_gets_a_hole_card_or_event_younger_than_the_delay() -> None:
    clock = FakeClock()
    svc = make_service(clock, delay=30)
    seat_three(svc)
    c = TestClient(make_app(svc))
    B = auth("broadcast")
    clock.advance(60)
    play_to_showdown(svc)  # every event stored at t0 + 60
    hole = {c_ for cards in HOLES.values() for c_ in cards}
    for step in (0, 10, 29.9):
        clock.t = 1_000_060 + step
        r = c.get("/api/v1/overlay/state", headers=B)
        view = r.json()
        assert not _quoted_cards(r.text) & hole, step
        assert view["hand"] is None
        for e in _events_in(view, svc):
            assert e["ts"] <= clock() - 30
    clock.t = 1_000_060 + 30
    r = c.get("/api/v1/overlay/state", headers=B)
    assert _quoted_cards(r.text) >= {"As", "Ah", "Kd", "Kc"}  # live hands, after the delay
    assert not _quoted_cards(r.text) & {"7c", "2d"}  # the folded hand stays off air
    for e in _events_in(r.json(), svc):
        assert e["ts"] <= clock() - 30
    assert "last_seq" not in r.json() and "events" not in r.text


def test_broadcast_stream_is_the_delayed_state_only() -> None:
    clock = FakeClock()
    svc = make_service(clock, delay=30)
    seat_three(svc)
    app = make_app(svc, overlay_interval_s=0.05, heartbeat_s=0.5)
    with live_server(app) as base:
        reader = SSEReader(f"{base}/api/v1/overlay/stream", auth("broadcast"))
        reader.start()
        reader.wait_for(lambda m: m["type"] == "state")
        play_to_showdown(svc)
        time.sleep(0.4)  # several ticks of the overlay timer with live events waiting
        early = list(reader.raw)
        clock.advance(31)
        reader.wait_for(lambda m: (m["state"].get("hand") or {}).get("hand_no") == 1)
        reader.stop.set()
        reader.join(3)
    for raw in early:
        assert not _quoted_cards(raw) & {"As", "Ah", "Kd", "Kc", "7c", "2d"}
        assert json.loads(raw)["state"]["hand"] is None
    assert any('"As"' in raw for raw in reader.raw[len(early):])


def test_query_token_is_masked_in_access_logs() -> None:
    import logging

    from controller.server.app import _MaskTokens

    rec = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
                            ("127.0.0.1", "GET", f"/api/v1/dealer/stream?token={TOKENS['dealer']}&x=1", "1.1", 200), None)
    _MaskTokens().filter(rec)
    assert TOKENS["dealer"] not in rec.getMessage() and "token=***&x=1" in rec.getMessage()

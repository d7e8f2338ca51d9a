"""The web API with httpx2 (Starlette's TestClient): every route, errors in words, OpenAPI."""

from __future__ import annotations

import json
import threading
import time

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from controller.eventlog import EventLog
from controller.service import TableService
from server_helpers import (GAME, TOKENS, FakeClock, auth, live_server, make_app, make_service,
                            play_to_showdown, seat_three)

D, S, B = auth("dealer"), auth("surveillance"), auth("broadcast")


@pytest.fixture
def svc():  # type: ignore[no-untyped-def]
    s = make_service(FakeClock())
    seat_three(s)
    return s


@pytest.fixture
def client(svc):  # type: ignore[no-untyped-def]
    return TestClient(make_app(svc))


def post(client, command, **args):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/dealer/commands", json={"name": command, "args": args}, headers=D)


def finish_hand(svc) -> None:  # type: ignore[no-untyped-def]
    play_to_showdown(svc)
    svc.command("table_hand", {"seat": 1})
    svc.command("table_hand", {"seat": 3})
    svc.command("muck_losers", {})
    svc.command("push", {})


def test_openapi_lists_every_route(client) -> None:  # type: ignore[no-untyped-def]
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for p in ["/api/v1/dealer/state", "/api/v1/dealer/commands", "/api/v1/dealer/stream",
              "/api/v1/surveillance/state", "/api/v1/surveillance/events", "/api/v1/surveillance/alerts",
              "/api/v1/surveillance/audit", "/api/v1/surveillance/histories",
              "/api/v1/surveillance/histories/{hand_no}/phh", "/api/v1/surveillance/frames/{seq}",
              "/api/v1/surveillance/stream", "/api/v1/overlay/state", "/api/v1/overlay/stream",
              "/api/v1/whoami"]:
        assert p in paths, p
    assert "post" in paths["/api/v1/dealer/commands"]


def test_whoami_and_query_token(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/api/v1/whoami", headers=D).json()["role"] == "dealer"
    assert client.get(f"/api/v1/whoami?token={TOKENS['broadcast']}").json()["role"] == "broadcast"


def test_dealer_state_and_commands(client, svc) -> None:  # type: ignore[no-untyped-def]
    cmds = client.get("/api/v1/dealer/commands", headers=D).json()
    assert cmds["bet_raise_to"] == ["seat", "amount"]
    r = post(client, "start_hand", button=5)
    assert r.status_code == 200
    body = r.json()
    assert [e["kind"] for e in body["events"]] == ["hand_started"]
    assert body["state"]["hand"]["hand_no"] == 1
    r = post(client, "deal", seat=1, cards="AsAh")
    assert r.status_code == 200
    assert "cards" not in r.json()["events"][0]["payload"]  # the dealer typed them; still not echoed
    state = client.get("/api/v1/dealer/state", headers=D).json()
    assert state["hand"]["seats"]["1"]["cards"] == [None, None]
    assert state["hand"]["seats"]["1"]["card_count"] == 2


@pytest.mark.parametrize("name,args,words", [
    ("seat_player", {"seat": 1, "name": "Zed", "stack": 50}, "seat 1 is taken by Ann"),
    ("fly", {}, "unknown command 'fly'"),
    ("fold", {}, "fold: missing seat"),
    ("start_hand", {"button": 2}, "the button must be on an occupied seat, not seat 2"),
    ("bet_raise_to", {"seat": 1, "amount": 10}, "no hand in progress"),
])
def test_refused_command_is_400_in_words(client, name, args, words) -> None:  # type: ignore[no-untyped-def]
    r = post(client, name, **args)
    assert r.status_code == 400
    assert r.json() == {"error": words}


def test_out_of_turn_and_bad_body(client) -> None:  # type: ignore[no-untyped-def]
    post(client, "start_hand", button=5)
    r = post(client, "check_call", seat=3)
    assert r.json() == {"error": "seat 3 cannot check or call: no betting now (cards are being dealt)"}
    for seat, cards in ((1, "AsAh"), (3, "KdKc"), (5, "7c2d")):
        post(client, "deal", seat=seat, cards=cards)
    r = post(client, "check_call", seat=3)
    assert r.status_code == 400 and r.json()["error"] == "seat 3 cannot check or call: out of turn, it is seat 5's turn"
    r = client.post("/api/v1/dealer/commands", json={"args": {}}, headers=D)
    assert r.status_code == 400 and r.json()["error"].startswith("bad request: name")
    r = client.post("/api/v1/dealer/commands", content="not json", headers={**D, "Content-Type": "application/json"})
    assert r.status_code == 400 and "error" in r.json()


def test_surveillance_routes(client, svc) -> None:  # type: ignore[no-untyped-def]
    finish_hand(svc)
    svc.alert("foreign_tag", uid="04AABB")
    st = client.get("/api/v1/surveillance/state", headers=S).json()
    assert st["hand"]["seats"]["5"]["cards"] == ["7c", "2d"]
    assert {"card": "7c", "place": "muck (folded)", "seat": 5, "face": "down"} in st["cards"]
    ev = client.get("/api/v1/surveillance/events?since=3&limit=2", headers=S).json()
    assert [e["seq"] for e in ev["events"]] == [4, 5] and ev["next_since"] == 5
    assert client.get("/api/v1/surveillance/events?limit=0", headers=S).status_code == 400
    alerts = client.get("/api/v1/surveillance/alerts", headers=S).json()["alerts"]
    assert alerts[-1]["alert"] == "foreign_tag" and alerts[-1]["uid"] == "04AABB"
    audit = client.get("/api/v1/surveillance/audit", headers=S).json()
    assert audit["ok"] is True
    hands = client.get("/api/v1/surveillance/histories", headers=S).json()["hands"]
    assert [h["hand_no"] for h in hands] == [1]
    assert hands[0]["players"] == ["Ann", "Bob", "Cy"] and hands[0]["variant"] == "NT"
    for query, n in [("hand_no=1", 1), ("hand_no=2", 0), ("player=bo", 1), ("player=zed", 0),
                     ("variant=NT", 1), ("variant=FO/8", 0)]:
        assert len(client.get(f"/api/v1/surveillance/histories?{query}", headers=S).json()["hands"]) == n, query
    r = client.get("/api/v1/surveillance/histories/1/phh", headers=S)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert 'variant = "NT"' in r.text and "attachment" in r.headers["content-disposition"]
    assert client.get("/api/v1/surveillance/histories/9/phh", headers=S).json() == {"error": "no finished hand 9"}


def test_frames(client, svc) -> None:  # type: ignore[no-untyped-def]
    play_to_showdown(svc)
    seq = svc.command("table_hand", {"seat": 1})[0]["seq"]
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"
    svc.store_frame(seq, jpeg)
    r = client.get(f"/api/v1/surveillance/frames/{seq}", headers=S)
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg" and r.content == jpeg
    assert client.get(f"/api/v1/surveillance/frames/{seq - 1}", headers=S).status_code == 404


def test_audit_on_the_sqlite_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = TableService(GAME, EventLog(tmp_path / "t.db", table_id="t"), broadcast_delay=30)
    try:
        seat_three(svc)
        c = TestClient(make_app(svc))
        audit = c.get("/api/v1/surveillance/audit", headers=S).json()
        assert audit["ok"] is True and audit["rows"] == 4 and audit["first_bad_seq"] is None
    finally:
        svc.close()


def test_overlay_state(svc) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    svc = make_service(clock, delay=30)
    seat_three(svc)
    play_to_showdown(svc)
    c = TestClient(make_app(svc))
    assert c.get("/api/v1/overlay/state", headers=B).json()["hand"] is None
    clock.advance(31)
    st = c.get("/api/v1/overlay/state", headers=B).json()
    seats = st["hand"]["seats"]
    assert seats["1"]["cards"] == ["As", "Ah"] and seats["5"]["cards"] == []
    assert seats["1"]["strength"] == "Pair of aces"
    assert st["hand"]["equity"]["method"] == "exact"
    assert st["hand"]["equity"]["seats"]["1"]["equity"] == 1.0


def test_pages_are_served(client) -> None:  # type: ignore[no-untyped-def]
    for page in ("dealer", "surveillance", "overlay"):
        r = client.get(f"/{page}")
        assert r.status_code == 200 and "<!doctype html>" in r.text.lower()
        assert "http://" not in r.text and "https://" not in r.text  # nothing from the internet
    assert client.get("/static/common.js").status_code == 200


def test_create_app_refuses_bad_tokens(svc) -> None:  # type: ignore[no-untyped-def]
    from controller.server import create_app

    with pytest.raises(ValueError, match="no role token"):
        create_app(svc, tokens={})
    with pytest.raises(ValueError, match="share a token"):
        create_app(svc, tokens={"dealer": "same", "broadcast": "same"})
    with pytest.raises(ValueError, match="unknown role"):
        create_app(svc, tokens={"admin": "x"})


def read_sse(url: str, headers: dict[str, str], out: list, stop: threading.Event) -> None:  # type: ignore[type-arg]
    with httpx.Client(timeout=10) as c, c.stream("GET", url, headers=headers) as r:
        out.append(("status", r.status_code, r.headers.get("content-type")))
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
            if stop.is_set():
                return


def test_live_streams_over_a_real_server(svc) -> None:  # type: ignore[no-untyped-def]
    app = make_app(svc, heartbeat_s=0.2)
    with live_server(app) as base:
        got: dict[str, list] = {"dealer": [], "surveillance": []}  # type: ignore[type-arg]
        stop = threading.Event()
        threads = [threading.Thread(target=read_sse, args=(f"{base}/api/v1/{v}/stream", auth(v), got[v], stop))
                   for v in got]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 5
        while any(len(v) < 2 for v in got.values()) and time.monotonic() < deadline:
            time.sleep(0.02)
        httpx.post(f"{base}/api/v1/dealer/commands", json={"name": "start_hand", "args": {"button": 5}}, headers=D)
        while any(not any(isinstance(m, dict) and m.get("kind") == "hand_started" for m in v) for v in got.values()):
            assert time.monotonic() < deadline, got
            time.sleep(0.02)
        stop.set()
        for t in threads:
            t.join(timeout=5)
    for v, msgs in got.items():
        assert msgs[0] == ("status", 200, "text/event-stream; charset=utf-8")
        assert msgs[1]["type"] == "state"  # the state on connect
        last = msgs[-1]
        assert last["state"]["hand"]["hand_no"] == 1
    assert got["surveillance"][-1]["events"][-1]["kind"] == "hand_started"

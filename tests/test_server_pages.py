"""The pages in real headless Chromium (Debian's ``chromium``, driven by Playwright for Python):
each page loads with its token, updates live after a command posted through the API, and is
photographed into pytest's tmp_path; with ``CARDROOM_UPDATE_SCREENSHOTS=1`` the pictures are also
copied to ``docs/screenshots/`` (kept in the repository, refreshed on purpose, so an ordinary test
run leaves the working tree clean)."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import time

import httpx2 as httpx
import pytest

from server_helpers import TOKENS, auth, live_server, make_app, make_service, play_to_showdown, seat_three

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on PATH (apt-get install chromium)")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


def shoot(page, tmp_path: pathlib.Path, name: str, **kw) -> None:  # type: ignore[no-untyped-def]
    page.screenshot(path=str(tmp_path / f"{name}.png"), **kw)
    if os.environ.get("CARDROOM_UPDATE_SCREENSHOTS") != "1":
        return
    DOCS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tmp_path / f"{name}.png", DOCS / f"{name}.png")


def test_dealer_screen_updates_live(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = make_service()
    seat_three(svc)
    with live_server(make_app(svc)) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{base}/dealer?token={TOKENS['dealer']}")
            page.wait_for_selector("#conn.on", timeout=5000)
            assert "token=" not in page.url  # the secret leaves the address bar
            play_to_showdown(svc)
            svc.command("table_hand", {"seat": 3})
            page.wait_for_selector("text=Pair of kings", timeout=3000)
            assert page.locator("[data-seat='1'] .card.back").count() == 2  # seat 1 not tabled yet
            shoot(page, tmp_path, "dealer-showdown")
            r = httpx.post(f"{base}/api/v1/dealer/commands", headers=auth("dealer"),
                           json={"name": "table_hand", "args": {"seat": 1}})
            assert r.status_code == 200
            # pushed, not polled (the stream's latency is measured in bench/bench_server.py)
            page.wait_for_selector("text=Main pot: 202 to seat 1", timeout=3000)
            assert page.locator("[data-seat='1'] .card.best").count() == 2
            shoot(page, tmp_path, "dealer-push")
            # The console: a refused command is shown in words.
            page.click("button[data-cmd='push']")
            page.wait_for_selector("#error:not([hidden])", timeout=2000)
            assert "must be mucked or killed before the push (R17)" in page.inner_text("#error")
            shoot(page, tmp_path, "dealer-error")
            page.click("button[data-cmd='muck_losers']")
            page.click("button[data-cmd='push']")
            page.wait_for_selector("text=Hand 1 (pushed)", timeout=2000)
        finally:
            page.close()


def test_surveillance_page(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = make_service()
    seat_three(svc)
    with live_server(make_app(svc)) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{base}/surveillance?token={TOKENS['surveillance']}")
            page.wait_for_selector("#audit.ok", timeout=5000)
            play_to_showdown(svc)
            svc.alert("foreign_tag", uid="04AABB", antenna="seat 3")
            page.wait_for_selector("text=foreign tag", timeout=3000)
            page.wait_for_selector("#seats [data-seat='5'] .card", timeout=3000)  # every card, live
            assert "hash chain OK" in page.inner_text("#audit")
            shoot(page, tmp_path, "surveillance", full_page=True)
        finally:
            page.close()


def test_r2_dealer_screen_says_which_seats_no_camera_judges_while_a_camera_is_offline(browser) -> None:  # type: ignore[no-untyped-def]
    """A camera going offline (its state, then its alert, as ``CameraRunner`` reports them) puts a
    banner on the dealer's screen naming it and its seats, pushed with the alert; its coming back
    takes the banner away."""
    svc = make_service()
    seat_three(svc)
    svc.camera_status("west", state="live", seats=[1, 2, 3])
    with live_server(make_app(svc)) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{base}/dealer?token={TOKENS['dealer']}")
            page.wait_for_selector("#conn.on", timeout=5000)
            assert page.locator("#warnings [data-camera]").count() == 0
            svc.camera_status("west", state="offline", error="rtsp://10.0.0.21/s: cannot open video source")
            svc.alert("camera_offline", detail="rtsp://10.0.0.21/s: cannot open video source", camera="west")
            page.wait_for_selector("#warnings [data-camera='west']", timeout=3000)
            assert page.inner_text("#warnings [data-camera='west']") == (
                "Camera west is offline: seats 1, 2, 3 not judged by a camera; the floor verifies their tabled hands")
            svc.camera_status("west", state="live", error=None)
            svc.alert("camera_online", detail="rtsp://10.0.0.21/s: frames again", camera="west")
            page.wait_for_selector("#warnings [data-camera='west']", state="detached", timeout=3000)
        finally:
            page.close()


def test_surveillance_page_shows_each_camera_live_offline_or_stalled(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The cameras panel: each camera of the table with its state, its seats, the age of its last
    frame and its error, refreshed every two seconds; a live camera whose frames stopped coming
    shows as stalled."""
    svc = make_service()
    now = svc.clock()
    svc.camera_status("west", state="live", seats=[1, 2, 3], frames=120, last_frame=now, error=None)
    svc.camera_status("east", state="offline", seats=[7, 8], frames=0, last_frame=None,
                      error="rtsp://10.0.0.22/s: cannot open video source")
    svc.camera_status("head", state="live", seats=[6], frames=40, last_frame=now - 60, error=None)
    with live_server(make_app(svc)) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{base}/surveillance?token={TOKENS['surveillance']}")
            page.wait_for_selector("#cameras [data-camera='west']", timeout=5000)
            row = {c: page.inner_text(f"#cameras [data-camera='{c}']") for c in ("west", "east", "head")}
            assert "live" in row["west"] and "1 2 3" in row["west"] and "120" in row["west"]
            assert "offline" in row["east"] and "cannot open video source" in row["east"]
            # its last frame 60 s old when set; the page shows its age when read (later on a busy machine)
            age = re.search(r"(\d+(?:\.\d+)?) s ago", row["head"])
            assert "stalled" in row["head"] and age is not None and 60 <= float(age.group(1)) < 90, row["head"]
            svc.camera_status("east", state="live", frames=1, last_frame=svc.clock(), error=None)
            page.wait_for_function("document.querySelector(\"#cameras [data-camera='east']\").innerText"
                                   ".includes('live')", timeout=5000)
            shoot(page, tmp_path, "surveillance-cameras", full_page=True)
        finally:
            page.close()


def test_surveillance_page_catches_up_on_events_logged_while_its_stream_was_down(browser) -> None:  # type: ignore[no-untyped-def]
    """An alert raised while the live stream is reconnecting still reaches the page: the stream
    reopens with the state as it stands and the page fetches the events it missed."""
    svc = make_service()
    seat_three(svc)
    app = make_app(svc)
    with live_server(app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{base}/surveillance?token={TOKENS['surveillance']}")
            page.wait_for_selector("#conn.on", timeout=5000)
            app.state.hub.end_streams()
            page.wait_for_selector("#conn:not(.on)", timeout=3000)
            svc.alert("foreign_tag", uid="04AABB", antenna="seat 3")  # nobody is connected now
            page.wait_for_selector("#conn.on", timeout=5000)
            page.wait_for_selector("text=foreign tag", timeout=3000)
        finally:
            page.close()


def test_overlay_page_is_transparent_and_delayed(browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = make_service(delay=0.6)
    seat_three(svc)
    with live_server(make_app(svc, overlay_interval_s=0.1)) as base:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        try:
            page.goto(f"{base}/overlay?token={TOKENS['broadcast']}")
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg in ("rgba(0, 0, 0, 0)", "transparent")
            play_to_showdown(svc)
            time.sleep(0.2)
            assert page.locator(".player").count() == 0  # not yet: the secure delay
            page.wait_for_selector(".player[data-seat='1']", timeout=3000)
            assert "Pair of aces" in page.inner_text("#lower")
            assert "100.0%" in page.inner_text(".player[data-seat='1']")
            shoot(page, tmp_path, "overlay", omit_background=True)
        finally:
            page.close()

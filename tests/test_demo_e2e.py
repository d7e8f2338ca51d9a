"""``cardroom demo`` end to end, as a subprocess: simulator, bridge, camera, log, table, web."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import httpx2 as httpx
from server_helpers import free_port, wait_until_up


def test_demo_plays_the_scripted_hands_and_serves_the_pages(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "demo", "--dir", str(tmp_path / "demo"), "--hands", "5",
         "--pause", "0", "--port", str(port), "--delay", "1", "--stay"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    out = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            out.append(line)
            if "hand(s) played" in line:
                break
        text = "".join(out)
        assert "demo: 5 hand(s) played" in text, text
        # the camera's resolution judged at start from the configured card width (vision.resolution)
        assert "camera: resolution: cards 72 px wide (configured): the shipped models read" in text, text
        tokens = dict(re.findall(r"/(dealer|surveillance|overlay)\?token=(\S+)", text))
        base = f"http://127.0.0.1:{port}"
        sv = {"Authorization": f"Bearer {tokens['surveillance']}"}
        hist = httpx.get(f"{base}/api/v1/surveillance/histories", headers=sv, timeout=30).json()
        hands = hist if isinstance(hist, list) else hist.get("hands", hist.get("histories"))
        assert len(hands) == 5
        phh = httpx.get(f"{base}/api/v1/surveillance/histories/1/phh", headers=sv, timeout=30).text
        assert "variant" in phh and "finishing_stacks" in phh
        # Hand 1: the short all-in wins the main pot, seat 2 side pot 1, seat 3 side pot 2.
        assert "finishing_stacks = [\n    240,\n    270,\n    200,\n    150,\n]" in phh.replace("\r", "")
        audit = httpx.get(f"{base}/api/v1/surveillance/audit", headers=sv, timeout=30).json()
        assert audit["ok"] is True
        # the demo's camera, rendered at each showdown, on surveillance's Cameras panel
        cams = httpx.get(f"{base}/api/v1/surveillance/cameras", headers=sv, timeout=30).json()["cameras"]
        assert [(c["camera"], c["state"], c["seats"]) for c in cams] == [("camera", "rendered", list(range(1, 11)))]
        assert cams[0]["frames"] >= 5 and cams[0]["last_frame_age_s"] is not None
        for page, token in (("dealer", tokens["dealer"]), ("surveillance", tokens["surveillance"]),
                            ("overlay", tokens["overlay"])):
            r = httpx.get(f"{base}/{page}?token={token}", timeout=30)
            assert r.status_code == 200 and "<html" in r.text.lower()
        assert httpx.get(f"{base}/api/v1/dealer/state", timeout=30).status_code == 401
        assert httpx.get(f"{base}/api/v1/surveillance/state",
                         headers={"Authorization": f"Bearer {tokens['dealer']}"}, timeout=30).status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_serve_runs_a_table_from_its_configuration_file(tmp_path):
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    text = (root / "config" / "table.toml").read_text()
    text = text.replace("demo = true", "demo = false")
    text = text.replace('database = "var/table.db"', f'database = "{(tmp_path / "t.db").as_posix()}"')
    port = free_port()
    text = text.replace("port = 8000", f"port = {port}")
    cfg = tmp_path / "table.toml"
    cfg.write_text(text)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "CARDROOM_DEALER_TOKEN": "dealer-token-0123456789",
           "CARDROOM_SURVEILLANCE_TOKEN": "surveillance-token-0123456789",
           "CARDROOM_BROADCAST_TOKEN": "broadcast-token-0123456789"}
    # No token outside demo mode: refused at start with the file, the key and the reason.
    bare = {k: v for k, v in env.items() if not k.endswith("_TOKEN")}
    proc = subprocess.run([sys.executable, "-m", "controller", "serve", "--config", str(cfg)], cwd=root,
                          env=bare, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "tokens.dealer" in proc.stderr
    proc = subprocess.Popen([sys.executable, "-m", "controller", "serve", "--config", str(cfg)], cwd=root,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        dealer = {"Authorization": "Bearer dealer-token-0123456789"}
        wait_until_up(base, dealer)

        def cmd(command, **args):
            r = httpx.post(f"{base}/api/v1/dealer/commands", headers=dealer,
                           json={"name": command, "args": args}, timeout=10)
            return r

        assert cmd("seat_player", seat=1, name="Ann", stack=100).status_code == 200
        assert cmd("seat_player", seat=2, name="Bo", stack=100).status_code == 200
        assert cmd("start_hand", button=2).status_code == 200
        assert cmd("deal", seat=1, cards="AsAh").status_code == 200
        refused = cmd("deal", seat=2, cards="AsKd")
        assert refused.status_code == 400 and "duplicate card As" in refused.json()["error"]
        state = httpx.get(f"{base}/api/v1/dealer/state", headers=dealer, timeout=10).json()
        assert "As" not in str(state)  # never a hole card that was not tabled, to the dealer
        # Play it to a showdown by hand entry: the camera (the configured video file) judges the
        # tabled seats and its verdicts reach the log.
        assert cmd("deal", seat=2, cards="KsKd").status_code == 200
        assert cmd("check_call", seat=2).status_code == 200
        assert cmd("check_call", seat=1).status_code == 200
        for cards in ("2c7d9s", "Jh", "3d"):
            assert cmd("deal", seat=None, cards=cards).status_code == 200
            assert cmd("check_call", seat=1).status_code == 200
            assert cmd("check_call", seat=2).status_code == 200
        assert cmd("table_hand", seat=1).status_code == 200
        sv = {"Authorization": "Bearer surveillance-token-0123456789"}
        deadline = time.monotonic() + 30
        kinds = []
        while time.monotonic() < deadline:
            events = httpx.get(f"{base}/api/v1/surveillance/events?since=0&limit=1000", headers=sv,
                               timeout=10).json()
            events = events if isinstance(events, list) else events.get("events", [])
            kinds = [e["kind"] for e in events]
            if "seat_view" in kinds:
                break
            time.sleep(0.5)
        assert "seat_view" in kinds, kinds
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)

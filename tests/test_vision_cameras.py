"""Several cameras at one table (``[[cameras]]``): each sees some of the seats, at its own card width.

A ten-seat table under one 1920x1080 camera shows cards about 72 px wide; cameras that each see a
few seats show them larger, and larger cards read surer (``models/read_rate_by_width.json``). The
cameras here are parts of one rendered table view, each written as a still: real images, the real
models, real threads and a real SQLite log.
"""

from __future__ import annotations

import json
import pathlib
import time

import numpy as np
import pytest

from controller.cards import Card

REPO = pathlib.Path(__file__).resolve().parents[1]
SPLIT = 1180
"""Where the two cameras' views of the 1920x1080 table meet: seats 1 to 6 lie left of it (the
``west`` camera), 7 to 10 right (``east``)."""


def _zones(shift: int, seats: range) -> list[dict]:
    """The example file's zones of ``seats``, ``shift`` pixels further left (a camera's own pixels)."""
    from vision.config import load_camera_config

    cam = load_camera_config(REPO / "config" / "table.toml")
    return [{"seat": z.seat, "polygon": [[x - shift, y] for x, y in z.polygon]} for z in cam.zones if z.seat in seats]


def _toml_zones(zones: list[dict]) -> str:
    return "".join(f"[[cameras.zones]]\nseat = {z['seat']}\npolygon = {json.dumps(z['polygon'])}\n" for z in zones)


def cameras_toml(west: str, east: str, extra: str = "") -> str:
    """Two cameras, ``west`` (seats 1 to 6) and ``east`` (7 to 10), their sources the files named,
    each with the camera's card width and one still frame held for the count; ``extra`` after them."""
    model = f'model = "{(REPO / "models" / "card_index.onnx").as_posix()}"\n'
    text = (f'[[cameras]]\nname = "west"\nsource = "{west}"\ncard_width = 72\nstable_frames = 1\n{model}'
            + _toml_zones(_zones(0, range(1, 7)))
            + f'[[cameras]]\nname = "east"\nsource = "{east}"\ncard_width = 72\nstable_frames = 1\n{model}'
            + _toml_zones(_zones(SPLIT, range(7, 11))) + extra)
    return text


def two_cameras(tmp_path: pathlib.Path, west: str, east: str, extra: str = "") -> pathlib.Path:
    """A table file of :func:`cameras_toml` alone."""
    path = tmp_path / "table.toml"
    path.write_text(cameras_toml(west, east, extra))
    return path


@pytest.fixture(scope="module")
def table_view(tmp_path_factory):  # type: ignore[no-untyped-def]
    """A rendered ten-seat table (seen decks, no chips or fingers), cut into the two cameras' views."""
    import cv2

    from vision import render

    scene = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False)
    folder = tmp_path_factory.mktemp("cameras")
    west, east = folder / "west.png", folder / "east.png"
    cv2.imwrite(str(west), scene.image[:, :SPLIT])
    cv2.imwrite(str(east), scene.image[:, SPLIT:])
    return scene, west, east


def _service(tmp_path, table_id: str):  # type: ignore[no-untyped-def]
    """A ten-seat no-limit table's service on a real SQLite log in ``tmp_path``."""
    from controller.eventlog import EventLog
    from controller.service import TableService

    game = {"table_id": table_id, "variant": "NT", "seats": 10, "stakes": {"small_blind": 1, "big_blind": 2},
            "smallest_chip": 1}
    return TableService(game, EventLog(tmp_path / "t.db", table_id=table_id))


def _alerts(svc, kind: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """The service's alerts of ``kind``."""
    return [a for a in svc.alerts() if a["alert"] == kind]


def test_r2_a_table_file_names_several_cameras_each_with_its_own_seats(tmp_path):
    """``[[cameras]]``: every camera in the file's order, each with the key it stands at and its own
    name (``camera-N`` where it gives none), the ``[game]`` variant where it names none; a lone
    ``[camera]`` is as it was, called ``camera``."""
    from vision.config import load_camera_config, load_cameras

    path = two_cameras(tmp_path, "w.png", "e.png", '\n[game]\nvariant = "omaha"\n')
    cams = load_cameras(path)
    assert [(k, c.name, sorted(z.seat for z in c.zones), c.variant) for k, c in cams] == [
        ("cameras[0]", "west", [1, 2, 3, 4, 5, 6], "omaha"), ("cameras[1]", "east", [7, 8, 9, 10], "omaha")]
    assert load_camera_config(path, "east").source == "e.png"
    path.write_text(path.read_text().replace('name = "west"\n', ""))
    assert [c.name for _, c in load_cameras(path)] == ["camera-1", "east"]
    one = load_cameras(REPO / "config" / "table.toml")
    assert [(k, c.name, len(c.zones)) for k, c in one] == [("camera", "camera", 10)]


@pytest.mark.parametrize(("change", "error"), [
    (lambda t: t + '\n[camera]\nsource = "x.png"\n', r"cameras: use \[camera\] for one camera or \[\[cameras\]\] for "
                                                     r"several, not both"),
    (lambda t: t.replace('name = "east"', 'name = "west"'), r"cameras\[1\]\.name: 'west' is already the name of "
                                                            r"cameras\[0\]"),
    (lambda t: t.replace("seat = 7\n", "seat = 3\n"), r"cameras\[1\]\.zones: seat 3 already has a zone in cameras\[0\] "
                                                      r"\('west'\): a seat belongs to one camera"),
    (lambda t: t.replace('"e.png"\ncard_width = 72', '"e.png"\ncard_width = -4'),
     r"cameras\[1\]\.card_width: Input should be greater than 8"),
    (lambda t: t.replace('name = "east"', 'name = "east side"'), r"cameras\[1\]\.name: String should match pattern"),
    (lambda t: "cameras = []\n", r"cameras: must be one or more \[\[cameras\]\] tables"),
    (lambda t: "[table]\n", r"no \[camera\] section \(nor \[\[cameras\]\]\)"),
])
def test_r2_a_bad_camera_list_is_refused_naming_the_key(tmp_path, change, error):
    """Both forms at once, two cameras of one name, a seat in two cameras' zones, a bad value in the
    second camera, an empty list, no camera: one error naming the file and the key."""
    from vision.config import ConfigError, load_cameras

    path = two_cameras(tmp_path, "w.png", "e.png")
    path.write_text(change(path.read_text()))
    with pytest.raises(ConfigError, match=rf"^{path}: {error}"):
        load_cameras(path)


def test_r2_a_file_of_several_cameras_needs_the_camera_named(tmp_path):
    """Where the file has several cameras, the one a command is about must be named; an unknown
    name is refused with the names there are."""
    from vision.config import ConfigError, load_camera_config

    path = two_cameras(tmp_path, "w.png", "e.png")
    with pytest.raises(ConfigError, match=r"2 cameras \(west, east\): say which \(--camera NAME\)"):
        load_camera_config(path)
    with pytest.raises(ConfigError, match=r"no camera named 'north' \(cameras: west, east\)"):
        load_camera_config(path, "north")


def test_r2_vision_check_reads_each_cameras_own_seats(tmp_path, capsys, table_view):
    """``cardroom vision check STILL --config FILE --camera NAME --json``: the verdicts of that
    camera's seats, in the command's JSON shape; every seat declared identifiable holds the cards
    lying there. Without ``--camera`` it exits 2 saying which cameras there are."""
    from controller.cli import main

    scene, west, east = table_view
    truth = {seat: sorted(str(t.card) for t in scene.cards if t.seat == seat) for seat in range(1, 11)}
    path = two_cameras(tmp_path, west.as_posix(), east.as_posix())
    seen: dict[int, dict] = {}
    for name, still, seats in (("west", west, range(1, 7)), ("east", east, range(7, 11))):
        capsys.readouterr()
        assert main(["vision", "check", str(still), "--config", str(path), "--camera", name, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["frame"] == 0 and [s["seat"] for s in out["seats"]] == list(seats)
        seen.update({s["seat"]: s for s in out["seats"]})
    identified = [s for s in seen.values() if s["identifiable"]]
    assert len(identified) >= 8, seen
    assert all(sorted(s["cards"]) == truth[s["seat"]] for s in identified)
    assert {s["seat"] for s in identified} & set(range(1, 7)) and {s["seat"] for s in identified} & set(range(7, 11))
    assert main(["vision", "check", str(west), "--config", str(path), "--json"]) == 2
    assert "2 cameras (west, east): say which (--camera NAME)" in capsys.readouterr().err


def test_r2_the_controller_takes_each_seat_from_its_own_camera(tmp_path, table_view):
    """The running controller's cameras (one ``CameraRunner`` thread each, real stills, the real
    models, a real SQLite log) at a showdown between seat 2 (seen by ``west``) and seat 8 (by
    ``east``): each seat is judged identifiable from its own camera. A third camera whose source is
    gone alerts surveillance with its name, and the other two go on."""
    from controller.runtime import CameraLink, CameraRunner
    from vision.config import load_cameras
    from vision.recognize import OnnxRecognizer

    scene, west, east = table_view
    path = two_cameras(tmp_path, west.as_posix(), east.as_posix(),
                       f'[[cameras]]\nname = "ceiling"\nsource = "{(tmp_path / "gone.png").as_posix()}"\n')
    svc = _service(tmp_path, "cams-1")
    shown = {seat: "".join(str(t.card) for t in scene.cards if t.seat == seat) for seat in (2, 8)}
    rest = [str(c) for c in map(Card.from_index, range(52)) if str(c) not in {str(t.card) for t in scene.cards}]
    for seat in shown:
        svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 100})
    svc.command("start_hand", {"button": 8})
    for seat, cards in shown.items():  # the reader's cards are the ones the cameras see: no mismatch
        svc.command("deal", {"seat": seat, "cards": cards})
    svc.command("check_call", {"seat": 8})  # heads-up: the button posts the small blind and acts first
    svc.command("check_call", {"seat": 2})
    for board in ("".join(rest[:3]), rest[3], rest[4]):
        svc.command("deal", {"seat": None, "cards": board})
        svc.command("check_call", {"seat": 2})
        svc.command("check_call", {"seat": 8})
    assert svc.snapshot()["hand"]["complete"]
    runners = [CameraRunner(CameraLink(svc, cam, OnnxRecognizer(threads=1, card_width=cam.card_width)), cam.source,
                            fps=20).start() for _, cam in load_cameras(path)]  # one recogniser each, as serve has
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            seats = svc.snapshot()["hand"]["seats"]
            if seats["2"]["identifiable"] and seats["8"]["identifiable"]:
                break
            time.sleep(0.2)
    finally:
        for r in runners:
            r.stop()
    seats = svc.snapshot()["hand"]["seats"]
    assert seats["2"]["identifiable"] and seats["8"]["identifiable"], seats
    alerts = svc.alerts()
    offline = [a for a in alerts if a["alert"] == "camera_offline"]
    assert offline and {a["camera"] for a in offline} == {"ceiling"}
    assert "gone.png" in offline[0]["detail"]
    assert not [a for a in alerts if a["alert"] in ("camera_error", "camera_reader_mismatch")]
    svc.close()


def test_r2_serve_runs_every_camera_of_the_table_file(tmp_path, table_view):
    """``cardroom serve --config FILE`` with two ``[[cameras]]``: at start it says what each camera
    reads, by name; a heads-up hand played to a showdown through the API between seat 2 (seen by
    ``west``) and seat 8 (by ``east``) gets a camera verdict for each seat in the log. A camera that
    cannot run stops it before anything starts, naming the camera's key."""
    import os
    import signal
    import subprocess
    import sys

    import httpx2 as httpx
    from server_helpers import free_port, wait_until_up

    scene, west, east = table_view
    port = free_port()
    text = (REPO / "config" / "table.toml").read_text()
    text = text[: text.index("# Cameras")].replace("demo = true", "demo = false").replace(
        'database = "var/table.db"', f'database = "{(tmp_path / "t.db").as_posix()}"').replace(
        "port = 8000", f"port = {port}")
    cfg = tmp_path / "table.toml"
    cfg.write_text(text + cameras_toml(west.as_posix(), east.as_posix()))
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **{f"CARDROOM_{r}_TOKEN": f"{r.lower()}-token-0123456789"
                                                     for r in ("DEALER", "SURVEILLANCE", "BROADCAST")}}
    bad = tmp_path / "bad.toml"
    bad.write_text(cfg.read_text().replace('name = "east"\n', f'name = "east"\nmodel_sha256 = "{"0" * 64}"\n'
                                           f'index_scale = 9\n'))
    proc = subprocess.run([sys.executable, "-m", "controller", "serve", "--config", str(bad)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "cardroom serve: camera: " in proc.stderr
    assert "cameras[1].index_scale: Input should be less than or equal to 3" in proc.stderr
    proc = subprocess.Popen([sys.executable, "-m", "controller", "serve", "--config", str(cfg)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        dealer = {"Authorization": "Bearer dealer-token-0123456789"}
        wait_until_up(base, dealer, 90)

        def cmd(command, **args):  # type: ignore[no-untyped-def]
            r = httpx.post(f"{base}/api/v1/dealer/commands", headers=dealer, json={"name": command, "args": args},
                           timeout=10)
            assert r.status_code == 200, r.text

        shown = {seat: "".join(str(t.card) for t in scene.cards if t.seat == seat) for seat in (2, 8)}
        rest = [str(c) for c in map(Card.from_index, range(52)) if str(c) not in {str(t.card) for t in scene.cards}]
        for seat in shown:
            cmd("seat_player", seat=seat, name=f"p{seat}", stack=100)
        cmd("start_hand", button=8)
        for seat, cards in shown.items():
            cmd("deal", seat=seat, cards=cards)
        cmd("check_call", seat=8)
        cmd("check_call", seat=2)
        for board in ("".join(rest[:3]), rest[3], rest[4]):
            cmd("deal", seat=None, cards=board)
            cmd("check_call", seat=2)
            cmd("check_call", seat=8)
        sv = {"Authorization": "Bearer surveillance-token-0123456789"}
        deadline = time.monotonic() + 60
        views: dict[int, dict] = {}
        while time.monotonic() < deadline and not all(views.get(s, {}).get("identifiable") for s in (2, 8)):
            events = httpx.get(f"{base}/api/v1/surveillance/events?since=0&limit=1000", headers=sv, timeout=10).json()
            events = events if isinstance(events, list) else events.get("events", [])
            views = {e["payload"]["seat"]: e["payload"] for e in events if e["kind"] == "seat_view"}
            time.sleep(0.3)
        assert views.get(2, {}).get("identifiable") and views.get(8, {}).get("identifiable"), views
        assert sorted(views[8]["cards"]) == sorted(str(t.card) for t in scene.cards if t.seat == 8)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out = proc.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate(timeout=10)[0]
    assert "camera west: resolution" in out and "camera east: resolution" in out, out


def test_a_scene_drawn_without_optics_is_the_scene_before_the_cameras_blur_noise_and_compression():
    """``render_table(..., optics=False)`` leaves the view as drawn, the same cards in the same places,
    and :func:`vision.render.camera_optics` on it with the rest of the same stream is the scene
    rendered whole: ``bench/vision_cameras.py`` cuts and scales the drawn view, then puts each
    camera's optics on its own pixels."""
    from vision import render

    whole = render.render_table(np.random.default_rng([616161, 3]), render.TRAIN_DECKS)
    rng = np.random.default_rng([616161, 3])
    drawn = render.render_table(rng, render.TRAIN_DECKS, optics=False)
    assert drawn.cards == whole.cards
    assert not np.array_equal(drawn.image, whole.image)
    assert np.array_equal(render.camera_optics(drawn.image, rng), whole.image)


def test_r2_a_zone_outside_its_cameras_frame_is_named_by_calibrate_and_alerted(tmp_path, capsys, table_view):
    """The ``east`` camera's zones given in the whole table's pixels instead of its own (an easy slip
    with several cameras) lie outside its 740x1080 frame: ``vision calibrate --camera east`` names each
    seat, and the running controller alerts surveillance once per seat (``camera_zone_off_frame``),
    naming the camera; the ``west`` camera's zones, all in its frame, get neither."""
    from controller.cli import main
    from controller.runtime import CameraLink
    from vision.config import load_cameras

    _, west, east = table_view
    path = two_cameras(tmp_path, west.as_posix(), east.as_posix())
    own, whole = (_toml_zones(_zones(shift, range(7, 11))) for shift in (SPLIT, 0))
    path.write_text(path.read_text().replace(own, whole))
    capsys.readouterr()
    assert main(["vision", "calibrate", str(east), "--config", str(path), "--camera", "east",
                 "--out", str(tmp_path / "z.png")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote {tmp_path / 'z.png'}: 4 zones of camera east"
    assert out[1:5] == [f"seat {s}: all of its zone lies outside camera east's 740x1080 frame: that seat is never "
                        "judged; check its polygon (in this camera's own pixels)" for s in range(7, 11)]
    assert main(["vision", "calibrate", str(west), "--config", str(path), "--camera", "west",
                 "--out", str(tmp_path / "w.png")]) == 0
    assert "outside camera" not in capsys.readouterr().out
    svc = _service(tmp_path, "z-1")
    links = {cam.name: CameraLink(svc, cam, None) for _, cam in load_cameras(path)}
    import cv2

    for _ in range(2):
        links["east"].look(cv2.imread(str(east)))
        links["west"].look(cv2.imread(str(west)))
    alerts = [a for a in svc.alerts() if a["alert"] == "camera_zone_off_frame"]
    assert [(a["seat"], a["share"], a["camera"]) for a in alerts] == [(s, 1.0, "east") for s in range(7, 11)]
    svc.close()


def test_r2_a_camera_whose_frame_cannot_be_read_goes_offline_and_its_thread_goes_on(tmp_path, table_view):
    """A source that opens but fails in the middle of a read (here a still that is no image, as an
    image file caught while it is written reads) is offline and tried again. Its error escaped the
    camera's thread, which died: no alert, and no frame ever again from that camera."""
    import os
    import shutil

    from controller.runtime import CameraLink, CameraRunner
    from vision.config import CameraConfig

    _, west, _ = table_view
    still = tmp_path / "seat.png"
    still.write_bytes(b"\x89PNG half written")
    svc = _service(tmp_path, "c-1")
    cam = CameraConfig(name="west", source=str(still), zones=_zones(0, range(1, 3)))
    runner = CameraRunner(CameraLink(svc, cam, None), str(still), fps=50, retry=0.02).start()

    def alerts(kind: str) -> list[dict]:
        return _alerts(svc, kind)

    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not alerts("camera_offline"):
            time.sleep(0.05)
        assert "seat.png: not a readable image" in alerts("camera_offline")[0]["detail"]
        shutil.copyfile(west, tmp_path / "whole.png")
        os.replace(tmp_path / "whole.png", still)
        while time.monotonic() < deadline and runner.frames < 2:
            time.sleep(0.05)
        assert runner._thread.is_alive()
    finally:
        runner.stop()
    assert len(alerts("camera_offline")) == 1 and [a["camera"] for a in alerts("camera_online")] == ["west"]
    assert {c["camera"]: c for c in svc.cameras()}["west"]["state"] == "live"


def test_r2_a_camera_offline_alerts_once_and_once_more_when_it_is_back(tmp_path, table_view):
    """A camera whose source is not there is retried without an alert a retry: one
    ``camera_offline`` naming it, its state ``offline`` with the reason; when its frames come
    (the still written), one ``camera_online`` and its state ``live``, with its frames and the age of
    its last one, as surveillance reads them at ``/api/v1/surveillance/cameras`` (the dealer may
    not). A stream URL's password never reaches the log or the screens."""
    import shutil

    from fastapi.testclient import TestClient

    from controller.runtime import CameraLink, CameraRunner
    from server_helpers import TOKENS, auth, make_app
    from vision.config import CameraConfig

    _, west, _ = table_view
    still = tmp_path / "later.png"
    svc = _service(tmp_path, "c-1")
    cam = CameraConfig(name="west", source=str(still), zones=_zones(0, range(1, 3)))
    runner = CameraRunner(CameraLink(svc, cam, None), str(still), fps=50, retry=0.02).start()
    stream = CameraRunner(CameraLink(svc, cam.model_copy(update={"name": "door"}), None),
                          "rtsp://admin:s3cret@127.0.0.1:9/stream1", retry=60).start()

    def alerts(kind: str) -> list[dict]:
        return _alerts(svc, kind)

    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(alerts("camera_offline")) < 2:
            time.sleep(0.05)
        time.sleep(0.5)  # some twenty more tries of west's source
        status = {c["camera"]: c for c in svc.cameras()}
        assert status["west"]["state"] == "offline" and "later.png: no such file" in status["west"]["error"]
        assert status["west"]["seats"] == [1, 2] and status["west"]["frames"] == 0
        shutil.copyfile(west, still)
        while time.monotonic() < deadline and runner.frames < 3:
            time.sleep(0.05)
    finally:
        runner.stop()
        stream.stop()
    assert sorted(a["camera"] for a in alerts("camera_offline")) == ["door", "west"]  # once each
    assert [a["camera"] for a in alerts("camera_online")] == ["west"]
    client = TestClient(make_app(svc))
    assert client.get("/api/v1/surveillance/cameras", headers=auth("dealer")).status_code == 403
    cams = {c["camera"]: c for c in client.get(f"/api/v1/surveillance/cameras?token={TOKENS['surveillance']}")
            .json()["cameras"]}
    assert cams["west"]["state"] == "live" and cams["west"]["frames"] >= 3 and cams["west"]["error"] is None
    assert 0 <= cams["west"]["last_frame_age_s"] < 10
    assert cams["door"]["state"] == "offline" and cams["door"]["source"] == "rtsp://admin:***@127.0.0.1:9/stream1"
    assert "s3cret" not in json.dumps(svc.events(0)) + json.dumps(cams)
    svc.close()

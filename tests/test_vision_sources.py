"""Frame sources as the controller reads them: a camera or a stream is watched as the table is now.

The streams here are real: an HTTP server on this machine sends MJPEG (``multipart/x-mixed-replace``,
what many IP cameras serve) at a camera's rate, read by OpenCV's own FFmpeg capture, as an
``rtsp://`` camera is. Each frame carries its number in blocks of black and white that JPEG keeps,
so a test can tell which frame it was given and how old it was.
"""

from __future__ import annotations

import http.server
import pathlib
import socketserver
import threading
import time

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
BITS = 12
BLOCK = 20


def numbered(i: int, base: np.ndarray | None = None) -> np.ndarray:
    """A BGR frame with ``i`` written in its top rows as :data:`BITS` blocks (white: a one)."""
    frame = np.full((240, 320, 3), 90, np.uint8) if base is None else base.copy()
    for k in range(BITS):
        frame[:BLOCK, k * BLOCK : (k + 1) * BLOCK] = 255 if (i >> k) & 1 else 0
    return frame


def number(frame: np.ndarray) -> int:
    """The number :func:`numbered` wrote in ``frame``."""
    return sum(1 << k for k in range(BITS) if frame[BLOCK // 2, k * BLOCK + BLOCK // 2].mean() > 128)


class Camera:
    """An MJPEG camera on ``127.0.0.1``: ``fps`` numbered frames a second to each viewer, ``count``
    of them (``None``: until stopped), then ``after``: ``"close"`` the connection or ``"stall"``
    (hold it open and send nothing, as a stream whose camera hung does). ``sent``: the number of
    the newest frame sent."""

    def __init__(self, fps: float = 30.0, count: int | None = None, after: str = "close",
                 base: np.ndarray | None = None) -> None:
        import cv2

        self.fps, self.count, self.after = fps, count, after
        self.sent = -1
        self._stop = threading.Event()
        self._base = base
        self._cv2 = cv2
        camera = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                camera.serve(self.wfile)

            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, user: str = "") -> str:
        return f"http://{user}127.0.0.1:{self.server.server_address[1]}/stream.mjpg"

    def serve(self, out) -> None:  # type: ignore[no-untyped-def]
        i = 0
        start = time.monotonic()
        try:
            while not self._stop.is_set() and (self.count is None or i < self.count):
                ok, jpg = self._cv2.imencode(".jpg", numbered(i, self._base))
                out.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpg)
                          + jpg.tobytes() + b"\r\n")
                out.flush()
                self.sent = i
                i += 1
                self._stop.wait(max(0.0, start + i / self.fps - time.monotonic()))
            if self.after == "stall":
                self._stop.wait(60)
        except OSError:  # the viewer hung up
            pass

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def camera():  # type: ignore[no-untyped-def]
    made: list[Camera] = []

    def make(**kwargs) -> Camera:  # type: ignore[no-untyped-def]
        made.append(Camera(**kwargs))
        return made[-1]

    yield make
    for c in made:
        c.stop()


def test_r2_a_stream_is_watched_as_it_is_now_not_as_it_was(camera):
    """The controller looks a few times a second at a camera sending 30 frames a second. Each
    look must see the table as it is: the frame given was sent after the look began (within a few
    frames, for a loaded machine). Read in turn (the capture's ``read``, as before), the looks were
    given frames 0, 1, 2, 3 while the camera had sent 40: the table as it was seconds earlier, and
    further back at every look."""
    from vision.sources import LiveSource, open_source

    cam = camera(fps=30)
    with open_source(cam.url()) as src:
        assert isinstance(src, LiveSource)
        frames = iter(src)
        indices = []
        for _ in range(4):
            time.sleep(0.3)
            asked = cam.sent
            i, frame = next(frames)
            assert number(frame) >= asked - 3, (number(frame), asked)
            assert i >= number(frame)  # the frame's number among all sent (none lost before the stream)
            indices.append(i)
    assert indices == sorted(indices) and indices[-1] - indices[0] >= 3 * 5  # frames skipped, not queued


def test_r2_a_stream_that_stops_sending_is_offline_not_waited_on_for_ever(camera, monkeypatch):
    """A stream whose camera hangs with its connection open sends nothing and never ends: a look
    would wait for ever, and the seats would keep the last verdict. After ``stall`` seconds without
    a frame the source fails, naming the stream (its password kept off screens and logs), and the
    thread that waited on the stream ends soon after (FFmpeg's read timeout), not with the process."""
    from vision import sources
    from vision.sources import LiveSource, SourceError

    monkeypatch.setattr(sources, "STREAM_READ_GRACE_S", 0.5)
    cam = camera(fps=30, count=5, after="stall")
    src = LiveSource(cam.url("admin:s3cret@"), stall=1.0)
    try:
        got = []
        start = time.monotonic()
        with pytest.raises(SourceError) as err:
            for _, frame in src:
                got.append(number(frame))
        assert time.monotonic() - start < 10
    finally:
        src.close()
    assert got and got == sorted(got) and got[-1] <= 4
    assert str(err.value) == f"{cam.url('admin:***@')}: no frame for 1 s"
    src._thread.join(timeout=10)
    assert not src._thread.is_alive()


def test_r2_a_stream_host_that_never_answers_cannot_be_opened(monkeypatch):
    """A host that takes the connection and sends nothing (a camera half up) is no stream: opening it
    fails after :data:`~vision.sources.STREAM_OPEN_TIMEOUT_S`, naming it, and the camera's runner
    reports it offline and tries again, where it waited for ever."""
    import socket

    from vision import sources

    monkeypatch.setattr(sources, "STREAM_OPEN_TIMEOUT_S", 1.0)
    with socket.socket() as hole:
        hole.bind(("127.0.0.1", 0))
        hole.listen(1)
        url = f"rtsp://127.0.0.1:{hole.getsockname()[1]}/stream1"
        start = time.monotonic()
        with pytest.raises(sources.SourceError, match=f"^{url}: cannot open video source$"):
            sources.open_source(url)
        assert time.monotonic() - start < 8


def test_r2_a_stream_that_ends_ends_its_frames(camera):
    """A stream that closes ends the iteration, without an error: the camera's runner reopens it."""
    from vision.sources import open_source

    cam = camera(fps=30, count=6, after="close")
    with open_source(cam.url()) as src:
        got = [number(frame) for _, frame in src]
    assert got == sorted(got) and set(got) <= set(range(6))


def test_r2_a_video_file_gives_every_frame_in_order(tmp_path):
    """A video file (the demo's camera feed, a recording checked afterwards) is read frame by frame:
    none skipped, however slowly it is looked at."""
    import cv2

    from vision.sources import VideoSource, open_source

    path = tmp_path / "feed.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (320, 240))
    for i in range(12):
        out.write(numbered(i))
    out.release()
    with open_source(str(path)) as src:
        assert isinstance(src, VideoSource)
        got = []
        for i, frame in src:
            got.append((i, number(frame)))
            time.sleep(0.02)
    assert got == [(i, i) for i in range(12)]


def test_r2_a_camera_whose_stream_hangs_goes_offline(tmp_path, camera, monkeypatch):
    """The controller's camera thread on a stream that hangs: ``camera_offline`` names the stream
    and the wait, and the thread goes on (the stream is reopened; here it sends three frames again,
    so the camera is back, then hangs again)."""
    from controller.eventlog import EventLog
    from controller.runtime import CameraLink, CameraRunner
    from controller.service import TableService
    from vision import sources
    from vision.config import CameraConfig

    monkeypatch.setattr(sources, "LIVE_STALL_S", 1.0)
    cam = camera(fps=30, count=3, after="stall")
    game = {"table_id": "s-1", "variant": "NT", "seats": 10, "stakes": {"small_blind": 1, "big_blind": 2},
            "smallest_chip": 1}
    svc = TableService(game, EventLog(tmp_path / "t.db", table_id="s-1"))
    config = CameraConfig(name="rail", source=cam.url(), zones=[{"seat": 1, "polygon": [[0, 0], [320, 0], [320, 240]]}])
    runner = CameraRunner(CameraLink(svc, config, None), cam.url(), fps=20, retry=0.1).start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not [a for a in svc.alerts() if a["alert"] == "camera_offline"]:
            time.sleep(0.05)
        while time.monotonic() < deadline and not [a for a in svc.alerts() if a["alert"] == "camera_online"]:
            time.sleep(0.05)
        assert runner._thread.is_alive()
    finally:
        runner.stop()
    offline = [a for a in svc.alerts() if a["alert"] == "camera_offline"]
    assert offline[0]["detail"] == f"{cam.url()}: no frame for 1 s" and offline[0]["camera"] == "rail"
    assert [a["camera"] for a in svc.alerts() if a["alert"] == "camera_online"][:1] == ["rail"]
    svc.close()


def test_r2_vision_check_watches_a_stream_for_the_frames_asked(tmp_path, camera, capsys):
    """``cardroom vision check URL --frames 3`` judges three frames of a stream: its frame numbers
    are the camera's (they skip what it sent meanwhile), and ``--frames`` counts the frames judged."""
    import json

    from controller.cli import main
    from vision import render

    view = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False).image
    cam = camera(fps=25, base=view)
    assert main(["vision", "check", cam.url(), "--config", str(REPO / "config" / "table.toml"), "--frames", "3",
                 "--every", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3
    frames = [line["frame"] for line in lines]
    assert frames == sorted(set(frames)) and all(len(line["seats"]) == 10 for line in lines)

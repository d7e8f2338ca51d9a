"""Frame sources: a camera device, a video file or RTSP stream, a still image or a folder of stills.

``open_source(spec)`` returns a :class:`FrameSource`, an iterator of ``(index, frame)`` with BGR
frames and a ``close()``; use it as a context manager. A video file gives every frame in order; a
camera or a stream (:class:`LiveSource`) gives the newest frame each time it is asked, since the
table is watched as it is now, not as it was when the reader last looked.
"""

from __future__ import annotations

import abc
import pathlib
import threading
from collections.abc import Iterator

import numpy as np

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(OSError):
    """A frame source that cannot be opened or read."""


def read_image(path: str | pathlib.Path) -> np.ndarray:
    """The BGR frame of an image file, or :class:`SourceError` naming what is wrong: no such file, a
    folder, or a file OpenCV cannot decode (it reads PNG, JPEG, BMP, TIFF, WebP; not a phone's HEIC).

    >>> read_image("no/such/photo.jpg")
    Traceback (most recent call last):
    ...
    vision.sources.SourceError: no/such/photo.jpg: no such file
    """
    import cv2

    p = pathlib.Path(path)
    if not p.exists():
        raise SourceError(f"{path}: no such file")
    if p.is_dir():
        raise SourceError(f"{path}: a folder, not an image file")
    frame = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if frame is None:
        raise SourceError(f"{path}: not a readable image (PNG, JPEG, BMP, TIFF or WebP)")
    return frame


def redact(spec: str | int) -> str:
    """``spec`` as alerts and status lines may show it (they are logged and put on screens): a
    password in a stream URL's user part replaced by ``***``.

    >>> redact("rtsp://admin:s3cret@10.0.0.21:554/stream1"), redact("rtsp://10.0.0.21/s"), redact(0)
    ('rtsp://admin:***@10.0.0.21:554/stream1', 'rtsp://10.0.0.21/s', '0')
    """
    from urllib.parse import urlsplit, urlunsplit

    text = str(spec)
    if "://" not in text:
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class FrameSource(abc.ABC):
    """Base: iterate ``(index, frame)``; ``is_still`` tells whether frames are independent stills."""

    is_still = False

    @abc.abstractmethod
    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        """Frames in order, with their index."""

    def close(self) -> None:
        pass

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class StillImages(FrameSource):
    """One image file, or every image in a folder in name order."""

    is_still = True

    def __init__(self, path: pathlib.Path) -> None:
        if path.is_dir():
            self.paths = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        else:
            self.paths = [path]
        if not self.paths:
            raise SourceError(f"{path}: no images")

    def __iter__(self):
        for i, p in enumerate(self.paths):
            yield i, read_image(p)


class VideoSource(FrameSource):
    """``cv2.VideoCapture`` on a video file: every frame, in order (a camera or a stream is a
    :class:`LiveSource`)."""

    def __init__(self, spec: str | int) -> None:
        import cv2

        self.spec = spec
        self.cap = cv2.VideoCapture(spec)
        if not self.cap.isOpened():
            raise SourceError(f"{redact(spec)}: cannot open video source")

    def __iter__(self):
        i = 0
        while True:
            ok, frame = self.cap.read()
            if not ok or frame is None:
                return
            yield i, frame
            i += 1

    def close(self) -> None:
        self.cap.release()


LIVE_STALL_S = 10.0
"""Seconds a camera or a stream may go without a frame, once asked for one, before
:class:`LiveSource` gives it up as offline (:class:`SourceError`)."""
STREAM_OPEN_TIMEOUT_S = 10.0
"""Seconds a stream's host may take to answer before the stream cannot be opened (FFmpeg's own wait
has no end on a host that takes the connection and sends nothing)."""
STREAM_READ_GRACE_S = 5.0
"""A stream that sends nothing for :data:`LIVE_STALL_S` plus this is closed by FFmpeg itself, so the
thread waiting on it ends too (the look that asked has failed already)."""


class LiveSource(FrameSource):
    """A camera device or a stream (``rtsp://``, ``http://`` MJPEG, ...), read as it happens.

    A camera sends frames at its own rate (25 or 30 a second); the controller looks at a few a
    second. Read in turn, as :class:`VideoSource` reads a file, every frame not looked at would wait
    in the capture's buffer, and each look would see the table as it was further back (an MJPEG
    stream of 30 frames a second looked at twice a second: 2.3 s behind after 2.5 s): a hand mucked
    or turned over after the verdict. So a
    thread takes every frame as it arrives (``grab``, which decodes no picture on a camera device)
    and drops it, and iterating gives the first frame that arrives after it is asked for
    (``retrieve``): never one older than the camera's own frame interval. The index given is the
    frame's number among all the camera sent, so the frames skipped show. No frame within ``stall``
    seconds of asking is a :class:`SourceError` (a camera unplugged, a stream that stalls without
    closing; ``None``: :data:`LIVE_STALL_S`); a stream that ends ends the iteration. On a stream
    the thread decodes every frame (a stream's frames build on the ones before), as a video player
    showing it would."""

    def __init__(self, spec: str | int, stall: float | None = None) -> None:
        import cv2

        self.spec = spec
        self.stall = LIVE_STALL_S if stall is None else stall
        if isinstance(spec, str):  # a stream: FFmpeg's waits on its host bounded
            cap = cv2.VideoCapture(spec, cv2.CAP_FFMPEG,
                                   [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, round(STREAM_OPEN_TIMEOUT_S * 1000),
                                    cv2.CAP_PROP_READ_TIMEOUT_MSEC, round((self.stall + STREAM_READ_GRACE_S) * 1000)])
        else:
            cap = cv2.VideoCapture(spec)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"{redact(spec)}: cannot open video source")
        self._cap = cap
        self._cond = threading.Condition()
        self._asked = False
        self._frame: tuple[int, np.ndarray] | None = None
        self._grabbed = 0
        self._ended = False
        self._closed = False
        self._thread = threading.Thread(target=self._take_frames, name=f"frames {redact(spec)}", daemon=True)
        self._thread.start()

    def _take_frames(self) -> None:
        """The thread: every frame the source sends, the one asked for kept. The capture is released
        here, when it stops, never while a ``grab`` of this thread is still under way."""
        try:
            while True:
                ok = self._cap.grab()
                with self._cond:
                    if self._closed or not ok:
                        return
                    self._grabbed += 1
                    if self._asked:
                        got, frame = self._cap.retrieve()
                        if got and frame is not None:
                            self._frame, self._asked = (self._grabbed - 1, frame), False
                            self._cond.notify_all()
        finally:
            self._cap.release()
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def __iter__(self):
        while True:
            with self._cond:
                self._frame, self._asked = None, True
                self._cond.wait_for(lambda: self._frame is not None or self._ended, timeout=self.stall)
                item, self._frame, self._asked = self._frame, None, False
                if item is None:
                    if self._ended:
                        return
                    raise SourceError(f"{redact(self.spec)}: no frame for {self.stall:g} s")
            yield item

    def close(self) -> None:
        with self._cond:
            self._closed = True
        self._thread.join(timeout=1.0)  # a grab waiting on a stalled stream ends it later


def open_source(spec: str | int) -> FrameSource:
    """Open a frame source: an int or digit string is a camera device and ``scheme://`` a stream
    (each :class:`LiveSource`; ``file://`` is a file); an image file or folder gives stills; any other
    file is opened as video.

    :raises SourceError: when it cannot be opened.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return LiveSource(int(spec))
    if "://" in spec and not spec.lower().startswith("file://"):
        return LiveSource(spec)
    if "://" in spec:
        return VideoSource(spec)
    p = pathlib.Path(spec)
    if p.is_dir() or p.suffix.lower() in IMAGE_SUFFIXES:
        if not p.exists():
            raise SourceError(f"{p}: no such file")
        return StillImages(p)
    if not p.exists():
        raise SourceError(f"{p}: no such file")
    return VideoSource(str(p))

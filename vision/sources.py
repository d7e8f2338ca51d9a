"""Frame sources: a camera device, a video file or RTSP stream, a still image or a folder of stills.

``open_source(spec)`` returns a :class:`FrameSource`, an iterator of ``(index, frame)`` with BGR
frames and a ``close()``; use it as a context manager.
"""

from __future__ import annotations

import abc

import pathlib
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
    """``cv2.VideoCapture`` on a device index, a video file or a stream URL."""

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


def open_source(spec: str | int) -> FrameSource:
    """Open a frame source: an int or digit string is a device index; ``scheme://`` is a stream;
    an image file or folder gives stills; any other file is opened as video.

    :raises SourceError: when it cannot be opened.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return VideoSource(int(spec))
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

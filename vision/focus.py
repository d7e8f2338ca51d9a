"""Is the camera in focus? The width of the card edges in a frame, against the scenes the models learnt.

A card's edge on the felt is a step from the card stock to the felt; the camera's optics spread it.
Sampled across the edge, outwards, the step falls from half its height to a sixth of it over one
standard deviation of that spread (a Gaussian blur's sigma, plus about half a pixel of the sensor,
the interpolation and the compression): :func:`edge_width` measures that on the outlines of the card
stock (:attr:`~vision.detect.Masks.filled`) and returns the median over the straight stretches of
outline where felt lies beyond the card. Only the felt's side of the edge is used: on the stock's
side, a small card's print comes within a few pixels of its edge.

The training scenes are rendered with a blur of sigma 0 to 1 pixel (:func:`vision.render.render_scene`):
their edges measure 0.4 to 1.1 pixels. A frame whose edges measure more than :data:`SHARP_EDGE` is
blurrier than anything the models learnt, and there the body-suit models, trained on the same
scenes, took clubs for spades: out of focus, a read the body raised, settled or turned is made
unreadable (:meth:`vision.recognize.OnnxRecognizer._in_focus`), a seat's reason says the camera is
out of focus, and the running controller raises a ``camera_out_of_focus`` alert (models/HISTORY.md
"Forty-fourth session").

>>> import numpy as np
>>> edge_width(np.zeros((50, 50), np.uint8), np.zeros((50, 50), np.uint8)) is None
True
>>> blurred(1.5), blurred(0.8), blurred(None)
(True, False, False)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SHARP_EDGE = 1.2
"""Widest card edge (pixels, :func:`edge_width`) read as in focus: the training scenes' edges measure
up to 1.1 (300 benchmark scenes a deck set); with 1.4 pixels more blur, 1.1 to 1.9, median 1.5."""
MIN_EDGES = 20
"""Fewest edge samples :func:`edge_width` needs to give a width (a card has about 60 to 200)."""
MIN_STEP = 40.0
"""Least gray step from card stock to what lies beyond it for an edge sample to count."""
SAMPLE_EVERY = 3
"""Outline points between edge samples."""
_T = np.arange(-6.0, 6.01, 0.5)
"""Where each edge sample's profile is read: pixels along the outline's normal, outwards."""


def edge_width(gray: np.ndarray, filled: np.ndarray, contours: Sequence[np.ndarray] | None = None,
               min_area: float = 600.0) -> float | None:
    """The median width (pixels) of the card edges in ``gray`` (uint8), from the outer outlines of
    the card stock ``filled`` (uint8 0/255; ``contours``: those outlines, every point, if already
    found), or ``None`` with fewer than :data:`MIN_EDGES` clean samples."""
    import cv2

    if contours is None:
        contours = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
    h, w = filled.shape[:2]
    kept = [c.reshape(-1, 2) for c in contours if len(c) >= 40 and cv2.contourArea(c) >= min_area]
    if not kept:
        return None
    # every outline's points in one array; each sample's neighbours 4 points along its own outline
    sizes = np.array([len(c) for c in kept])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    p = np.concatenate(kept).astype(np.float32)
    owner = np.repeat(np.arange(len(kept)), (sizes + SAMPLE_EVERY - 1) // SAMPLE_EVERY)
    at = np.concatenate([np.arange(0, n, SAMPLE_EVERY) for n in sizes])
    n, s0 = sizes[owner], starts[owner]
    ahead, behind = p[s0 + (at + 4) % n], p[s0 + (at - 4) % n]
    pts = p[s0 + at]
    tangent = ahead - behind
    length = np.sqrt((tangent**2).sum(axis=1))
    mid = pts - (ahead + behind) / 2
    keep = (length > 6) & ((mid**2).sum(axis=1) < 0.64)  # straight stretches: no card corner, no notch
    if keep.sum() < MIN_EDGES:
        return None
    pts, tangent = pts[keep], tangent[keep] / length[keep, None]
    nrm = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    probe = np.round(pts + 3 * nrm).astype(np.int64)
    nrm[filled[probe[:, 1].clip(0, h - 1), probe[:, 0].clip(0, w - 1)] > 0] *= -1  # pointing off the card
    mx = (pts[:, None, 0] + _T[None] * nrm[:, None, 0]).astype(np.float32)
    my = (pts[:, None, 1] + _T[None] * nrm[:, None, 1]).astype(np.float32)
    prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    outer = _T > 3.5
    stock = prof[:, _T < -2].max(axis=1)  # the stock is the brightest; print only darkens it
    far = prof[:, outer]
    beyond = far.mean(axis=1)
    step = stock - beyond
    clean = (step > MIN_STEP) & (far.std(axis=1) < 0.06 * step)
    if clean.sum() < MIN_EDGES:
        return None
    f = (prof[clean] - beyond[clean, None]) / step[clean, None]
    f, t = f[:, ::-1], _T[::-1]  # from the felt inwards

    def crossing(level: float) -> tuple[np.ndarray, np.ndarray]:
        above = f >= level
        k = np.argmax(above, axis=1)
        ok = above.any(axis=1) & (k > 0)
        k = np.maximum(k, 1)
        rows = np.arange(len(f))
        a, b = f[rows, k - 1], f[rows, k]
        return t[k - 1] + (level - a) / np.maximum(b - a, 1e-6) * (t[k] - t[k - 1]), ok

    half, ok_half = crossing(0.5)
    sixth, ok_sixth = crossing(1 / 6)
    widths = (sixth - half)[ok_half & ok_sixth]
    if len(widths) < MIN_EDGES:
        return None
    return float(np.median(widths))


WIDEST_TRAINED = 150.0
"""The widest cards of the training scenes (pixels). The models read crops scaled to their own size,
so on a card wider than this the blur shrinks with it: the limit grows in proportion
(:func:`limit_for`)."""


def limit_for(card_width: float | None = None, limit: float = SHARP_EDGE) -> float:
    """The widest edge (pixels) in focus for cards ``card_width`` wide: ``limit``, scaled up for cards
    wider than :data:`WIDEST_TRAINED`.

    >>> limit_for(72), limit_for(None), limit_for(300)
    (1.2, 1.2, 2.4)
    """
    return limit * max(1.0, (card_width or 0.0) / WIDEST_TRAINED)


def blurred(width: float | None, card_width: float | None = None, limit: float | None = SHARP_EDGE) -> bool:
    """Whether an edge ``width`` (:func:`edge_width`) is past ``limit`` for cards ``card_width`` wide
    (:func:`limit_for`); an unknown width never is, nor any with no limit."""
    return width is not None and limit is not None and width > limit_for(card_width, limit)


def line(width: float | None, card_width: float | None = None) -> str:
    """The installer's sentence about a frame's focus (``cardroom vision calibrate``), for cards
    ``card_width`` wide."""
    if width is None:
        return "focus: not measured (no card edge on the felt in view)"
    limit = limit_for(card_width)
    if blurred(width, card_width):
        return (f"focus: card edges {width:.1f} px wide, blurrier than any scene the models learnt "
                f"(up to {limit:.1f}): the body checks cannot raise a read; focus the camera")
    return f"focus: card edges {width:.1f} px wide, as sharp as the scenes the models learnt (up to {limit:.1f})"

"""The suit from a card's body: a second look at the suit that does not come from the index crop.

On a card 50 to 70 pixels wide the suit at the index is a blob a few pixels across, and the index
classifier's one sure mistake there is a club for a spade or a spade for a club (more so on decks it
was not trained on). The pips in the card's body are drawn one and a half to two times larger, and
a number card shows several of them. :func:`body_crop` warps the card a read index corner implies
(:meth:`vision.detect.Corner.card_quad`) upright to ``BODY_H x BODY_W`` pixels, grayscale, with both
index regions blanked so that the suit can only come from the body; a small ONNX model
(``models/card_suit.onnx``, trained by ``python -m vision.train``) gives the probabilities of the
four suits and of "no face in view" (a back).

Classes: 0..3 are suits in :attr:`controller.cards.Card.index` order (clubs, diamonds, hearts,
spades: ``index % 4``), 4 is "no face".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from vision.detect import ASPECT, INDEX_X1, INDEX_Y1

BODY_W, BODY_H = 64, 90
"""Size of a body crop (width, height): a card's own size or more at the widths where the index
suit is too small to trust (52 to 70 pixels), so the pips keep every pixel the camera gave them.
(The sixteenth session's crops were half this: a 60-pixel card was averaged down to 32, its pips
to blobs 4 pixels across, and the model confirmed only a third of the small clubs and spades.)
A model file's own input size is what the recogniser crops for (:func:`body_crop` ``size``)."""
NO_FACE = 4
N_SUIT_CLASSES = 5
"""The suit head's classes: four suits and "no face"."""
N_RANKS = 13
"""The rank head's classes, after the suit head's."""
_OVERSAMPLE = 4
"""A body crop is sampled at up to this many times its size and averaged down, so wide cards
are not aliased."""


@functools.lru_cache(maxsize=8)
def index_mask(size: tuple[int, int] = (BODY_W, BODY_H)) -> np.ndarray:
    """``h x w`` bool (``size = (w, h)``): the two index regions (top-left and bottom-right) of a
    body crop. Read only (cached).

    >>> m = index_mask(); bool(m[0, 0]), bool(m[-1, -1]), bool(m[BODY_H // 2, BODY_W // 2])
    (True, True, False)
    """
    w, h = size
    ys = (np.arange(h) + 0.5) / h
    xs = (np.arange(w) + 0.5) / w
    y_card = INDEX_Y1 / ASPECT  # the index region's depth in card heights
    tl = (ys[:, None] < y_card) & (xs[None] < INDEX_X1)
    mask = tl | tl[::-1, ::-1]
    mask.flags.writeable = False
    return mask


def body_crop(frame: np.ndarray, quad: np.ndarray | Sequence[Sequence[float]],
              size: tuple[int, int] = (BODY_W, BODY_H), blank: bool = True) -> np.ndarray:
    """The card ``quad`` (4 x 2 frame pixels: a corner, then round the card, as
    :meth:`~vision.detect.Corner.card_quad` and :class:`~vision.recognize.Detection` give it)
    warped upright to an ``h x w`` uint8 grayscale crop (``size = (w, h)``); the two index regions
    are filled with the crop's median, so nothing of the index is left to read (``blank``: the
    body-suit models' crops), or kept (``blank=False``: the whole-card model's,
    :data:`vision.recognize.DEFAULT_WHOLE_MODEL`).

    >>> card = np.full((200, 200, 3), 230, np.uint8); card[95:105, 95:105] = 20
    >>> crop = body_crop(card, [(68, 56), (132, 56), (132, 145), (68, 145)])
    >>> crop.shape, int(crop[BODY_H // 2, BODY_W // 2]) < 100, int(crop[2, 2]) > 200
    ((90, 64), True, True)
    >>> body_crop(card, [(68, 56), (132, 56), (132, 145), (68, 145)], (32, 45)).shape
    (45, 32)
    >>> card[58:66, 70:76] = 20  # ink in the top-left index region
    >>> int(body_crop(card, [(68, 56), (132, 56), (132, 145), (68, 145)])[4, 4]) > 200
    True
    >>> int(body_crop(card, [(68, 56), (132, 56), (132, 145), (68, 145)], blank=False)[4, 4]) < 100
    True
    """
    import cv2

    bw, bh = size
    q = np.asarray(quad, np.float64)
    width = float(np.linalg.norm(q[1] - q[0]))
    f = int(min(_OVERSAMPLE, max(1, round(width / bw))))
    w, h = bw * f, bh * f
    # crop pixel centres map to the card: (0.5, 0.5) -> near q[0], along u = q[1] - q[0], v = q[3] - q[0]
    src = np.array([[0, 0], [w, 0], [0, h]], np.float32)
    dst = np.array([q[0], q[1], q[3]], np.float32)
    m = cv2.getAffineTransform(src, dst)
    m[:, 2] += 0.5 * (m[:, 0] + m[:, 1])
    gray = frame if frame.ndim == 2 else None
    big = cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    crop = cv2.resize(big, (bw, bh), interpolation=cv2.INTER_AREA) if f > 1 else big
    if gray is None:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    crop = np.ascontiguousarray(crop)
    if blank:
        mask = index_mask((bw, bh))
        crop[mask] = np.uint8(np.median(crop[~mask]))
    return crop


def preprocess(crops: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """Stack body crops into a float32 ``N x 1 x BODY_H x BODY_W`` tensor, each standardised on its
    own (zero mean, unit contrast, as :func:`vision.recognize.preprocess` does the index crops).

    >>> preprocess([np.full((BODY_H, BODY_W), 200, np.uint8)]).shape
    (1, 1, 90, 64)
    """
    arr = np.asarray(crops, dtype=np.float32)
    if arr.size == 0:
        return np.zeros((0, 1, BODY_H, BODY_W), np.float32)
    if arr.ndim == 2:
        arr = arr[None]
    mean = arr.mean(axis=(1, 2), keepdims=True)
    std = arr.std(axis=(1, 2), keepdims=True)
    return ((arr - mean) / (std + 8.0))[:, None].astype(np.float32)

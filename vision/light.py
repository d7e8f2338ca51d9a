"""The colour of the light on the table: the card stock's colour in a frame, and the frame
corrected to white card stock.

Card stock is found as the unsaturated pixels brighter than the felt round them
(:func:`vision.detect.card_masks`), and the print's colour is judged against the stock's
(:func:`vision.recognize.print_colours`). Under warm lamps (tungsten, warm-white LEDs) or a camera
whose white balance is off, the stock itself is tinted: a white card lit 25% weaker in blue than
in red is as saturated as a dull felt, and falls out of the card mask at its edges and index. On the
benchmark scenes such a cast cost 6.5 points of the seen decks' cards and 10 of the unseen decks'
(models/HISTORY.md, "Twenty-seventh session"); corrected here, the frame reads as under white
light.

The stock's colour is the mean of the brightest :data:`PAPER_SHARE` of a frame's nearly neutral
pixels (:func:`paper_colour`): card stock is the brightest thing on a table that is neither felt
nor a coloured chip. :func:`white_balance` scales the two weaker channels up to the strongest when
they differ by :data:`MIN_CAST` or more, and leaves the frame untouched otherwise (the same array),
so a frame under white light reads exactly as before.
"""

from __future__ import annotations

import numpy as np

PAPER_SHARE = 0.02
"""The share of a frame's nearly neutral pixels, the brightest, whose mean colour is the card
stock's (:func:`paper_colour`)."""
PAPER_CHROMA = 0.4
"""Nearly neutral: the pixel's largest channel exceeds its smallest by less than this share of the
largest (a warm-lit white card: about 0.2; felt, chips and red or black print: more, or dark)."""
PAPER_MIN_VALUE = 80
"""Pixels whose largest channel is under this are too dark to be card stock."""
PAPER_CLIPPED = 254
"""Pixels with a channel at this or more are left out: a clipped channel hides the tint."""
PAPER_MIN_PIXELS = 100
"""Fewer nearly neutral pixels than this in the sample: no card stock to measure."""
MIN_CAST = 1.06
"""The smallest cast corrected: the stock's strongest channel over its weakest. On 150 tuning
scenes per deck set (seeds ``[50505, i]``) white-lit frames measured at most 1.05 and 95% under
1.03; a cast of 1.10 uncorrected cost 2 points of the unseen decks' cards."""
MAX_CAST = 1.6
"""A larger "cast" is a coloured object taken for card stock, not the light: left alone."""


def paper_colour(frame: np.ndarray, step: int = 4) -> np.ndarray | None:
    """The card stock's colour in a BGR ``frame`` (float B, G, R), from every ``step``-th pixel
    each way; ``None`` when the frame shows too few nearly neutral bright pixels.

    >>> frame = np.full((200, 200, 3), (40, 110, 30), np.uint8)   # green felt
    >>> frame[50:150, 60:130] = (188, 219, 235)                   # a warm-lit card
    >>> paper_colour(frame).round(1).tolist()
    [188.0, 219.0, 235.0]
    >>> paper_colour(np.full((200, 200, 3), (40, 110, 30), np.uint8)) is None
    True
    """
    import cv2

    h, w = frame.shape[:2]
    small = cv2.resize(frame, (-(-w // step), -(-h // step)), interpolation=cv2.INTER_NEAREST)
    b, g, r = cv2.split(small)
    hi = cv2.max(cv2.max(b, g), r)
    lo = cv2.min(cv2.min(b, g), r)
    ok = (hi < PAPER_CLIPPED) & (hi >= PAPER_MIN_VALUE) & (cv2.subtract(hi, lo) < PAPER_CHROMA * hi.astype(np.float32))
    if np.count_nonzero(ok) < PAPER_MIN_PIXELS:
        return None
    px = small[ok]
    lum = px.astype(np.int32).sum(axis=1)
    k = max(20, int(PAPER_SHARE * len(px)))
    top = np.argpartition(lum, len(lum) - k)[len(lum) - k :]
    return px[top].astype(np.float64).mean(axis=0)


def cast_of(paper: np.ndarray | None) -> float:
    """The stock's strongest channel over its weakest (1.0: white light; 1.0 when not measured)."""
    if paper is None:
        return 1.0
    return float(paper.max() / max(float(paper.min()), 1.0))


def corrected(cast: float, min_cast: float = MIN_CAST) -> bool:
    """Whether :func:`white_balance` corrects a stock of this cast (:func:`cast_of`): a tint from
    ``min_cast`` up to :data:`MAX_CAST`.

    >>> corrected(1.01), corrected(1.25), corrected(1.9)
    (False, True, False)
    """
    return min_cast <= cast <= MAX_CAST


def white_balance(frame: np.ndarray, step: int = 4, paper: np.ndarray | None = None,
                  min_cast: float = MIN_CAST) -> np.ndarray:
    """``frame`` with its card stock made neutral: each channel scaled so the stock's colour
    (:func:`paper_colour`, or ``paper``) has its strongest channel's value in all three. A frame
    whose stock is neutral within ``min_cast``, or whose stock could not be measured, or whose
    "cast" exceeds :data:`MAX_CAST`, is returned as it is (the same array).

    >>> frame = np.full((200, 200, 3), (40, 110, 30), np.uint8)
    >>> frame[50:150, 60:130] = (188, 219, 235)
    >>> white_balance(frame)[100, 100].tolist()
    [235, 235, 235]
    >>> white = frame.copy(); white[50:150, 60:130] = 235
    >>> white_balance(white) is white
    True
    """
    import cv2

    if paper is None:
        paper = paper_colour(frame, step)
    if paper is None or not corrected(cast_of(paper), min_cast):
        return frame
    gains = float(paper.max()) / np.maximum(paper, 1.0)
    lut = np.clip(np.rint(np.arange(256, dtype=np.float64)[:, None] * gains[None, :]), 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut.reshape(256, 1, 3))

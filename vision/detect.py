"""Classical card finding: white card regions on felt, their corners, and index-corner crops.

Stage 1 of the recogniser (:mod:`vision.recognize`). Pure numpy/OpenCV, no model.

A face-up card is a bright, unsaturated region on a saturated felt. Overlapping cards are split along
the edges the upper card draws on the lower one (its outline and shadow). Every convex, roughly right
angled corner of a region's outline is a *corner candidate*: a point and two unit vectors along the
outline. Of the two directions, the one turning counter-clockwise (in image coordinates) to the
other is taken as the card's short side, which makes each candidate an *index* corner exactly when
it is a card's top-left or bottom-right corner, as printed indices are. The classifier refuses the
rest (a top-right corner, a point where one card's edge crosses another, a chip).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

ASPECT = 88.0 / 63.0
CROP_W, CROP_H = 28, 48
"""Size of an index-corner crop fed to the classifier (width, height)."""

# The crop covers this part of the card, in card units from the corner (fraction of width/height).
from vision.render import INDEX_X0, INDEX_X1, INDEX_Y0, INDEX_Y1  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Corner:
    """A candidate index corner of a card."""

    point: tuple[float, float]
    """The corner, image pixels."""
    u: tuple[float, float]
    """Unit vector along the card's short side (the index's 'right')."""
    v: tuple[float, float]
    """Unit vector along the card's long side (the index's 'down')."""
    width: float
    """Card width in pixels used for the crop."""
    index_scale: float = 1.0
    """How much larger than a standard index the deck prints its own (``camera.index_scale``): the
    crop is made at ``width``, the card itself is ``width / index_scale`` wide (:attr:`card_width`)."""
    faint: bool = False
    """Proposed from a rank taken from weak print (:data:`GLYPH_WEAK_RANK`): what the index classifier
    reads there stands only at its threshold, with no other model's word
    (:meth:`vision.recognize.OnnxRecognizer.read_corners`)."""

    @property
    def card_width(self) -> float:
        """The width of the card this corner implies, pixels."""
        return self.width / self.index_scale

    def smaller(self, share: float) -> Corner:
        """This corner cropped at ``share`` of its crop width, the card it implies as wide as before
        (its index read as printed smaller for its card)."""
        return dataclasses.replace(self, width=self.width * share, index_scale=self.index_scale * share)

    def card_quad(self) -> np.ndarray:
        """The card this corner implies, 4x2: this corner first, then round the card (at
        :attr:`card_width`).

        >>> jumbo = Corner((10.0, 10.0), (1.0, 0.0), (0.0, 1.0), 40.0, index_scale=2.0)  # a card 20 px wide
        >>> [round(float(x), 1) for x in jumbo.card_quad()[2]]
        [30.0, 37.9]
        """
        p = np.array(self.point)
        u = np.array(self.u) * self.card_width
        v = np.array(self.v) * self.card_width * ASPECT
        return np.array([p, p + u, p + u + v, p + v], np.float32)

    def center(self) -> np.ndarray:
        return self.card_quad().mean(axis=0)


@dataclasses.dataclass(frozen=True)
class Masks:
    white: np.ndarray
    """Face-up card stock (uint8 0/255)."""
    foreground: np.ndarray
    """Anything not felt (uint8 0/255)."""
    raw: np.ndarray | None = None
    """Bright unsaturated pixels before holes are filled (uint8 0/255): tells a back from a face."""
    filled: np.ndarray | None = None
    """Card stock with holes filled, before overlapping cards are cut apart (uint8 0/255)."""
    ink: np.ndarray | None = None
    """Print on card stock: inside ``filled`` but not bright and unsaturated (uint8 0/255), with the
    long straight lines that cut overlapping cards apart erased from it: a deck's printed border
    line, or a court card's frame, would otherwise join the index glyphs next to it into one long
    blob and fill the band the print scan looks in."""
    image: np.ndarray | None = None
    """The BGR frame (or region) the masks were made of, not copied: the faint print of
    :func:`glyph_ink` is found in its gray, when the glyph proposer asks for it."""
    light: bool = False
    """Made as of a light table (:data:`LIGHT_FELT_V`): the card stock is what edges enclose."""
    _outlines: dict[str, tuple[np.ndarray, ...]] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                                                     compare=False)
    _glyph_ink: dict[object, Any] = dataclasses.field(default_factory=dict, init=False, repr=False, compare=False)
    """:func:`glyph_ink` by its kernel size; 0: the gray of :attr:`image`; -1 and -2: its darkest
    channel and where it is coloured (:meth:`darkest`); ``("hats", k)``: the black-hats of
    :func:`faint_print`."""
    _measures: dict[str, float | None] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                                           compare=False)
    _boxes: dict[str, list[tuple[np.ndarray, float]]] = dataclasses.field(default_factory=dict, init=False,
                                                                          repr=False, compare=False)
    """:meth:`card_boxes` (``"whole"``) and :meth:`opened_boxes` (``"opened"``), found once."""

    def outlines(self, which: str) -> tuple[np.ndarray, ...]:
        """The outer contours, every point, of the mask named ``which`` (``"white"``, ``"foreground"``
        or ``"filled"``), found once: the corner finders and the back finder all walk them. The
        masks must not change after the first call."""
        found = self._outlines.get(which)
        if found is None:
            import cv2

            found = tuple(cv2.findContours(getattr(self, which), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0])
            self._outlines[which] = found
        return found

    def gray(self) -> np.ndarray | None:
        """:attr:`image` in grayscale, converted once (``None`` without an image)."""
        if self.image is None:
            return None
        gray = self._glyph_ink.get(0)
        if gray is None:
            import cv2

            gray = self._glyph_ink[0] = cv2.cvtColor(self.image, cv2.COLOR_BGR2GRAY)
        return gray

    def darkest(self, colour: int) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`image`'s darkest channel, and where its pixels are coloured (the brightest channel
        over the darkest by more than ``colour``), found once (:data:`GLYPH_FAINT_COLOUR`)."""
        found = self._glyph_ink.get(-1), self._glyph_ink.get(-2)
        if found[0] is None or found[1] is None:
            import cv2

            b, g, r = cv2.split(self.image)
            darkest = self._glyph_ink[-1] = cv2.min(cv2.min(b, g), r)
            coloured = self._glyph_ink[-2] = cv2.compare(cv2.subtract(cv2.max(cv2.max(b, g), r), darkest), colour,
                                                         cv2.CMP_GT)
            found = darkest, coloured
        return found  # type: ignore[return-value]

    def card_boxes(self) -> list[tuple[np.ndarray, float]]:
        """:func:`whole_card_boxes` of :attr:`white`, found once (the masks must not change after)."""
        if "whole" not in self._boxes:
            self._boxes["whole"] = whole_card_boxes(self.white)
        return self._boxes["whole"]

    def card_width(self) -> float | None:
        """:func:`estimate_card_width` of :attr:`white`: the median width of :meth:`card_boxes`."""
        widths = [w for _, w in self.card_boxes()]
        return float(np.median(widths)) if widths else None

    def opened_boxes(self) -> list[tuple[np.ndarray, float]]:
        """:func:`opened_cards` of :attr:`white`, found once (the masks must not change after)."""
        if "opened" not in self._boxes:
            self._boxes["opened"] = opened_cards(self.white)
        return self._boxes["opened"]

    def edge_width(self) -> float | None:
        """The width of the card edges in :attr:`image` (:func:`vision.focus.edge_width`: how far
        out of focus the camera is), measured once; ``None`` when too few edges show."""
        if "edge" not in self._measures:
            from vision import focus

            gray = self.gray()
            self._measures["edge"] = (None if gray is None or self.filled is None else
                                      focus.edge_width(gray, self.filled, self.outlines("filled")))
        return self._measures["edge"]


def felt_stats(frame: np.ndarray) -> tuple[float, float, float]:
    """Median (hue, saturation, value) of a BGR frame, sampled: the felt, when it dominates.

    Where it does not (a photograph whose cards fill its middle, so that the median is card stock),
    the median is grey; where the frame's rim (:func:`_rim`, 8% deep) is then mostly (more than
    :data:`FELT_RIM_SHARE`) coloured or far darker (:data:`FELT_RIM_DARKER`), the felt is the median
    of those rim pixels. A grey felt's rim, or a light table's, is as grey as the median and keeps it.

    >>> frame = np.zeros((120, 160, 3), np.uint8); frame[:] = (40, 110, 30)  # green felt
    >>> frame[10:110, 15:145] = (235, 235, 235)  # cards over most of it
    >>> [round(x) for x in felt_stats(frame)]  # the felt round them, not their stock
    [64, 185, 110]
    >>> frame[:] = 230; [round(x) for x in felt_stats(frame)]  # a white desk
    [0, 0, 230]
    """
    import cv2

    hsv = cv2.cvtColor(np.ascontiguousarray(frame[::8, ::8]), cv2.COLOR_BGR2HSV)
    hue, sat, val = cv2.split(hsv)
    stats = _median_u8(hue), _median_u8(sat), _median_u8(val)
    if FELT_RIM_SHARE is None or stats[1] >= NEUTRAL_FELT_SAT:
        return stats  # a coloured felt (card stock is grey)
    rim_h, rim_s, rim_v = (_rim(c, 0.08) for c in (hue, sat, val))
    off = (rim_s >= NEUTRAL_FELT_SAT) | (rim_v < FELT_RIM_DARKER * stats[2])  # not what the median is
    if np.count_nonzero(off) <= FELT_RIM_SHARE * off.size:
        return stats
    return _median_u8(rim_h[off]), _median_u8(rim_s[off]), _median_u8(rim_v[off])


FELT_RIM_DARKER = 0.6
"""A pixel of the rim darker than this share of the frame's median value is no card stock like it
(:func:`felt_stats`): a black felt round cards that fill the frame's middle."""
FELT_RIM_SHARE: float | None = 0.5
"""The share of the frame's rim that must be no card stock for :func:`felt_stats` to take the felt
from the rim where the frame's median is card stock (``None``: the median always). A photograph
whose cards fill its middle (a frame 4 x 3 card widths) had the felt taken for the stock, and most
of its cards went unread."""


def _rim(a: np.ndarray, share: float) -> np.ndarray:
    """The pixels of a 2-D array in a strip ``share`` of its size deep round its edge, flattened.

    >>> _rim(np.arange(16).reshape(4, 4), 0.25).tolist()
    [0, 1, 2, 3, 12, 13, 14, 15, 4, 8, 7, 11]
    """
    h, w = a.shape[:2]
    dy, dx = max(1, int(share * h)), max(1, int(share * w))
    strips = (np.s_[:dy], np.s_[-dy:], np.s_[dy:-dy, :dx], np.s_[dy:-dy, -dx:])
    return np.concatenate([a[k].ravel() for k in strips])


def _median_u8(values: np.ndarray) -> float:
    """``np.median`` of uint8 ``values``, from their histogram (several times faster, the same
    value: the mean of the two middle values when there are an even number).

    >>> v = np.array([[3, 200, 7], [7, 9, 0]], np.uint8)
    >>> _median_u8(v), float(np.median(v)), _median_u8(v[0]), float(np.median(v[0]))
    (7.0, 7.0, 7.0, 7.0)
    >>> _median_u8(np.array([1, 2, 4, 250], np.uint8)), float(np.median(np.array([1, 2, 4, 250], np.uint8)))
    (3.0, 3.0)
    """
    cum = np.cumsum(np.bincount(values.ravel(), minlength=256))
    n = int(cum[-1])
    lo = int(np.searchsorted(cum, (n - 1) // 2, side="right"))  # the value at sorted position (n - 1) // 2
    hi = int(np.searchsorted(cum, n // 2, side="right"))
    return (lo + hi) / 2


STOCK_BRIGHTER_CAP = 150.0
"""The brightness card stock must pass at the frame's median coloured felt, at most: 1.15 times a
dark felt's plus 10, but no more than this on a light one, whose value can match the stock's (a
light blue felt's value is its blue channel; in a dim corner the stock is no brighter). A grey felt
is told from the stock by brightness alone, and keeps the bound of 200."""
NEUTRAL_FELT_SAT = 50.0
"""A felt whose median saturation (0..255) is under this is grey or black: its hue is noise, and
what is not felt is told by colour and brightness (:func:`card_masks`)."""
NEUTRAL_STOCK_SAT = 60.0
"""On a grey or black felt, card stock is what is less saturated than this (and bright): the felt is
as unsaturated as the stock, so saturation only has to tell coloured things (chips, backs, skin)
from the stock, as on a green felt, where the bound is 0.45 of the felt's saturation."""
MUTED_STOCK_SAT = 45.0
"""On a muted coloured felt (saturation 54 to 100: a tan, a slate), card stock may be as saturated
as 0.65 of the felt, up to this: a dim, noisy frame's stock reaches 40 to 50, and 0.45 of a tan's
75 left it 35. Felts of 100 and more (the benchmark's) keep 0.45 of theirs, 45 or more."""
MUTED_STOCK_SHARE = 0.65
"""The share of a muted felt's saturation card stock may have (up to :data:`MUTED_STOCK_SAT`)."""
TINTED_STOCK_SHARE = 0.85
"""On a coloured felt, card stock may be as saturated as this share of the felt (up to
:data:`TINTED_STOCK_SAT`) where it joins stock under the plain bound (:func:`_joined`): the stock
beside red print or a coloured border, and at the card's edge, which the camera's blur and chroma
subsampling tint (saturation 35 to 65 in a strip a few pixels wide between a card's edge and its
frame line, on a tan felt). A lamp's glare on a pale felt is as pale as such stock, but it joins
no plain stock: it stays felt."""
TINTED_STOCK_SAT = 70.0
"""The most saturation tinted card stock may have (:data:`TINTED_STOCK_SHARE`)."""
SEED_SIZE = 3
"""Tinted stock joins plain stock where the plain stock fills a square this many pixels across
(eroded): a noisy pixel of a glare's spot under the plain bound is no seed."""
NEUTRAL_FELT_CHROMA = 20.0
"""On a grey or black felt, a pixel more coloured than this (max - min of B, G, R) is not felt."""
NEUTRAL_FELT_BRIGHTER = 1.25
"""On a grey or black felt, a pixel brighter than this times the felt's median value, plus 15, is not felt."""
LIGHT_FELT_V = 170.0
"""A grey felt brighter than this (median value, 0..255) is a light table: a white or cream cloth, a
pale desk under a photograph. Card stock there is hardly brighter than the cloth, or no brighter at
all where a lamp lights the cloth: it is told by the edges that enclose each card
(:func:`light_table`) and by being no darker than :data:`LIGHT_STOCK_DIMMER` times the table round
it, which keeps chips and backs out with the saturation bound."""
LIGHT_STOCK_DIMMER = 0.8
"""On a light table, card stock is brighter than this share of the table's own value round it
(:data:`LIGHT_FELT_V`)."""


def card_masks(frame: np.ndarray, card_width: float | None = None,
               felt: tuple[float, float, float] | None = None, light_table_rule: bool = True) -> Masks:
    """Masks of card-white and of not-felt pixels in a BGR frame.

    Card stock is unsaturated and brighter than the felt round it (:func:`_card_threshold`: the
    threshold follows the light across the frame); on a coloured felt, stock a little more
    saturated counts where it joins plain stock (:data:`TINTED_STOCK_SHARE`); on a light table (a
    white or cream cloth, :data:`LIGHT_FELT_V`) it is what the edges enclose (:func:`light_table`),
    no darker than the cloth by much. Holes (pips,
    indices) are filled, then long straight edges inside the white area (where one card lies on
    another and shades it) are cut out so overlapping cards fall apart into separate regions.
    ``light_table_rule=False``: a light table is read as any grey felt (brighter stock).
    """
    import cv2

    hue, s, v = cv2.split(cv2.cvtColor(frame, cv2.COLOR_BGR2HSV))  # each channel contiguous, copied once
    felt_h, felt_s, felt_v = felt if felt is not None else felt_stats(frame)
    neutral = felt_s < NEUTRAL_FELT_SAT
    # less saturated than the felt: by 0.45 of a strongly coloured felt's saturation, at least 35;
    # a muted felt (a tan's 75) leaves the stock up to 0.65 of its own (at most MUTED_STOCK_SAT);
    # stock up to TINTED_STOCK_SHARE of it where it joins that plain stock
    s_thr = (NEUTRAL_STOCK_SAT if neutral else
             max(35.0, min(90.0, felt_s * 0.45), min(felt_s * MUTED_STOCK_SHARE, MUTED_STOCK_SAT)))
    # brighter than the felt; on a coloured felt, whose saturation already tells it from the stock,
    # not by more than a light felt's own value allows; on a light table, no darker than it by much
    light = light_table_rule and neutral and felt_v > LIGHT_FELT_V and _light_round_the_edge(s, v)
    v_thr = (felt_v * LIGHT_STOCK_DIMMER if light else
             max(70.0, min(200.0 if neutral else STOCK_BRIGHTER_CAP, felt_v * 1.15 + 10)))
    unsat = cv2.inRange(s, 0, math.ceil(s_thr) - 1)
    if light:
        # a light table (a cream one is as coloured as a chip's edge): not felt is what the edges
        # enclose (a lamp's glare on it fades with no edge, and stays table), or dark
        enclosed = cv2.bitwise_not(light_table(v))
        fg = enclosed.copy()
    elif neutral:
        # a grey or black felt, whose hue is noise: not felt is what is coloured, brighter or darker
        fg = cv2.compare(cv2.multiply(s, v, scale=1.0 / 255.0), NEUTRAL_FELT_CHROMA, cv2.CMP_GT)
        fg |= cv2.compare(v, felt_v * NEUTRAL_FELT_BRIGHTER + 15.0, cv2.CMP_GT)
    else:
        # not felt: hue more than 12 from the felt's (round the hue circle), or unsaturated, or dark
        fg = cv2.LUT(hue, _off_hue(int(felt_h)))
        fg |= unsat
    fg |= cv2.inRange(v, 0, math.ceil(felt_v * 0.45) - 1)
    # card stock: unsaturated and brighter than the felt around it (the threshold follows the light;
    # the frame's one threshold where too little felt shows)
    thr = _card_threshold(v, fg, card_width, felt_v, v_thr)
    bright = cv2.compare(v, float(math.floor(v_thr)) if thr is None else thr, cv2.CMP_GT)
    raw0 = cv2.bitwise_and(unsat, bright)
    if light:  # and enclosed by edges
        raw0 = cv2.bitwise_and(raw0, enclosed)
    tinted = 0.0 if neutral else min(felt_s * TINTED_STOCK_SHARE, TINTED_STOCK_SAT)
    if tinted > s_thr:  # stock a little tinted, where it joins plain stock
        seed = cv2.erode(raw0, np.ones((SEED_SIZE, SEED_SIZE), np.uint8))  # solid plain stock, not noise
        raw0 = _joined(seed, cv2.bitwise_and(cv2.inRange(s, 0, math.ceil(tinted) - 1), bright)) | raw0
    if neutral or tinted > s_thr:  # card stock is not felt (on a coloured felt, plain stock already is)
        fg |= raw0
    raw = cv2.morphologyEx(raw0, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(raw, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    white = np.zeros_like(raw)
    cv2.drawContours(white, contours, -1, 255, -1)
    filled = white.copy()
    ink = cv2.bitwise_and(filled, cv2.bitwise_not(raw0))
    edges = _edges_in(v, white)
    min_len = 0.4 * card_width if card_width else 24
    lines = cv2.HoughLinesP(edges, 1, LINE_ANGLE_STEP, threshold=int(min_len * 0.6), minLineLength=min_len,
                            maxLineGap=2)
    if lines is not None:
        for x0, y0, x1, y1 in lines.reshape(-1, 4):
            cv2.line(white, (int(x0), int(y0)), (int(x1), int(y1)), 0, 2)
            cv2.line(ink, (int(x0), int(y0)), (int(x1), int(y1)), 0, 2)
    white = cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return Masks(white, fg, raw, filled, ink, frame, light)


LIGHT_EDGE_COLOURED = 0.5
"""The largest share of the frame's edge that may be coloured (saturation :data:`NEUTRAL_FELT_SAT` or
more: chips, backs) for the frame to be a light table (:func:`_light_round_the_edge`)."""


LIGHT_EDGE_DIMMER = 0.75
"""The median value of a light table's edge must pass this share of :data:`LIGHT_FELT_V`, not all of
it: a lamp over the table's middle lights the frame's edge less."""


def _light_round_the_edge(s: np.ndarray, v: np.ndarray, share: float = 0.04) -> bool:
    """Whether the frame's edge (a strip ``share`` of its size deep) is a light table too: not mostly
    coloured (at most :data:`LIGHT_EDGE_COLOURED` of it) and bright (median value over
    :data:`LIGHT_EDGE_DIMMER` times :data:`LIGHT_FELT_V`). A close photograph of one card makes the
    frame's median its stock, light and grey, whatever the table round it is, and a card the frame
    cuts may be most of its edge.

    >>> v = np.full((100, 80), 120, np.uint8); s = np.full_like(v, 90)
    >>> v[5:95, 5:75] = 240; s[5:95, 5:75] = 0  # a card filling a frame of blue cloth
    >>> _light_round_the_edge(s, v), _light_round_the_edge(np.zeros_like(v), np.full_like(v, 230))
    (False, True)
    >>> v[:, :20] = 240; s[:, :20] = 0  # the card cut by the frame's edge: most of the edge is card
    >>> _light_round_the_edge(s, v)
    False
    """
    rim_s, rim_v = _rim(s, share), _rim(v, share)
    return bool(np.count_nonzero(rim_s >= NEUTRAL_FELT_SAT) <= LIGHT_EDGE_COLOURED * rim_s.size
                and _median_u8(rim_v) > LIGHT_EDGE_DIMMER * LIGHT_FELT_V)


LIGHT_EDGES = (20, 50)
"""Canny's thresholds for the edges that enclose the cards on a light table (:func:`light_table`):
lower than the cut lines' (40, 110), as a white card on a white cloth shows little more than its
rim's shade."""


def light_table(v: np.ndarray) -> np.ndarray:
    """On a light table (:data:`LIGHT_FELT_V`), where card stock is hardly brighter than the cloth,
    the table itself: the largest region of ``v`` (the frame's value channel) that no edge crosses
    (Canny at :data:`LIGHT_EDGES`, thickened a pixel to close the gaps in a card's rim) and that
    reaches the frame's edge, 255 there. A card is enclosed by its edges, and a lamp's glare, which
    fades with no edge, stays table. A close photograph of one card (whose stock then makes the
    frame's median, so that the frame looks like a light table) leaves the table a strip round it.

    >>> v = np.full((60, 80), 200, np.uint8); v[20:40, 30:50] = 235
    >>> t = light_table(v)
    >>> int(t[5, 5]), int(t[30, 40])
    (255, 0)
    >>> v = np.full((60, 80), 120, np.uint8); v[4:56, 4:76] = 235  # a card filling the frame
    >>> t = light_table(v)
    >>> int(t[1, 1]), int(t[30, 40])
    (255, 0)
    """
    import cv2

    edges = cv2.dilate(cv2.Canny(v, *LIGHT_EDGES), np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.bitwise_not(edges), connectivity=4)
    if n < 2:
        return np.zeros_like(v)
    x, y, w, h, area = (stats[1:, k] for k in range(5))
    H, W = v.shape[:2]
    # the table reaches the frame's edge; a card filling a close photograph does not
    area = np.where((x == 0) | (y == 0) | (x + w == W) | (y + h == H), area, area - W * H)
    return cv2.compare(labels, 1 + int(area.argmax()), cv2.CMP_EQ)


def stock_frame(shape: tuple[int, ...], parts: Sequence[tuple[tuple[int, int, int, int] | None, Masks]],
                which: str = "stock") -> np.ndarray:
    """A frame-sized uint8 mask of card stock (255) from the masks of regions of the frame
    (``(roi, masks)``, ``roi`` ``None`` for the whole frame): each region's stock with its holes
    filled (:attr:`Masks.filled`, else :attr:`Masks.white`); 255 wherever no region says, so a
    pixel is only ever taken for felt where a region's masks show felt. ``which="foreground"``:
    the same of :attr:`Masks.foreground` (anything not felt: stock, backs, chips, hands).

    >>> m = Masks(np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.uint8))
    >>> m.white[0, 1] = 255
    >>> stock_frame((3, 5, 3), [((1, 1, 3, 2), m)]).tolist()
    [[255, 255, 255, 255, 255], [255, 0, 255, 0, 255], [255, 0, 0, 0, 255]]
    >>> stock_frame((3, 5, 3), [((1, 1, 3, 2), m)], "foreground").tolist()
    [[255, 255, 255, 255, 255], [255, 0, 0, 0, 255], [255, 0, 0, 0, 255]]
    """
    if which not in ("stock", "foreground"):
        raise ValueError(f"stock_frame: which must be 'stock' or 'foreground', not {which!r}")
    out = np.full(shape[:2], 255, np.uint8)
    for roi, masks in parts:
        if which == "foreground":
            mask = masks.foreground
        else:
            mask = masks.filled if masks.filled is not None else masks.white
        if roi is None:
            out[:] = mask
        else:
            x, y, w, h = roi
            out[y : y + h, x : x + w] = mask
    return out


EDGE_PAD = 4
"""Pixels of the seat zone round the card stock that the edge search sees (:func:`_edges_in`)."""


def _edges_in(v: np.ndarray, white: np.ndarray, pad: int = EDGE_PAD) -> np.ndarray:
    """``cv2.Canny(v, 40, 110)`` where ``white`` is set, 0 elsewhere: Canny runs only on the
    bounding box of ``white`` with ``pad`` pixels round it (the cards take about a third of a seat
    zone), which gives the same edges inside ``white`` unless an edge's hysteresis chain leaves the
    box and comes back.

    >>> import cv2
    >>> v = np.zeros((60, 80), np.uint8); v[20:40, 30:50] = 200; v[25:35, 5:15] = 200
    >>> white = np.zeros_like(v); white[18:42, 28:52] = 255
    >>> bool((_edges_in(v, white) == cv2.bitwise_and(cv2.Canny(v, 40, 110), white)).all())
    True
    >>> int(_edges_in(v, np.zeros_like(v)).max())
    0
    """
    import cv2

    x, y, w, h = cv2.boundingRect(white)
    out = np.zeros_like(white)
    if w == 0 or h == 0:
        return out
    H, W = white.shape
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    out[y0:y1, x0:x1] = cv2.bitwise_and(cv2.Canny(np.ascontiguousarray(v[y0:y1, x0:x1]), 40, 110),
                                        np.ascontiguousarray(white[y0:y1, x0:x1]))
    return out


LINE_ANGLE_STEP = math.radians(2.0)
"""Angle resolution of the line search that cuts overlapping cards apart (``cv2.HoughLinesP``):
its time grows with the number of angles, and a card's side is found at 2 degrees as at 1 (each
segment's ends are the edge pixels it walks through)."""
LIGHT_STEP = 16
"""The felt's light is measured on a grid this many pixels apart."""
LIGHT_SIGMA = 2.0
"""How far round a pixel the felt's light is averaged: the Gaussian's sigma in card widths (a
twelfth of the frame's longer side stands in for the width when it is not known)."""


def _card_threshold(v: np.ndarray, fg: np.ndarray, card_width: float | None, felt_v: float,
                    v_thr: float) -> np.ndarray | None:
    """The brightness card stock must exceed at every pixel (uint8): ``v_thr``, set for the frame's
    median felt ``felt_v``, scaled by the felt's own brightness round the pixel; ``None`` where
    the frame shows too little felt to tell.

    The felt's brightness is its pixels' values averaged with a Gaussian weight of
    :data:`LIGHT_SIGMA` card widths (normalised convolution, so the cards' own pixels leave holes
    rather than bias it), on a grid :data:`LIGHT_STEP` pixels apart and scaled back up. Cards lit
    as the felt round them keep their contrast with it where a lamp or the table's shadow makes
    the felt itself darker or brighter than its median.
    """
    import cv2

    h, w = v.shape
    gw, gh = w // LIGHT_STEP, h // LIGHT_STEP
    if gw == 0 or gh == 0:
        return None
    # whole blocks only: an area resize by a whole factor is a block mean, and many times faster
    hb, wb = gh * LIGHT_STEP, gw * LIGHT_STEP
    felt = cv2.bitwise_not(fg[:hb, :wb])
    num = cv2.resize(cv2.bitwise_and(v[:hb, :wb], felt), (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32)
    den = cv2.resize(felt, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32) * (1.0 / 255.0)
    if float(den.mean()) < 0.05:
        return None
    sigma = LIGHT_SIGMA * (card_width if card_width else max(h, w) / 12.0) / LIGHT_STEP
    num = cv2.GaussianBlur(num, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    den = cv2.GaussianBlur(den, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    # where no felt is near, the frame's median felt
    weight = np.clip(den * 20.0, 0.0, 1.0)
    local = num / np.maximum(den, 1e-6) * weight + felt_v * (1.0 - weight)
    thr = np.clip(local * (v_thr / max(felt_v, 1.0)), 70.0, 200.0).astype(np.uint8)
    return cv2.resize(thr, (w, h), interpolation=cv2.INTER_LINEAR)


def _joined(seed: np.ndarray, more: np.ndarray) -> np.ndarray:
    """The 8-connected regions of ``more`` (uint8 0/255, a superset of ``seed``) that hold a pixel of
    ``seed``: a mask grown from ``seed`` through ``more`` (hysteresis, as Canny's).

    >>> more = np.zeros((3, 7), np.uint8); more[1, :3] = more[1, 4:] = 255
    >>> seed = np.zeros_like(more); seed[1, 5] = 255
    >>> (_joined(seed, more) // 255).tolist()
    [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0]]
    """
    import cv2

    n, labels = cv2.connectedComponents(more, connectivity=8)
    keep = np.zeros(n, np.uint8)
    keep[labels[seed > 0]] = 255
    keep[0] = 0
    return keep[labels]


@functools.lru_cache(maxsize=180)
def _off_hue(felt_h: int) -> np.ndarray:
    """Lookup table of 8-bit hues: 255 where a hue lies more than 12 from ``felt_h`` round the hue
    circle (0..179), else 0 (read-only: cached)."""
    dh = np.abs(np.arange(256, dtype=np.int16) - felt_h)
    table = (np.minimum(dh, 180 - dh) > 12).astype(np.uint8) * 255
    table.setflags(write=False)
    return table


def _polygon(contour: np.ndarray, eps: float) -> np.ndarray:
    import cv2

    return cv2.approxPolyDP(contour, eps, True).reshape(-1, 2).astype(np.float64)


def _merge_short_edges(poly: np.ndarray, min_len: float) -> np.ndarray:
    """Replace each edge shorter than ``min_len`` (a rounded card corner) by its neighbours' crossing."""
    changed = True
    pts = poly.tolist()  # Python floats: this loop is per vertex
    while changed and len(pts) > 3:
        changed = False
        n = len(pts)
        for i in range(n):
            a, b = pts[i], pts[(i + 1) % n]
            if math.hypot(b[0] - a[0], b[1] - a[1]) < min_len:
                p0, p3 = pts[(i - 1) % n], pts[(i + 2) % n]
                x = _intersect(p0, a, b, p3)
                if x is None:
                    continue
                if math.hypot(x[0] - (a[0] + b[0]) / 2, x[1] - (a[1] + b[1]) / 2) > 2 * min_len:
                    continue
                j = (i + 1) % n
                pts[i] = x
                del pts[j]
                changed = True
                break
    return np.array(pts, np.float64)


def _intersect(p0, p1, q0, q1):
    """Where the line through ``p0, p1`` crosses the line through ``q0, q1`` (``[x, y]``), or
    ``None`` when they are parallel."""
    d1x, d1y = p1[0] - p0[0], p1[1] - p0[1]
    d2x, d2y = q1[0] - q0[0], q1[1] - q0[1]
    den = d1x * d2y - d1y * d2x
    if abs(den) < 1e-9:
        return None
    t = ((q0[0] - p0[0]) * d2y - (q0[1] - p0[1]) * d2x) / den
    return [p0[0] + t * d1x, p0[1] + t * d1y]


def whole_card_widths(white: np.ndarray, min_area: float = 800.0) -> list[float]:
    """The widths (short sides, pixels) of the regions of ``white`` that look like one whole card:
    a card's proportions, and nearly filling their rectangle. Two cards lying edge to edge look like
    one, and on a light felt part of a card can look like a whole one, so these are a measure to
    check, not the width itself."""
    return [width for _, width in whole_cards(white, min_area)]


def whole_cards(white: np.ndarray, min_area: float = 800.0) -> list[tuple[tuple[float, float], float]]:
    """:func:`whole_card_widths` with each region's centre: ``((x, y), width)``, to tell which seat
    zone a measured card lies in."""
    return [((float(box[:, 0].mean()), float(box[:, 1].mean())), width)
            for box, width in whole_card_boxes(white, min_area)]


def whole_card_boxes(white: np.ndarray, min_area: float = 800.0) -> list[tuple[np.ndarray, float]]:
    """:func:`whole_cards` with each region's rectangle: ``(its four corners, 4 x 2, width)``."""
    import cv2

    contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cards = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area:
            continue
        rect = cv2.minAreaRect(c)
        w, h = rect[1]
        if w * h <= 0:
            continue
        short, long_ = min(w, h), max(w, h)
        if 1.28 < long_ / short < 1.52 and area / (w * h) > 0.88:
            cards.append((cv2.boxPoints(rect).astype(np.float64), float(short)))
    return cards


def estimate_card_width(white: np.ndarray, min_area: float = 800.0) -> float | None:
    """Median width of regions that look like one whole card (:func:`whole_card_widths`); ``None``
    when there is none."""
    widths = whole_card_widths(white, min_area)
    if not widths:
        return None
    return float(np.median(widths))


OPENED_CARDS: tuple[float, ...] = (0.01, 0.02)
"""Openings (shares of the frame's shorter side) of the card-stock mask under which whole cards are
looked for again where none lies whole in it (:func:`opened_cards`)."""


def opened_cards(white: np.ndarray, min_area: float = 800.0) -> list[tuple[np.ndarray, float]]:
    """:func:`whole_card_boxes` of ``white`` opened by each of :data:`OPENED_CARDS` in turn, the first
    that finds any: a card whose outline a thin strip of other stock touches (a back's white border,
    the stock of a card lying against it) joins that stock in one region, and an opening wider than
    the strip parts them. An opening can also leave a card's shape of a region that is no card (a
    part of one): these are candidates, for a read at one of their corners to confirm.

    >>> white = np.zeros((400, 600), np.uint8); white[50:190, 50:150] = 255  # a card 100 x 140
    >>> white[100:104, 150:400] = 255; white[60:300, 400:404] = 255  # a thin border touching it
    >>> estimate_card_width(white) is None, [round(w) for _, w in opened_cards(white)]
    (True, [99])
    """
    import cv2

    for share in OPENED_CARDS:
        k = max(3, int(round(share * min(white.shape[:2]))) | 1)
        cards = whole_card_boxes(cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((k, k), np.uint8)), min_area)
        if cards:
            return cards
    return []


WIDTH_LADDER: tuple[float, ...] = (52.0, 66.0, 84.0, 107.0, 136.0)
"""Card widths (pixels) tried when no card width is configured (with the width measured from whole
cards, if any, then finer steps around the best: ``OnnxRecognizer._search_width``): neighbours
are 27% apart, so one is within 12% of any width from 46 to 154 pixels."""


GLYPH_SPLIT = 0.025
"""Size (card widths) of the opening that separates index glyphs from thin lines joined to them
(:func:`glyph_corners`); none for cards under 60 pixels wide, whose strokes are that thin."""
GLYPH_FAINT: tuple[float, int] | None = (0.12, 60)
"""Faint print for :func:`glyph_corners` (:func:`glyph_ink`): on card stock, gray more than the
second value darker than the gray closed over a square of the first (card widths): a black-hat,
which finds thin dark strokes whatever their colour. ``None``: only the print that leaves card
stock (``Masks.ink``), as before the thirty-seventh session. Its blobs join the blobs as printed,
which stay. On 600 tuning scenes a set, 0.12 and 60 read 15 more seen-deck cards and 32 more
unseen, with one unseen wrong read fewer (models/HISTORY.md, "Thirty-seventh session"); at 25 so
much stock shading and so many pip edges join in that 21 seen and 41 unseen cards are lost."""
GLYPH_FAINT_COLOUR = 25
"""Coloured faint print for :func:`glyph_ink`, the threshold of colour (brightest channel less darkest)
above which the black-hat is also taken on the frame's darkest channel, where red, blue and green
print is as dark as black (in gray a thin red rank blurred to pale pink is barely darker than the
stock). ``0``: gray only, as before the forty-eighth session. Forty-eighth session, 1,000 tuning
scenes of the seen decks: 15 of the 20 cards 70 px wide or more with no corner proposal were red;
on 600 tuning scenes a set (``[50505, i]``) 6 more seen-deck cards read right and 3 more unseen,
no read wrong. Taken on every channel's darkest, black print included, it read 7 more seen but
lost 5 unseen and made 2 unseen wrong reads (a Qc and a 9c read as spades)."""
GLYPH_WEAK_RANK: tuple[int, float] | None = (40, 0.035)
"""Weak print taken for a rank whose suit is printed plainly (:func:`glyph_corners`, :func:`_weak_ranks`):
on card stock, more than the first value darker than its surroundings (the black-hat of
:data:`GLYPH_FAINT`, whose own bar is 60), in blobs whose diagonal is at least the second value
times the card's height (a faint rank breaks into specks of a few pixels). Only ever a rank, paired
with a suit blob as printed, and only on cards under :data:`GLYPH_WEAK_BELOW` pixels. ``None``: none,
as before the forty-ninth session."""
GLYPH_WEAK_BELOW = 80.0
"""The card width (pixels) from which no weak print is taken for a rank (:data:`GLYPH_WEAK_RANK`)."""
SCAN_EPS = 0.035
"""Outline simplification for the print scan, in card widths: small steps between the edges of
fanned cards merge into one straight stretch."""


def find_corners(
    frame: np.ndarray,
    card_width: float | None = None,
    roi: tuple[int, int, int, int] | None = None,
    masks: Masks | None = None,
    felt: tuple[float, float, float] | None = None,
    glyphs: bool = True,
) -> list[Corner]:
    """Candidate index corners of face-up cards in a BGR frame.

    :param card_width: expected card width in pixels; estimated from whole cards when ``None``.
    :param roi: ``(x, y, w, h)`` to search in (corners are still in frame pixels).
    :param masks: masks of the (cropped) frame, when the caller already has them.
    :param felt: felt statistics from :func:`felt_stats` on the whole frame.
    :param glyphs: also propose the index corners of cards lying on cards (white on white, no
        outline at the corner; needs a width): :func:`lying_corners`.
    """
    import cv2

    ox = oy = 0
    if roi is not None:
        x, y, w, h = roi
        frame = frame[y : y + h, x : x + w]
        ox, oy = x, y
    if masks is None:
        masks = card_masks(frame, card_width, felt)
    white = masks.white
    if card_width is None:
        card_width = masks.card_width()
    contours = masks.outlines("white")
    out: list[Corner] = []
    for c in contours:
        area = cv2.contourArea(c)
        if card_width is not None and area < 0.06 * card_width**2 * ASPECT:
            continue
        if card_width is None and area < 300:
            continue
        W = card_width
        if W is None:  # no whole card to learn the scale from: only trust a card-shaped region
            (_, _), (w, h), _ = cv2.minAreaRect(c)
            if min(w, h) <= 0 or not 1.25 < max(w, h) / min(w, h) < 1.55:
                continue
            W = min(w, h)
        poly = _polygon(c, max(1.5, 0.035 * W))
        poly = _merge_short_edges(poly, 0.16 * W)
        n = len(poly)
        if n < 3:
            continue
        # orientation: make the polygon counter-clockwise in image coordinates (y down -> area sign)
        xs, ys = poly[:, 0].tolist(), poly[:, 1].tolist()  # Python floats: this loop is per vertex
        signed = 0.5 * sum(xs[i] * ys[i - n + 1] - xs[i - n + 1] * ys[i] for i in range(n))
        for i in range(n):
            px, py = xs[i], ys[i]
            ax, ay = xs[i - 1] - px, ys[i - 1] - py
            bx, by = xs[i - n + 1] - px, ys[i - n + 1] - py
            la, lb = math.hypot(ax, ay), math.hypot(bx, by)
            if la < 0.22 * W or lb < 0.22 * W:
                continue
            ax, ay, bx, by = ax / la, ay / la, bx / lb, by / lb
            cos = ax * bx + ay * by
            if abs(cos) > 0.34:  # not roughly a right angle
                continue
            cross = ax * by - ay * bx
            # convex vertex: for a polygon with positive signed area (clockwise on screen) the turn
            # from incoming to outgoing edge has a fixed sign.
            if cross * signed > 0:
                continue
            # short side u, long side v with cross(u, v) > 0
            u, v = ((ax, ay), (bx, by)) if cross > 0 else ((bx, by), (ax, ay))
            lu = la if cross > 0 else lb
            if lu > 1.18 * W:  # the side along u is a long side: not an index corner
                continue
            out.append(Corner((px + ox, py + oy), u, v, float(W)))
    if card_width:
        out += _new_corners(scan_corners(masks, card_width, (ox, oy)), out)
        if glyphs:
            out += lying_corners(masks, card_width, (ox, oy), known=out)
    return out


def _new_corners(found: Sequence[Corner], known: Sequence[Corner]) -> list[Corner]:
    """The corners of ``found`` that repeat neither a ``known`` one nor one before them (within 0.06
    card widths, facing the same way)."""
    out: list[Corner] = []
    for c in found:
        if not any(abs(c.point[0] - o.point[0]) + abs(c.point[1] - o.point[1]) < 0.06 * c.width
                   and c.u[0] * o.u[0] + c.u[1] * o.u[1] > 0.9 for o in itertools.chain(known, out)):
            out.append(c)
    return out


def _on_border(ax: float, ay: float, bx: float, by: float, width: int, height: int) -> bool:
    """Whether the stretch from ``(ax, ay)`` to ``(bx, by)`` lies along one side of the image: the
    frame cutting card stock off, not the edge of a card.

    >>> _on_border(0, 5, 0, 80, 100, 100), _on_border(3, 99, 60, 98, 100, 100), _on_border(0, 5, 9, 80, 100, 100)
    (True, True, False)
    """
    return ((ax <= 2 and bx <= 2) or (ay <= 2 and by <= 2) or (ax >= width - 3 and bx >= width - 3)
            or (ay >= height - 3 and by >= height - 3))


def lying_corners(masks: Masks, card_width: float, offset: tuple[int, int] = (0, 0),
                  known: Sequence[Corner] = ()) -> list[Corner]:
    """Index corners of cards lying on other cards, none repeating a ``known`` one: where one card
    lies on another there is no outline at its corner (white on white), so the outline corners and
    the print scan along the outer outline miss it. Proposed from the print scan along the edges
    where :func:`card_masks` cut overlapping cards apart (:func:`scan_corners` on the ``white``
    outlines) and from index print (:func:`glyph_corners`). On 600 tuning scenes (seeds ``[50505, i]``
    and ``[60606, i]``) the cut edges read 0.35 points more of the seen decks and 0.6 more of the
    unseen (models/HISTORY.md, "Nineteenth session")."""
    more = _new_corners(scan_corners(masks, card_width, offset, outlines=("white",)), known)
    return more + glyph_corners(masks, card_width, offset, known=[*known, *more])


def _blobs(mask: np.ndarray):  # type: ignore[no-untyped-def]
    """``cv2.connectedComponentsWithStats`` (8-connected), with 16-bit labels where they cannot run
    out (an image of a seat zone): about three times faster than 32-bit ones, the same result."""
    import cv2

    h, w = mask.shape[:2]
    small = ((h + 1) // 2) * ((w + 1) // 2) < 65535  # the most 8-connected blobs an image can hold
    return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U if small else cv2.CV_32S)


def _more_blobs(stats: np.ndarray, cent: np.ndarray, mask: np.ndarray, tol: int) -> tuple[np.ndarray, np.ndarray]:
    """``stats`` and ``cent`` (``cv2.connectedComponentsWithStats`` rows, no background) with the blobs
    of ``mask`` that none of them already is (a centre within 1.5 pixels and a box within ``tol``)."""
    _, _, st2, ce2 = _blobs(mask)
    st2, ce2 = st2[1:], ce2[1:]
    same = np.zeros(len(st2), bool)
    if len(stats) and len(st2):
        d = np.abs(ce2[:, None] - cent[None]).sum(axis=2)
        j = d.argmin(axis=1)
        same = (d[np.arange(len(st2)), j] < 1.5) & (np.abs(st2[:, 2:4] - stats[j, 2:4]).max(axis=1) <= tol)
    return np.concatenate([stats, st2[~same]]), np.concatenate([cent, ce2[~same]])


def glyph_ink(masks: Masks, card_width: float) -> np.ndarray | None:
    """``masks.ink`` with faint print added where the frame's gray is darker than its surroundings
    (a black-hat over :data:`GLYPH_FAINT` card widths) on card stock: a thin blurred rank is often
    too light and too little saturated to leave stock, and a glyph pair needs its rank. Coloured
    print (:data:`GLYPH_FAINT_COLOUR`) is also looked for on the frame's darkest channel."""
    if not GLYPH_FAINT or masks.image is None or masks.ink is None or not card_width:
        return masks.ink
    k = _faint_kernel(card_width)
    found = masks._glyph_ink.get(k)
    if found is None:  # once a kernel size: the width search asks again at every width
        found = masks._glyph_ink[k] = faint_print(masks, k, GLYPH_FAINT[1]) | masks.ink
    return found


def _faint_kernel(card_width: float) -> int:
    """The black-hat's kernel size (odd pixels, at least 3) of the faint print at ``card_width``
    (:data:`GLYPH_FAINT`)."""
    return max(3, int(round(GLYPH_FAINT[0] * card_width)) | 1) if GLYPH_FAINT else 3


def faint_print(masks: Masks, k: int, darker: int) -> np.ndarray:
    """Where ``masks.image`` is more than ``darker`` darker than its surroundings on card stock (a
    black-hat over ``k`` pixels, in gray and, where the print is coloured, on the darkest channel:
    :data:`GLYPH_FAINT_COLOUR`). The black-hats are made once a kernel size."""
    import cv2

    hats = masks._glyph_ink.get(("hats", k))
    if hats is None:
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
        hats = (cv2.morphologyEx(masks.gray(), cv2.MORPH_BLACKHAT, kernel),)
        if GLYPH_FAINT_COLOUR and masks.image is not None and masks.image.ndim == 3:  # coloured print
            darkest, coloured = masks.darkest(GLYPH_FAINT_COLOUR)
            hats += (cv2.bitwise_and(cv2.morphologyEx(darkest, cv2.MORPH_BLACKHAT, kernel), coloured),)
        masks._glyph_ink[("hats", k)] = hats
    found = cv2.compare(hats[0], darker, cv2.CMP_GT)
    for hat in hats[1:]:
        found |= cv2.compare(hat, darker, cv2.CMP_GT)
    return cv2.bitwise_and(found, masks.white)


def _weak_ranks(masks: Masks, card_width: float, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres and diagonals of the blobs of weak print (:data:`GLYPH_WEAK_RANK`) that may be a rank
    on a card under :data:`GLYPH_WEAK_BELOW` pixels, none within 1.5 pixels of a ``kept`` centre (the
    blobs as printed; with none, no suit to pair with, so no weak rank either)."""
    none = np.zeros((0, 2)), np.zeros(0)
    if (not GLYPH_WEAK_RANK or not GLYPH_FAINT or masks.image is None or card_width >= GLYPH_WEAK_BELOW
            or not len(kept)):
        return none
    H = card_width * ASPECT
    _, _, stats, cent = _blobs(faint_print(masks, _faint_kernel(card_width), GLYPH_WEAK_RANK[0]))
    stats, cent = stats[1:], cent[1:]
    diag = np.hypot(stats[:, 2], stats[:, 3])
    ok = (diag >= GLYPH_WEAK_RANK[1] * H) & (diag <= 0.2 * H) & (stats[:, 4] >= 2)
    if ok.any():
        ok[ok] = np.abs(cent[ok][:, None] - kept[None]).sum(axis=2).min(axis=1) >= 1.5
    return (cent[ok], diag[ok]) if ok.any() else none


def glyph_corners(masks: Masks, card_width: float, offset: tuple[int, int] = (0, 0),
                  known: Sequence[Corner] = ()) -> list[Corner]:
    """Index corners proposed from the index print itself: a rank above a suit (none that repeats
    a ``known`` corner).

    A card lying on another card has no outline at its corner (white on white), but its index is
    still printed there. Every pair of print blobs of index size, the right distance apart, whose
    direction agrees with the edges of the card stock around them (cards in a hand lie within a
    few degrees of each other), is taken as rank-above-suit (both ways round); the corner is put
    where a standard index layout puts it (rank centre about 0.10 card widths in from the side,
    starting 0.035 heights down). The classifier refuses the proposals that are not index corners
    (pairs of pips, a suit above a rank, a misplaced crop).

    Print joined by a thin line (a deck's printed frame touching its index, a card's shaded edge)
    makes one blob too long for a glyph; the blobs of the print opened by :data:`GLYPH_SPLIT` of a
    card width, where they differ from the blobs as printed, are taken too. On a small card, a rank
    blurred into specks too faint for a glyph is taken from weaker print (:data:`GLYPH_WEAK_RANK`),
    as a rank only, above a suit blob as printed; those pairs come last.
    """
    import cv2

    ink = masks.ink
    if ink is None or masks.filled is None or not card_width:
        return []
    W = float(card_width)
    H = W * ASPECT
    _, _, stats, cent = _blobs(ink)
    stats, cent = stats[1:], cent[1:]
    k = int(round(GLYPH_SPLIT * W))
    if k >= 2:  # the blobs of the print with thin lines opened away, where they differ
        opened = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        stats, cent = _more_blobs(stats, cent, opened, k)
    faint = glyph_ink(masks, card_width)
    if faint is not ink:  # and with the faint print, where they differ: the blobs as printed stay
        stats, cent = _more_blobs(stats, cent, faint, max(k, 1))
    diag = np.hypot(stats[:, 2], stats[:, 3])
    keep = (diag >= 0.045 * H) & (diag <= 0.2 * H) & (stats[:, 4] >= 6)
    idx = np.nonzero(keep)[0]
    weak_c, weak_d = _weak_ranks(masks, W, cent[idx])
    if len(idx) + len(weak_c) < 2:
        return []
    printed = len(idx)  # the blobs as printed; then the weak ranks (a rank only, and last)
    C = np.concatenate([cent[idx], weak_c])
    D = np.concatenate([diag[idx], weak_d])
    contours = [c for c in masks.outlines("filled")
                if cv2.contourArea(c) > 0.3 * W * H]
    edge_angles: list[list[float]] = []
    for c in contours:
        poly = _polygon(c, max(1.5, SCAN_EPS * W))
        m = len(poly)
        angs = []
        for i in range(m):
            e = poly[(i + 1) % m] - poly[i]
            if float(np.hypot(e[0], e[1])) > 0.2 * W:
                angs.append(math.degrees(math.atan2(e[1], e[0])) % 90.0)
        edge_angles.append(angs)

    dist = np.linalg.norm(C[:, None] - C[None], axis=2)
    out: list[Corner] = []
    near = 0.08 * W
    pairs = np.argwhere((dist >= 0.055 * H) & (dist <= 0.17 * H))
    pairs = pairs[pairs[:, 1] < printed]  # the suit a blob as printed
    # the known corners, as rows (x, y, ux, uy): a new corner that repeats one of them or one proposed
    # before it (within ``near``, facing the same way) is dropped
    q = np.array([(o.point[0] - offset[0], o.point[1] - offset[1], o.u[0], o.u[1]) for o in known],
                 np.float64).reshape(-1, 4)
    # every pair at once: sizes alike, direction along the card stock's edges around the rank
    a_s, b_s = pairs[:, 0], pairs[:, 1]
    ratio = D[a_s] / D[b_s]
    alike = (ratio >= 0.4) & (ratio <= 2.5)
    a_s, b_s = a_s[alike], b_s[alike]
    d = dist[a_s, b_s]
    vx, vy = (C[b_s, 0] - C[a_s, 0]) / d, (C[b_s, 1] - C[a_s, 1]) / d
    ang = np.degrees(np.arctan2(vy, vx)) % 90.0
    # each rank blob's edges: those of the first stock outline (with a long edge) it lies in; a blob
    # in none is taken as lined up
    lined_up = np.ones(len(a_s), bool)
    owner = np.full(len(C), -1)
    todo = np.unique(a_s).tolist()
    for ci, (c, angs) in enumerate(zip(contours, edge_angles)):
        if not angs or not todo:
            continue
        inside = [a for a in todo if cv2.pointPolygonTest(c, (float(C[a, 0]), float(C[a, 1])), False) >= 0]
        owner[inside] = ci
        todo = [a for a in todo if owner[a] < 0]
        mine = owner[a_s] == ci
        if inside and mine.any():
            off = np.abs(ang[mine][:, None] - np.array(angs)[None, :])
            lined_up[mine] = np.minimum(off, 90.0 - off).min(axis=1) <= 12
    ux, uy = vy, -vx
    scale = np.clip((d / H - 0.012) / 0.095, 0.6, 1.4)  # index size against a standard one
    cx = 0.10 * (1 + (scale - 1) * 0.5) * W
    down = 0.035 * H + 0.0525 * scale * H  # to the rank's centre
    pxs = C[a_s, 0] - cx * ux - down * vx
    pys = C[a_s, 1] - cx * uy - down * vy
    cand = np.nonzero(lined_up)[0]
    if len(known) and len(cand):  # repeats of the known corners, all at once
        dup = (np.abs(pxs[cand, None] - q[None, :, 0]) + np.abs(pys[cand, None] - q[None, :, 1]) < near) & (
            ux[cand, None] * q[None, :, 2] + uy[cand, None] * q[None, :, 3] > 0.9)
        cand = cand[~dup.any(axis=1)]
    # then one by one, each against those proposed before it (kept in cells ``near`` wide: a repeat
    # lies in the same cell or a neighbouring one)
    cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    for k in cand.tolist():
        px, py, kx, ky = float(pxs[k]), float(pys[k]), float(ux[k]), float(uy[k])
        gx, gy = int(px // near), int(py // near)
        if any(abs(px - qx) + abs(py - qy) < near and kx * qux + ky * quy > 0.9
               for i in (gx - 1, gx, gx + 1) for j in (gy - 1, gy, gy + 1) for qx, qy, qux, quy in cells.get((i, j), ())):
            continue
        cells.setdefault((gx, gy), []).append((px, py, kx, ky))
        out.append(Corner((float(px + offset[0]), float(py + offset[1])), (kx, ky), (float(vx[k]), float(vy[k])), W,
                          faint=bool(a_s[k] >= printed)))
    return out


def crop_matrix(corner: Corner, jitter: tuple[float, float, float, float] = (0, 0, 0, 0)) -> np.ndarray:
    """2x3 affine map from crop pixels to frame pixels for ``corner``'s index region.

    ``jitter`` = (dx, dy in card widths, scale factor - 1, rotation radians), for training only.
    """
    W = corner.width * (1 + jitter[2])
    H = W * ASPECT
    (ux, uy), (vx, vy) = corner.u, corner.v  # Python floats: one call a crop, thousands a frame
    if jitter[3]:
        c, s = math.cos(jitter[3]), math.sin(jitter[3])
        ux, uy = c * ux - s * uy, s * ux + c * uy
        vx, vy = c * vx - s * vy, s * vx + c * vy
    px = corner.point[0] + jitter[0] * corner.width * ux + jitter[1] * corner.width * vx
    py = corner.point[1] + jitter[0] * corner.width * uy + jitter[1] * corner.width * vy
    sx = (INDEX_X1 - INDEX_X0) * W / CROP_W
    sy = (INDEX_Y1 - INDEX_Y0) * H / CROP_H
    ox = px + INDEX_X0 * W * ux + INDEX_Y0 * H * vx
    oy = py + INDEX_X0 * W * uy + INDEX_Y0 * H * vy
    # frame = origin + x * sx * u + y * sy * v, sample at pixel centres
    return np.array([[sx * ux, sy * vx, ox + 0.5 * (sx * ux + sy * vx)],
                     [sx * uy, sy * vy, oy + 0.5 * (sx * uy + sy * vy)]], np.float64)


def crop_quads(corners: Sequence[Corner]) -> np.ndarray:
    """``N x 4 x 2``: where the four corners of each corner's index crop lie in the frame (the crop's
    corner pixels' centres, as :func:`crop_matrix` maps them), for many corners at once.

    >>> c = Corner((30.0, 40.0), (0.6, 0.8), (-0.8, 0.6), 90.0)
    >>> m = crop_matrix(c)
    >>> box = np.array([[0, 0, 1], [CROP_W, 0, 1], [0, CROP_H, 1], [CROP_W, CROP_H, 1]], np.float64)
    >>> bool(np.allclose(crop_quads([c])[0], box @ m.T))
    True
    """
    if not corners:
        return np.zeros((0, 4, 2), np.float64)
    geo = np.array([(*c.point, *c.u, *c.v, c.width) for c in corners], np.float64)
    p, u, v, W = geo[:, 0:2], geo[:, 2:4], geo[:, 4:6], geo[:, 6:7]
    H = W * ASPECT
    half = 0.5 * ((INDEX_X1 - INDEX_X0) * W / CROP_W * u + (INDEX_Y1 - INDEX_Y0) * H / CROP_H * v)
    a = np.array([INDEX_X0, INDEX_X1, INDEX_X0, INDEX_X1])[None, :, None] * W[:, :, None]
    b = np.array([INDEX_Y0, INDEX_Y0, INDEX_Y1, INDEX_Y1])[None, :, None] * H[:, :, None]
    return (p + half)[:, None] + a * u[:, None] + b * v[:, None]


UPRIGHT_FELT = (40, 110, 30)
"""BGR of the plain felt :func:`upright_card` lays a card on."""


def upright_card(face: np.ndarray, margin: int = 40) -> tuple[np.ndarray, list[Corner]]:
    """``face`` (a BGR card face, as wide as the card is to be read) lying upright on a plain green
    felt ``margin`` pixels from the image's edges, lightly blurred as a camera blurs, with the card's
    two index corners exactly (top-left, bottom-right): what a look at the index models on a card's
    own corners reads, no proposer in the way (``bench/vision_designs.py``, the tests).

    >>> img, corners = upright_card(np.full((88, 63, 3), 250, np.uint8))
    >>> img.shape, [c.point for c in corners], corners[1].u, corners[0].width
    ((168, 143, 3), [(40.0, 40.0), (103.0, 128.0)], (-1.0, 0.0), 63.0)
    """
    import cv2

    h, w = face.shape[:2]
    img = np.empty((h + 2 * margin, w + 2 * margin, 3), np.uint8)
    img[:] = UPRIGHT_FELT
    img[margin : margin + h, margin : margin + w] = face
    corners = [Corner((float(margin), float(margin)), (1.0, 0.0), (0.0, 1.0), float(w)),
               Corner((float(margin + w), float(margin + h)), (-1.0, 0.0), (0.0, -1.0), float(w))]
    return cv2.GaussianBlur(img, (3, 3), 0.6), corners


def crop_corner(frame: np.ndarray, corner: Corner, jitter=(0, 0, 0, 0), color: bool = False) -> np.ndarray:
    """The index region of ``corner`` as an upright ``CROP_H x CROP_W`` grayscale crop, or with
    ``color`` a ``CROP_H x CROP_W x 3`` BGR crop (a grayscale frame is repeated into three channels)."""
    import cv2

    gray = frame if frame.ndim == 2 else None
    scale = (INDEX_X1 - INDEX_X0) * corner.width / CROP_W
    f = int(min(8, math.ceil(scale))) if scale > 1.5 else 1
    m = crop_matrix(corner, jitter)
    if f > 1:  # sample finely, then average down, so large cards are not aliased
        m = m.copy()
        m[:, :2] /= f
        m[:, 2] -= 0.5 * (m[:, 0] + m[:, 1]) * (f - 1)
        big = cv2.warpAffine(frame, m, (CROP_W * f, CROP_H * f), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REPLICATE)
        crop = cv2.resize(big, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
    else:
        crop = cv2.warpAffine(frame, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    if color:
        return crop if gray is None else cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    if gray is None:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    return crop


def order_quad(quad: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in quad]


BACK_EDGE = 0.7
"""The longest straight side a back's outline must have, in card widths: a back is a rectangle,
a chip is round and has none (chips lying on the felt were taken for backs)."""
BACK_FELT = 0.15
"""Share of a whole back's outline that must touch the felt: a court card's picture, cut out of
its card's white by the line search, lies inside that white."""
BACK_FELT_SIDE = 0.45
"""Length (card widths) of the straight side, lying against the felt along
:data:`FELT_SIDE_SHARE` of its length, that a back in a hand must show (:func:`_felt_side`)."""
FELT_SIDE_SHARE = 0.6
"""Share of a side's length that must lie against the felt for :func:`_felt_side`."""
FELT_REACH = 0.08
"""How far (card widths) from the felt an outline still counts as touching it: a back's white
margin lies between its pattern and the felt."""
BACK_CLOSE, BACK_OPEN = 0.06, 0.2
"""Kernels (card widths) that close a back's pattern into one region and open away print, thin
shadows and fingers, in :func:`_covered_backs`."""
BACK_TEXTURE = 0.45
"""Share of the pixels inside a back in a hand where the absolute Laplacian of the grey image
exceeds 12 grey levels: its printed pattern. The other things that are neither felt nor card
stock in a hand (chips, fingers) are smooth by comparison; a back printed in one flat colour is
missed, never invented."""


def _sides(contour: np.ndarray, tol: float, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sides of ``contour`` simplified to within ``tol`` pixels: their starts, their ends and
    their lengths, where a side along the border of the image of ``shape`` counts as 0 (the zone
    cuts a chip or a finger straight there)."""
    poly = _polygon(contour, tol)
    nxt = np.roll(poly, -1, axis=0)
    length = np.linalg.norm(nxt - poly, axis=1)
    h, w = shape[:2]
    for axis, far in ((0, w - 1), (1, h - 1)):
        for edge in (0.0, float(far)):
            length[(np.abs(poly[:, axis] - edge) <= 2) & (np.abs(nxt[:, axis] - edge) <= 2)] = 0.0
    return poly, nxt, length


def _felt_share(contour: np.ndarray, felt_near: np.ndarray) -> float:
    """Share of the points of ``contour`` that lie on or next to the felt (``felt_near``: the
    not-foreground mask, dilated)."""
    pts = contour.reshape(-1, 2)
    return float((felt_near[pts[:, 1], pts[:, 0]] > 0).mean())


def _felt_side(starts: np.ndarray, ends: np.ndarray, lengths: np.ndarray, felt_near: np.ndarray) -> float:
    """Length of the longest of the sides (:func:`_sides`) that lies against the felt along
    :data:`FELT_SIDE_SHARE` of its length: a back's own straight side. A court card's picture has
    straight sides, but against its own card's white; a chip lying on the felt has none."""
    h, w = felt_near.shape
    best = 0.0
    for a, b, length in zip(starts, ends, lengths):
        if length <= best:
            continue
        t = np.linspace(0.0, 1.0, max(2, int(length / 2)))
        pts = np.rint(a + (b - a) * t[:, None]).astype(int)
        pts[:, 0] = np.clip(pts[:, 0], 0, w - 1)
        pts[:, 1] = np.clip(pts[:, 1], 0, h - 1)
        if float((felt_near[pts[:, 1], pts[:, 0]] > 0).mean()) >= FELT_SIDE_SHARE:
            best = float(length)
    return best


def find_backs(masks: Masks, card_width: float | None, offset: tuple[int, int] = (0, 0),
               image: np.ndarray | None = None) -> list[np.ndarray]:
    """Card backs: card-stock regions (and not-felt regions) whose inside is mostly not white, and,
    given the zone's ``image`` (BGR) and the card width, backs lying partly under or over the
    face-up cards of a hand.

    A back is a patterned field, perhaps in a white margin, so little of its inside is white where
    a face is mostly white. Whole backs come from the split card mask (so overlapping backs count
    one each; a partly hidden back counts when at least a quarter of it shows) and, for backs with
    no white margin, from the not-felt mask; their outline must have a straight side of at least
    :data:`BACK_EDGE` card widths. A back in a hand shares its outline with the faces beside it, so
    it is looked for in what is neither felt nor card white (:func:`_covered_backs`). Returns 4x2
    boxes in frame pixels.
    """
    import cv2

    raw = masks.raw if masks.raw is not None else masks.white
    area_card = card_width * card_width * ASPECT if card_width else None
    out: list[np.ndarray] = []
    centres: list[np.ndarray] = []
    # the felt and a little more: a back's white margin lies between its pattern and the felt
    reach = 2 * int(round(FELT_REACH * card_width)) + 1 if card_width else 5
    felt_near = functools.cache(  # made only for the few regions that pass every cheaper test
        lambda: cv2.dilate(cv2.bitwise_not(masks.foreground), np.ones((reach, reach), np.uint8)))
    for which in ("white", "foreground"):
        mask = getattr(masks, which)
        contours = masks.outlines(which)  # every point: the felt share
        for c in contours:
            area = cv2.contourArea(c)
            if area < 200 or (area_card is not None and not 0.25 * area_card < area < 1.4 * area_card):
                continue  # (the area alone first: most regions are a hand's faces, far larger than a card)
            rect = cv2.minAreaRect(c)
            w, h = rect[1]
            if min(w, h) <= 0 or area / (w * h) < 0.7:
                continue
            if area_card is not None and card_width is not None:
                if not 0.25 * area_card < area < 1.4 * area_card or min(w, h) < 0.5 * card_width:
                    continue  # (half a width across at least: a finger is a third)
            elif not 1.25 < max(w, h) / min(w, h) < 1.6:
                continue
            # mostly white inside: a face (most regions; the cheapest test first)
            x, y, bw, bh = cv2.boundingRect(c)
            m = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(m, [c - np.array([x, y])], -1, 255, -1)
            if cv2.countNonZero(cv2.bitwise_and(raw[y : y + bh, x : x + bw], m)) / cv2.countNonZero(m) >= 0.35:
                continue
            side = float(card_width) if card_width else min(w, h)
            if _sides(c, 0.03 * side, mask.shape)[2].max() < BACK_EDGE * side or _felt_share(c, felt_near()) < BACK_FELT:
                continue
            centre = np.array(rect[0]) + np.array(offset)
            if any(np.linalg.norm(centre - q) < 0.3 * (card_width or min(w, h)) for q in centres):
                continue
            centres.append(centre)
            out.append((cv2.boxPoints(rect) + np.array(offset, np.float32)).astype(np.float32))
    if image is not None and card_width:
        for box in _covered_backs(masks, float(card_width), image, felt_near):
            centre = box.mean(axis=0) + np.array(offset)
            if any(np.linalg.norm(centre - q) < 0.3 * card_width for q in centres):
                continue
            centres.append(centre)
            out.append(box + np.array(offset, np.float32))
    return out


def _covered_backs(masks: Masks, card_width: float, image: np.ndarray,
                   felt_near: Callable[[], np.ndarray]) -> list[np.ndarray]:
    """Backs lying in a hand, partly under or over its faces (boxes in zone pixels).

    What is neither felt nor bright card white, closed (:data:`BACK_CLOSE`) into regions and
    opened (:data:`BACK_OPEN`: print, thin shadows and most of a finger fall away): a region at
    least a quarter of a card in area and a fifth of a width across, with a straight side of
    :data:`BACK_EDGE` widths, one of :data:`BACK_FELT_SIDE` widths against the felt (a court
    card's picture, even with a chip lying on it, has straight sides only against its card's
    white), and patterned inside (:data:`BACK_TEXTURE`: chips and fingers are smooth). A back
    printed in one flat colour is missed, so the seat shows its card as covered or missing
    rather than face down; a back found only ever makes a seat not identifiable. ``felt_near``
    gives the felt mask of :func:`find_backs`, made when first asked for.
    """
    import cv2

    if masks.raw is None:
        return []
    W = card_width
    rest = cv2.bitwise_and(masks.foreground, cv2.bitwise_not(masks.raw))
    # at half resolution (a sixteenth of the work; the shapes judged are a card's size): closed,
    # then opened with round kernels (a square one gives a chip or two the straight sides of a card)
    h, w = rest.shape
    half = np.ascontiguousarray(rest[: h - h % 2 : 2, : w - w % 2 : 2])
    close, opening = (max(3, int(round(f * W / 2)) | 1) for f in (BACK_CLOSE, BACK_OPEN))
    disc = lambda k: cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))  # noqa: E731
    half = cv2.morphologyEx(half, cv2.MORPH_CLOSE, disc(close))
    half = cv2.morphologyEx(half, cv2.MORPH_OPEN, disc(opening))
    contours, _ = cv2.findContours(half, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[np.ndarray] = []
    for c in contours:
        c = np.minimum(c * 2, np.array([w - 1, h - 1], np.int32))  # back to zone pixels
        if cv2.contourArea(c) < 0.25 * W * W * ASPECT:
            continue
        rect = cv2.minAreaRect(c)
        if min(rect[1]) < 0.2 * W:
            continue
        sides = _sides(c, 0.03 * W, rest.shape)
        if sides[2].max() < BACK_EDGE * W or _felt_side(*sides, felt_near()) < BACK_FELT_SIDE * W:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [c - np.array([x, y])], -1, 255, -1)
        inside = cv2.erode(inside, np.ones((5, 5), np.uint8)) > 0
        if not inside.any():
            continue
        grey = cv2.cvtColor(np.ascontiguousarray(image[y : y + bh, x : x + bw]), cv2.COLOR_BGR2GRAY)
        if float((np.abs(cv2.Laplacian(grey, cv2.CV_16S))[inside] > 12).mean()) < BACK_TEXTURE:
            continue
        out.append(cv2.boxPoints(rect).astype(np.float32))
    return out


def scan_corners(masks: Masks, card_width: float, offset: tuple[int, int] = (0, 0),
                 outlines: Sequence[str] = ("filled",)) -> list[Corner]:
    """Index corners of cards in a fan, found from their print rather than their outline.

    In a fanned hand the cards above the lowest one show their index next to the hand's outer
    edge while their own corner lies on another card (white on white: no outline to find). Along
    every straight stretch of the outline of the card stock (overlapping cards not cut apart), the
    band where indices are printed is scanned for the start of print; each start proposes an index
    corner just before it, on the outline, with the edge as the card's short side. The classifier
    refuses the proposals that are not index corners (pips, court-card frames, shadows).

    ``outlines``: the masks whose outlines are scanned along (:meth:`Masks.outlines`): ``"filled"``,
    the card stock with overlapping cards not cut apart; ``"white"``, the regions cut apart, whose
    edges include those of cards lying on cards (:func:`lying_corners`).
    """
    import cv2

    if masks.filled is None or masks.ink is None or not card_width:
        return []
    F, ink = masks.filled, masks.ink
    hgt, wid = F.shape
    W = float(card_width)
    H = W * ASPECT
    contours = [c for which in outlines for c in masks.outlines(which)]
    ds = np.arange(0.05 * H, 0.19 * H, max(1.0, 0.01 * H))
    gap = max(2, int(round(0.035 * W)))
    probe = np.arange(-0.12 * W, 0.08 * W, 1.0)  # inward from outside the edge, to find the card stock
    # every straight stretch: where its scan starts (s0), along it (u), into the card stock (nrm)
    starts, alongs, normals, lengths = [], [], [], []
    for c in contours:
        if cv2.contourArea(c) < 0.3 * W * H:
            continue
        poly = _polygon(c, max(1.5, SCAN_EPS * W)).tolist()  # Python floats: this loop is per side
        n = len(poly)
        for i in range(n):
            (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
            L = math.hypot(bx - ax, by - ay)
            if L < 0.2 * W or _on_border(ax, ay, bx, by, wid, hgt):
                continue
            ex, ey = (bx - ax) / L, (by - ay) / L
            nx, ny = -ey, ex
            mx, my = (ax + bx) / 2, (ay + by) / 2
            if cv2.pointPolygonTest(c, (mx + 3 * nx, my + 3 * ny), False) < 0:
                nx, ny = -nx, -ny
            if ex * ny - ey * nx > 0:
                starts.append((ax, ay))
                alongs.append((ex, ey))
            else:
                starts.append((bx, by))
                alongs.append((-ex, -ey))
            normals.append((nx, ny))
            lengths.append(math.ceil(L - (-0.08 * W)))  # len(np.arange(-0.08 * W, L, 1.0))
    if not starts:
        return []
    # all stretches scanned at once, each along its own length (the rest of the rows is blank)
    S0, U, N = (np.array(v, np.float64) for v in (starts, alongs, normals))
    n_cols = np.array(lengths)
    ts = -0.08 * W + np.arange(int(n_cols.max()), dtype=np.float64)
    # x and y apart (the same sums, in the same order, as points would be; each half the memory)
    xs = S0[:, 0, None, None] + ts[None, :, None] * U[:, 0, None, None] + ds[None, None, :] * N[:, 0, None, None]
    ys = S0[:, 1, None, None] + ts[None, :, None] * U[:, 1, None, None] + ds[None, None, :] * N[:, 1, None, None]
    xi = np.rint(xs).astype(np.int32)
    yi = np.rint(ys).astype(np.int32)
    ok = (xi >= 0) & (xi < wid) & (yi >= 0) & (yi < hgt)
    np.clip(xi, 0, wid - 1, out=xi)
    np.clip(yi, 0, hgt - 1, out=yi)
    yi *= wid
    yi += xi  # the flat index of each point
    vals = (ink.ravel()[yi] != 0) & ok
    col = (np.count_nonzero(vals, axis=2) >= 2) & (np.arange(len(ts))[None, :] < n_cols[:, None])
    # starts of print: a column with ink after ``gap`` columns without, followed by ink in at least
    # half of the next ``gap`` columns
    run = np.concatenate((np.zeros((len(col), 1), np.int64), np.cumsum(col, axis=1)), axis=1)
    k = np.arange(len(ts))
    before = run[:, k] - run[:, np.maximum(k - gap, 0)]
    after = run[:, np.minimum(k + gap, len(ts))] - run[:, k]
    edge, ks = np.nonzero(col & (k >= gap)[None, :] & (before == 0) & (after >= 0.5 * gap))
    if not len(ks):
        return []
    u, nrm = U[edge], N[edge]
    ps = S0[edge] + (ts[ks] - 0.05 * W)[:, None] * u
    # put each corner on the card's own edge: the first card stock inward from outside
    qs = ps + 0.05 * W * u
    pp = qs[:, None, :] + probe[None, :, None] * nrm[:, None, :]
    px = np.clip(np.rint(pp[..., 0]).astype(np.int32), 0, wid - 1)
    py = np.clip(np.rint(pp[..., 1]).astype(np.int32), 0, hgt - 1)
    inside = F[py, px] > 0
    shift = np.where(inside.any(axis=1), probe[inside.argmax(axis=1)], 0.0)
    ps = ps + shift[:, None] * nrm
    return [Corner((p[0] + offset[0], p[1] + offset[1]), (v[0], v[1]), (m[0], m[1]), W)
            for p, v, m in zip(ps.tolist(), u.tolist(), nrm.tolist())]


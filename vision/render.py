"""Synthetic overhead table scenes, labelled, for training, tests, benchmarks and the demo feed.

Everything here is deterministic from a seed. Card art is drawn procedurally: each :class:`DeckStyle`
names a font (resolved with ``fc-match`` at render time, so no path of any machine is stored), a pip
drawing, a colour scheme and an index layout. Decks in :data:`TRAIN_DECKS` are used for training;
decks in :data:`UNSEEN_DECKS` never are, and serve as the unseen-deck test.

Rendering needs Pillow (to draw text with TrueType/OpenType fonts); it is a training/demo-time
dependency, never needed to *read* cards.

A scene is a :class:`Scene`: the BGR image and one :class:`CardTruth` per card with its four corners
in image pixels (in the card's own order: top-left, top-right, bottom-right, bottom-left of the
upright card), whether it is face up, and how much of each index corner is visible.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import shutil
import subprocess
from collections.abc import Sequence

import numpy as np

from controller.cards import FULL_DECK, Card

CARD_W, CARD_H = 240, 336  # canonical card raster (63 x 88 mm)
ASPECT = CARD_H / CARD_W

# Index corner region in card units (fraction of width, fraction of height), measured from the
# card corner. Shared with the recogniser's crop so truth and crops talk about the same area.
INDEX_X0, INDEX_X1 = -0.02, 0.27
INDEX_Y0, INDEX_Y1 = -0.015, 0.34

_SUIT_GLYPH = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
_RANK_TEXT = {"T": "10"}


@dataclasses.dataclass(frozen=True)
class DeckStyle:
    """How one procedural deck looks."""

    name: str
    font: str
    """fontconfig pattern for rank characters, e.g. ``"DejaVu Sans:bold"``."""
    pips: str = "poly"
    """``"poly"`` (drawn shapes, shaped by ``pip_shape``) or ``"glyph:<fontconfig pattern>"``."""
    pip_shape: tuple[float, float, float] = (0.25, 0.33, 0.12)
    """heart/club lobe radius, diamond half-width, stem half-width (unit pip box)."""
    four_colour: bool = False
    index_scale: float = 1.0
    """1.0 is a standard index; larger is a 'jumbo' index."""
    index_x: float = 0.10
    ten_text: str = "10"
    condensed: float = 1.0
    """horizontal squeeze of rank text (``"10"`` in narrow decks)."""
    back: tuple[int, int, int] = (40, 40, 160)
    """back colour, BGR."""
    border: bool = False
    """a thin printed frame line inside the card edge."""
    outline: bool = False
    """a dark line round the card's very edge, as some printed decks have."""
    flat_three: bool = False
    """draw the 3 with a flat top (a bar, then a diagonal into the lower bowl), as many printed
    decks do, instead of the font's round-topped 3."""
    pip_spread: float = 0.52
    """How far apart the pip columns stand: a column at layout position ``px`` (0.3, 0.5, 0.7) has
    its centre at ``0.5 + (px - 0.5) * pip_spread`` card widths. 0.52 keeps the pips well inside
    the card; many printed decks (and ``letele``) stand them close to the index column (up to about
    1.2), so the pip beside an index falls inside the index crop."""
    pip_rows: float = 0.72
    """The same for rows: a row at ``py`` has its centre at ``0.5 + (py - 0.5) * pip_rows`` heights."""
    pip_size: int = 40
    """Pip size on the card raster (240 px wide); an ace's is 1.75 times it."""
    court_inset: float = 0.24
    """Left edge of a court card's picture panel, in card widths (never over the index column)."""
    court_art: bool = False
    """A court picture: a panel the card's height, busy with shapes in several colours and point
    symmetric, as printed courts are, instead of a plain panel with a letter."""
    index_y: float = 0.035
    """Top of the index's rank, card heights."""
    rank_scale: float = 1.0
    """The rank's height against the standard index's (times ``index_scale``): printed decks set
    tall narrow ranks (with ``condensed``) or short wide ones."""
    suit_scale: float = 1.0
    """The index suit's size against the standard index's (times ``index_scale``): many printed
    decks set a suit as wide as the index column or wider, some a small one."""
    suit_gap: float = 0.012
    """Space between rank and suit, card heights."""
    hollow_ink: bool = False
    """The index drawn as a lighter fill inside a dark line of the suit's colour, as some printed
    decks draw it (an outlined, embossed look)."""
    stock: tuple[int, int, int] = (250, 250, 250)
    """The face's stock colour, RGB: white, or a grey or cream tint."""
    stock_shade: float = 0.0
    """A darkening of the stock from the top-left corner to the bottom-right (0: none; 0.2 ends a
    fifth darker), as decks with shaded faces have."""
    stock_cylinder: bool = False
    """Shade the stock across the card instead, darkest down its middle, as if it were bent."""
    outline_width: int = 5
    """How wide ``outline`` is drawn: the size of the erosion that leaves the ring (5 is about two
    pixels on the 240-pixel raster; 11 is a thick frame)."""
    images: str | None = None
    """Folder (relative to the repository) of ready-made card images, ``<S><r>.png`` as in the
    ``@letele/playing-cards`` package (``Sa.png``, ``H10.png``, ``Dq.png``, backs ``B1.png``);
    fetched at training time by :mod:`vision.fetch_deck`, never at run time."""


TRAIN_DECKS: tuple[DeckStyle, ...] = (
    DeckStyle("dejavu-sans", "DejaVu Sans:bold", "glyph:DejaVu Sans", back=(40, 40, 170)),
    DeckStyle("dejavu-serif", "DejaVu Serif:bold", "poly", (0.26, 0.32, 0.10), back=(150, 60, 20)),
    DeckStyle("liberation-sans", "Liberation Sans:bold", "poly", (0.24, 0.36, 0.13), four_colour=True,
              back=(30, 30, 30)),
    DeckStyle("liberation-serif", "Liberation Serif:bold", "glyph:FreeSerif", index_scale=1.1,
              back=(30, 90, 30)),
    DeckStyle("freesans", "FreeSans:bold", "poly", (0.27, 0.30, 0.09), index_scale=1.35, index_x=0.12,
              condensed=0.8, back=(140, 30, 90)),
    DeckStyle("freeserif", "FreeSerif:bold", "glyph:DejaVu Sans", border=True, back=(30, 30, 150)),
    DeckStyle("nimbus-roman", "Nimbus Roman:bold", "poly", (0.25, 0.34, 0.11), back=(160, 80, 40)),
    DeckStyle("nimbus-narrow", "Nimbus Sans Narrow:bold", "poly", (0.23, 0.35, 0.12), four_colour=True,
              index_scale=1.25, back=(60, 60, 60)),
    DeckStyle("noto-sans", "Noto Sans:bold", "glyph:FreeSerif", index_scale=0.9, back=(20, 20, 120)),
    DeckStyle("c059", "C059:bold", "poly", (0.26, 0.31, 0.10), border=True, back=(120, 40, 20)),
    DeckStyle("bookman", "URW Bookman:light", "poly", (0.24, 0.33, 0.11), ten_text="10", back=(40, 100, 100)),
    DeckStyle("dejavu-mono", "DejaVu Sans Mono:bold", "poly", (0.25, 0.35, 0.12), index_scale=1.15,
              four_colour=True, back=(90, 20, 20)),
    # small, light indices close to the edge, some with an outlined card edge (as many printed decks)
    DeckStyle("freeserif-small", "FreeSerif", "glyph:FreeSerif", index_scale=0.65, index_x=0.07, outline=True,
              back=(30, 30, 140)),
    DeckStyle("liberation-serif-small", "Liberation Serif", "poly", (0.25, 0.33, 0.10), index_scale=0.7,
              index_x=0.075, outline=True, back=(120, 60, 30)),
    DeckStyle("dejavu-sans-book", "DejaVu Sans:book", "poly", (0.26, 0.32, 0.11), index_scale=0.75,
              index_x=0.08, back=(50, 50, 50)),
    DeckStyle("nimbus-roman-regular", "Nimbus Roman", "glyph:DejaVu Sans", index_scale=0.8, index_x=0.08,
              outline=True, four_colour=True, back=(30, 100, 60)),
    # more rank fonts: condensed, monospaced, grotesque (the rank shapes, not the deck, should be learnt)
    DeckStyle("nimbus-sans", "Nimbus Sans:bold", "poly", (0.26, 0.33, 0.12), index_scale=1.05, back=(100, 30, 30)),
    DeckStyle("liberation-narrow", "Liberation Sans Narrow:bold", "glyph:FreeSerif", index_scale=1.2,
              condensed=0.9, back=(30, 60, 120)),
    DeckStyle("nimbus-mono", "Nimbus Mono PS:bold", "poly", (0.25, 0.34, 0.11), index_scale=0.95, border=True,
              back=(70, 30, 110)),
    DeckStyle("dejavu-condensed", "DejaVu Sans:condensed:bold", "glyph:DejaVu Sans", index_scale=0.85,
              index_x=0.08, outline=True, back=(20, 80, 140)),
    # regular (thin) strokes and flat-topped threes, as in many printed decks
    DeckStyle("nimbus-sans-regular", "Nimbus Sans", "poly", (0.25, 0.33, 0.11), index_scale=0.9, index_x=0.09,
              flat_three=True, back=(40, 40, 140)),
    DeckStyle("liberation-sans-regular", "Liberation Sans", "glyph:DejaVu Sans", index_scale=1.0,
              flat_three=True, outline=True, back=(110, 50, 50)),
    DeckStyle("freesans-flat3", "FreeSans:bold", "poly", (0.26, 0.32, 0.11), index_scale=1.1, flat_three=True,
              four_colour=True, back=(50, 90, 50)),
)
"""Decks the model is trained on."""

UNSEEN_DECKS: tuple[DeckStyle, ...] = (
    DeckStyle("urw-gothic", "URW Gothic:demi", "poly", (0.28, 0.29, 0.08), back=(50, 50, 140)),
    DeckStyle("p052", "P052:bold", "glyph:Noto Sans Symbols2", index_scale=1.05, border=True,
              back=(140, 70, 30)),
)
"""Decks never used in training: the unseen-deck test."""

_UNSEEN_FONTS = frozenset({d.font.split(":")[0] for d in UNSEEN_DECKS}
                          | {d.pips[6:] for d in UNSEEN_DECKS if d.pips.startswith("glyph:")})
"""Font families of the unseen decks' ranks and pips, which no training deck may use."""

# Suit symbols of these fonts (all distinct enough from one another to teach shape, none of them
# the unseen decks' Noto Sans Symbols2); Standard Symbols PS and D050000L draw nothing through
# Pillow and are left out.
_MIX_PIP_FONTS = ("DejaVu Sans", "FreeSerif", "DejaVu Serif", "FreeSans", "FreeMono", "Liberation Sans",
                  "Liberation Serif", "Liberation Mono", "C059", "Nimbus Sans", "Nimbus Roman", "URW Bookman",
                  "DejaVu Sans Mono", "Z003")


def mixed_decks(n: int, seed: int = 2026, pip_fonts: Sequence[str] = _MIX_PIP_FONTS,
                stem: tuple[float, float] = (0.06, 0.14), prefix: str = "mix",
                layouts: bool = False, indices: bool = False) -> tuple[DeckStyle, ...]:
    """``n`` decks that mix, at random (seeded), the rank fonts of :data:`TRAIN_DECKS` with suit
    symbols from many fonts or drawn pips of random proportions, index sizes, placements and
    colours: variety of shape (above all of clubs and spades), so the model learns the suit and not
    one deck's drawing of it. Never the unseen decks' fonts or pip fonts; drawn pips keep a lobe
    radius of 0.21..0.27 (``urw-gothic``, unseen, has 0.28). With ``layouts``, centre layouts and
    court pictures vary too (:func:`_layout`, sixth session; :data:`LAYOUT_DECKS`).

    :param pip_fonts: fonts whose suit symbols the glyph-pip decks use.
    :param stem: range of the drawn pips' stem half-width (the base of clubs and spades).
    :param prefix: deck names are ``prefix-NN``.
    :param layouts: vary the centre layout and court pictures too (:func:`_layout`).
    :param indices: vary the index and the stock as printed decks do (:func:`_index_style`).
    """
    if _UNSEEN_FONTS & set(pip_fonts):
        raise ValueError(f"pip fonts {sorted(_UNSEEN_FONTS & set(pip_fonts))} belong to the unseen decks")
    rng = np.random.default_rng(seed)
    fonts = sorted({d.font for d in TRAIN_DECKS})
    out = []
    for i in range(n):
        if rng.random() < 0.6:
            pips, shape = "glyph:" + str(rng.choice(list(pip_fonts))), (0.25, 0.33, 0.12)
        else:
            pips = "poly"
            shape = (round(float(rng.uniform(0.21, 0.27)), 3), round(float(rng.uniform(0.27, 0.38)), 3),
                     round(float(rng.uniform(*stem)), 3))
        small = rng.random() < 0.3
        font = str(rng.choice(fonts))  # drawn first, as it always was
        style = dict(
            four_colour=bool(rng.random() < 0.2),
            index_scale=round(float(rng.uniform(0.65, 0.85) if small else rng.uniform(0.85, 1.35)), 2),
            index_x=round(float(rng.uniform(0.07, 0.09) if small else rng.uniform(0.08, 0.12)), 3),
            condensed=round(float(rng.choice([1.0, 1.0, 0.9, 0.8])), 2), border=bool(rng.random() < 0.2),
            outline=bool(rng.random() < 0.3), flat_three=bool(rng.random() < 0.3),
            back=tuple(int(v) for v in rng.integers(20, 170, 3)),
            **(_layout(np.random.default_rng([seed, 7, i])) if layouts else {}))
        if indices:
            style.update(_index_style(np.random.default_rng([seed, 11, i]), float(style["index_scale"])))
        out.append(DeckStyle(f"{prefix}-{i:02d}", font, pips, shape, **style))  # type: ignore[arg-type]
    return tuple(out)


INDEX_BOTTOM_MOST = 0.32
"""The lowest an index of :func:`_index_style` may end, card heights: inside the crop the
classifier sees (``INDEX_Y1``), so that every training crop holds the whole index."""
INDEX_LEFT_MOST = 0.03
"""The least space left of an :func:`_index_style` index, card widths (printed decks never cut it)."""


def _index_style(rng: np.random.Generator, scale: float) -> dict:
    """A mixed deck's index and stock as printed decks vary them (thirty-fourth session, after the
    real designs of Debian's card-game packages were read 34%: their indices stand higher or lower,
    set tall narrow ranks or short wide ones, suits as wide as the index column or small, some drawn
    as a dark line round a lighter fill, on grey, cream or shaded stock with frames up to a thick
    one). From its own seeded stream; ``scale`` is the deck's ``index_scale``; the index is made
    smaller where it would end below :data:`INDEX_BOTTOM_MOST`."""
    out: dict = {"index_y": round(float(rng.uniform(0.015, 0.05)), 3),
                 "index_x": round(float(rng.uniform(0.065, 0.12)), 3),
                 "rank_scale": round(float(rng.uniform(0.85, 1.35)), 2),
                 "suit_scale": round(float(rng.uniform(0.7, 1.6)), 2),
                 "suit_gap": round(float(rng.uniform(0.0, 0.03)), 3),
                 "condensed": round(float(rng.choice([1.0, 0.9, 0.8, 0.7, 0.6])), 2),
                 "hollow_ink": bool(rng.random() < 0.15)}
    if rng.random() < 0.4:
        grey = float(rng.uniform(226, 250))
        cream = float(rng.uniform(0, 12)) if rng.random() < 0.5 else 0.0
        out["stock"] = (int(min(255, grey + cream / 2)), int(grey), int(max(0, grey - cream)))
    if rng.random() < 0.25:
        out.update(stock_shade=round(float(rng.uniform(0.05, 0.25)), 3), stock_cylinder=bool(rng.random() < 0.5))
    if rng.random() < 0.3:  # a thick frame, and the index clear of it
        out.update(outline=True, outline_width=int(rng.integers(6, 15)), index_x=max(out["index_x"], 0.09),
                   index_y=max(out["index_y"], 0.03))
    tall = out["index_y"] + (0.105 * out["rank_scale"] + 0.085 * out["suit_scale"]) * scale + out["suit_gap"]
    if tall > INDEX_BOTTOM_MOST:
        k = (INDEX_BOTTOM_MOST - out["index_y"] - out["suit_gap"]) / (tall - out["index_y"] - out["suit_gap"])
        out["rank_scale"] = round(out["rank_scale"] * k, 2)
        out["suit_scale"] = round(out["suit_scale"] * k, 2)
    # a "10" is up to 1.9 times as wide as it is tall (in these fonts) and at most the index column's
    # width (card_face): keep its left edge INDEX_LEFT_MOST clear of the card's edge
    rank_w = 0.105 * ASPECT * scale * out["rank_scale"] * out["condensed"] * 1.9
    ten = min(rank_w, 0.2 * scale * max(1.0, out["rank_scale"]))
    out["index_x"] = round(max(out["index_x"], (INDEX_LEFT_MOST + ten / 2) / (1 + (scale - 1) * 0.5)), 3)
    return out


def _layout(rng: np.random.Generator) -> dict:
    """A mixed deck's centre layout (drawn from its own seeded stream, so adding it changed none of
    the decks' fonts, pips or indices): three decks in five stand their pips close to the index
    column and make them larger (``letele``, a real design, stands its pips right beside the
    index, and the index crop then holds part of a pip), two in three have court pictures."""
    out: dict = {}
    if rng.random() < 0.6:
        out.update(pip_spread=round(float(rng.uniform(0.7, 1.2)), 3), pip_rows=round(float(rng.uniform(0.72, 1.2)), 3),
                   pip_size=int(rng.integers(42, 62)))
    if rng.random() < 0.67:
        out.update(court_art=True, court_inset=round(float(rng.uniform(0.1, 0.22)), 3))
    return out


MIX_DECKS: tuple[DeckStyle, ...] = mixed_decks(24)
"""More training decks (:func:`mixed_decks`); the model trains on ``TRAIN_DECKS + MIX_DECKS``, the
benchmark's "seen" set stays :data:`TRAIN_DECKS`."""

MIX2_DECKS: tuple[DeckStyle, ...] = mixed_decks(
    24, seed=2027, pip_fonts=_MIX_PIP_FONTS + ("DejaVu Math TeX Gyre", "Nimbus Mono PS"), stem=(0.05, 0.22),
    prefix="mix2")
"""24 more mixed decks (``python -m vision.train --decks mix2``): two more pip fonts, among them one
whose spade and club stand on a wide flat base, and drawn clubs and spades with stems up to 0.22
wide. Added in the fourth session, after the unseen ``p052`` deck's flat-based clubs were read as
spades (its pip font, Noto Sans Symbols2, is still never used)."""

LAYOUT_DECKS: tuple[DeckStyle, ...] = mixed_decks(
    24, seed=2028, pip_fonts=_MIX_PIP_FONTS + ("DejaVu Math TeX Gyre", "Nimbus Mono PS"), stem=(0.05, 0.22),
    prefix="mixl", layouts=True)
"""24 mixed decks whose pips stand close beside the index and whose courts carry pictures
(``python -m vision.train --decks mixl``: the named, ``MIX_DECKS`` and these). Sixth session: a
model trained with such layouts in every mixed deck read ``letele`` twice as often (69.8% against
34.0% at 0.95, tuning seeds) but made confident wrong reads on the named decks (calibrated to
0.9985); not part of the shipped recipe (models/HISTORY.md)."""

INDEX_DECKS: tuple[DeckStyle, ...] = mixed_decks(
    36, seed=2029, pip_fonts=_MIX_PIP_FONTS + ("DejaVu Math TeX Gyre", "Nimbus Mono PS"), stem=(0.05, 0.22),
    prefix="mixr", layouts=True, indices=True)
"""36 mixed decks whose centre layouts vary as :data:`LAYOUT_DECKS`' do and whose indices and stock
vary as printed decks' do (:func:`_index_style`; ``python -m vision.train --decks mixr``: the named,
``MIX_DECKS``, ``LAYOUT_DECKS`` and these). Thirty-fourth session."""

LETELE = DeckStyle("letele", "", images="var/decks/letele")
"""Adrian Kennard's SVG deck as packaged in npm ``@letele/playing-cards`` (CC0): a real deck
design with pictured court cards, kept out of training as a second kind of unseen deck."""

REAL_DECKS: tuple[DeckStyle, ...] = tuple(
    DeckStyle(name, "", images=f"var/decks/{name}")
    for name in ("kde-standard", "kde-nicu-white", "kde-tigullio", "kde-dondorf", "gnome-anglo-poker",
                 "gnome-simplistic", "gnome-tango", "gnome-bellot"))
"""Eight real deck designs from Debian's card-game packages (``python -m vision.fetch_deck --debian``;
:data:`vision.fetch_deck.DEBIAN_DECKS`): GPL art (``kde-tigullio`` LGPL), so for evaluation only,
the benchmark's ``real`` set; no training deck set includes them."""


def jumbo_decks(decks: Sequence[DeckStyle], factor: float | tuple[float, float]) -> tuple[DeckStyle, ...]:
    """``decks`` drawn again with a "jumbo index" (rank and suit ``factor`` times as large; pips and
    pictures as they were), each named ``<name>-jumbo``, as the jumbo-index decks card rooms deal.
    ``factor`` a range ``(lo, hi)``: each deck its own factor in it, fixed by its name, as a printed
    deck has one index size.

    >>> [(d.name, d.index_scale) for d in jumbo_decks(TRAIN_DECKS[:1], 1.8)]
    [('dejavu-sans-jumbo', 1.8)]
    >>> fs = [d.index_scale / s.index_scale for d, s in zip(jumbo_decks(TRAIN_DECKS, (1.5, 2.1)), TRAIN_DECKS)]
    >>> 1.5 <= min(fs) < max(fs) <= 2.1
    True
    """
    import zlib

    def each(d: DeckStyle) -> float:
        if isinstance(factor, tuple):
            lo, hi = factor
            return lo + (hi - lo) * (zlib.crc32(d.name.encode()) % 1000) / 999
        return factor

    return tuple(dataclasses.replace(d, index_scale=round(d.index_scale * each(d), 3), name=f"{d.name}-jumbo")
                 for d in decks)


ALL_DECKS = TRAIN_DECKS + MIX_DECKS + MIX2_DECKS + LAYOUT_DECKS + INDEX_DECKS + UNSEEN_DECKS + (LETELE,) + REAL_DECKS

_REPO = pathlib.Path(__file__).resolve().parents[1]


def available(decks: Sequence[DeckStyle]) -> tuple[DeckStyle, ...]:
    """The decks whose art is at hand (image decks must have been fetched)."""
    return tuple(d for d in decks if d.images is None or (_REPO / d.images / "Sa.png").exists())


def _image_card(deck: DeckStyle, name: str) -> np.ndarray:
    import cv2

    path = _REPO / str(deck.images) / f"{name}.png"
    im = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if im is None:
        raise FileNotFoundError(f"{path}: deck image missing (run python -m vision.fetch_deck)")
    im = cv2.resize(im, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    if im.shape[2] == 4:
        a = im[..., 3:4].astype(np.float32) / 255.0
        im = (im[..., :3].astype(np.float32) * a + 250.0 * (1 - a)).astype(np.uint8)
    return np.ascontiguousarray(im[..., ::-1])


def deck_by_name(name: str) -> DeckStyle:
    for d in ALL_DECKS:
        if d.name == name:
            return d
    raise KeyError(f"unknown deck {name!r}: expected one of {[d.name for d in ALL_DECKS]}")


# --------------------------------------------------------------------------------------------
# Card art
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _fc_match(pattern: str, fmt: str) -> str:
    """``fc-match -f FMT PATTERN``: what fontconfig gives for ``pattern`` ("" without fontconfig)."""
    if shutil.which("fc-match") is None:
        return ""
    try:
        return subprocess.run(["fc-match", "-f", fmt, pattern], capture_output=True, text=True,
                              timeout=10, check=False).stdout.strip()
    except OSError:
        return ""


def _font_file(pattern: str) -> str | None:
    return _fc_match(pattern, "%{file}") or None


FONT_PACKAGES = "fonts-dejavu fonts-liberation fonts-freefont-ttf fonts-urw-base35 fonts-noto-core"
"""Debian's packages of the fonts the decks are drawn in."""


def _font_family_found(pattern: str) -> bool:
    """Whether fontconfig has the family ``pattern`` names (``fc-match`` falls back to another
    family, silently, when it has not)."""
    want = pattern.split(":")[0].strip().lower()
    return want in {f.strip().lower() for f in _fc_match(pattern, "%{family}").split(",")}


def missing_fonts(decks: Sequence[DeckStyle]) -> list[str]:
    """The font families the ``decks`` name (index and pip fonts) that this machine lacks: drawn
    in a fallback font, such a deck is another deck, and figures measured on it mean nothing."""
    patterns = {d.font for d in decks if d.font} | {d.pips[6:] for d in decks if d.pips.startswith("glyph:")}
    return sorted({p.split(":")[0] for p in patterns if not _font_family_found(p)})


def require_fonts(decks: Sequence[DeckStyle]) -> None:
    """Raise ``RuntimeError`` naming the missing font families of ``decks`` (:func:`missing_fonts`)
    and the packages that have them. The benchmark and the training call it; tests and the demo
    draw with whatever fonts there are."""
    missing = missing_fonts(decks)
    if missing:
        raise RuntimeError(f"fonts missing for the decks: {', '.join(missing)} (fontconfig would draw them in "
                           f"another font); on Debian: apt-get install {FONT_PACKAGES}")


@functools.lru_cache(maxsize=256)
def _font(pattern: str, size: int):  # -> PIL.ImageFont
    from PIL import ImageFont

    path = _font_file(pattern)
    if path:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            pass
    return ImageFont.load_default(size)


def _suit_colour(deck: DeckStyle, suit: str) -> tuple[int, int, int]:
    """RGB colour of a suit in this deck."""
    if deck.four_colour:
        return {"s": (20, 20, 20), "h": (200, 20, 30), "d": (20, 60, 200), "c": (20, 130, 40)}[suit]
    return (200, 20, 30) if suit in "hd" else (20, 20, 20)


@functools.lru_cache(maxsize=2048)
def _pip(deck: DeckStyle, suit: str, size: int) -> np.ndarray:
    """A suit pip as an RGBA array of ``size x size`` pixels (cached: read-only)."""
    from PIL import Image, ImageDraw

    colour = _suit_colour(deck, suit)
    big = size * 4
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if deck.pips.startswith("glyph:"):
        font = _font(deck.pips[6:], int(big * 1.0))
        glyph = _SUIT_GLYPH[suit]
        box = d.textbbox((0, 0), glyph, font=font)
        w, h = box[2] - box[0], box[3] - box[1]
        s = big / max(w, h, 1)
        tmp = Image.new("RGBA", (box[2] + 4, box[3] + 4), (0, 0, 0, 0))
        ImageDraw.Draw(tmp).text((0, 0), glyph, font=font, fill=colour + (255,))
        tmp = tmp.crop(box).resize((max(1, int(w * s)), max(1, int(h * s))))
        img.paste(tmp, ((big - tmp.width) // 2, (big - tmp.height) // 2), tmp)
    else:
        r, dw, stem = deck.pip_shape
        B = big

        def circ(cx, cy, rr):
            d.ellipse([(cx - rr) * B, (cy - rr) * B, (cx + rr) * B, (cy + rr) * B], fill=colour)

        def poly(pts):
            d.polygon([(x * B, y * B) for x, y in pts], fill=colour)

        if suit == "h":
            circ(0.5 - r, 0.3, r)
            circ(0.5 + r, 0.3, r)
            poly([(0.5 - 2 * r + 0.01, 0.36), (0.5 + 2 * r - 0.01, 0.36), (0.5, 0.95)])
        elif suit == "s":
            circ(0.5 - r, 0.58, r)
            circ(0.5 + r, 0.58, r)
            poly([(0.5 - 2 * r + 0.01, 0.52), (0.5 + 2 * r - 0.01, 0.52), (0.5, 0.03)])
            poly([(0.5, 0.6), (0.5 - stem - 0.08, 0.97), (0.5 + stem + 0.08, 0.97)])
        elif suit == "d":
            poly([(0.5, 0.02), (0.5 + dw, 0.5), (0.5, 0.98), (0.5 - dw, 0.5)])
        else:
            rr = r * 0.9
            circ(0.5, 0.06 + rr, rr)
            circ(0.5 - rr - 0.02, 0.6, rr)
            circ(0.5 + rr + 0.02, 0.6, rr)
            poly([(0.5, 0.45), (0.5 - stem - 0.06, 0.97), (0.5 + stem + 0.06, 0.97)])
            circ(0.5, 0.55, rr * 0.5)
    out = np.array(img.resize((size, size), Image.LANCZOS))
    out.setflags(write=False)
    return out


def _paste(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    """Alpha-paste RGBA ``src`` onto RGB ``dst`` at (x, y), clipped."""
    h, w = src.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, dst.shape[1]), min(y + h, dst.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    s = src[y0 - y : y1 - y, x0 - x : x1 - x]
    a = s[..., 3:4].astype(np.float32) / 255.0
    region = dst[y0:y1, x0:x1].astype(np.float32)
    dst[y0:y1, x0:x1] = (region * (1 - a) + s[..., :3].astype(np.float32) * a).astype(np.uint8)


def _flat_three(deck: DeckStyle, height: int, colour) -> np.ndarray:
    """A flat-topped 3 drawn with strokes, ``height`` pixels tall (RGBA), stroke weight from the
    deck's font (bold or not)."""
    from PIL import Image, ImageDraw

    k = 4  # draw large, then scale down (anti-aliasing)
    h = height * k
    w = int(h * 0.62)
    bold = "bold" in deck.font.lower() or "demi" in deck.font.lower()
    sw = max(2, int(h * (0.13 if bold else 0.075)))
    img = Image.new("RGBA", (w + sw, h + sw), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    fill = tuple(colour) + (255,)
    o = sw // 2
    d.line([(o + 0.08 * w, o), (o + 0.9 * w, o)], fill=fill, width=sw)               # the flat top
    d.line([(o + 0.9 * w, o), (o + 0.38 * w, o + 0.42 * h)], fill=fill, width=sw)    # the diagonal
    bowl = [o + 0.02 * w, o + 0.36 * h, o + 0.98 * w, o + h - sw * 0.5]
    d.arc(bowl, start=-110, end=145, fill=fill, width=sw)                           # the lower bowl
    img = img.resize((max(1, int(img.width / k * deck.condensed)), height), Image.LANCZOS)
    return np.asarray(img)


def _text_patch(deck: DeckStyle, text: str, height: int, colour) -> np.ndarray:
    """Rank text as a tight RGBA patch ``height`` pixels tall."""
    from PIL import Image, ImageDraw

    if text == "3" and deck.flat_three:
        return _flat_three(deck, height, colour)
    font = _font(deck.font, max(8, int(height * 1.5)))
    probe = Image.new("RGBA", (10, 10))
    box = ImageDraw.Draw(probe).textbbox((0, 0), text, font=font)
    img = Image.new("RGBA", (box[2] + 8, box[3] + 8), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((0, 0), text, font=font, fill=tuple(colour) + (255,))
    img = img.crop(box)
    s = height / max(img.height, 1)
    img = img.resize((max(1, int(img.width * s * deck.condensed)), height), Image.LANCZOS)
    return np.asarray(img)


_PIP_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.2), (0.5, 0.8)],
    3: [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    4: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.8), (0.7, 0.8)],
    5: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    8: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5), (0.5, 0.65), (0.3, 0.8), (0.7, 0.8)],
    9: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.4), (0.7, 0.4), (0.5, 0.5), (0.3, 0.6), (0.7, 0.6), (0.3, 0.8),
        (0.7, 0.8)],
    10: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.3), (0.3, 0.4), (0.7, 0.4), (0.3, 0.6), (0.7, 0.6), (0.5, 0.7),
         (0.3, 0.8), (0.7, 0.8)],
}


@functools.lru_cache(maxsize=4096)
def card_face(deck: DeckStyle, card: str) -> np.ndarray:
    """The face of ``card`` (``"As"``) in ``deck`` as an RGB array ``CARD_H x CARD_W`` (cached,
    read-only: every face of the 71 training decks fits, about 1 GB)."""
    rank, suit = card[0], card[1]
    if deck.images:
        face = _image_card(deck, suit.upper() + ("10" if rank == "T" else rank.lower() if rank in "AKQJ" else rank))
        face.setflags(write=False)
        return face
    img = np.full((CARD_H, CARD_W, 3), deck.stock, np.uint8)
    if deck.stock_shade:
        if deck.stock_cylinder:
            ramp = np.sin(np.pi * (np.arange(CARD_W)[None, :] + 0.5) / CARD_W) + np.zeros((CARD_H, 1))
        else:
            ramp = (np.arange(CARD_W)[None, :] / CARD_W + np.arange(CARD_H)[:, None] / CARD_H) / 2
        img = (img * (1 - deck.stock_shade * ramp)[..., None]).astype(np.uint8)
    colour = _suit_colour(deck, suit)
    if deck.border:
        import cv2

        cv2.rectangle(img, (10, 10), (CARD_W - 11, CARD_H - 11), colour, 2)
    # the index column (drawn last, below): nothing of the centre art may reach into it
    s = deck.index_scale
    index_cx, index_right, index_bottom = index_column(deck)
    index_right += 0.015  # card widths, with a gap
    index_bottom += 0.015  # card heights
    # centre art
    n = "A23456789T".find(rank) + 1
    if n >= 1:
        # an ace's pip is larger; others no larger than two rows' spacing, so they never overlap much
        psize = int(deck.pip_size * 1.75) if n == 1 else min(deck.pip_size, int(0.2 * deck.pip_rows * CARD_H))
        half_w, half_h = psize / (2 * CARD_W), psize / (2 * CARD_H)
        spread = deck.pip_spread
        top = 0.5 - 0.3 * deck.pip_rows - half_h  # the top row's upper edge
        if top < index_bottom:  # the outer columns stand beside the index: keep them clear of it
            spread = min(spread, (0.5 - index_right - half_w) / 0.2)
        for px, py in _PIP_LAYOUT[n]:
            p = _pip(deck, suit, psize)
            if py > 0.55:
                p = p[::-1, ::-1]
            cx = int(CARD_W * (0.5 + (px - 0.5) * spread))
            cy = int(CARD_H * (0.5 + (py - 0.5) * deck.pip_rows))
            _paste(img, p, cx - psize // 2, cy - psize // 2)
    elif deck.court_art:
        _court_picture(img, deck, card, colour, max(deck.court_inset, index_right))
    else:  # court card: a framed panel with a big letter and pips
        import cv2

        x0, y0, x1, y1 = int(CARD_W * 0.24), int(CARD_H * 0.14), int(CARD_W * 0.76), int(CARD_H * 0.86)
        panel = (235, 215, 150) if rank == "K" else (200, 220, 240) if rank == "Q" else (220, 235, 210)
        cv2.rectangle(img, (x0, y0), (x1, y1), panel, -1)
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, 2)
        letter = _text_patch(deck, rank, int(CARD_H * 0.22), colour)
        _paste(img, letter, (CARD_W - letter.shape[1]) // 2, int(CARD_H * 0.3))
        _paste(img, letter[::-1, ::-1], (CARD_W - letter.shape[1]) // 2, int(CARD_H * 0.7) - letter.shape[0])
        p = _pip(deck, suit, 34)
        _paste(img, p, x0 + 6, y0 + 6)
        _paste(img, p[::-1, ::-1], x1 - 40, y1 - 40)
    if deck.outline:
        import cv2

        m = _rounded_mask()
        kernel = np.ones((deck.outline_width,) * 2, np.uint8)
        inner = cv2.erode(m, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        ring = (m > 0) & (inner == 0)
        img[ring] = (45, 45, 45)
    # indices: top-left, and the same rotated 180 degrees at bottom-right
    rh = int(CARD_H * 0.105 * s * deck.rank_scale)
    text = deck.ten_text if rank == "T" else rank
    rp = _text_patch(deck, text, rh, colour)
    widest = CARD_W * 0.2 * s * max(1.0, deck.rank_scale)
    if rp.shape[1] > widest:  # keep "10" inside the index column
        from PIL import Image

        rp = np.asarray(Image.fromarray(rp).resize((int(widest), rh), Image.LANCZOS))
    ps = int(CARD_H * 0.085 * s * deck.suit_scale)
    pp = _pip(deck, suit, ps)
    cx = int(CARD_W * index_cx)
    y = int(CARD_H * deck.index_y)
    tl = np.zeros((CARD_H, CARD_W, 4), np.uint8)
    _paste_rgba(tl, rp, cx - rp.shape[1] // 2, y)
    _paste_rgba(tl, pp, cx - ps // 2, y + rh + int(CARD_H * deck.suit_gap))
    if deck.hollow_ink:
        tl = _hollow(tl, colour)
    _paste(img, tl, 0, 0)
    _paste(img, tl[::-1, ::-1], 0, 0)
    img.setflags(write=False)
    return img


def index_column(deck: DeckStyle) -> tuple[float, float, float]:
    """Where :func:`card_face` prints ``deck``'s top-left index: the column's centre and its right
    edge in card widths, and the index's bottom in card heights (its rank above its suit)."""
    s = deck.index_scale
    centre = deck.index_x * (1 + (s - 1) * 0.5)
    right = centre + max(0.1 * deck.rank_scale, 0.06 * deck.suit_scale) * s
    return centre, right, deck.index_y + (0.105 * deck.rank_scale + 0.085 * deck.suit_scale) * s + deck.suit_gap


def _hollow(rgba: np.ndarray, colour) -> np.ndarray:
    """``rgba``'s ink as a dark line round a lighter fill (:attr:`DeckStyle.hollow_ink`)."""
    import cv2

    a = rgba[..., 3]
    inner = cv2.erode(a, np.ones((5, 5), np.uint8))
    c = np.array(colour, np.float32)
    line, fill = c * 0.6, c + (255 - c) * 0.3
    t = (inner.astype(np.float32) / 255.0)[..., None]
    out = rgba.copy()
    out[..., :3] = (line * (1 - t) + fill * t).astype(np.uint8)
    return out


_COURT_INKS = ((200, 40, 40), (40, 60, 170), (225, 180, 60), (30, 30, 30), (240, 205, 170), (60, 140, 70))


def _court_picture(img: np.ndarray, deck: DeckStyle, card: str, colour, inset: float) -> None:
    """A stand-in for a printed court picture (:attr:`DeckStyle.court_art`): a framed panel from
    ``inset`` card widths to the card's other side, nearly the card's height, filled with seeded
    shapes in several inks (robes, faces, borders: what lies beside a court card's index) and point
    symmetric like a real court; the suit's pip in the panel's corner."""
    import zlib

    import cv2

    rng = np.random.default_rng(zlib.crc32(f"{deck.name}/{card}".encode()))
    x0, x1 = int(CARD_W * inset), int(CARD_W * (1 - inset))
    y0, y1 = int(CARD_H * 0.035), int(CARD_H * 0.965)
    panel = np.full((y1 - y0, x1 - x0, 3), 250, np.uint8)
    h, w = panel.shape[:2]
    cv2.rectangle(panel, (0, 0), (w - 1, h - 1), tuple(int(v) for v in rng.integers(180, 250, 3)), -1)
    for _ in range(int(rng.integers(14, 26))):
        ink = _COURT_INKS[int(rng.integers(len(_COURT_INKS)))] if rng.random() < 0.8 else colour
        cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h / 2))
        kind = rng.random()
        if kind < 0.35:
            axes = (int(rng.uniform(3, w / 3)), int(rng.uniform(3, h / 6)))
            cv2.ellipse(panel, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, ink, -1 if rng.random() < 0.6 else 2)
        elif kind < 0.7:
            k = int(rng.integers(3, 7))
            poly = np.stack([rng.uniform(-w / 4, w / 4, k) + cx, rng.uniform(-h / 8, h / 8, k) + cy], 1)
            cv2.fillPoly(panel, [poly.astype(np.int32)], ink)
        else:
            for _ in range(int(rng.integers(2, 6))):
                p0 = (int(rng.uniform(0, w)), int(rng.uniform(0, h / 2)))
                p1 = (int(p0[0] + rng.uniform(-w / 3, w / 3)), int(p0[1] + rng.uniform(-h / 6, h / 6)))
                cv2.line(panel, p0, p1, ink, int(rng.integers(1, 4)))
    # point symmetric: the lower half is the upper turned round
    panel[h // 2 :] = panel[: h - h // 2][::-1, ::-1]
    cv2.rectangle(panel, (0, 0), (w - 1, h - 1), colour, 2)
    img[y0:y1, x0:x1] = panel
    size = int(min(34, 0.3 * w))
    p = _pip(deck, card[1], size)
    _paste(img, p, x1 - size - 5, y0 + 5)
    _paste(img, p[::-1, ::-1], x0 + 5, y1 - size - 5)


def _paste_rgba(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    h, w = src.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, dst.shape[1]), min(y + h, dst.shape[0])
    if x0 < x1 and y0 < y1:
        s = src[y0 - y : y1 - y, x0 - x : x1 - x]
        m = s[..., 3] > dst[y0:y1, x0:x1, 3]
        dst[y0:y1, x0:x1][m] = s[m]


@functools.lru_cache(maxsize=64)
def card_back(deck: DeckStyle, variant: int = 0) -> np.ndarray:
    """A card back (BGR-agnostic: RGB array) with a lattice pattern and a white margin."""
    import cv2

    if deck.images:
        return _image_card(deck, f"B{1 + variant % 2}")
    img = np.full((CARD_H, CARD_W, 3), 248, np.uint8)
    c = deck.back[::-1]  # stored BGR, raster is RGB
    m = 14 if variant % 2 == 0 else 4
    cv2.rectangle(img, (m, m), (CARD_W - m, CARD_H - m), c, -1)
    light = tuple(int(min(255, v + 90)) for v in c)
    step = 16 + 4 * (variant % 3)
    for k in range(-CARD_H, CARD_W + CARD_H, step):
        cv2.line(img, (m + k, m), (m + k + CARD_H, m + CARD_H), light, 2)
        cv2.line(img, (m + k, m), (m + k - CARD_H, m + CARD_H), light, 2)
    img[:m, :] = 248
    img[-m:, :] = 248
    img[:, :m] = 248
    img[:, -m:] = 248
    return img


# --------------------------------------------------------------------------------------------
# Scenes
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CardTruth:
    """Ground truth for one card in a rendered scene."""

    card: str
    corners: tuple[tuple[float, float], ...]
    """Image pixels: top-left, top-right, bottom-right, bottom-left of the upright card."""
    face_up: bool
    seat: int | None
    deck: str
    index_visible: tuple[float, float]
    """Fraction of the top-left and the bottom-right index region left uncovered (0..1)."""
    index_parts_visible: tuple[tuple[float, float], tuple[float, float]] = ((1.0, 1.0), (1.0, 1.0))
    """Per index corner: the fraction left uncovered of its upper half (the rank) and of its lower
    half (the suit)."""

    @property
    def readable(self) -> bool:
        """Face up with at least one index corner fully in view."""
        return self.face_up and max(self.index_visible) >= 0.98

    @property
    def center(self) -> tuple[float, float]:
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return (sum(xs) / 4, sum(ys) / 4)


@dataclasses.dataclass(frozen=True)
class Scene:
    image: np.ndarray
    """BGR uint8."""
    cards: tuple[CardTruth, ...]
    card_width: float
    """Approximate card width in pixels."""


@dataclasses.dataclass(frozen=True)
class SceneSpec:
    """What to put in a scene; :func:`random_spec` draws one."""

    width: int = 1920
    height: int = 1080
    hands: tuple[tuple[tuple[float, float], float, tuple[str, ...], tuple[bool, ...]], ...] = ()
    """Per hand: centre (x, y) in pixels, direction in degrees, cards, face-up flags."""
    seats: tuple[int | None, ...] = ()
    card_width: float = 70.0
    felt: tuple[int, int, int] = (40, 110, 30)
    """felt colour, BGR."""


def _card_quad(center, angle_deg, w) -> np.ndarray:
    h = w * ASPECT
    a = math.radians(angle_deg)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    cx, cy = center
    pts = []
    for sx, sy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
        pts.append((cx + sx * w * ux + sy * h * vx, cy + sx * w * uy + sy * h * vy))
    return np.array(pts, np.float32)


def _index_polygon(quad: np.ndarray, which: int, part: str = "all") -> np.ndarray:
    """Index region polygon of card ``quad`` at corner 0 (top-left) or 2 (bottom-right); ``part``
    ``"rank"`` or ``"suit"`` is its upper or lower half."""
    p = quad[which]
    if which == 0:
        u, v = quad[1] - quad[0], quad[3] - quad[0]
    else:
        u, v = quad[3] - quad[2], quad[1] - quad[2]
    y0, y1 = {"all": (0.01, INDEX_Y1 - 0.03), "rank": (0.01, 0.16), "suit": (0.15, INDEX_Y1 - 0.03)}[part]
    pts = [p + x * u + y * v for x, y in ((0.01, y0), (INDEX_X1 - 0.03, y0), (INDEX_X1 - 0.03, y1), (0.01, y1))]
    return np.array(pts, np.float32)


def _draw_chip(img, idmap, oid, center, r, rng):
    import cv2

    colours = [(30, 30, 200), (200, 60, 30), (30, 30, 30), (40, 160, 40), (200, 200, 200), (30, 140, 220)]
    c = colours[rng.integers(len(colours))]
    ci = (int(center[0]), int(center[1]))
    cv2.circle(img, (ci[0] + 3, ci[1] + 4), int(r), (20, 40, 15), -1, cv2.LINE_AA)
    cv2.circle(img, ci, int(r), c, -1, cv2.LINE_AA)
    for k in range(6):
        a = k * math.pi / 3 + rng.uniform(0, 1)
        p = (int(ci[0] + 0.8 * r * math.cos(a)), int(ci[1] + 0.8 * r * math.sin(a)))
        cv2.circle(img, p, max(1, int(r * 0.15)), (235, 235, 235), -1, cv2.LINE_AA)
    cv2.circle(img, ci, int(r * 0.55), tuple(min(255, v + 40) for v in c), 2, cv2.LINE_AA)
    cv2.circle(idmap, ci, int(r), oid, -1)


def _draw_finger(img, idmap, oid, start, angle, length, width, rng):
    import cv2

    skin = [(140, 170, 220), (90, 120, 170), (60, 80, 120), (170, 190, 230)][rng.integers(4)]
    a = math.radians(angle)
    end = (start[0] + length * math.cos(a), start[1] + length * math.sin(a))
    p0 = (int(start[0]), int(start[1]))
    p1 = (int(end[0]), int(end[1]))
    cv2.line(img, (p0[0] + 3, p0[1] + 4), (p1[0] + 3, p1[1] + 4), (20, 40, 15), int(width), cv2.LINE_AA)
    cv2.line(img, p0, p1, skin, int(width), cv2.LINE_AA)
    cv2.circle(img, p0, int(width / 2), skin, -1, cv2.LINE_AA)
    nail = (int(start[0] + 0.25 * width * math.cos(a)), int(start[1] + 0.25 * width * math.sin(a)))
    cv2.circle(img, nail, int(width * 0.3), tuple(min(255, v + 40) for v in skin), -1, cv2.LINE_AA)
    cv2.line(idmap, p0, p1, oid, int(width))
    cv2.circle(idmap, p0, int(width / 2), oid, -1)


def _blit_card(img, raster_rgb, quad, shadow=True):
    """Warp a card raster into ``img`` (BGR) onto ``quad`` with rounded corners and a soft shadow."""
    import cv2

    x0 = int(max(0, math.floor(quad[:, 0].min()) - 6))
    y0 = int(max(0, math.floor(quad[:, 1].min()) - 6))
    x1 = int(min(img.shape[1], math.ceil(quad[:, 0].max()) + 8))
    y1 = int(min(img.shape[0], math.ceil(quad[:, 1].max()) + 8))
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    src = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    dst = quad - np.array([x0, y0], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    mask = _rounded_mask()
    if shadow:
        sm = cv2.warpPerspective(mask, m, size, flags=cv2.INTER_LINEAR)
        sm = cv2.GaussianBlur(sm, (0, 0), 2.0)
        sm = np.roll(sm, (2, 2), axis=(0, 1)).astype(np.float32) / 255.0 * 0.45
        roi[:] = (roi.astype(np.float32) * (1 - sm[..., None])).astype(np.uint8)
    face = cv2.warpPerspective(raster_rgb[..., ::-1], m, size, flags=cv2.INTER_AREA if
                               (quad[1] - quad[0]).dot(quad[1] - quad[0]) < CARD_W**2 else cv2.INTER_LINEAR)
    am = cv2.warpPerspective(mask, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255.0
    roi[:] = (roi.astype(np.float32) * (1 - am) + face.astype(np.float32) * am).astype(np.uint8)


@functools.lru_cache(maxsize=1)
def _rounded_mask() -> np.ndarray:
    import cv2

    m = np.zeros((CARD_H, CARD_W), np.uint8)
    r = 16
    cv2.rectangle(m, (r, 0), (CARD_W - r, CARD_H), 255, -1)
    cv2.rectangle(m, (0, r), (CARD_W, CARD_H - r), 255, -1)
    for cx, cy in ((r, r), (CARD_W - r, r), (r, CARD_H - r), (CARD_W - r, CARD_H - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    # a faint grey edge, as printed card stock shows
    edge = cv2.morphologyEx(m, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    m = m.copy()
    m[edge > 0] = 255
    return m


FELTS: list[tuple[int, int, int] | str] = [(40, 110, 30), (30, 95, 20), (55, 120, 45), (120, 70, 20),
                                           (40, 40, 120), (60, 100, 60)]
"""The felt colours a scene draws from (BGR, then scaled by 0.75 to 1.25): greens, a blue, a red. An
entry may also name a table surface of :data:`SURFACES` (``bench/vision_felt.py``)."""
SURFACES = ("wood", "check", "carpet")
"""Table surfaces other than a felt that a photograph of cards may show under them
(:func:`table_surface`): a wood grain, a checked tablecloth, a speckled carpet."""


def table_surface(kind: str, height: int, width: int, rng: np.random.Generator) -> np.ndarray:
    """A ``height`` x ``width`` BGR float32 image of the table surface ``kind`` (:data:`SURFACES`),
    its colours, scale and direction drawn from ``rng``.

    >>> t = table_surface("wood", 40, 60, np.random.default_rng(1))
    >>> t.shape, t.dtype.name, bool(t.std() > 5)
    ((40, 60, 3), 'float32', True)
    """
    import cv2

    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "wood":  # grain along a direction, its lines waving
        base = np.array([(40, 80, 140), (30, 60, 110), (60, 110, 170), (25, 45, 80)][int(rng.integers(4))], np.float32)
        coarse = rng.normal(0, 1, (height // 64 + 2, width // 64 + 2)).astype(np.float32)
        wave = cv2.resize(coarse, (width, height)) * 25
        angle = rng.uniform(0, np.pi)
        t = xx * np.cos(angle) + yy * np.sin(angle) + wave
        grain = np.sin(t / rng.uniform(6, 14)) * 0.5 + np.sin(t / rng.uniform(2, 4) + 1.3) * 0.2
        fine = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.0) * 0.15
        img = base[None, None, :] * (1 + 0.25 * (grain + fine))[..., None]
    elif kind == "check":  # a coloured check on a greyed ground
        c1 = np.array([(40, 40, 160), (140, 60, 30), (30, 110, 40)][int(rng.integers(3))], np.float32)
        c2 = np.full(3, 200.0, np.float32) * rng.uniform(0.5, 0.9)
        step = rng.uniform(20, 60)
        odd = ((xx // step).astype(int) % 2) ^ ((yy // step).astype(int) % 2)
        img = np.where(odd[..., None] == 1, c1, (c1 + c2) / 2)
    elif kind == "carpet":  # fine coloured speckle
        base = np.array([(70, 70, 70), (50, 60, 90), (90, 80, 60)][int(rng.integers(3))], np.float32)
        img = base + cv2.GaussianBlur(rng.normal(0, 1, (height, width, 3)).astype(np.float32), (0, 0), 0.8) * 25
    else:
        raise ValueError(f"table surface {kind!r}: expected one of {', '.join(SURFACES)}")
    return np.clip(img, 0, 255).astype(np.float32)


def camera_optics(img: np.ndarray, rng: np.random.Generator, max_blur: float = 1.0) -> np.ndarray:
    """What a camera does to the view in its own pixels, drawn from ``rng``: a blur of up to
    ``max_blur`` pixels, sensor noise and JPEG compression (quality 55 to 95)."""
    import cv2

    sigma = rng.uniform(0.0, max_blur)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    noise = rng.normal(0, rng.uniform(1, 5), img.shape).astype(np.float32)
    img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    q = int(rng.uniform(55, 95))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def render_scene(
    rng: np.random.Generator,
    decks: Sequence[DeckStyle],
    *,
    width: int = 1920,
    height: int = 1080,
    hand_centers: Sequence[tuple[float, float]] | None = None,
    seats: Sequence[int | None] | None = None,
    hand_sizes: Sequence[int] | None = None,
    card_width: float | None = None,
    hand_widths: Sequence[float] | None = None,
    p_face_down: float = 0.08,
    p_chip: float = 0.35,
    p_finger: float = 0.15,
    perspective: float = 0.04,
    max_blur: float = 1.0,
    hard: bool = True,
    deal: Sequence[str] | None = None,
    face_up: Sequence[bool] | None = None,
    optics: bool = True,
) -> Scene:
    """Render one overhead scene of hands on felt.

    ``hand_centers`` default to random places; each hand is fanned the way players table cards,
    overlapping so the lower cards' top-left index stays in view (mostly). ``hard`` adds glare,
    chips over corners and fingers. Cards are dealt from one shuffled deck (no duplicates) unless
    ``deal`` fixes them (then reused in order). ``face_up`` forces each card's side (in deal
    order) without changing anything else drawn from ``rng``: the same seed with other flags renders
    the same layout with cards turned over. ``hand_widths``: each hand's own card width (a camera
    looking at the table at an angle sees the near seats' cards larger), ``card_width`` the scene's
    nominal one. ``optics``: put the camera's blur, noise and compression on the view
    (:func:`camera_optics`, the last draws from ``rng``); without it the view is left as drawn, for
    a caller to cut or scale it before the cameras see it (``bench/vision_cameras.py``).
    """
    import cv2

    deck = decks[int(rng.integers(len(decks)))]
    W = float(card_width if card_width is not None else rng.uniform(52, 150))
    H = W * ASPECT
    cloth = FELTS[int(rng.integers(len(FELTS)))]
    shade = rng.uniform(0.75, 1.25)
    img = np.empty((height, width, 3), np.float32)
    if isinstance(cloth, str):  # a table surface, drawn from its own stream: the scene's draws stay as on felt
        img[:] = np.clip(table_surface(cloth, height, width, rng.spawn(1)[0]) * shade, 0, 255)
    else:
        img[:] = np.clip(np.array(cloth, np.float32) * shade, 0, 255)
    # felt texture
    tex = rng.normal(0, 6, (height // 4 + 1, width // 4 + 1)).astype(np.float32)
    tex = cv2.resize(cv2.GaussianBlur(tex, (0, 0), 1.0), (width, height))
    img += tex[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    idmap = np.zeros((height, width), np.int32)
    if hand_centers is None:
        n = int(rng.integers(1, 5))
        hand_centers = [(rng.uniform(0.15, 0.85) * width, rng.uniform(0.2, 0.8) * height) for _ in range(n)]
    if seats is None:
        seats = [None] * len(hand_centers)
    pool = [str(c) for c in FULL_DECK] if deal is None else list(deal)
    if deal is None:
        rng.shuffle(pool)
    cursor = 0
    truths: list[tuple[str, np.ndarray, bool, int | None, int]] = []
    oid = 1
    for h_i, (hc, seat) in enumerate(zip(hand_centers, seats)):
        Wh = W if hand_widths is None else float(hand_widths[h_i])  # this hand's cards' width
        if hand_sizes is not None:
            k = hand_sizes[h_i]
        else:
            k = int(rng.choice([1, 2, 2, 2, 3, 4, 4, 5, 7]))
        base = rng.uniform(-180, 180)
        spread = rng.uniform(0.32, 0.62) * Wh
        fan = rng.uniform(-4, 10) if rng.random() < 0.6 else 0.0
        flipped_hand = rng.random() < 0.3
        style = rng.random()
        for j in range(k):
            off = (j - (k - 1) / 2)
            a = base + fan * off + rng.normal(0, 1.5)
            ar = math.radians(base)
            if style < 0.75:  # fanned row
                cx = hc[0] + off * spread * math.cos(ar) + rng.normal(0, 0.03 * Wh)
                cy = hc[1] + off * spread * math.sin(ar) + rng.normal(0, 0.05 * Wh)
            else:  # loose, apart
                cx = hc[0] + off * Wh * rng.uniform(1.05, 1.3) * math.cos(ar)
                cy = hc[1] + off * Wh * rng.uniform(1.05, 1.3) * math.sin(ar) + rng.normal(0, 0.1 * Wh)
                a = base + rng.normal(0, 8)
            if flipped_hand:
                a += 180
            quad = _card_quad((cx, cy), a, Wh)
            card = pool[cursor % len(pool)]
            cursor += 1
            up = rng.random() >= p_face_down
            back_variant = int(rng.integers(4))
            if face_up is not None:
                up = bool(face_up[len(truths)])
            raster = card_face(deck, card) if up else card_back(deck, back_variant)
            _blit_card(img, raster, quad)
            cv2.fillConvexPoly(idmap, quad.astype(np.int32), oid)
            truths.append((card, quad, up, seat, oid))
            oid += 1
        # occluders for this hand
        if k == 0:
            continue
        if hard and rng.random() < p_chip:
            for _ in range(int(rng.integers(1, 3))):
                t = truths[-int(rng.integers(1, k + 1))]
                corner = t[1][[0, 2][int(rng.integers(2))]]
                jitter = rng.normal(0, 0.25 * Wh, 2)
                _draw_chip(img, idmap, oid, corner + jitter, rng.uniform(0.3, 0.45) * Wh, rng)
                oid += 1
        if hard and rng.random() < p_finger:
            t = truths[-int(rng.integers(1, k + 1))]
            start = t[1][int(rng.integers(4))] * 0.7 + np.array(t[1].mean(axis=0)) * 0.3
            _draw_finger(img, idmap, oid, start, rng.uniform(0, 360), rng.uniform(1.5, 3) * Wh,
                         rng.uniform(0.2, 0.3) * Wh, rng)
            oid += 1
    # light: uneven illumination and glare
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:height:8, 0:width:8].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    light = 1.0 + rng.uniform(0.05, 0.3) * (gx * (xx / width - 0.5) + gy * (yy / height - 0.5)) * 2
    lx, ly = rng.uniform(0, width), rng.uniform(0, height)
    light *= 1.0 - rng.uniform(0.0, 0.25) * np.clip(((xx - lx) ** 2 + (yy - ly) ** 2) / (0.6 * width) ** 2, 0, 1)
    light = cv2.resize(light, (width, height))
    f *= light[..., None] * rng.uniform(0.8, 1.1)
    if hard and rng.random() < 0.5:
        gx, gy = rng.uniform(0, width), rng.uniform(0, height)
        r = rng.uniform(0.3, 1.2) * W
        g = np.exp(-(((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))).astype(np.float32)
        g = cv2.resize(g, (width, height))
        f += g[..., None] * rng.uniform(40, 110)
    img = np.clip(f, 0, 255).astype(np.uint8)
    # camera: mild perspective, blur, noise, compression
    hmat = np.eye(3)
    if perspective > 0:
        src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        dst = src + rng.uniform(-perspective, perspective, (4, 2)).astype(np.float32) * np.array(
            [width, height], np.float32)
        hmat = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, hmat, (width, height), borderMode=cv2.BORDER_REFLECT)
        # a pixel the perspective moves out of the frame belongs to no card (the frame's edge cuts it)
        kept = np.zeros((height, width), np.uint8)
        back = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(hmat))
        cv2.fillConvexPoly(kept, np.round(back.reshape(-1, 2)).astype(np.int32), 1)
        idmap[kept == 0] = 0

    # visibility of index regions, in the frame as drawn (idmap), of what the camera still sees
    def visible(poly_f: np.ndarray, cid: int) -> float:
        poly = poly_f.astype(np.int32)
        x, y, w, h = cv2.boundingRect(poly)
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, width), min(y + h, height)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(m, poly - np.array([x0, y0]), 1)
        inside = m.astype(bool)
        total = cv2.contourArea(poly.astype(np.float32))
        seen = float((idmap[y0:y1, x0:x1][inside] == cid).sum())
        return min(1.0, seen / max(total, 1.0))

    out_truths = []
    for card, quad, up, seat, cid in truths:
        vis = tuple(visible(_index_polygon(quad, which), cid) for which in (0, 2))
        parts = tuple((visible(_index_polygon(quad, which, "rank"), cid),
                       visible(_index_polygon(quad, which, "suit"), cid)) for which in (0, 2))
        out_truths.append((card, quad, up, seat, vis, parts))
    if optics:
        img = camera_optics(img, rng, max_blur)
    cards = []
    for card, quad, up, seat, vis, parts in out_truths:
        pts = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), hmat).reshape(-1, 2)
        cards.append(CardTruth(card, tuple((float(x), float(y)) for x, y in pts), up, seat, deck.name, vis, parts))
    return Scene(img, tuple(cards), W)


def table_seat_centers(width: int = 1920, height: int = 1080, seats: int = 10) -> list[tuple[float, float]]:
    """Where the ten seats' tabled hands lie in the demo camera view (an ellipse round the table)."""
    cx, cy = width / 2, height / 2
    rx, ry = width * 0.39, height * 0.36
    out = []
    for i in range(seats):
        a = math.pi / 2 + 2 * math.pi * i / seats
        out.append((cx + rx * math.cos(a), cy + ry * math.sin(a)))
    return out


def tilted_widths(centers: Sequence[tuple[float, float]], card_width: float = 72.0, tilt: float = 0.25,
                  height: int = 1080) -> list[float]:
    """Card widths of hands lying at ``centers`` as a camera tilted towards the table's far side sees
    them: ``card_width`` at mid-height, ``1 - tilt`` times it at the top of the frame (the far seats)
    and ``1 + tilt`` times it at the bottom (the near ones), in proportion between.

    >>> tilted_widths([(0, 0), (100, 540), (0, 1080)])
    [54.0, 72.0, 90.0]
    """
    return [card_width * (1.0 + tilt * (y - height / 2) / (height / 2)) for _, y in centers]


def seat_zone(center: tuple[float, float], width: int = 1920, height: int = 1080, half: float = 118,
              ) -> list[list[int]]:
    """A square seat zone polygon round a seat centre, clipped to the frame."""
    x, y = center
    hx, hy = half * 1.25, half
    pts = [(x - hx, y - hy), (x + hx, y - hy), (x + hx, y + hy), (x - hx, y + hy)]
    return [[int(min(max(px, 0), width - 1)), int(min(max(py, 0), height - 1))] for px, py in pts]


def render_table(
    rng: np.random.Generator,
    decks: Sequence[DeckStyle],
    *,
    variant_cards: int | Sequence[int] = 2,
    width: int = 1920,
    height: int = 1080,
    card_width: float = 72.0,
    hard: bool = True,
    **kw,
) -> Scene:
    """A 1920x1080 full-table view: one tabled hand per seat (ten seats), seat numbers 1..10."""
    centers = table_seat_centers(width, height)
    return render_scene(rng, decks, width=width, height=height, hand_centers=centers,
                        seats=list(range(1, len(centers) + 1)),
                        hand_sizes=[variant_cards] * len(centers) if isinstance(variant_cards, int) else variant_cards,
                        card_width=card_width, hard=hard, perspective=0.01, **kw)

"""Fetch the real deck designs the benchmark reads (training/bench time only, never at run time).

    python -m vision.fetch_deck            # the CC0 deck of npm @letele/playing-cards -> var/decks/letele
    python -m vision.fetch_deck --debian   # GPL/LGPL decks of Debian's card-game packages -> var/decks/<name>

``letele`` needs ``npm``, ``node`` and ``rsvg-convert`` (Debian: librsvg2-bin). The package ships React
components; they are rendered to static SVG with react-dom/server and rasterised to 240x336 PNG.

``--debian`` needs ``apt-get``, ``dpkg-deb`` and ``rsvg-convert``. It downloads the packages
``kdegames-card-data-kf5`` and ``gnome-cards-data`` (``apt-get download``: no root, nothing installed),
and rasterises each deck of :data:`DEBIAN_DECKS` card by card (``rsvg-convert --export-id``). Their
art is GPL (one, ``kde-tigullio``, LGPL): they are for evaluation only, the benchmark's ``real`` set
(:data:`vision.render.REAL_DECKS`), and no training run reads them.

Every deck is written as ``<S><r>.png`` (``Sa``, ``H10``, ``Dq``; ``B1``, ``B2`` for backs), 240x336.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
EXPORT = """
import * as deck from './node_modules/@letele/playing-cards/dist/index.esm.js';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import fs from 'fs';
fs.mkdirSync('svg', { recursive: true });
for (const [name, C] of Object.entries(deck)) {
  fs.writeFileSync(`svg/${name}.svg`, renderToStaticMarkup(React.createElement(C)));
}
"""

CARD_SIZE = (240, 336)
"""Width and height of every written card image."""

KDE = "kdegames-card-data-kf5"
GNOME = "gnome-cards-data"
DEBIAN_DECKS: dict[str, tuple[str, str]] = {
    "kde-standard": (KDE, "usr/share/carddecks/svg-standard/standard.svgz"),
    "kde-nicu-white": (KDE, "usr/share/carddecks/svg-nicu-white/white.svgz"),
    "kde-tigullio": (KDE, "usr/share/carddecks/svg-tigullio-international/tigullio-international.svgz"),
    "kde-dondorf": (KDE, "usr/share/carddecks/svg-dondorf/dondorf.svgz"),
    "gnome-anglo-poker": (GNOME, "usr/share/aisleriot/cards/anglo_poker.svgz"),
    "gnome-simplistic": (GNOME, "usr/share/aisleriot/cards/simplistic.svgz"),
    "gnome-tango": (GNOME, "usr/share/aisleriot/cards/tango.svgz"),
    "gnome-bellot": (GNOME, "usr/share/aisleriot/cards/bellot.svgz"),
}
"""Deck name -> (Debian package, the SVG inside it; the package tells how card ids are spelt,
:func:`card_ids`). Chosen by eye from
the two packages: French-suited decks with the A K Q J index of poker cards (not the Paris deck's
R D V, nor German or Russian suits, nor ``guyenne-classic``, whose court cards carry no index), each
design once (GNOME's ``ornamental`` is KDE's Nicu deck)."""

PICTURE_BACKS = frozenset({"kde-nicu-white"})
"""Decks whose own back is a picture of playing cards (Nicu's: four aces fanned, indices and all),
which no card room's back is: they get :func:`plain_back`. With its own back, two of the set's three
wrong reads of another card were aces pictured on a face-down card's back (thirty-third session)."""

_SUITS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_RANKS = {"a": "1", "j": "jack", "q": "queen", "k": "king", **{str(n): str(n) for n in range(2, 11)}}


def card_ids(style: str) -> dict[str, str]:
    """File stem -> SVG id of each of the 52 cards: ``kde`` spells ``king_heart``, ``gnome`` ``heart_king``.

    >>> ids = card_ids("kde"); len(ids), ids["Hk"], ids["S10"], ids["Ca"]
    (52, 'king_heart', '10_spade', '1_club')
    >>> card_ids("gnome")["Dq"]
    'diamond_queen'
    """
    if style not in ("kde", "gnome"):
        raise ValueError(f"card id style {style!r}: expected 'kde' or 'gnome'")
    return {s + r: (f"{rank}_{suit}" if style == "kde" else f"{suit}_{rank}")
            for s, suit in _SUITS.items() for r, rank in _RANKS.items()}


def card_from_render(rgba: np.ndarray, what: str) -> np.ndarray:
    """The card in one rasterised SVG element, cut to its opaque pixels and sized to :data:`CARD_SIZE`.

    ``rsvg-convert --export-id`` sizes the picture to the element's bounds, which some decks
    overstate (a clip path counted in full): the card is where the picture is opaque. Anything
    that is not card-shaped after the cut is an error naming ``what``.

    >>> pic = np.zeros((500, 200, 4), np.uint8); pic[100:380, 0:200] = 255
    >>> card_from_render(pic, "ace").shape
    (336, 240, 4)
    >>> card_from_render(np.full((100, 100, 4), 255, np.uint8), "queen")
    Traceback (most recent call last):
    ...
    ValueError: queen: renders 100 x 100 px, not card-shaped (width/height 1.00)
    """
    import cv2

    if rgba.ndim != 3 or rgba.shape[2] != 4:
        raise ValueError(f"{what}: expected an RGBA picture, got shape {rgba.shape}")
    ys, xs = np.nonzero(rgba[..., 3] > 0)
    if not len(ys):
        raise ValueError(f"{what}: renders nothing")
    card = rgba[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    h, w = card.shape[:2]
    if not 0.6 < w / h < 0.8:
        raise ValueError(f"{what}: renders {w} x {h} px, not card-shaped (width/height {w / h:.2f})")
    return cv2.resize(card, CARD_SIZE, interpolation=cv2.INTER_AREA)


def plain_back(colour: tuple[int, int, int] = (40, 40, 150)) -> np.ndarray:
    """A back for a deck that has none of its own: one colour in a white margin (BGRA)."""
    w, h = CARD_SIZE
    back = np.full((h, w, 4), 255, np.uint8)
    back[12: h - 12, 12: w - 12, :3] = colour
    return back


def _rasterise(svg: pathlib.Path, ident: str, zoom: float, tmp: pathlib.Path) -> np.ndarray:
    import cv2

    out = tmp / "card.png"
    subprocess.run(["rsvg-convert", "--export-id", ident, "--zoom", f"{zoom:.5f}", str(svg), "-o", str(out)],
                   check=True, capture_output=True)
    pic = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if pic is None or pic.ndim != 3 or pic.shape[2] not in (3, 4):
        raise ValueError(f"{svg.name} #{ident}: rsvg-convert wrote no colour picture")
    return pic if pic.shape[2] == 4 else cv2.cvtColor(pic, cv2.COLOR_BGR2BGRA)  # all opaque: written as RGB


def render_svg_deck(svg: pathlib.Path, style: str, dest: pathlib.Path, own_back: bool = True) -> pathlib.Path:
    """Every card (and the back, or :func:`plain_back` where it has none or ``own_back`` is false) of
    one multi-card SVG into ``dest``."""
    import cv2

    ids = card_ids(style)
    text = svg.read_text(errors="replace")
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        # one zoom for the whole deck, from its two of clubs: the cards come out about twice the size kept
        ys, xs = np.nonzero(_rasterise(svg, ids["C2"], 1.0, t)[..., 3] > 0)
        zoom = 2.0 * CARD_SIZE[0] / float(xs.max() - xs.min() + 1)
        faces = {stem: card_from_render(_rasterise(svg, ident, zoom, t), f"{svg.name} {ident}")
                 for stem, ident in ids.items()}
        back = (card_from_render(_rasterise(svg, "back", zoom, t), f"{svg.name} back")
                if own_back and 'id="back"' in text else plain_back())
    dest.mkdir(parents=True, exist_ok=True)
    for stem, face in faces.items():
        cv2.imwrite(str(dest / f"{stem}.png"), face)
    for stem in ("B1", "B2"):
        cv2.imwrite(str(dest / f"{stem}.png"), back)
    return dest


def fetch_debian(root: pathlib.Path = REPO / "var" / "decks", names: list[str] | None = None) -> list[pathlib.Path]:
    """Download the Debian packages (``apt-get download``) and write each deck of :data:`DEBIAN_DECKS`."""
    import gzip

    names = list(DEBIAN_DECKS) if names is None else names
    unknown = sorted(set(names) - set(DEBIAN_DECKS))
    if unknown:
        raise SystemExit(f"fetch_deck: unknown Debian deck(s) {', '.join(unknown)}; expected {', '.join(DEBIAN_DECKS)}")
    for tool in ("apt-get", "dpkg-deb", "rsvg-convert"):
        if shutil.which(tool) is None:
            raise SystemExit(f"fetch_deck: {tool} not found")
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        for package in sorted({DEBIAN_DECKS[n][0] for n in names}):
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True, capture_output=True)
            deb = next(t.glob(f"{package}_*.deb"))
            subprocess.run(["dpkg-deb", "-x", str(deb), str(t / "root")], check=True)
        for name in names:
            package, inside = DEBIAN_DECKS[name]
            svg = t / (name + ".svg")
            svg.write_bytes(gzip.decompress((t / "root" / inside).read_bytes()))
            style = "kde" if package == KDE else "gnome"
            out.append(render_svg_deck(svg, style, root / name, own_back=name not in PICTURE_BACKS))
            print(name, flush=True)
    return out


def fetch(dest: pathlib.Path = REPO / "var" / "decks" / "letele") -> pathlib.Path:
    for tool in ("npm", "node", "rsvg-convert"):
        if shutil.which(tool) is None:
            raise SystemExit(f"fetch_deck: {tool} not found")
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", tmp,
                        "@letele/playing-cards@0.1.0", "react@18", "react-dom@18", "@babel/runtime"],
                       check=True, capture_output=True)
        (t / "export.mjs").write_text(EXPORT)
        subprocess.run(["node", "export.mjs"], cwd=tmp, check=True)
        dest.mkdir(parents=True, exist_ok=True)
        for svg in sorted((t / "svg").glob("*.svg")):
            subprocess.run(["rsvg-convert", "-w", "240", "-h", "336", str(svg), "-o",
                            str(dest / (svg.stem + ".png"))], check=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.fetch_deck", description=__doc__.split("\n\n")[0])
    ap.add_argument("--debian", action="store_true",
                    help="fetch the GPL/LGPL decks of Debian's card-game packages (evaluation only)")
    ap.add_argument("--deck", action="append", metavar="NAME",
                    help=f"with --debian: only this deck (repeatable; {', '.join(DEBIAN_DECKS)})")
    args = ap.parse_args(argv)
    if args.debian:
        for path in fetch_debian(names=args.deck):
            print(path)
    else:
        print(fetch())
    return 0


if __name__ == "__main__":
    sys.exit(main())

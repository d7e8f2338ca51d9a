"""The real-deck fetcher (``python -m vision.fetch_deck --debian``) cuts a multi-card SVG into card
images with the real ``rsvg-convert`` (Debian: librsvg2-bin), on a deck drawn here in the layout of
the KDE and GNOME card SVGs: one element per card, ids ``king_heart`` / ``heart_king``."""

from __future__ import annotations

import pathlib
import re
import shutil

import numpy as np
import pytest

from vision import fetch_deck, render

needs_rsvg = pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (librsvg2-bin) missing")


def _deck_svg(path: pathlib.Path, style: str, back: bool = True, spill: str | None = None) -> pathlib.Path:
    """A 52-card SVG: white 100x140 cards with a black rank letter top left; ``spill``: that card's
    group also holds an invisible rectangle far below (an element whose bounds overstate the card)."""
    parts = []
    for k, (stem, ident) in enumerate(fetch_deck.card_ids(style).items()):
        x, y = 110 * (k % 13), 150 * (k // 13)
        extra = (f'<rect x="{x}" y="{y + 600}" width="10" height="10" fill="none" stroke="none"/>'
                 if ident == spill else "")
        parts.append(f'<g id="{ident}"><rect x="{x}" y="{y}" width="100" height="140" fill="#fff" stroke="#000"/>'
                     f'<rect x="{x + 8}" y="{y + 8}" width="14" height="20" fill="#000"/>{extra}</g>')
    if back:
        parts.append('<g id="back"><rect x="0" y="620" width="100" height="140" fill="#0000c0"/></g>')
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="1430" height="800">' + "".join(parts) + "</svg>")
    return path


@needs_rsvg
@pytest.mark.parametrize("style", ["kde", "gnome"])
def test_each_card_of_a_multi_card_svg_is_cut_out_at_the_card_size(tmp_path: pathlib.Path, style: str) -> None:
    import cv2

    out = fetch_deck.render_svg_deck(_deck_svg(tmp_path / "d.svg", style, spill="king_heart" if style == "kde"
                                               else "heart_king"), style, tmp_path / "deck")
    names = sorted(p.stem for p in out.glob("*.png"))
    assert len(names) == 54 and {"Sa", "H10", "Dq", "Ck", "B1", "B2"} <= set(names)
    for stem in ("Sa", "Hk", "B1"):
        im = cv2.imread(str(out / f"{stem}.png"), cv2.IMREAD_UNCHANGED)
        assert im.shape[:2] == (336, 240)
        # the rank mark sits top left on every face (the spilling king too: cut to what is opaque)
        if stem != "B1":
            assert im[30:60, 25:50, :3].mean() < 60 and im[150:200, 100:140, :3].mean() > 200
    back = cv2.imread(str(out / "B1.png"))
    assert back[168, 120, 0] > 150 and back[168, 120, 2] < 60  # the deck's own blue back (BGR)


@needs_rsvg
def test_a_deck_without_a_back_gets_a_plain_one(tmp_path: pathlib.Path) -> None:
    import cv2

    out = fetch_deck.render_svg_deck(_deck_svg(tmp_path / "d.svg", "kde", back=False), "kde", tmp_path / "deck")
    back = cv2.imread(str(out / "B2.png"))
    assert back.shape[:2] == (336, 240) and tuple(back[168, 120]) == (40, 40, 150)


@needs_rsvg
def test_a_back_that_pictures_cards_is_replaced_by_a_plain_one(tmp_path: pathlib.Path) -> None:
    import cv2

    out = fetch_deck.render_svg_deck(_deck_svg(tmp_path / "d.svg", "gnome"), "gnome", tmp_path / "deck",
                                     own_back=False)
    assert tuple(cv2.imread(str(out / "B1.png"))[168, 120]) == (40, 40, 150)  # not the deck's blue
    assert "kde-nicu-white" in fetch_deck.PICTURE_BACKS and fetch_deck.PICTURE_BACKS <= set(fetch_deck.DEBIAN_DECKS)


@needs_rsvg
def test_an_element_that_is_not_card_shaped_is_an_error_naming_it(tmp_path: pathlib.Path) -> None:
    svg = _deck_svg(tmp_path / "d.svg", "kde")
    text, n = re.subn(r'(<g id="7_diamond"><rect x="\d+" y="\d+" width="100" height=")140"', r'\g<1>40"',
                      svg.read_text())
    assert n == 1
    svg.write_text(text)
    with pytest.raises(ValueError, match="7_diamond: renders .* not card-shaped"):
        fetch_deck.render_svg_deck(svg, "kde", tmp_path / "deck")


def test_the_real_decks_are_never_a_training_deck_set() -> None:
    from vision import train

    real = {d.name for d in render.REAL_DECKS}
    assert real == set(fetch_deck.DEBIAN_DECKS)
    for name, decks in train.DECK_SETS.items():
        assert not real & {d.name for d in decks}, name
    assert all(render.deck_by_name(n).images == f"var/decks/{n}" for n in real)


def test_an_unknown_debian_deck_is_refused_by_name() -> None:
    with pytest.raises(SystemExit, match="unknown Debian deck.*nope"):
        fetch_deck.fetch_debian(names=["nope"])

"""One card, one place: a deck that prints its index at all four corners (as KDE's Dondorf deck, one
of the benchmark's real designs, does) is read once a card, not once an index.

The deck here is made from a training deck: each face gets its top-left index, turned a quarter, in
its top-right corner, and the same turned half round in its bottom-left, as four-index decks print
them (read from the card's long side)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from controller.cards import FULL_DECK
from vision import render
from vision import recognize as R

SCENES = (4, 8, 18)
"""Scenes (seed ``[7, i]``, 800x600) in which cards of the four-index deck were read at two corners."""


@pytest.fixture(scope="module")
def four_index_deck(tmp_path_factory: pytest.TempPathFactory) -> render.DeckStyle:
    import cv2

    out = tmp_path_factory.mktemp("four-index")
    base = render.TRAIN_DECKS[0]
    w, h = render.CARD_W, render.CARD_H
    iw, ih = int(0.27 * w), int(0.34 * h)  # the index region a crop reads (detect.INDEX_X1, INDEX_Y1)

    def top_right(face: np.ndarray) -> np.ndarray:
        face[:iw, w - ih:] = cv2.rotate(np.ascontiguousarray(face[:ih, :iw]), cv2.ROTATE_90_CLOCKWISE)
        return face

    for card in map(str, FULL_DECK):
        face = top_right(np.array(render.card_face(base, card)))
        face = top_right(face[::-1, ::-1].copy())[::-1, ::-1]
        rank, suit = card[0], card[1]
        stem = suit.upper() + ("10" if rank == "T" else rank.lower() if rank in "AKQJ" else rank)
        cv2.imwrite(str(out / f"{stem}.png"), np.ascontiguousarray(face[..., ::-1]))
    for stem in ("B1", "B2"):
        cv2.imwrite(str(out / f"{stem}.png"), np.ascontiguousarray(np.array(render.card_back(base))[..., ::-1]))
    return render.DeckStyle("four-index", "", images=str(out))  # an absolute folder: the repository's is not touched


@pytest.fixture(scope="module")
def recognizer() -> R.OnnxRecognizer:
    return R.OnnxRecognizer(threads=1)


def _reads(rec: R.OnnxRecognizer, deck: render.DeckStyle) -> list[tuple[list[str], set[str]]]:
    """Per scene: every card read sure, and those read where the card lies."""
    out = []
    for i in SCENES:
        scene = render.render_scene(np.random.default_rng([7, i]), (deck,), width=800, height=600)
        truth = {t.card: t for t in scene.cards}
        sure = [d for d in rec.recognize(scene.image) if d.card is not None and d.confidence >= rec.threshold]
        placed = {str(d.card) for d in sure if str(d.card) in truth
                  and math.dist(d.center, truth[str(d.card)].center) < 0.45 * scene.card_width}
        out.append(([str(d.card) for d in sure], placed))
    return out


def test_r2_a_card_read_at_two_of_its_corners_is_one_card(recognizer, four_index_deck, monkeypatch):
    monkeypatch.setattr(recognizer, "index_power", 1.0)  # the scenes were chosen for the model's own probabilities
    once = _reads(recognizer, four_index_deck)
    for cards, _ in once:
        assert len(cards) == len(set(cards)), cards
    monkeypatch.setattr(R, "SAME_CARD_FAR", None)
    twice = _reads(recognizer, four_index_deck)
    assert all(len(cards) > len(set(cards)) for cards, _ in twice)  # each of these scenes reads a card twice
    assert [placed for _, placed in once] == [placed for _, placed in twice]  # and every card still where it lies


def _upright_four_index_face(card: str, width: int = 100, four: bool = True) -> np.ndarray:
    """A training deck's face, ``width`` px wide, BGR, with its top-left index printed upright at its top
    right too and its bottom-right one at its bottom left (as ``kde-dondorf`` and many casino decks print
    them), unless not ``four``."""
    import cv2

    from vision import detect

    height = int(round(width * detect.ASPECT))
    face = cv2.resize(np.array(render.card_face(render.TRAIN_DECKS[0], card))[..., ::-1], (width, height),
                      interpolation=cv2.INTER_AREA).copy()
    if four:
        iw, ih = int(0.2 * width), int(0.3 * height)
        face[:ih, width - iw:] = face[:ih, :iw]
        face[height - ih:, :iw] = face[height - ih:, width - iw:]
    return face


def _covered_at_its_left(whole_prints_four: bool = True) -> tuple[np.ndarray, tuple[float, float], float]:
    """A 7c lying whole on a green felt (printing four indices, unless not ``whole_prints_four``) and a
    four-index Kd whose top-left and bottom-right index corners two backs cover, so that it shows its
    index upright only at its top right; the Kd's centre; the card width."""
    import cv2

    from vision import detect

    width = 100
    height = int(round(width * detect.ASPECT))
    image = np.empty((400, 700, 3), np.uint8)
    image[:] = detect.UPRIGHT_FELT
    image[60 : 60 + height, 60 : 60 + width] = _upright_four_index_face("7c", width, whole_prints_four)
    image[60 : 60 + height, 400 : 400 + width] = _upright_four_index_face("Kd", width)
    back = cv2.resize(np.array(render.card_back(render.TRAIN_DECKS[0]))[..., ::-1], (width, height),
                      interpolation=cv2.INTER_AREA)
    image[40 : 40 + height, 330 : 330 + width] = back
    image[height : height + 80, 410:510] = back[:80]
    return cv2.GaussianBlur(image, (3, 3), 0.6), (400 + width / 2, 60 + height / 2), float(width)


def _zones(rec: R.OnnxRecognizer, image: np.ndarray, width: float) -> list[R.Detection]:
    """``image`` read as a table camera reads it: two seat zones (the 7c's half, the Kd's) at ``width``."""
    from vision import detect

    half = image.shape[1] // 2
    rois = [(0, 0, half, image.shape[0]), (half, 0, image.shape[1] - half, image.shape[0])]
    jobs = [(roi, detect.card_masks(image[:, roi[0] : roi[0] + roi[2]], width)) for roi in rois]
    return [d for dets in rec.recognize_zones(image, jobs, card_width=width) for d in dets]


@pytest.mark.parametrize("how", ["width searched", "width configured", "seat zones"])
def test_r2_a_four_index_card_read_at_its_top_right_index_alone_is_placed_on_its_own_card(
        recognizer, monkeypatch, how):
    """A deck that prints its index upright at the top right too (``kde-dondorf``, many casino decks): a
    card whose top-left index is covered is read at that one, which the classifier takes for a top-left
    index, and its card placed beside it over the felt. Where the frame shows the deck prints four
    (a card read at both its upright indices, ``four_index_pairs``) and felt shows through the place,
    it is placed from its other upright index, the spacing the frame measured back
    (``FOUR_INDEX_FELT``, sixty-seventh session). A table camera's seat zones share what the frame shows:
    here the 7c lies in one zone and the Kd in the other."""
    image, centre, width = _covered_at_its_left()
    rec = recognizer if how == "width searched" else R.OnnxRecognizer(threads=1, card_width=width)
    pairs: list[list[tuple[int, int, float]]] = []
    found = R.four_index_pairs

    def seen(dets: list[R.Detection], threshold: float) -> list[tuple[int, int, float]]:
        pairs.append(found(dets, threshold))
        return pairs[-1]

    monkeypatch.setattr(R, "four_index_pairs", seen)

    def kd() -> R.Detection:
        read = _zones(rec, image, width) if how == "seat zones" else rec.recognize(image)
        (d,) = [d for d in read if str(d.card) == "Kd" and d.confidence >= rec.threshold]
        return d

    assert math.dist(kd().center, centre) < 0.1 * width
    spacings = [s for got in pairs for _, _, s in got]  # the 7c's, at the width the Kd was read at
    assert spacings and all(0.7 < s < 0.9 for s in spacings)
    monkeypatch.setattr(R, "FOUR_INDEX_ALONE_FELT", None)  # the frame shows the deck prints four
    assert math.dist(kd().center, centre) < 0.1 * width
    monkeypatch.setattr(R, "FOUR_INDEX_FELT", None)
    assert math.dist(kd().center, centre) > 0.6 * width


def test_r2_a_card_whose_place_is_mostly_felt_is_placed_from_its_other_upright_index_at_the_usual_spacing(
        recognizer, monkeypatch):
    """The same frame, the whole card a 7c printing two indices: nothing the frame shows says the deck
    prints four, but the Kd's place is mostly felt, and felt never lies over a card. Its index is taken for
    the one a four-index deck prints at the top right, the usual spacing back, where that place shows no
    felt (``FOUR_INDEX_ALONE_FELT``, ``FOUR_INDEX_USUAL``); without the rule it is placed over the felt."""
    image, centre, width = _covered_at_its_left(whole_prints_four=False)

    def kd() -> R.Detection:
        (d,) = [d for d in recognizer.recognize(image) if str(d.card) == "Kd" and d.confidence >= recognizer.threshold]
        return d

    assert math.dist(kd().center, centre) < 0.2 * width
    monkeypatch.setattr(R, "FOUR_INDEX_ALONE_FELT", None)
    assert math.dist(kd().center, centre) > 0.6 * width


def test_r2_a_card_under_a_back_of_the_felts_colour_keeps_its_place(recognizer, monkeypatch):
    """A 7h lying beside a 2c, both of a deck printing two indices, under a plain back of the felt's own
    colour that leaves its top-left index in view: the masks take the back for felt, so the 7h's place
    shows felt over two thirds of its middle, but the back's white border closes it into the card stock.
    Where no card shows the deck prints four, a place mostly felt is moved only where its middle is not
    card stock (``FOUR_INDEX_ALONE_STOCK``): the 7h keeps its place, at the width searched and configured.
    Without that condition it is placed over the 2c (the seen decks' four such reads, sixty-seventh
    session)."""
    import cv2

    from vision import detect

    width = 100
    height = int(round(width * detect.ASPECT))
    image = np.empty((400, 700, 3), np.uint8)
    image[:] = detect.UPRIGHT_FELT
    image[60 : 60 + height, 200 : 200 + width] = _upright_four_index_face("2c", width, four=False)
    image[60 : 60 + height, 300 : 300 + width] = _upright_four_index_face("7h", width, four=False)
    back = np.empty((height, width, 3), np.uint8)
    back[:] = detect.UPRIGHT_FELT
    back[:4] = back[-4:] = back[:, :4] = back[:, -4:] = 235
    image[88 : 88 + height, 322 : 322 + width] = back
    image = cv2.GaussianBlur(image, (3, 3), 0.6)
    centre = (350.0, 60 + height / 2)
    configured = R.OnnxRecognizer(threads=1, card_width=width)

    def seven(rec: R.OnnxRecognizer) -> R.Detection:
        (d,) = [d for d in rec.recognize(image) if str(d.card) == "7h" and d.confidence >= rec.threshold]
        return d

    for rec in (recognizer, configured):
        assert math.dist(seven(rec).center, centre) < 0.1 * width
    monkeypatch.setattr(R, "FOUR_INDEX_ALONE_STOCK", 1.0)
    for rec in (recognizer, configured):
        assert math.dist(seven(rec).center, centre) > 0.6 * width

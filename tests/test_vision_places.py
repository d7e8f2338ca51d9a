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


"""The layout index model (models/card_index_layout.onnx): a second index classifier, trained with
decks that print pips right beside the index as real designs do, read only where the shipped
classifier is not sure, and believed only on that classifier's or the body's word (R2: a card read
wrong is worse than a card not read)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from controller.cards import Card
from vision import detect, render
from vision.recognize import OnnxRecognizer, Reading

SCENE = (31337, 24)
"""A seeded scene of the layout decks where the layout model reads a card (Td) the shipped
classifier does not read sure."""


@pytest.fixture(scope="module")
def recognizer() -> OnnxRecognizer:
    # without the scale-tolerant model, which reads the seeded scene's Td before the layout model is
    # asked (tests/test_vision_tolerant.py)
    return OnnxRecognizer(threads=1, tolerant_model_path=None)


@pytest.fixture(scope="module")
def scene():
    return render.render_scene(np.random.default_rng(list(SCENE)), render.LAYOUT_DECKS, width=800, height=600)


# the file, its threshold and its need of the body model: tests/test_vision_tolerant.py, with the
# scale-tolerant model's


def test_r2_the_layout_model_reads_only_corners_the_classifier_is_not_sure_of(recognizer, scene):
    corners = detect.find_corners(scene.image, scene.card_width)
    plain = recognizer.read_corners(scene.image, corners, layout=False)
    both = recognizer.read_corners(scene.image, corners)
    assert [(r.card, r.confidence) for r in both] == [(r.card, r.confidence) for r in plain]
    alts = [(p, b.alt) for p, b in zip(plain, both) if b.alt is not None]
    assert alts, "the layout model reads no corner of the seeded scene"
    for p, alt in alts:
        assert p.card is None or p.confidence < recognizer.threshold
        assert alt.layout and alt.card is not None and alt.confidence >= recognizer.layout_threshold


def test_r2_a_card_the_classifier_misses_is_read_by_the_layout_model(recognizer, scene):
    truth = {t.card for t in scene.cards if t.face_up}
    with_layout = recognizer.recognize(scene.image)
    by_layout = [d for d in with_layout if d.by_layout]
    # Td, and since the twenty-third session's colour check moved the width search, 4d too: both there
    assert "Td" in [str(d.card) for d in by_layout]
    assert all(str(d.card) in truth for d in by_layout)
    assert all(d.confidence >= recognizer.layout_threshold for d in by_layout)
    session = recognizer.layout_session
    try:
        recognizer.layout_session = None
        without = recognizer.recognize(scene.image)
    finally:
        recognizer.layout_session = session
    assert not any(d.card == Card.parse("Td") and d.confidence >= recognizer.threshold for d in without)


def test_r2_layout_reads_of_clubs_and_spades_never_stand(recognizer, scene):
    """The unseen decks' clubs are read as spades by all three models at once, so a club or a spade
    only the layout model read is never believed, whatever the classifier or the body say."""
    corners = detect.find_corners(scene.image, scene.card_width)
    readings = recognizer.read_corners(scene.image, corners)
    at = [i for i, r in enumerate(readings) if r.alt is not None and r.alt.card == Card.parse("Td")]
    assert at
    base = recognizer._assemble(corners, readings, scene.image)
    assert any(d.by_layout and d.card == Card.parse("Td") for d in base)
    for fake in ("Ts", "Tc"):
        swapped = list(readings)
        for i in at:
            swapped[i] = dataclasses.replace(readings[i], alt=Reading(Card.parse(fake), 0.9999, layout=True))
        dets = recognizer._assemble(corners, swapped, scene.image)
        assert not any(d.card in (Card.parse(fake), Card.parse("Td")) for d in dets)


def test_r2_a_layout_read_never_contests_a_card_the_classifier_read(recognizer):
    scene = render.render_scene(np.random.default_rng([50505, 1]), render.TRAIN_DECKS, width=800, height=600)
    corners = detect.find_corners(scene.image, scene.card_width)
    readings = recognizer.read_corners(scene.image, corners, layout=False)
    base = recognizer._assemble(corners, readings, scene.image)
    sure = [d for d in base if d.card is not None and d.confidence >= recognizer.threshold]
    assert sure
    # every corner the classifier read sure is given a different red card by the "layout model"
    rival = [dataclasses.replace(r, alt=Reading(Card.parse("2h" if str(r.card) != "2h" else "3h"), 0.9999,
                                                layout=True))
             if r.card is not None and r.confidence >= recognizer.threshold else r for r in readings]
    dets = recognizer._assemble(corners, rival, scene.image)
    assert [(d.card, d.confidence) for d in dets if d.card is not None and d.confidence >= recognizer.threshold] == \
        [(d.card, d.confidence) for d in sure]
    assert not any(d.by_layout for d in dets)


def _sure_near(recognizer: OnnxRecognizer, scene, truth) -> list[str]:  # type: ignore[no-untyped-def]
    near = 0.45 * scene.card_width
    return [str(d.card) for d in recognizer.recognize(scene.image)
            if d.card is not None and d.confidence >= recognizer.threshold
            and float(np.linalg.norm(np.array(d.center) - np.array(truth.center))) < near]


def test_r2_the_blanked_look_reads_an_index_with_a_big_pip_beside_it(recognizer, monkeypatch):
    """A layout deck's 4c (benchmark seed 424242, scene 30) whose index both index models take for
    no index, its top pip standing right beside it, is read once the crop's far side is painted
    over with the card stock (``BLANK_FROM``); without the blanked look it is not read at its index
    (the body's rescue of unsure reads left out too: the thirty-sixth session's body model raises
    it from its unsure read). Read with the index classifier's own probabilities (``index_power``
    1.0): softened, it reads the 4c at the first look (thirty-fourth session)."""
    import vision.recognize as R

    monkeypatch.setattr(recognizer, "index_power", 1.0)
    scene = render.render_scene(np.random.default_rng([424242, 30]), render.LAYOUT_DECKS, width=1200, height=800)
    [truth] = [t for t in scene.cards if t.card == "4c"]
    assert _sure_near(recognizer, scene, truth) == ["4c"]
    monkeypatch.setattr(R, "BLANK_FROM", None)
    monkeypatch.setattr(recognizer, "body_floor", None)
    assert _sure_near(recognizer, scene, truth) == []


def _sure(recognizer: OnnxRecognizer, scene) -> set[str]:  # type: ignore[no-untyped-def]
    return {str(d.card) for d in recognizer.recognize(scene.image)
            if d.card is not None and d.confidence >= recognizer.threshold}


def test_r2_a_blanked_read_the_printed_index_leans_against_is_not_read(recognizer, monkeypatch):
    """On an unseen deck's scene (seed 424242, scene 291) a queen of diamonds whose index a chip
    half covers reads 6d at 0.98 on the mean of its five blanked crops, each blanked from the same
    place on the card. The index as printed gives Qd 0.22 and 6d nothing: a blanked read the
    printed index leans against is not read (``BLANK_LEAN``), and no 6d is read anywhere (there is
    no 6d in the scene)."""
    import vision.recognize as R

    scene = render.render_scene(np.random.default_rng([424242, 291]), render.UNSEEN_DECKS, width=800, height=600)
    assert "6d" not in {t.card for t in scene.cards}
    assert "6d" not in _sure(recognizer, scene)
    monkeypatch.setattr(R, "BLANK_LEAN", None)
    assert "6d" in _sure(recognizer, scene)


def test_r2_each_blanked_crop_is_blanked_from_the_same_place_on_the_card(recognizer, monkeypatch):
    """A layout deck's Ah (seed 424242, scene 17; 97% of its far index in view, the near one
    covered) is read by the blanked look only when each of its shifted crops is blanked from the
    same place on the card (``blank_column``): blanked from the same column of the crop, the crop
    shifted toward the card's edge loses the right side of the index and the mean of the five
    falls under the threshold."""
    import vision.recognize as R

    scene = render.render_scene(np.random.default_rng([424242, 17]), render.LAYOUT_DECKS, width=800, height=600)
    assert "Ah" in {t.card for t in scene.cards if t.face_up}
    assert "Ah" in _sure(recognizer, scene)
    monkeypatch.setattr(R, "blank_column", lambda dx: R.BLANK_FROM)
    assert "Ah" not in _sure(recognizer, scene)


def test_r2_a_blanked_club_or_spade_must_reach_the_higher_bar(recognizer, monkeypatch):
    """An unseen deck's 7c (seed 424242, scene 312) that the index classifier reads 7s at 0.77 reads
    7s at 0.963 on the mean of its blanked crops: over the threshold, under ``BLANK_BLACK`` (0.98),
    so no 7s is read; at the threshold the wrong card would be."""
    import vision.recognize as R

    scene = render.render_scene(np.random.default_rng([424242, 312]), render.UNSEEN_DECKS, width=800, height=600)
    assert "7c" in {t.card for t in scene.cards} and "7s" not in {t.card for t in scene.cards}
    assert "7s" not in _sure(recognizer, scene)
    monkeypatch.setattr(R, "BLANK_BLACK", None)
    assert "7s" in _sure(recognizer, scene)

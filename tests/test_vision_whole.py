"""The whole-card model (``models/card_whole.onnx``): the card's two index corners and its pips seen
at once, asked about the places the index left unsure or contested
(``vision.recognize.OnnxRecognizer._whole_look``), on the real model file and rendered cards. A
card it names stands only where its suit and rank are both clear (R2, R3: a hand must be 100%
identifiable, so a doubtful card stays unreadable)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from controller.cards import Card

CARD = "7s"
TWIN = "7c"
"""A card the whole-card model reads sure on the rendered lone card below, and its colour twin."""


@pytest.fixture(scope="module")
def recognizer():
    import cv2

    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    rec = OnnxRecognizer(threads=1)
    assert rec.whole_session is not None, "models/card_whole.onnx is shipped"
    return rec


def _lone_card(card: str, width: float = 64.0) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """A frame of felt with one card of the first training deck ``width`` pixels wide, turned a
    little, and its corners from the top-left (index) corner round."""
    from vision import render

    frame = np.zeros((240, 240, 3), np.uint8)
    frame[:] = (30, 110, 30)
    quad = render._card_quad((120, 120), 8.0, width)
    render._blit_card(frame, render.card_face(render.TRAIN_DECKS[0], card), quad)
    return frame, tuple((float(x), float(y)) for x, y in quad)


def test_r3_a_card_read_unsure_at_its_index_stands_where_the_whole_card_shows_it(recognizer) -> None:
    """An index read unsure (0.8) as the card the whole card shows stands, at the threshold and
    marked as the body's word (so a blurred region refuses it, as every read the body raised); read
    unsure as its colour twin it stays unsure."""
    from vision.recognize import Detection

    frame, quad = _lone_card(CARD)
    right = Detection(Card.parse(CARD), 0.8, quad, 1)
    (out,) = recognizer._whole_look([right], frame)
    assert out.card == Card.parse(CARD) and out.confidence == recognizer.threshold and out.confirmed_by_body
    twin = Detection(Card.parse(TWIN), 0.8, quad, 1)
    assert recognizer._whole_look([twin], frame) == [twin]


def test_r3_a_contested_place_is_the_contender_the_whole_card_shows(recognizer) -> None:
    """Corners read as two cards (a seven of hearts and the seven of spades): the one the whole card
    shows stands, no longer contested. A club against a spade of one rank is left to the body's own
    rules: there the index doubts the black suit itself, the doubt all the models share on decks
    they never saw."""
    from vision.recognize import Detection

    frame, quad = _lone_card(CARD)
    torn = Detection(None, 0.97, quad, contested=True, contest=(Card.parse("7h"), Card.parse(CARD)),
                     contest_confidences=(0.97, 0.96))
    (out,) = recognizer._whole_look([torn], frame)
    assert out.card == Card.parse(CARD) and not out.contested and out.contest == ()
    assert out.confidence == recognizer.threshold and out.confirmed_by_body
    black_pair = dataclasses.replace(torn, contest=(Card.parse(TWIN), Card.parse(CARD)))
    assert recognizer._whole_look([black_pair], frame) == [black_pair]


def test_r3_a_club_or_spade_stands_on_the_whole_card_only_where_no_body_leans_to_its_twin(recognizer,
                                                                                          monkeypatch) -> None:
    """Clubs and spades of decks never trained on are the mistake the models share: a spade the whole
    card shows is left unsure where a body model (index blanked) gives clubs half or more, and stands
    where they give clubs less."""
    from vision import pips
    from vision.recognize import Detection, OnnxRecognizer

    frame, quad = _lone_card(CARD)
    unsure = Detection(Card.parse(CARD), 0.8, quad, 1)

    def bodies(clubs: float):
        def probs(self, frame, quads, session=None):
            p = np.zeros((len(quads), pips.N_SUIT_CLASSES + pips.N_RANKS), np.float32)
            p[:, 0], p[:, 3] = clubs, 1.0 - clubs
            return p
        return probs

    monkeypatch.setattr(OnnxRecognizer, "body_probs", bodies(0.59))
    assert recognizer._whole_look([unsure], frame) == [unsure]
    monkeypatch.setattr(OnnxRecognizer, "body_probs", bodies(0.3))
    assert recognizer._whole_look([unsure], frame)[0].confidence == recognizer.threshold


def test_r2_what_the_whole_look_leaves_alone(recognizer) -> None:
    """No candidate, no read: a place that names no card (a contest settled and then vetoed, with no
    card kept as refused), a back, a card read sure elsewhere in the region, and a card read sure
    already."""
    from vision.recognize import Detection

    frame, quad = _lone_card(CARD)
    refused = Detection(None, 0.99, quad, contest=(Card.parse(CARD),))  # settled, then vetoed
    back = Detection(Card.parse(CARD), 0.8, quad, face_up=False)
    sure_here = Detection(Card.parse(CARD), 0.999, quad, 1)
    for dets in ([refused], [back], [sure_here]):
        assert recognizer._whole_look(list(dets), frame) == dets
    elsewhere = Detection(Card.parse(CARD), 0.999, tuple((x + 500.0, y) for x, y in quad), 1)
    unsure = Detection(Card.parse(CARD), 0.8, quad, 1)
    assert recognizer._whole_look([unsure, elsewhere], frame) == [unsure, elsewhere]


def test_r3_a_refused_red_card_stands_where_the_whole_card_shows_it_a_refused_black_one_never(recognizer,
                                                                                              monkeypatch) -> None:
    """A place a check made unreadable (a queen of hearts the queen check refused) keeps the card it
    was read as; the whole look stands it where the whole card shows that card, not where the card
    is read sure elsewhere in the region, and not with the rule switched off. A refused club or
    spade stays refused even where the whole card shows it: on decks never trained on the index,
    the bodies and the whole card can all take a club for a spade."""
    from vision import recognize
    from vision.recognize import Detection, _unread

    frame, quad = _lone_card("Qh")
    refused = _unread(Detection(Card.parse("Qh"), 0.98, quad, 1))
    assert refused.card is None and refused.refused == Card.parse("Qh")
    (out,) = recognizer._whole_look([refused], frame)
    assert out.card == Card.parse("Qh") and out.confidence == recognizer.threshold and out.confirmed_by_body
    other = _unread(Detection(Card.parse("Qd"), 0.98, quad, 1))  # the whole card shows a heart
    assert recognizer._whole_look([other], frame) == [other]
    elsewhere = Detection(Card.parse("Qh"), 0.999, tuple((x + 500.0, y) for x, y in quad), 1)
    assert recognizer._whole_look([refused, elsewhere], frame) == [refused, elsewhere]
    frame, quad = _lone_card(CARD)
    black = _unread(Detection(Card.parse(CARD), 0.98, quad, 1))
    assert recognizer._whole_look([black], frame) == [black]
    assert recognizer._whole_look([Detection(Card.parse(CARD), 0.8, quad, 1)], frame)[0].card == Card.parse(CARD)
    monkeypatch.setattr(recognize, "WHOLE_REFUSED", False)
    frame, quad = _lone_card("Qh")
    assert recognizer._whole_look([refused], frame) == [refused]


def test_r2_one_card_stands_at_one_place_only(recognizer) -> None:
    """Two unsure places read as the same card, both shown it by the whole card: the first stands,
    the second stays unsure (a deck has one of each card)."""
    from vision.recognize import Detection

    frame, quad = _lone_card(CARD)
    a = Detection(Card.parse(CARD), 0.8, quad, 1)
    b = dataclasses.replace(a, confidence=0.7)
    out = recognizer._whole_look([a, b], frame)
    assert out[0].card == Card.parse(CARD) and out[0].confidence == recognizer.threshold
    assert out[1] == b


def test_r2_the_whole_look_adds_reads_on_rendered_scenes_and_none_wrong(recognizer) -> None:
    """On rendered tuning scenes of small cards the whole look reads cards the recogniser without it
    misses, and no card wrong; every card it adds was read unsure or contested before."""
    from bench.bench_vision import bench_scene, match_reads
    from vision import render
    from vision.recognize import OnnxRecognizer

    without = OnnxRecognizer(threads=1, whole_model_path=None)
    gained = 0
    for i in SCENES_WITH_A_GAIN:
        scene = bench_scene(render.TRAIN_DECKS, 50505, i)
        readable = {j for j, t in enumerate(scene.cards) if t.readable}
        _, before, wrong_before = match_reads(scene, without.recognize(scene.image), without.threshold)
        _, after, wrong_after = match_reads(scene, recognizer.recognize(scene.image), recognizer.threshold)
        assert not wrong_after and not wrong_before
        assert before & readable <= after
        gained += len((after - before) & readable)
    assert gained >= len(SCENES_WITH_A_GAIN)


SCENES_WITH_A_GAIN = (33, 175)
"""Seen-deck tuning scenes (seed 50505) where the whole look reads a small card the recogniser
without it leaves contested: a Kd 59 px wide, a Tc 70 px wide (forty-seventh session)."""


def test_the_whole_card_model_file_is_small_and_says_what_it_crops() -> None:
    """One self-contained file of about 1.8 MB (all the shipped models together stay under 10 MB, a
    test of their own), its metadata naming its crops as kept whole."""
    import onnxruntime as ort

    from vision.recognize import DEFAULT_WHOLE_MODEL

    assert DEFAULT_WHOLE_MODEL.stat().st_size < 2_500_000
    session = ort.InferenceSession(str(DEFAULT_WHOLE_MODEL), providers=["CPUExecutionProvider"])
    meta = session.get_modelmeta().custom_metadata_map
    assert meta["index"] == "kept" and "index regions kept" in meta["crop"]


def test_a_model_that_blanks_the_index_is_no_whole_card_model(tmp_path) -> None:
    """The body-suit model named as the whole-card model would be shown crops unlike its training:
    refused by name, as a missing file is."""
    from vision.recognize import DEFAULT_SUIT_MODEL, OnnxRecognizer

    with pytest.raises(ValueError, match="not a whole-card model"):
        OnnxRecognizer(threads=1, whole_model_path=DEFAULT_SUIT_MODEL)
    with pytest.raises(FileNotFoundError, match="no such whole-card model"):
        OnnxRecognizer(threads=1, whole_model_path=tmp_path / "none.onnx")


def test_suit_whole_trains_a_model_the_recogniser_takes_as_whole(tmp_path) -> None:
    """``--suit-only --suit-whole``: crops that keep the index, three quarters of the scenes with
    small cards unless ``--suit-small`` says, the file marked for the recogniser."""
    pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    import json

    from vision import train
    from vision.recognize import OnnxRecognizer

    out, stats = tmp_path / "whole.onnx", tmp_path / "stats.json"
    rc = train.main(["--suit-only", "--suit-whole", "--suit-scenes", "3", "--suit-epochs", "1", "--suit-out",
                     str(out), "--stats", str(stats), "--cache-dir", str(tmp_path)])
    assert rc == 0 and out.exists()
    figures = json.loads(stats.read_text())["suit"]
    assert figures["index_blanked"] is False and figures["small_share"] == 0.75
    rec = OnnxRecognizer(threads=1, whole_model_path=out)
    assert rec.whole_session is not None


def test_suit_whole_and_suit_small_refuse_what_they_cannot_do(capsys) -> None:
    """``--suit-whole`` trains that model alone; ``--suit-small`` is a share: refused by name before
    anything is rendered."""
    from vision import train

    for argv, why in ((["--suit-whole"], "give --suit-only too"),
                      (["--suit-only", "--suit-small", "1.5"], "is not a share from 0 to 1"),
                      (["--suit-only", "--suit-small", "half"], "is not a number")):
        with pytest.raises(SystemExit):
            train.main(argv)
        assert why in capsys.readouterr().err

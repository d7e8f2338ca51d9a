"""The light's colour (vision/light.py): a tinted card stock is measured and made white again, and a
frame under white light is read exactly as it is."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import light

REPO = pathlib.Path(__file__).resolve().parents[1]


def _table(paper=(235, 235, 235), felt=(40, 110, 30), seed: int = 0) -> np.ndarray:
    """A felt with three cards of ``paper`` colour, their print black, and some noise."""
    import cv2

    rng = np.random.default_rng(seed)
    frame = np.empty((300, 400, 3), np.uint8)
    frame[:] = felt
    for x in (40, 160, 280):
        cv2.rectangle(frame, (x, 60), (x + 80, 172), paper, -1)
        cv2.putText(frame, "K", (x + 6, 88), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (25, 25, 25), 2)
    noisy = frame.astype(np.float32) + rng.normal(0, 2, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def test_a_frame_under_white_light_is_left_as_it_is():
    frame = _table()
    assert light.white_balance(frame) is frame
    assert light.cast_of(light.paper_colour(frame)) < 1.03


def test_a_frame_with_no_card_stock_is_left_as_it_is():
    felt = np.full((200, 300, 3), (40, 110, 30), np.uint8)
    assert light.paper_colour(felt) is None
    assert light.white_balance(felt) is felt


@settings(max_examples=25, deadline=None)
@given(blue=st.floats(0.66, 0.92), green=st.floats(0.8, 1.0),
       felt=st.sampled_from([(40, 110, 30), (120, 70, 20), (40, 40, 120), (60, 100, 60)]))
def test_a_tinted_card_stock_is_made_white(blue, green, felt):
    """Any warm light from a cast of 1.09 to 1.5: the cards come back white (within 2%), their
    print dark, and the felt keeps its hue."""
    frame = _table(felt=felt)
    tint = np.array([blue, green, 1.0], np.float32)
    lit = np.clip(frame.astype(np.float32) * tint, 0, 255).astype(np.uint8)
    if light.cast_of(light.paper_colour(lit)) < light.MIN_CAST:
        return  # (a faint tint: left alone, by design)
    out = light.white_balance(lit)
    paper = light.paper_colour(out)
    assert paper is not None and light.cast_of(paper) < 1.02
    card = out[100:160, 50:110].reshape(-1, 3).astype(np.float32)
    assert np.ptp(np.median(card, axis=0)) < 6
    assert out[80, 50].max() < 90  # the print stays dark


def test_a_coloured_object_is_not_taken_for_the_light():
    """A frame whose brightest nearly neutral pixels are far from white (a cast over MAX_CAST) is not
    'corrected'."""
    frame = np.full((200, 300, 3), (40, 110, 30), np.uint8)
    frame[50:150, 50:250] = (150, 200, 245)  # a cream-orange object, no card: cast 1.63
    assert light.cast_of(light.paper_colour(frame)) > light.MAX_CAST
    assert light.white_balance(frame) is frame


def _bench():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(REPO / "bench"))
    import bench_vision
    import vision_light

    return bench_vision, vision_light


def _right(rec, dets, scene) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    right = wrong = 0
    for d in dets:
        if d.card is None or d.confidence < rec.threshold:
            continue
        if any(t.face_up and t.card == str(d.card)
               and np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]) < 0.45 * scene.card_width
               for t in scene.cards):
            right += 1
        else:
            wrong += 1
    return right, wrong


def test_a_warm_lit_scene_reads_as_under_white_light():
    """Benchmark scene 1 (seen decks) under warm lamps: uncorrected, the tinted card stock loses one
    of its ten cards read right (two before the thirty-ninth session's body models, four before
    tinted stock joined plain stock, twenty-ninth session);
    corrected, the frame reads as many as under white light or more (10 and 9), with no wrong read.
    Read with the index classifier's own probabilities (``index_power`` 1.0): softened
    (``INDEX_HEAD_POWER``, thirty-fourth session) the uncorrected frame loses one card, not two."""
    pytest.importorskip("onnxruntime")
    from vision import render
    from vision.recognize import OnnxRecognizer

    bench_vision, vision_light = _bench()
    scene = bench_vision.bench_scene(render.TRAIN_DECKS, 424242, 1)
    warm = vision_light.CONDITIONS["warm"](scene.image)
    rec = OnnxRecognizer()
    rec.index_power = 1.0
    white = _right(rec, rec.recognize(scene.image), scene)
    corrected = _right(rec, rec.recognize(warm), scene)
    rec.white_balance = False
    uncorrected = _right(rec, rec.recognize(warm), scene)
    assert white[0] >= 9 and white[1] == 0
    assert corrected[0] >= white[0] and corrected[1] == 0
    assert uncorrected[0] <= corrected[0] - 1


def test_a_warm_lit_table_keeps_its_identifiable_seats():
    """Ten-seat table ``[515151, 3]`` under warm lamps, through the table path
    (``TableWatcher``): seven seats identifiable under white light (six before the thirty-eighth
    session's body models), two when the warm cast is left on the frame, and again at least seven,
    none wrong, when the watcher undoes it."""
    pytest.importorskip("onnxruntime")
    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import TableWatcher

    _, vision_light = _bench()
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    scene = render.render_table(np.random.default_rng([515151, 3]), render.TRAIN_DECKS)
    warm = vision_light.CONDITIONS["warm"](scene.image)
    rec = OnnxRecognizer()

    def seats(image: np.ndarray, correct: bool) -> tuple[int, int]:
        watcher = TableWatcher(cam, rec)
        watcher.white_balance = correct
        views = [v for v in watcher.watch(image) if v.identifiable]
        right = sum(sorted(map(str, v.cards)) == sorted(t.card for t in scene.cards if t.seat == v.seat)
                    for v in views)
        return right, len(views) - right

    assert seats(scene.image, True) == (7, 0)
    corrected = seats(warm, True)
    assert corrected[0] >= 7 and corrected[1] == 0
    assert seats(warm, False)[0] <= 3


def _blurred_seat(table: int, decks, seat: int):  # type: ignore[no-untyped-def]
    """``(truth, view)``: the cards of ``seat`` at the benchmark's ten-seat table ``[515151, table]``
    and, for a recogniser, that seat's single-frame verdict with the frame out of focus
    (``bench/vision_light.py`` ``blur``)."""
    from vision import render
    from vision.config import load_camera_config
    from vision.watch import TableWatcher

    _, vision_light = _bench()
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    scene = render.render_table(np.random.default_rng([515151, table]), decks)
    blurred = vision_light.CONDITIONS["blur"](scene.image)

    def view(rec):  # type: ignore[no-untyped-def]
        [v] = [v for v in TableWatcher(cam, rec).watch(blurred) if v.seat == seat]
        return v

    return sorted(t.card for t in scene.cards if t.seat == seat), view


def test_r3_a_blurred_club_spade_contest_the_second_body_model_doubts_stays_unreadable(monkeypatch, tmp_path,
                                                                                       constant_body_model):
    """Table ``[515151, 6]`` seat 9 out of focus (``bench/vision_light.py`` ``blur``): the jack of
    spades' index corners read Jc 0.84 and Js 0.65, and the thirty-eighth session's first body
    model saw clubs at 0.98 and a jack. Settled on its word, the seat was identified with a card it
    does not hold; its second body model gave spades 0.32, over ``BLACK_PAIR_SECOND``. The
    thirty-ninth session's first model does not settle it, and its second gives spades less, so
    constant models stand in for that pair here: a first that sees the jack of clubs, a second that
    sees spades. The jack stays contested and the seat is not identifiable; without that check it is
    identified wrongly. (The frame is out of focus, where since the forty-fourth session no read the
    body settles stands at all: that check is off here, to see this rule on its own; on, it also
    keeps the seat from the wrong card.)"""
    pytest.importorskip("onnxruntime")
    import vision.recognize as R
    from vision import render

    truth, seat_9 = _blurred_seat(6, render.TRAIN_DECKS, 9)
    rec = R.OnnxRecognizer(suit_model_path=constant_body_model(tmp_path / "jc.onnx", "c", "J"),
                           suit_layout_model_path=constant_body_model(tmp_path / "js.onnx", "s", "J"))
    rec.focus_limit = None
    assert truth == ["4h", "Js"]
    view = seat_9(rec)
    assert not view.identifiable and [str(c) for c in view.cards] == ["4h"]
    monkeypatch.setattr(R, "BLACK_PAIR_SECOND", None)
    view = seat_9(rec)
    assert view.identifiable and sorted(map(str, view.cards)) == ["4h", "Jc"]
    rec.focus_limit = R.focus.SHARP_EDGE
    view = seat_9(rec)
    assert not view.identifiable and [str(c) for c in view.cards] == ["4h"]


def test_r3_a_blurred_club_read_as_a_spade_is_refused_when_its_other_corner_shows_clubs(monkeypatch):
    """Table ``[515151, 4]`` seat 5 out of focus, unseen decks: a ``p052`` king of clubs is read Ks
    at 0.994 at one index corner. Its body cropped from that corner said spades 0.76 to the
    thirty-ninth session's first body model, and cropped from the other corner clubs 0.985: the
    second look from the other corner (``TWIN_VETO_TURNED``) vetoed it. The fortieth session's
    first model gives clubs 0.25 from the read corner and 0.53 from the other, the second model
    0.52: both models give the twin half or more, the first from either corner (``TWIN_VETO_BOTH``),
    and the seat is not identifiable. Without the look from the other corner it is identified with a
    card it does not hold. (The frame is out of focus, where since the forty-fourth session no read
    the body raised stands, the ace's included: that check is off here, to see this rule on its own;
    on, it leaves the seat unidentified for the ace, not for the king, which its index read.)"""
    pytest.importorskip("onnxruntime")
    import vision.recognize as R
    from vision import render

    truth, seat_5 = _blurred_seat(4, render.UNSEEN_DECKS, 5)
    rec = R.OnnxRecognizer()
    rec.focus_limit = None
    assert truth == ["Ac", "Kc"]
    view = seat_5(rec)
    assert not view.identifiable and [str(c) for c in view.cards] == ["Ac"]
    monkeypatch.setattr(R, "TWIN_VETO_TURNED", False)
    view = seat_5(rec)
    assert view.identifiable and sorted(map(str, view.cards)) == ["Ac", "Ks"]
    rec.focus_limit = R.focus.SHARP_EDGE  # the ace the body raised is put back; the king, read at its index, is not
    view = seat_5(rec)
    assert not view.identifiable and [str(c) for c in view.cards] == ["Ks"] and "out of focus" in view.detail

"""Per-seat verdict logic (R2, R3): canned detections, no model."""

from __future__ import annotations

import pytest

from controller.cards import Card, parse_cards
from vision.recognize import Detection
from vision.verdict import (
    Reason,
    SeatEvidence,
    SeatView,
    StabilityFilter,
    judge_frame,
    judge_seat,
)

T = 0.95
QUAD = ((0.0, 0.0), (10.0, 0.0), (10.0, 14.0), (0.0, 14.0))


def det(card: str | None, conf: float = 0.99) -> Detection:
    return Detection(None if card is None else Card.parse(card), conf, QUAD, 2 if card else 0)


def ev(*dets: Detection, seat: int = 1, face_down: int = 0, unexplained: float = 0.0) -> SeatEvidence:
    return SeatEvidence(seat, tuple(dets), face_down, unexplained)


def test_two_cards_read_is_identifiable_in_holdem():
    v = judge_seat(ev(det("As"), det("Kd")), needed=2, threshold=T)
    assert v.identifiable and v.reason is Reason.OK
    assert set(v.cards) == set(parse_cards("AsKd"))
    assert v.confidence == pytest.approx(0.99)


@pytest.mark.parametrize("needed,cards", [(4, "AsKdQh2c"), (7, "AsKdQh2c3c4c5c")])
def test_omaha_and_stud_need_all_their_cards(needed, cards):
    ds = [det(str(c)) for c in parse_cards(cards)]
    assert judge_seat(ev(*ds), needed, T).identifiable
    v = judge_seat(ev(*ds[:-1]), needed, T)
    assert not v.identifiable and v.reason is Reason.MISSING


def test_missing_card():
    v = judge_seat(ev(det("As")), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.MISSING)
    assert "1 of 2" in v.detail


def test_face_down_card():
    v = judge_seat(ev(det("As"), face_down=1), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.FACE_DOWN)


def test_face_down_beats_two_reads():
    # a back beside two read cards: something is not right, precision first
    v = judge_seat(ev(det("As"), det("Kd"), face_down=1), 2, T)
    assert not v.identifiable and v.reason is Reason.FACE_DOWN


def test_covered_card_stock_without_readable_index():
    v = judge_seat(ev(det("As"), unexplained=0.8), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.COVERED)


def test_unreadable_detection_is_covered():
    v = judge_seat(ev(det("As"), det(None, 0.2)), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.COVERED)


def test_low_confidence_is_unsure_and_never_counts():
    v = judge_seat(ev(det("As"), det("Kd", 0.9)), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.UNSURE)
    assert v.cards == (Card.parse("As"),)


def test_disagreeing_corners_are_unsure():
    v = judge_seat(ev(det("As"), det(None, 0.97)), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.UNSURE)


def test_too_many_cards_is_unsure():
    v = judge_seat(ev(det("As"), det("Kd"), det("2c")), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.UNSURE)


def test_duplicate_in_one_seat():
    v = judge_seat(ev(det("As"), det("As")), 2, T)
    assert (v.identifiable, v.reason) == (False, Reason.DUPLICATE)


def test_duplicate_across_seats():
    views = judge_frame([ev(det("As"), det("Kd"), seat=1), ev(det("As"), det("2c"), seat=2)], 2, T)
    assert [v.reason for v in views] == [Reason.DUPLICATE, Reason.DUPLICATE]
    assert not any(v.identifiable for v in views)


def test_reader_agreement_and_mismatch():
    e = ev(det("As"), det("Kd"))
    ok = judge_frame([e], 2, T, reader={1: parse_cards("AsKd")})[0]
    assert ok.identifiable and ok.mismatch == ()
    bad = judge_frame([e], 2, T, reader={1: parse_cards("AsKc")})[0]
    assert (bad.identifiable, bad.reason) == (False, Reason.MISMATCH)
    assert bad.mismatch == (Card.parse("Kd"),)
    assert "Kc" in bad.detail
    # a seat the reader knows nothing about is judged on the camera alone
    assert judge_frame([e], 2, T, reader={3: parse_cards("2c3c")})[0].identifiable
    assert judge_frame([e], 2, T, reader={1: []})[0].identifiable


def test_r3_reader_that_knows_one_card_checks_that_card_only():
    """A card dealt while no antenna saw it ("??"): the reader knows one of the two cards. The
    camera may supply the one the reader lacks; reading two cards the reader does not have, or
    more cards than the hand holds, is still refused."""
    e = ev(det("As"), det("Kd"))
    assert judge_frame([e], 2, T, reader={1: parse_cards("As")})[0].identifiable
    bad = judge_frame([e], 2, T, reader={1: parse_cards("Ah")})[0]
    assert (bad.identifiable, bad.reason) == (False, Reason.MISMATCH)
    assert bad.mismatch == (Card.parse("As"), Card.parse("Kd"))


def test_stability_over_frames():
    f = StabilityFilter(3)
    good = judge_seat(ev(det("As"), det("Kd")), 2, T)
    assert [f.update(good).identifiable for _ in range(4)] == [False, False, True, True]
    assert f.update(good).stable_for == 5
    # a different reading restarts the count; a bad frame resets it
    other = judge_seat(ev(det("As"), det("Kc")), 2, T)
    held = f.update(other)
    assert not held.identifiable and held.reason is Reason.UNSURE and held.stable_for == 1
    f.update(judge_seat(ev(det("As")), 2, T))
    assert not f.update(good).identifiable


def test_stability_is_per_seat():
    f = StabilityFilter(2)
    a = judge_seat(ev(det("As"), det("Kd"), seat=1), 2, T)
    b = judge_seat(ev(det("2c"), det("3c"), seat=2), 2, T)
    f.update(a)
    f.update(b)
    assert f.update(a).identifiable and f.update(b).identifiable


def test_seat_view_is_frozen_and_serialises():
    v = judge_seat(ev(det("As"), det("Kd")), 2, T, frame=7)
    with pytest.raises(AttributeError):
        v.identifiable = False  # type: ignore[misc]
    j = v.to_json()
    assert j["seat"] == 1 and j["frame"] == 7 and j["reason"] == "ok" and sorted(j["cards"]) == ["As", "Kd"]
    assert isinstance(v, SeatView)

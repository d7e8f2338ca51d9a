"""A camera out of focus (vision.focus): the card edges' width measured in a frame, the body models'
word not taken where the frame is blurrier than the scenes they learnt (R3: a card read wrong awards
a pot to the wrong player), the seat's reason, `vision calibrate`'s line and the controller's
surveillance alert."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from controller.cards import Card
from vision import focus

REPO = pathlib.Path(__file__).resolve().parents[1]


def _scene(seed: tuple[int, int], decks: str = "seen", **kw):  # type: ignore[no-untyped-def]
    import cv2

    from vision import render

    cv2.setNumThreads(1)
    chosen = render.TRAIN_DECKS if decks == "seen" else render.UNSEEN_DECKS
    return render.render_scene(np.random.default_rng(list(seed)), chosen, width=800, height=600, **kw)


def _edge_width(image: np.ndarray) -> float | None:
    from vision import detect

    return detect.card_masks(image).edge_width()


@pytest.mark.parametrize("seed", [(777, 1), (777, 3)])
def test_edge_width_grows_with_the_blur_and_tells_a_sharp_frame_from_one_out_of_focus(seed) -> None:
    """Rendered with no blur of their own, then blurred by a known sigma: the measure grows with the
    sigma (about its square sum with half a pixel), stays under the limit for a sharp frame and the
    renderer's own blur (up to 1 px), and is over it at 1.4 px more."""
    import cv2

    scene = _scene(seed, max_blur=0.0)
    widths = {s: _edge_width(scene.image if s == 0 else cv2.GaussianBlur(scene.image, (0, 0), s))
              for s in (0.0, 1.0, 1.4, 2.0)}
    assert all(w is not None for w in widths.values())
    assert widths[0.0] < widths[1.0] < widths[1.4] < widths[2.0]  # type: ignore[operator]
    for s, w in widths.items():
        assert abs(w - (0.55**2 + s**2) ** 0.5) < 0.3, (s, w)  # type: ignore[operator]
    assert not focus.blurred(widths[0.0]) and not focus.blurred(widths[1.0] - 0.1)  # type: ignore[operator]
    assert focus.blurred(widths[1.4]) and focus.blurred(widths[2.0])


def test_a_frame_without_card_edges_has_no_focus_measure() -> None:
    felt = np.full((300, 400, 3), (40, 110, 30), np.uint8)
    assert _edge_width(felt) is None
    assert focus.line(None) == "focus: not measured (no card edge on the felt in view)"


def test_r3_out_of_focus_no_read_the_body_raised_stands() -> None:
    """Benchmark scene [424242, 186] of the unseen decks (cards 60 px wide) with 1.4 px more blur:
    the body models, trained on sharp scenes only, raise a Kc and a Qc as spades. The frame's
    edges measure out of focus, so every read the body raised is made unreadable and marked; with
    the check off (``focus_limit = None``) the two wrong reads stand. The frame as rendered reads
    the same either way."""
    import cv2

    from vision.recognize import OnnxRecognizer

    scene = _scene((424242, 186), "unseen")
    blurred = cv2.GaussianBlur(scene.image, (0, 0), 1.4)
    rec = OnnxRecognizer(threads=1)

    def wrong(dets) -> list[str]:  # type: ignore[no-untyped-def]
        truth = {str(t.card) for t in scene.cards if t.face_up}
        return sorted(str(d.card) for d in dets if d.card is not None and d.confidence >= rec.threshold
                      and str(d.card) not in truth)

    guarded = rec.recognize(blurred)
    rec.focus_limit = None
    unguarded = rec.recognize(blurred)
    sharp_unguarded = rec.recognize(scene.image)
    rec.focus_limit = focus.SHARP_EDGE
    assert wrong(unguarded) == ["Ks", "Qs"]
    assert all(d.confirmed_by_body for d in unguarded if str(d.card) in ("Ks", "Qs"))
    assert wrong(guarded) == []
    put_back = [d for d in guarded if d.out_of_focus]
    assert len(put_back) >= 2 and all(d.card is None and not d.confirmed_by_body for d in put_back)
    # what the index read alone stands
    assert {str(d.card) for d in guarded if d.card is not None and not d.out_of_focus} == {
        str(d.card) for d in unguarded if d.card is not None and not d.confirmed_by_body}
    assert rec.recognize(scene.image) == sharp_unguarded


def test_r3_a_seat_whose_card_was_put_back_out_of_focus_says_so() -> None:
    from vision.recognize import Detection
    from vision.verdict import Reason, SeatEvidence, judge_seat

    quad = ((0.0, 0.0), (60.0, 0.0), (60.0, 84.0), (0.0, 84.0))
    read = Detection(Card.parse("Ah"), 0.99, quad)
    put_back = Detection(None, 0.96, tuple((x + 100, y) for x, y in quad), out_of_focus=True)
    view = judge_seat(SeatEvidence(1, (read, put_back)), 2, 0.96)
    assert not view.identifiable and view.reason == Reason.UNSURE
    assert view.detail == "1 card(s) seen but not readable (1 of them because the camera is out of focus)"
    plain = judge_seat(SeatEvidence(1, (read, Detection(None, 0.96, put_back.corners))), 2, 0.96)
    assert plain.detail == "1 card(s) seen but not readable"


def test_calibrate_says_whether_the_camera_is_in_focus(tmp_path, capsys) -> None:
    import cv2

    from controller.cli import main
    from vision import render

    table = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False)
    lines, said = {}, {}
    for name, image in (("sharp", table.image), ("blurred", cv2.GaussianBlur(table.image, (0, 0), 1.6))):
        path = tmp_path / f"{name}.png"
        cv2.imwrite(str(path), image)
        assert main(["vision", "calibrate", str(path), "--config", str(REPO / "config" / "table.toml"),
                     "--out", str(tmp_path / f"{name}-zones.png")]) == 0
        said[name] = capsys.readouterr().out.splitlines()
        lines[name] = next(line for line in said[name] if line.startswith("focus:"))
    assert lines["sharp"].endswith("as sharp as the scenes the models learnt (up to 1.2)")
    assert "blurrier than any scene the models learnt" in lines["blurred"]
    assert lines["blurred"].endswith("focus the camera")
    assert not [line for line in said["blurred"] if line.startswith("seat ")]  # the whole frame: one line
    for name in ("sharp", "blurred"):  # vision check says it too, under the seats, where it matters
        assert main(["vision", "check", str(tmp_path / f"{name}.png"), "--config",
                     str(REPO / "config" / "table.toml")]) == 0
        out = capsys.readouterr().out
        assert ("camera focus: card edges" in out) == (name == "blurred"), out


def test_calibrate_names_a_seat_out_of_focus_when_the_rest_is_sharp(tmp_path, capsys) -> None:
    """An angled camera's depth of field: one seat zone blurred, the rest sharp. The frame's line
    says in focus (most edges are sharp); the seat gets a line of its own."""
    import cv2

    from controller.cli import main
    from vision import render
    from vision.config import load_camera_config

    table = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False)
    zone = next(z for z in load_camera_config(REPO / "config" / "table.toml").zones if z.seat == 6)
    x, y, w, h = zone.bounds(1920, 1080)
    frame = table.image.copy()
    frame[y : y + h, x : x + w] = cv2.GaussianBlur(table.image, (0, 0), 1.6)[y : y + h, x : x + w]
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    assert main(["vision", "calibrate", str(path), "--config", str(REPO / "config" / "table.toml"),
                 "--out", str(tmp_path / "zones.png")]) == 0
    said = capsys.readouterr().out.splitlines()
    assert next(line for line in said if line.startswith("focus:")).endswith("as sharp as the scenes the models learnt "
                                                                              "(up to 1.2)")
    seats = [line for line in said if line.startswith("seat ") and "focus:" in line]
    assert len(seats) == 1 and seats[0].startswith("seat 6: focus: card edges ")
    assert seats[0].endswith("focus the camera on this seat")


def test_r3_controller_alerts_surveillance_while_the_camera_stays_out_of_focus(tmp_path) -> None:
    """The running controller's camera link (real watcher, real models, a real SQLite log) at a
    showdown: three focus measures in a row out of focus raise one ``camera_out_of_focus`` alert,
    and a sharp frame after it ``camera_in_focus``."""
    import cv2

    from controller.eventlog import EventLog
    from controller.runtime import FOCUS_ALERT_AFTER, CameraLink
    from controller.service import TableService
    from vision import render
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import FOCUS_EVERY

    game = {"table_id": "focus-1", "variant": "NT", "seats": 6, "stakes": {"small_blind": 1, "big_blind": 2},
            "smallest_chip": 1}
    svc = TableService(game, EventLog(tmp_path / "t.db", table_id="focus-1"))
    for seat in (1, 2, 3):
        svc.command("seat_player", {"seat": seat, "name": f"p{seat}", "stack": 100})
    table = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False)
    shown = {seat: "".join(str(t.card) for t in table.cards if t.seat == seat) for seat in (1, 2, 3)}
    rest = [str(c) for c in map(Card.from_index, range(52)) if str(c) not in {str(t.card) for t in table.cards}]
    svc.command("start_hand", {"button": 3})
    for seat, cards in shown.items():  # the reader's cards are the ones the camera sees: no mismatch
        svc.command("deal", {"seat": seat, "cards": cards})
    svc.command("fold", {"seat": 3})
    svc.command("check_call", {"seat": 1})
    svc.command("check_call", {"seat": 2})
    for board in ("".join(rest[:3]), rest[3], rest[4]):
        svc.command("deal", {"seat": None, "cards": board})
        svc.command("check_call", {"seat": 1})
        svc.command("check_call", {"seat": 2})
    assert svc.snapshot()["hand"]["complete"]
    cam = load_camera_config(REPO / "config" / "table.toml")
    link = CameraLink(svc, cam, OnnxRecognizer(threads=1, card_width=cam.card_width))
    soft = cv2.GaussianBlur(table.image, (0, 0), 1.6)

    def focus_alerts() -> list[str]:
        return [a["alert"] for a in svc.alerts() if a["alert"].startswith("camera_")]

    for _ in range(FOCUS_EVERY * (FOCUS_ALERT_AFTER - 1) + 1):  # the measures of frames 0, 10, 20
        link.look(soft)
    assert focus_alerts() == ["camera_out_of_focus"]
    alert = next(a for a in svc.alerts() if a["alert"] == "camera_out_of_focus")
    assert alert["edge_width"] > focus.SHARP_EDGE and "focus the camera" in alert["detail"]
    for _ in range(FOCUS_EVERY):
        link.look(table.image)
    assert focus_alerts() == ["camera_out_of_focus", "camera_in_focus"]
    svc.close()

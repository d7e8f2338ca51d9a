"""Decks that print a "jumbo index" (``camera.index_scale``): the index classifier refuses crops
more than about 15% off scale, so a deck whose index prints 1.8 times as large as a standard one
reads almost nothing at its card width. With ``index_scale`` the cards are read at that multiple of
the width and placed at the width itself, and ``cardroom vision calibrate`` measures the scale (R2,
R3: a hand the camera cannot read is not identifiable, so a jumbo deck left unconfigured sends
every showdown to the dealer's eyes).

The scenes are the real renderer's, read by the real models; the jumbo decks are training decks
drawn with their index 1.8 times as large (``bench/vision_jumbo.py``)."""

from __future__ import annotations

import json
import math
import pathlib
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))


def _jumbo_table(seed: list[int], cards: int = 2):  # type: ignore[no-untyped-def]
    from vision import render

    return render.render_table(np.random.default_rng(seed), render.jumbo_decks(render.TRAIN_DECKS[:4], 1.8),
                               variant_cards=cards, hard=False)


def test_r2_a_jumbo_index_deck_is_read_at_its_index_scale_and_placed_at_the_card_width() -> None:
    """Read at the configured 72 px, no seat of a jumbo-index table is identifiable; with
    ``index_scale = 1.35`` most are, each with its own two cards, and every card read is placed on
    the card (its centre within the benchmark's 0.45 widths, its width 72 px, not 97)."""
    import cv2

    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import TableWatcher

    cv2.setNumThreads(1)
    scene = _jumbo_table([9000, 2])
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    assert cam.card_width == 72 and cam.index_scale == 1.0
    plain = TableWatcher(cam, OnnxRecognizer(threads=1)).watch(scene.image)
    assert not any(v.identifiable for v in plain)
    jumbo = cam.model_copy(update={"index_scale": 1.35})
    watcher = TableWatcher(jumbo, OnnxRecognizer(threads=1, index_scale=1.35))
    views = watcher.watch(scene.image)
    truth = {s: sorted(t.card for t in scene.cards if t.seat == s) for s in range(1, 11)}
    named = [v for v in views if v.identifiable]
    assert len(named) >= 7
    assert all(sorted(map(str, v.cards)) == truth[v.seat] for v in named)
    placed = 0
    for ev in watcher.evidence(scene.image):
        for d in ev.detections:
            if d.card is None:
                continue
            t = next(t for t in scene.cards if t.card == str(d.card))
            assert math.dist(d.center, t.center) < 0.45 * scene.card_width, (d.card, d.center, t.center)
            assert abs(math.dist(d.corners[0], d.corners[1]) - 72.0) < 1.0
            placed += 1
    assert placed >= 14


def test_r2_calibrate_advises_the_index_scale_of_a_jumbo_deck_and_not_of_a_standard_one(tmp_path, capsys) -> None:
    """One card laid in each seat: for the jumbo deck ``vision calibrate`` reads the frame at each
    index scale and advises one between 1.2 and 1.55, which then reads the cards; for a standard
    deck it advises nothing."""
    import cv2

    from controller.cli import main
    from vision import render

    cv2.setNumThreads(1)
    config = str(REPO / "config" / "table.toml")

    def index_line(image: np.ndarray) -> str:
        img = tmp_path / "frame.png"
        cv2.imwrite(str(img), image)
        assert main(["vision", "calibrate", str(img), "--config", config, "--out", str(tmp_path / "z.png")]) == 0
        return next(x for x in capsys.readouterr().out.splitlines() if x.startswith("index:"))

    line = index_line(_jumbo_table([9100, 0], cards=1).image)
    assert "set index_scale = " in line, line
    advised = float(line.split("set index_scale = ")[1].split()[0])
    assert 1.2 <= advised <= 1.55
    counts = dict((float(s), int(n)) for n, s in (part.split(" at ") for part in
                                                    line.split(": ")[2].split(", ")))
    # ten cards laid: the advised scale reads nearly all of them. At 1.0 the scale-tolerant model reads some
    # too, on its card given an index (6 since the sixty-fifth session's TOLERANT_NOT_INDEX_UP_TO, 5 or fewer
    # before); the advice still stands on clearly more
    assert counts[advised] >= 9 and counts[advised] >= counts[1.0] + 3
    standard = render.render_table(np.random.default_rng([9100, 0]), render.TRAIN_DECKS[:4], variant_cards=1,
                                   hard=False)
    line = index_line(standard.image)
    assert "no other index scale reads clearly more than camera.index_scale 1" in line, line


def test_a_bad_index_scale_is_refused_naming_it(tmp_path, capsys) -> None:
    """Out of range in the table file, on the command line or to the recogniser; and a watcher whose
    recogniser reads at another scale than the camera's is refused rather than silently misreading."""
    import cv2

    from controller.cli import main
    from vision.config import ConfigError, load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import TableWatcher

    text = (REPO / "config" / "table.toml").read_text()
    assert "index_scale = 1.0" in text
    cfg = tmp_path / "table.toml"
    cfg.write_text(text.replace("index_scale = 1.0", "index_scale = 4.0", 1))
    with pytest.raises(ConfigError, match=r"camera\.index_scale: Input should be less than or equal to 3"):
        load_camera_config(cfg)
    with pytest.raises(ValueError, match=r"index_scale 0\.2: must be 0\.5 to 3\.0"):
        OnnxRecognizer(threads=1, index_scale=0.2)
    cam = load_camera_config(REPO / "config" / "table.toml")
    with pytest.raises(ValueError, match=r"camera\.index_scale is 1\.35 but the recogniser reads at 1"):
        TableWatcher(cam.model_copy(update={"index_scale": 1.35}), OnnxRecognizer(threads=1))
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), np.full((120, 160, 3), 40, np.uint8))
    capsys.readouterr()
    assert main(["vision", "check", str(img), "--config", str(REPO / "config" / "table.toml"),
                 "--index-scale", "9"]) == 2
    assert "index_scale (from the command line): Input should be less than or equal to 3" in capsys.readouterr().err
    assert main(["vision", "read", str(img), "--index-scale", "0.1"]) == 2
    assert "index_scale 0.1: must be 0.5 to 3.0" in capsys.readouterr().err


def test_the_jumbo_bench_runs_each_mode_and_refuses_bad_arguments() -> None:
    import vision_jumbo

    assert vision_jumbo.main(["--scenes", "1", "--tables", "1", "--sets", "seen", "--procs", "1",
                              "--modes", "jumbo,scaled"]) == 0
    with pytest.raises(SystemExit):
        vision_jumbo.main(["--jumbo", "4"])
    with pytest.raises(SystemExit):
        vision_jumbo.main(["--modes", "sideways"])


def test_r2_with_no_width_configured_a_jumbo_card_is_placed_at_the_width_its_two_corners_measure(monkeypatch) -> None:
    """``vision read`` with no width: the width search reads a jumbo index best at about 1.3 times the
    card's width. Where a card is read at both its index corners, their distance is the card's
    diagonal (:func:`vision.recognize.implied_card_width`; with no such card, the whole cards in view
    measure it), and the cards are placed at that width:
    on this scene every sure read lies on its card (11), where at the search's width half lie off it."""
    import cv2
    from bench_vision import bench_scene, match_reads

    from vision import recognize, render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    scene = bench_scene(render.jumbo_decks(render.TRAIN_DECKS, 1.8), 424242, 0)  # cards 62 px, read best at 87
    rec = OnnxRecognizer(threads=1)

    def reads() -> tuple[list[float], int, int]:
        dets = [d for d in rec.recognize(scene.image) if d.card is not None and d.confidence >= rec.threshold]
        sure, hit, wrong = match_reads(scene, dets, rec.threshold)
        return [math.dist(d.corners[0], d.corners[1]) for d in dets], len(hit), len(wrong)

    widths, right, wrong = reads()
    assert right >= 10 and wrong == 0
    assert all(abs(w / scene.card_width - 1) < 0.1 for w in widths), (scene.card_width, widths)
    with monkeypatch.context() as m:  # no card read at both corners: the whole card in view gives the width
        m.setattr(recognize, "implied_card_width", lambda dets, threshold: None)
        widths, right_measured, wrong_measured = reads()
        assert right_measured >= 10 and wrong_measured == 0
        assert all(abs(w / scene.card_width - 1) < 0.1 for w in widths), (scene.card_width, widths)
    monkeypatch.setattr(recognize, "IMPLIED_WIDTH_OFF", 10.0)  # never: the cards at the search's width
    monkeypatch.setattr(recognize, "EDGE_FIT_BELOW", None)  # (nor each at its own edge's,
    monkeypatch.setattr(recognize, "FITTED_PAST", None)  # nor as wide as a card its stock placed)
    widths, right_before, wrong_before = reads()
    assert sum(w > 1.3 * scene.card_width for w in widths) > len(widths) / 2
    assert wrong_before >= 3 and right_before < right


def test_r2_with_no_width_measured_a_large_index_card_is_placed_at_the_width_its_left_edge_measures(
        monkeypatch) -> None:
    """Real designs printing a large index (GNOME's Tango, KDE's Nicu) read best at 1.5 to 1.7 times
    their width, and often no card is read at both corners nor lies whole in view to measure the
    width. Then each card read at one corner is placed at the width its own left edge measures,
    where that edge ends at felt along three lines (:func:`vision.recognize.fit_to_edge`): on this
    scene of cards 68 px wide, read best at about 110, all nine sure reads lie on their cards, where
    at the search's width three lie off them (over a neighbour, whose stock kept them there), four with
    the sixty-third session's smaller tolerant look, whose reads at that width place one more off its card."""
    import cv2
    from bench_vision import bench_scene, match_reads

    from vision import detect, recognize, render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    scene = bench_scene(render.jumbo_decks(render.TRAIN_DECKS, 1.8), 424242, 1)
    rec = OnnxRecognizer(threads=1)
    monkeypatch.setattr(recognize, "implied_card_width", lambda dets, threshold: None)
    monkeypatch.setattr(detect, "estimate_card_width", lambda white, min_area=800.0: None)
    sure, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    assert sure == len(hit) == 9 and wrong == []
    monkeypatch.setattr(recognize, "EDGE_FIT_BELOW", None)  # placed at the search's width
    sure, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    assert sure == 9 and len(wrong) == 4
    monkeypatch.setattr(recognize, "SMALLER_TOLERANT_LOOK", None)  # (the sixty-third session's)
    sure, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    assert sure == 9 and len(wrong) == 3


def test_r2_a_card_width_measured_far_too_small_does_not_move_the_cards(monkeypatch) -> None:
    """A fan of standard cards 102 px wide whose whole cards measure 36 px (a strip of one card taken
    for a card): the search reads best at 2.85 times that, more than any deck prints its index
    (:data:`vision.recognize.IMPLIED_WIDTH_MOST`), so the cards stay at the search's width, each
    sure read on its own card. Placed at 36 px, each lay over its neighbour."""
    import cv2
    from bench_vision import bench_scene, match_reads

    from vision import recognize, render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    scene = bench_scene(render.TRAIN_DECKS, 60606, 398)  # a tuning scene
    rec = OnnxRecognizer(threads=1)
    sure, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    assert sure == len(hit) == 3 and wrong == []
    monkeypatch.setattr(recognize, "IMPLIED_WIDTH_MOST", 100.0)  # any ratio taken: the cards placed at 36 px
    sure, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
    assert len(wrong) >= 2


def test_serve_builds_the_camera_link_at_the_configured_index_scale(capsys) -> None:
    """`cardroom serve` and `cardroom demo` make the recogniser with ``camera.index_scale`` (the
    watcher refuses one made with another) and say so at start."""
    import tomllib
    import types

    from controller import server_cli

    cam = tomllib.loads((REPO / "config" / "table.toml").read_text())["camera"]
    cam["index_scale"] = 1.35
    link = server_cli._cameras(types.SimpleNamespace(camera_data=lambda: {"camera": cam}), REPO, None, "t.toml")[0]
    assert link.camera.index_scale == 1.35 and link.recognizer.index_scale == 1.35
    said = capsys.readouterr().out
    assert "camera: index_scale 1.35: cards read at 1.35 times their width and placed at it" in said
    assert "misreads standard decks" not in said
    cam["model"] = "models/card_index_jumbo.onnx"  # the jumbo-index model: said at start, what it is for
    link = server_cli._cameras(types.SimpleNamespace(camera_data=lambda: {"camera": cam}), REPO, None, "t.toml")[0]
    assert link.recognizer.index_scales == (1.2, 1.55)
    assert ("camera: card_index_jumbo.onnx reads decks that print a jumbo index, and misreads standard decks"
            in capsys.readouterr().out)


def test_r2_the_jumbo_index_model_identifies_more_seats_of_a_jumbo_table() -> None:
    """``models/card_index_jumbo.onnx`` (trained on decks printing a jumbo index, ``python -m vision.train
    --decks jumbo,jumbo``) at ``index_scale = 1.35``: on two jumbo tables where the standard model at the same
    scale names 5 and 6 of the 10 seats, it names 8 on each, every one with its own two cards."""
    import cv2

    from vision.config import load_camera_config
    from vision.recognize import DEFAULT_MODEL, OnnxRecognizer
    from vision.watch import TableWatcher

    cv2.setNumThreads(1)
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1,
                                                                             "index_scale": 1.35})
    standard = OnnxRecognizer(threads=1, index_scale=1.35)
    jumbo = OnnxRecognizer(DEFAULT_MODEL.with_name("card_index_jumbo.onnx"), threads=1, index_scale=1.35)
    assert jumbo.threshold == 0.95 and jumbo.index_scales == (1.2, 1.55) and not jumbo.body_raises
    for seed in ([9000, 1], [9000, 4]):
        scene = _jumbo_table(seed)
        truth = {s: sorted(t.card for t in scene.cards if t.seat == s) for s in range(1, 11)}
        named = {}
        for name, rec in (("standard", standard), ("jumbo", jumbo)):
            views = [v for v in TableWatcher(cam, rec).watch(scene.image) if v.identifiable]
            assert all(sorted(map(str, v.cards)) == truth[v.seat] for v in views), (seed, name)
            named[name] = len(views)
        assert named["standard"] <= 6 and named["jumbo"] >= 8, (seed, named)


def test_r2_the_jumbo_index_model_runs_only_at_the_index_scales_it_was_trained_at(tmp_path, capsys) -> None:
    """Read at index scale 1 (a standard deck's), the jumbo-index model misreads standard decks: the
    recogniser, ``vision read`` and ``cardroom serve`` refuse it there, naming the scales it reads at."""
    import os
    import subprocess

    import cv2

    from controller.cli import main
    from vision.recognize import DEFAULT_MODEL, OnnxRecognizer

    model = DEFAULT_MODEL.with_name("card_index_jumbo.onnx")
    said = "a model for decks that print a jumbo index, read at index_scale 1.2 to 1.55, not 1 "
    with pytest.raises(ValueError, match="card_index_jumbo.onnx: " + said.replace(".", r"\.")):
        OnnxRecognizer(model, threads=1)
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), _jumbo_table([9000, 1], cards=1).image)
    capsys.readouterr()
    assert main(["vision", "read", str(img), "--model", str(model)]) == 2
    assert said in capsys.readouterr().err
    assert main(["vision", "read", str(img), "--model", str(model), "--index-scale", "1.35", "--card-width", "72",
                 "--json"]) == 0
    reads = json.loads(capsys.readouterr().out)
    assert sum(r["card"] is not None for r in reads) >= 8
    text = (REPO / "config" / "table.toml").read_text()
    text = text.replace('model = "models/card_index.onnx"', 'model = "models/card_index_jumbo.onnx"', 1)
    text = text.replace("demo = true", "demo = false").replace(
        'database = "var/table.db"', f'database = "{(tmp_path / "t.db").as_posix()}"')
    cfg = tmp_path / "table.toml"
    cfg.write_text(text)
    env = {**os.environ, **{f"CARDROOM_{r}_TOKEN": f"{r.lower()}-token-0123456789"
                            for r in ("DEALER", "SURVEILLANCE", "BROADCAST")}}
    proc = subprocess.run([sys.executable, "-m", "controller", "serve", "--config", str(cfg)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "cardroom serve: camera: " in proc.stderr and said in proc.stderr


def test_r2_calibrate_advises_the_jumbo_index_model_for_a_jumbo_deck_and_the_standard_one_back(tmp_path,
                                                                                                capsys) -> None:
    """``vision calibrate``'s ``model:`` line: a jumbo deck (the standard model reads clearly more at an
    index scale of 1.2 or more) gets the jumbo-index model and its scale; a standard deck under a table
    file naming the jumbo model gets the standard model back; a standard deck under the standard
    model, nothing to change."""
    import cv2

    from controller.cli import main
    from vision import render

    cv2.setNumThreads(1)
    text = (REPO / "config" / "table.toml").read_text()
    standard_cfg = str(REPO / "config" / "table.toml")
    jumbo_cfg = tmp_path / "config" / "table.toml"
    jumbo_cfg.parent.mkdir()
    jumbo_cfg.write_text(text.replace('model = "models/card_index.onnx"', 'model = "models/card_index_jumbo.onnx"', 1)
                         .replace("index_scale = 1.0", "index_scale = 1.35", 1))

    def model_line(image: np.ndarray, config: str) -> str:
        img = tmp_path / "frame.png"
        cv2.imwrite(str(img), image)
        assert main(["vision", "calibrate", str(img), "--config", config, "--out", str(tmp_path / "z.png")]) == 0
        return next(x for x in capsys.readouterr().out.splitlines() if x.startswith("model:"))

    jumbo = _jumbo_table([9100, 0], cards=1).image
    standard = render.render_table(np.random.default_rng([9100, 0]), render.TRAIN_DECKS[:4], variant_cards=1,
                                   hard=False).image
    line = model_line(jumbo, standard_cfg)
    assert line.endswith('set model = "models/card_index_jumbo.onnx" and index_scale = 1.35 in [camera] '
                         '(the deck prints a jumbo index)'), line
    assert model_line(jumbo, str(jumbo_cfg)).endswith("keep camera.model as it is")
    line = model_line(standard, str(jumbo_cfg))
    assert line.endswith('set model = "models/card_index.onnx" and index_scale = 1 in [camera] '
                         '(the deck prints a standard index)'), line
    assert model_line(standard, standard_cfg).endswith("keep camera.model as it is")


def test_r2_with_the_jumbo_index_model_no_read_the_body_raised_stands() -> None:
    """The body models learnt standard indices, whose regions they blank; a jumbo index reaches past
    them into the body crop (on the jumbo benchmark's tables a 6h read unsure at its index became a 5h
    the body confirmed, a wrong seat). With the jumbo-index model a read the body raised, settled or
    turned is unreadable (still a card there); reads sure at the index stand, and the standard model
    keeps the body's word."""
    from controller.cards import Card
    from vision.recognize import DEFAULT_MODEL, Detection, OnnxRecognizer

    q = ((0.0, 0.0), (72.0, 0.0), (72.0, 100.0), (0.0, 100.0))
    raised = Detection(Card.parse("5h"), 0.99, q, 1, confirmed_by_body=True)
    sure = Detection(Card.parse("Jc"), 0.999, tuple((x + 200.0, y) for x, y in q), 1)
    jumbo = OnnxRecognizer(DEFAULT_MODEL.with_name("card_index_jumbo.onnx"), threads=1, index_scale=1.35)
    out = jumbo._trusted([raised, sure], None, None)  # type: ignore[arg-type]
    assert out[0].card is None and not out[0].confirmed_by_body and not out[0].out_of_focus
    assert out[1] == sure
    standard = OnnxRecognizer(threads=1, index_scale=1.35)
    assert standard.body_raises
    standard.focus_limit = None  # (no edge measure: the body's word as it is)
    assert standard._trusted([raised, sure], None, None) == [raised, sure]  # type: ignore[arg-type]

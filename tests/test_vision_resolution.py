"""The installer's resolution table (models/read_rate_by_width.json, vision.resolution): what the
shipped models read at each card width, measured by bench/vision_widths.py, and what
`cardroom vision calibrate` tells an installer from it (R2, R3: a hand whose cards the camera
cannot read is not identifiable, so a camera too far away leaves hands unjudged)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

from vision import resolution

REPO = pathlib.Path(__file__).resolve().parents[1]


def test_r2_shipped_table_covers_the_benchmark_widths_and_sums_to_its_totals() -> None:
    data = json.loads(resolution.DEFAULT_TABLE.read_text())
    bands = resolution.load()
    assert bands[0].lo == 52 and bands[-1].hi > 150  # the renderer's card widths, 52 to 150 px
    for name in ("seen", "unseen"):
        for k in ("readable", "right", "wrong"):
            assert sum(b[name][k] for b in data["bands"]) == data["total"][name][k]
        assert all(b[name]["right"] <= b[name]["readable"] for b in data["bands"])
    assert data["scenes"] >= 1000 and all(b.readable >= 300 for b in bands)  # a figure on few cards says little
    # the wide cards read better than the narrow ones: the table is worth quoting
    assert bands[-1].seen_pct > bands[0].seen_pct + 5 and bands[-1].unseen_pct > bands[0].unseen_pct + 5
    assert resolution.width_for(resolution.SEEN_TARGET, "seen", bands) is not None


def test_r2_report_quotes_the_band_and_asks_for_a_closer_camera_below_the_target() -> None:
    bands = [resolution.Band(52, 60, 85.0, 82.0, 500, 1.0, 8.2), resolution.Band(60, 120, 97.0, 95.0),
             resolution.Band(120, 151, 99.8, 99.5)]
    narrow = resolution.report(58, bands, "configured")
    assert narrow.startswith("resolution: cards 58 px wide (configured): the shipped models read 85.0% of the deck")
    assert "(wrong 1.0 and 8.2 per 1,000)" in narrow and "52 to 60 px wide" in narrow
    assert "trained designs 120 px or wider read 99.5% or more" in narrow
    assert narrow.endswith(resolution.CLOSER) and "more cameras ([[cameras]])" in resolution.CLOSER
    wide = resolution.report(130, bands)
    assert "99.8% of the deck designs they were trained on and 99.5% of other designs" in wide and "closer" not in wide
    assert "narrower than any measured (52 to 150 px)" in resolution.report(40, bands)
    assert "wider than any measured" in resolution.report(400, bands)
    assert resolution.report(None, bands).startswith("resolution: no card width to judge")
    # no band at the target: the report says so instead of naming a width
    assert "no measured width reads 99.5%" in resolution.report(130, bands[:2])


@pytest.mark.parametrize("text, said", [
    (None, "cannot read the resolution table"),
    ("{not json", "not JSON"),
    ('{"bands": [{"from": 52, "to": 60}]}', "a band lacks 'seen'"),
    ('{"bands": []}', "no bands"),
    ('{"bands": [{"from": 52, "to": 60, "seen": {"right_pct": null, "readable": 0}, '
     '"unseen": {"right_pct": null, "readable": 0}}]}', "band 0 (52-60 px) has no cards"),
    ('{"bands": [{"from": 52, "to": 60, "seen": {"right_pct": 90, "readable": 0, "wrong": 0}, '
     '"unseen": {"right_pct": 90, "readable": 9, "wrong": 0}}]}', "band 0 (52-60 px) has no cards"),
    ('{"bands": [{"from": 52, "to": 60, "seen": {"right_pct": 90, "readable": 9, "wrong": 0}, '
     '"unseen": {"right_pct": 90, "readable": 9, "wrong": 0}}, {"from": 70, "to": 80, "seen": {"right_pct": 90, '
     '"readable": 9, "wrong": 0}, "unseen": {"right_pct": 90, "readable": 9, "wrong": 1}}]}', "without gaps"),
])
def test_a_bad_resolution_table_is_refused_naming_the_file_and_the_problem(tmp_path, text, said) -> None:
    path = tmp_path / "widths.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(resolution.ResolutionTableError) as err:
        resolution.load(path)
    assert str(path) in str(err.value) and said in str(err.value)


def test_r2_calibrate_quotes_the_configured_width_or_the_measured_one(tmp_path, capsys) -> None:
    import cv2

    from controller.cli import main
    from vision import render

    scene = render.render_table(np.random.default_rng(5), render.TRAIN_DECKS[:2], hard=False)
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), scene.image)
    out = tmp_path / "zones.png"
    config = (REPO / "config" / "table.toml").read_text()
    assert "card_width = 72\n" in config
    band = resolution.band_for(72, resolution.load())
    assert band is not None
    data = json.loads(resolution.DEFAULT_TABLE.read_text())
    row = next(b for b in data["bands"] if b["from"] == band.lo)
    assert band.unseen_wrong_per_1000 == 1000.0 * row["unseen"]["wrong"] / row["unseen"]["readable"]
    assert main(["vision", "calibrate", str(img), "--config", str(REPO / "config" / "table.toml"),
                 "--out", str(out)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("resolution:"))
    assert line.startswith(f"resolution: cards 72 px wide (configured): the shipped models read {band.seen_pct:.1f}%")
    assert line.endswith(resolution.CLOSER)  # 72 px is under the target's width
    assert f"(wrong {band.seen_wrong_per_1000:.1f} and {band.unseen_wrong_per_1000:.1f} per 1,000)" in line
    cfg = tmp_path / "table.toml"
    cfg.write_text(config.replace("card_width = 72\n", ""))
    assert main(["vision", "calibrate", str(img), "--config", str(cfg), "--out", str(out)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("resolution:"))
    assert "px wide (measured): the shipped models read" in line
    measured = float(line.split("resolution: cards ")[1].split(" px")[0])
    assert abs(measured - 72) <= 0.15 * 72  # the whole cards in view, as card_width_report measures them


def test_vision_widths_bench_counts_as_the_benchmark_does(tmp_path) -> None:
    """bench/vision_widths.py on a few scenes: its totals are bench_vision.py's read_accuracy's for
    the same scenes, and a table with empty bands is refused by name, not quoted."""
    import cv2

    sys.path.insert(0, str(REPO / "bench"))
    import bench_vision
    import vision_widths

    from vision import render
    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    out = tmp_path / "w.json"
    assert vision_widths.main(["--scenes", "3", "--procs", "1", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    rec = OnnxRecognizer(threads=1)
    for name, decks in (("seen", render.TRAIN_DECKS), ("unseen", render.UNSEEN_DECKS)):
        acc = bench_vision.read_accuracy(rec, decks, 3)
        assert data["total"][name] == {"readable": acc["readable_cards"], "right": acc["right"], "wrong": acc["wrong"]}
    assert data["threshold"] == rec.threshold and "card_index.onnx" in data["models"]
    with pytest.raises(resolution.ResolutionTableError, match="has no cards"):
        resolution.load(out)


def _table_with_a_nearer_seat(seat: int):  # type: ignore[no-untyped-def]
    """A rendered ten-seat table of 72 px cards (``[7000, 10]``) whose ``seat`` zone shows another
    table's hand of 100 px cards (``[7100, 10]``, none of them a card of the first table): a seat
    nearer an angled camera than the others. Returns the frame and that hand."""
    import cv2

    from vision import render
    from vision.config import load_camera_config

    cv2.setNumThreads(1)
    far = render.render_table(np.random.default_rng([7000, 10]), render.TRAIN_DECKS, hard=False)
    near = render.render_table(np.random.default_rng([7100, 10]), render.TRAIN_DECKS, hard=False, card_width=100)
    zone = next(z for z in load_camera_config(REPO / "config" / "table.toml").zones if z.seat == seat)
    x, y, w, h = zone.bounds(1920, 1080)
    frame = far.image.copy()
    frame[y : y + h, x : x + w] = near.image[y : y + h, x : x + w]
    hand = sorted(t.card for t in near.cards if t.seat == seat)
    assert len(hand) == 2 and all(t.readable for t in near.cards if t.seat == seat)
    assert not set(hand) & {t.card for t in far.cards if t.seat != seat}
    return frame, hand


def test_r2_a_seat_zone_of_its_own_card_width_is_read_at_that_width(tmp_path, capsys) -> None:
    """An angled camera sees one seat's cards larger than the configured ``camera.card_width``
    (100 px against 72): read at the camera's width, that seat's hand is not identifiable (its crops
    are a third off scale); with the zone's own ``card_width`` it is, the other seats read the same,
    and ``vision calibrate`` judges the zone's width on its own line."""
    from controller.cli import main
    from vision.config import load_camera_config
    from vision.recognize import OnnxRecognizer
    from vision.watch import TableWatcher

    frame, hand = _table_with_a_nearer_seat(2)
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    rec = OnnxRecognizer(threads=1, card_width=cam.card_width)
    before = {v.seat: v for v in TableWatcher(cam, rec).watch(frame)}
    assert not before[2].identifiable
    zones = [z.model_copy(update={"card_width": 100.0}) if z.seat == 2 else z for z in cam.zones]
    after = {v.seat: v for v in TableWatcher(cam.model_copy(update={"zones": zones}), rec).watch(frame)}
    assert after[2].identifiable and sorted(map(str, after[2].cards)) == hand
    assert all((after[s].identifiable, after[s].cards) == (before[s].identifiable, before[s].cards)
               for s in before if s != 2)
    # the file's form, and calibrate's line for the zone
    import cv2

    text = (REPO / "config" / "table.toml").read_text()
    cfg = tmp_path / "table.toml"
    cfg.write_text(text.replace("seat = 2\npolygon = [[372, 736], [667, 736], [667, 972], [372, 972]]\n",
                                "seat = 2\npolygon = [[372, 736], [667, 736], [667, 972], [372, 972]]\n"
                                "card_width = 100\n"))
    assert load_camera_config(cfg).zones[1].card_width == 100
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    assert main(["vision", "calibrate", str(img), "--config", str(cfg), "--out", str(tmp_path / "z.png")]) == 0
    said = capsys.readouterr().out
    assert "seat 2: resolution: cards 100 px wide (configured): the shipped models read" in said
    assert sum(line.startswith("seat ") for line in said.splitlines()) == 1


def test_a_bad_zone_card_width_is_refused_naming_the_key(tmp_path) -> None:
    from vision.config import ConfigError, load_camera_config
    from vision.recognize import OnnxRecognizer

    text = (REPO / "config" / "table.toml").read_text()
    cfg = tmp_path / "table.toml"
    cfg.write_text(text.replace("seat = 3\n", "seat = 3\ncard_width = 4\n", 1))
    with pytest.raises(ConfigError, match=r"camera\.zones\.2\.card_width"):
        load_camera_config(cfg)
    rec = OnnxRecognizer(threads=1)
    with pytest.raises(ValueError, match="zone_widths: 2 widths for 1 regions"):
        rec.recognize_zones(np.zeros((50, 50, 3), np.uint8), [((0, 0, 50, 50), None)], zone_widths=[None, 80.0])


def test_r2_serve_prints_the_camera_and_each_zone_of_its_own_width_at_start(capsys) -> None:
    """`cardroom serve` and `cardroom demo` build the camera link with ``_camera``: it says what the
    shipped models read at ``camera.card_width`` and at each zone's own width."""
    import tomllib
    import types

    from controller import server_cli

    cam = tomllib.loads((REPO / "config" / "table.toml").read_text())["camera"]
    cam["zones"][1]["card_width"] = 100
    link = server_cli._cameras(types.SimpleNamespace(camera_data=lambda: {"camera": cam}), REPO, None, "t.toml")[0]
    assert link.camera.zones[1].card_width == 100
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("camera: resolution: cards 72 px wide (configured)")
    assert lines[1].startswith("camera seat 2: resolution: cards 100 px wide (configured)") and len(lines) == 2


def test_r2_calibrate_gives_the_width_to_set_for_a_seat_whose_whole_card_measures_off(tmp_path, capsys) -> None:
    """A lone card 100 px wide lying in seat 2's zone of a table of 72 px cards (an angled camera's
    near seat): `vision calibrate` names that seat and the width to set in its zone; the other
    seats' whole cards measure within 15% of the camera's width and get no such line; with the
    zone's own width set, seat 2 gets none either."""
    import cv2

    from controller.cli import main
    from vision import render
    from vision.config import load_camera_config

    far = render.render_table(np.random.default_rng([7000, 0]), render.TRAIN_DECKS, hard=False)
    near = render.render_table(np.random.default_rng([7200, 0]), render.TRAIN_DECKS, hard=False, card_width=100,
                               variant_cards=[1] * 10)
    zone = next(z for z in load_camera_config(REPO / "config" / "table.toml").zones if z.seat == 2)
    x, y, w, h = zone.bounds(1920, 1080)
    frame = far.image.copy()
    frame[y : y + h, x : x + w] = near.image[y : y + h, x : x + w]
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    out = str(tmp_path / "z.png")
    assert main(["vision", "calibrate", str(img), "--config", str(REPO / "config" / "table.toml"), "--out", out]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "in this seat's zone" in line]
    assert len(said) == 1 and said[0].startswith("seat 2: 1 whole card in view measures "), said
    measured = float(said[0].split("measures ")[1].split(" px")[0])
    assert abs(measured - 100) <= 5 and said[0].endswith(f"set card_width = {measured:.0f} in this seat's zone")
    assert "against 72 px (camera.card_width)" in said[0]
    text = (REPO / "config" / "table.toml").read_text()
    cfg = tmp_path / "table.toml"
    cfg.write_text(text.replace("seat = 2\npolygon = [[372, 736], [667, 736], [667, 972], [372, 972]]\n",
                                "seat = 2\npolygon = [[372, 736], [667, 736], [667, 972], [372, 972]]\n"
                                f"card_width = {measured:.0f}\n"))
    assert main(["vision", "calibrate", str(img), "--config", str(cfg), "--out", out]) == 0
    assert "in this seat's zone" not in capsys.readouterr().out


def test_r2_an_angled_table_draws_each_hand_at_its_own_width_and_the_bench_judges_it_both_ways() -> None:
    """The renderer's tilted camera (``hand_widths``, :func:`vision.render.tilted_widths`): each
    seat's cards are drawn at that seat's width, near seats larger than far ones, and
    ``bench/vision_angled.py`` judges such a table at the camera's width and at the zones' own."""
    import cv2

    sys.path.insert(0, str(REPO / "bench"))
    import vision_angled

    from vision import render

    cv2.setNumThreads(1)
    centers = render.table_seat_centers()
    widths = render.tilted_widths(centers, 72.0, 0.25)
    scene = render.render_table(np.random.default_rng([616161, 0]), render.TRAIN_DECKS, hand_widths=widths)
    for seat, w in zip(range(1, 11), widths):
        drawn = [float(np.linalg.norm(np.subtract(t.corners[0], t.corners[1]))) for t in scene.cards if t.seat == seat]
        assert drawn and all(abs(d - w) < 0.1 * w for d in drawn), (seat, w, drawn)
    assert max(widths) / min(widths) > 1.4  # the near seats' cards a good deal larger than the far ones'
    result = vision_angled.main(["--tables", "1", "--sets", "seen", "--procs", "1"])
    assert result == 0
    with pytest.raises(SystemExit):
        vision_angled.main(["--tilt", "0.9"])


def test_r2_calibrate_on_an_angled_table_gives_the_far_and_near_seats_their_widths() -> None:
    """The installer's way to zone widths: one card laid in each seat under a camera tilted 0.3
    (cards 56 px at the far seats to 88 px at the near ones). Calibrate names the seats whose card
    measures more than 15% off the camera's 72 px, each with a width within 10% of the card's, and
    no other seat."""
    import cv2

    from vision import detect, render
    from vision.cli import WIDTH_CHECK, zone_width_report
    from vision.config import load_camera_config

    cv2.setNumThreads(1)
    cam = load_camera_config(REPO / "config" / "table.toml")
    widths = render.tilted_widths(render.table_seat_centers(), cam.card_width, 0.3)
    scene = render.render_table(np.random.default_rng([8000, 1]), render.TRAIN_DECKS, variant_cards=1,
                                hand_widths=widths, hard=False)
    lines = zone_width_report(cam, detect.whole_cards(detect.card_masks(scene.image).white))
    named = {int(line.split(":")[0].split()[1]): float(line.rsplit("card_width = ", 1)[1].split()[0]) for line in lines}
    far_off = {seat for seat, w in zip(range(1, 11), widths) if abs(w / cam.card_width - 1) > WIDTH_CHECK + 0.03}
    assert far_off and far_off <= set(named)  # every seat well past the check is named
    assert all(abs(named[s] / widths[s - 1] - 1) < 0.1 for s in named)
    assert all(abs(widths[s - 1] / cam.card_width - 1) > WIDTH_CHECK - 0.05 for s in named)  # none near 72 px


def test_r2_calibrate_measures_the_card_width_from_cards_read_at_both_corners_where_none_lies_alone(
        tmp_path, capsys, monkeypatch) -> None:
    """A still of hands in play, no card lying on its own: the cards read at both index corners
    measure the width (their corners lie a card's diagonal apart), within 5% of the 72 px drawn,
    and `vision calibrate` gives it to set."""
    import cv2

    from controller.cli import main
    from vision import detect, render
    from vision.recognize import OnnxRecognizer, implied_cards

    cv2.setNumThreads(1)
    scene = render.render_table(np.random.default_rng([9300, 0]), render.TRAIN_DECKS[:4], hard=False)
    rec = OnnxRecognizer(threads=1)
    cards = implied_cards(rec.recognize(scene.image), rec.threshold)
    assert len(cards) >= 10
    assert abs(float(np.median([w for _, w in cards])) / 72.0 - 1) < 0.05
    assert all(any(t.card for t in scene.cards if np.hypot(*np.subtract(t.center, c)) < 0.2 * 72) for c, _ in cards)
    img = tmp_path / "hands.png"
    cv2.imwrite(str(img), scene.image)
    cfg = tmp_path / "table.toml"
    cfg.write_text((REPO / "config" / "table.toml").read_text().replace("card_width = 72\n", ""))
    monkeypatch.setattr(detect, "whole_cards", lambda white, min_area=800.0: [])  # no card on its own
    assert main(["vision", "calibrate", str(img), "--config", str(cfg), "--out", str(tmp_path / "z.png")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("card width:"))
    assert "cards read at both index corners in view measure" in line, line
    assert abs(float(line.rsplit("set card_width = ", 1)[1].split()[0]) / 72.0 - 1) < 0.05

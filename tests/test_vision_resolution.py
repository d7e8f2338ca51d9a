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
    assert narrow.endswith("move the camera closer or raise its resolution")
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
    assert line.endswith("move the camera closer or raise its resolution")  # 72 px is under the target's width
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

"""vision.modelfile: int8 quantisation and ensembles of exported classifiers, run by onnxruntime on
real rendered crops. The float models here are small classifiers fitted in the test (fixed
convolutions, then a ridge regression of the features onto the 53 classes), built with onnx, so
the test needs neither PyTorch nor a training run."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package (training extra) is not installed")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision import modelfile, pips, train  # noqa: E402
from vision.detect import CROP_H, CROP_W  # noqa: E402
from vision.recognize import DEFAULT_MODEL, KEEP_FLOAT_POOLING, NOT_INDEX, OnnxRecognizer, preprocess  # noqa: E402

KERNELS = np.array([[[1, 2, 1], [2, 4, 2], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
                    [[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[0, -1, 0], [-1, 4, -1], [0, -1, 0]]],
                   np.float32)[:, None] / 4.0


def _mixer() -> np.ndarray:
    """A second stage's fixed 3x3 kernels, 4 channels to 8: each channel as it is, and blurred."""
    k = np.zeros((8, 4, 3, 3), np.float32)
    for c in range(4):
        k[c, c, 1, 1] = 1.0
        k[4 + c, c] = 1.0 / 9.0
    return k


def _graph(w: np.ndarray | None, b: np.ndarray | None, threshold: str = "0.9"):  # type: ignore[no-untyped-def]
    """Conv(4 fixed kernels) -> Relu -> MaxPool -> Conv(8 fixed kernels) -> Relu -> Flatten
    [-> Gemm -> Softmax], the shipped classifier's shape in small; without ``w`` the graph outputs
    the features."""
    feats = 8 * (CROP_H // 2) * (CROP_W // 2)
    inits = [numpy_helper.from_array(KERNELS, "k"), numpy_helper.from_array(np.zeros(4, np.float32), "kb"),
             numpy_helper.from_array(_mixer(), "k2"), numpy_helper.from_array(np.zeros(8, np.float32), "kb2")]
    nodes = [helper.make_node("Conv", ["crops", "k", "kb"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
             helper.make_node("Conv", ["p", "k2", "kb2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("Flatten", ["r2"], ["f"], name="flat")]
    out = "f"
    if w is not None:
        inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        nodes += [helper.make_node("Gemm", ["f", "w", "b"], ["logits"], transB=1, name="head"),
                  helper.make_node("Softmax", ["logits"], ["probs"], axis=1, name="softmax")]
        out = "probs"
    g = helper.make_graph(nodes, "fitted", [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 1, CROP_H, CROP_W])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["n", feats if w is None else 53])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    if w is not None:
        p = m.metadata_props.add()
        p.key, p.value = "threshold", threshold
    return m


def _run(model_or_path, x: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    src = str(model_or_path) if isinstance(model_or_path, pathlib.Path) else model_or_path.SerializeToString()
    return ort.InferenceSession(src, providers=["CPUExecutionProvider"]).run(None, {"crops": preprocess(x)})[0]


def _fit(x: np.ndarray, y: np.ndarray, ridge: float, scale: float, path: pathlib.Path) -> pathlib.Path:
    f = _run(_graph(None, None), x).astype(np.float64)
    mu = f.mean(axis=0)
    t = np.eye(53)[y] * 2 - 1
    a = f - mu
    w = np.linalg.solve(a.T @ a + ridge * np.eye(a.shape[1]), a.T @ t).T * scale
    b = -(w @ mu)
    onnx.save_model(_graph(w.astype(np.float32), b.astype(np.float32)), str(path))
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[np.ndarray, np.ndarray, pathlib.Path, pathlib.Path]:
    """Crops of rendered training-deck scenes (seeds no training run uses) and two float models
    fitted on them."""
    x, y = train.make_dataset(9_100_000, 40, "train", 1, False, 0)
    d = tmp_path_factory.mktemp("models")
    return x, y, _fit(x, y, 30.0, 20.0, d / "a.onnx"), _fit(x[::2], y[::2], 300.0, 16.0, d / "b.onnx")


def test_fitted_models_are_classifiers(data) -> None:
    """Most proposals are not index corners (about 88% of these crops), so the share read right
    over all crops says little (0.59 and 0.69 here, where answering "not an index" every time would
    score 0.88). On the crops that are index corners each model names the card far above the 1 in
    52 of a guess (0.57 and 1.0 here)."""
    x, y, a, b = data
    cards = y < NOT_INDEX
    for path in (a, b):
        right = _run(path, x).argmax(1) == y
        assert right[cards].mean() > 0.4


def test_quantized_model_agrees_with_the_float_model_and_keeps_confidence(data, tmp_path) -> None:
    x, y, a, _ = data
    out = tmp_path / "q.onnx"
    modelfile.quantize(a, out, x[:600])
    q = onnx.load(str(out))
    ops = {n.op_type for n in q.graph.node}
    assert "QuantizeLinear" in ops and "DequantizeLinear" in ops
    assert not any("head" in n.name and n.op_type == "QuantizeLinear" for n in q.graph.node)  # logits in float
    # the first stage (conv, relu, pool) reads the float crops and stays float; int8 starts after the pool
    readers = {i: n for n in q.graph.node for i in n.input}
    assert readers["crops"].op_type == "Conv" and modelfile.first_stage(q) == ["conv", "relu", "pool"]
    assert readers["p"].op_type == "QuantizeLinear"
    # the recogniser's session keeps the pool in float (KEEP_FLOAT_POOLING): the same outputs, sooner
    kept = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"], disabled_optimizers=KEEP_FLOAT_POOLING)
    assert np.array_equal(kept.run(None, {"crops": preprocess(x)})[0], _run(out, x))
    pf, pq = _run(a, x), _run(out, x)
    assert pq.shape == pf.shape == (len(x), NOT_INDEX + 1)
    assert np.allclose(pq.sum(axis=1), 1.0, atol=1e-4)
    assert (pq.argmax(1) == pf.argmax(1)).mean() > 0.93  # (0.95 with this tiny model, 0.999 with the shipped one)
    sure = pf.max(1) >= 0.999
    assert sure.sum() > 20 and (pq.max(1)[sure] >= 0.99).mean() > 0.9  # confidence near 1 survives
    meta = {p.key: p.value for p in q.metadata_props}
    assert meta["threshold"] == "0.9" and meta["quantized"].startswith("int8")


def test_ensemble_is_the_mean_of_its_members(data, tmp_path) -> None:
    x, _, a, b = data
    both = tmp_path / "both.onnx"
    modelfile.ensemble([a, b], both, gate=None)
    assert np.allclose(_run(both, x), (_run(a, x) + _run(b, x)) / 2, atol=1e-6)
    rec = OnnxRecognizer(both)  # the recogniser runs it like any model file
    assert rec.threshold == 0.9
    assert rec.session.get_modelmeta().custom_metadata_map["ensemble"] == "mean of 2 models"
    # recalibrating a file takes the floor of what it is: 0.95 for an ensemble, 0.995 for one model
    assert train._is_ensemble(both) and not train._is_ensemble(a) and train._is_ensemble(DEFAULT_MODEL)


def test_gated_ensemble_asks_the_second_model_only_where_the_first_reads_a_card(data, tmp_path) -> None:
    x, _, a, b = data
    gated = tmp_path / "gated.onnx"
    modelfile.ensemble([a, b], gated, gate=0.8)
    pa, pb, got = _run(a, x), _run(b, x), _run(gated, x)
    asked = pa[:, :NOT_INDEX].max(1) >= 0.8
    assert 0 < asked.sum() < len(x)
    assert np.allclose(got[asked], (pa[asked] + pb[asked]) / 2, atol=1e-6)
    assert np.allclose(got[~asked], pa[~asked], atol=1e-6)
    assert _run(gated, x[:0]).shape == (0, NOT_INDEX + 1)  # an empty batch
    nothing = np.full((3, CROP_H, CROP_W), 128, np.uint8)  # flat grey: no card anywhere
    assert np.allclose(_run(gated, nothing), _run(a, nothing), atol=1e-6)


def test_shipped_model_is_a_gated_ensemble_of_int8_models_behind_a_front_gate() -> None:
    m = onnx.load(str(DEFAULT_MODEL))
    meta = {p.key: p.value for p in m.metadata_props}
    assert meta["ensemble"].startswith("mean of 2 models")
    assert meta["quantized"].startswith("int8")
    assert meta["front_gate"].startswith("a small model reads every crop first")
    assert sum(n.op_type == "ScatterND" for n in m.graph.node) == 2  # the front gate's and the ensemble's


def _gate_graph():  # type: ignore[no-untyped-def]
    """A gate with a known score: the sigmoid of a crop's largest standardised value (a crop with
    one bright mark scores high, a flat or noisy one lower)."""
    nodes = [helper.make_node("ReduceMax", ["crops"], ["m"], axes=[1, 2, 3], keepdims=0, name="max"),
             helper.make_node("Unsqueeze", ["m", "ax"], ["mu"], name="unsq"),
             helper.make_node("Sigmoid", ["mu"], ["keep"], name="sig")]
    g = helper.make_graph(nodes, "gate", [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 1, CROP_H, CROP_W])],
                          [helper.make_tensor_value_info("keep", TensorProto.FLOAT, ["n", 1])],
                          [numpy_helper.from_array(np.array([1], np.int64), "ax")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def test_front_gate_runs_the_model_only_on_the_crops_it_keeps(data, tmp_path) -> None:
    x, _, a, b = data
    inner = tmp_path / "ens.onnx"
    modelfile.ensemble([a, b], inner, gate=0.8)
    gate = tmp_path / "gate.onnx"
    onnx.save_model(_gate_graph(), str(gate))
    score = _run(gate, x)[:, 0]
    cut = float(np.median(score))
    out = tmp_path / "front.onnx"
    modelfile.front_gate(gate, inner, out, cut)
    want, got = _run(inner, x), _run(out, x)
    kept = score >= cut
    assert 0 < kept.sum() < len(x)
    assert np.allclose(got[kept], want[kept], atol=1e-6)
    refused = np.zeros(NOT_INDEX + 1, np.float32)
    refused[NOT_INDEX] = 1.0
    assert np.array_equal(got[~kept], np.tile(refused, ((~kept).sum(), 1)))  # "not an index", for sure
    assert _run(out, x[:0]).shape == (0, NOT_INDEX + 1)  # an empty batch
    # nothing kept at all, and everything kept
    modelfile.front_gate(gate, inner, tmp_path / "none.onnx", 0.999999)
    assert np.array_equal(_run(tmp_path / "none.onnx", x[:5]), np.tile(refused, (5, 1)))
    modelfile.front_gate(gate, inner, tmp_path / "all.onnx", 1e-6)
    assert np.allclose(_run(tmp_path / "all.onnx", x), want, atol=1e-6)
    # the model's metadata and threshold go with it; the recogniser runs it like any model file
    rec = OnnxRecognizer(out)
    meta = rec.session.get_modelmeta().custom_metadata_map
    assert rec.threshold == 0.9 and meta["ensemble"].startswith("mean of 2 models") and "front_gate" in meta
    with pytest.raises(ValueError, match="gate"):
        modelfile.front_gate(gate, inner, tmp_path / "x.onnx", 1.0)


def test_front_gate_distilled_from_a_model_keeps_every_crop_it_reads_surely(data, tmp_path) -> None:
    """:func:`train.add_front_gate` on real rendered crops: the gate it trains may refuse only crops
    the model does not read as a card, never one it reads at 0.9 or more; the file it writes gives
    the model's own probabilities wherever the gate keeps the crop."""
    pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    x, _, a, _ = data
    out = tmp_path / "front.onnx"
    stats = train.add_front_gate(a, out, x[::2], x[1::2], epochs=2, threads=1)
    assert stats["val_refused_sure"] == 0
    assert stats["val_refused_read"] <= max(1, int(train.FRONT_GATE_MISS * len(x)))
    want, got = _run(a, x), _run(out, x)
    kept = got[:, NOT_INDEX] < 1.0
    assert np.allclose(got[kept], want[kept], atol=1e-6)
    assert 0 < (~kept).sum() < len(x)  # it does refuse crops, not all
    val = np.zeros(len(x), bool)
    val[1::2] = True
    assert not (val & ~kept & (want[:, :NOT_INDEX].max(1) >= train.FRONT_GATE_SURE)).any()


def _reading_colour(path: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """The model file ``path`` made to read BGR crops (``N x 3 x H x W``, as a model trained with ``--input
    color`` does): the mean of the three channels is what it reads. Of a grey crop in three channels that
    is the grey crop as :func:`preprocess` gives it alone."""
    m = onnx.load(str(path))
    for n in m.graph.node:
        n.input[:] = ["grey" if i == "crops" else i for i in n.input]
    m.graph.node.insert(0, helper.make_node("ReduceMean", ["crops"], ["grey"], axes=[1], keepdims=1, name="grey"))
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 3
    onnx.save_model(m, str(out))
    return out


def test_front_gate_before_a_model_of_colour_crops_reads_colour_crops(data, tmp_path) -> None:
    """A classifier of BGR crops (``python -m vision.train --input color``, how the scale-tolerant model
    is tried in colour) gets a front gate that reads the same crops: the gate is trained on them and the
    file's one input takes three channels."""
    pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    x, _, a, _ = data
    colour = _reading_colour(a, tmp_path / "colour.onnx")
    x3 = np.repeat(x[..., None], 3, axis=-1)
    assert np.allclose(_run(colour, x3), _run(a, x), atol=1e-5)
    out = tmp_path / "front.onnx"
    stats = train.add_front_gate(colour, out, x3[::2], x3[1::2], epochs=2, threads=1)
    assert stats["val_refused_sure"] == 0
    assert ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).get_inputs()[0].shape[1:] == [
        3, CROP_H, CROP_W]
    want, got = _run(colour, x3), _run(out, x3)
    kept = got[:, NOT_INDEX] < 1.0
    assert np.allclose(got[kept], want[kept], atol=1e-6) and 0 < (~kept).sum() < len(x)


def test_front_gate_only_refuses_a_missing_or_already_gated_model(tmp_path) -> None:
    with pytest.raises(SystemExit, match="no model file"):
        train.main(["--front-gate-only", str(tmp_path / "nosuch.onnx")])
    with pytest.raises(SystemExit, match="already has a front gate"):
        train.main(["--front-gate-only", str(DEFAULT_MODEL), "--out", str(tmp_path / "x.onnx")])


def test_ensemble_refuses_a_single_model_and_a_bad_gate(data, tmp_path) -> None:
    _, _, a, b = data
    with pytest.raises(ValueError, match="at least two"):
        modelfile.ensemble([a], tmp_path / "x.onnx")
    with pytest.raises(ValueError, match="gate"):
        modelfile.ensemble([a, b], tmp_path / "x.onnx", gate=1.5)


def test_member_gate_is_where_the_mean_can_still_reach_the_floor() -> None:
    assert train.member_gate(2, 0.95) == 0.9
    assert train.member_gate(3, 0.95) == 0.85
    # the gate is exactly the point where the mean with perfect other members reaches the floor
    for n, floor in ((2, 0.97), (4, 0.99)):
        g = train.member_gate(n, floor)
        assert (g + (n - 1)) / n == pytest.approx(floor)


def test_train_decks_flag_names_an_unknown_deck_set() -> None:
    with pytest.raises(SystemExit):
        train.main(["--decks", "base,nosuch", "--calibrate-only", "x.onnx"])
    assert train._deck_list("base, mix") == "base,mix"


def test_train_small_cards_share_draws_small_scenes_and_refuses_a_bad_share() -> None:
    from vision import render

    widths = [train.training_scene(np.random.default_rng(seed), render.TRAIN_DECKS, small=1.0).card_width
              for seed in range(4)]
    assert all(train.SMALL_CARDS[0] <= w <= train.SMALL_CARDS[1] for w in widths)
    mixed = [train.training_scene(np.random.default_rng(seed), render.TRAIN_DECKS, small=0.5).card_width
             for seed in range(12)]
    assert any(w > train.SMALL_CARDS[1] for w in mixed) and any(w <= train.SMALL_CARDS[1] for w in mixed)
    # no share: the scenes of earlier runs, drawn exactly as before the option existed
    rng = np.random.default_rng(5)
    w, h = (800, 600) if rng.random() < 0.8 else (1200, 800)
    before = render.render_scene(rng, render.TRAIN_DECKS, width=w, height=h)
    after = train.training_scene(np.random.default_rng(5), render.TRAIN_DECKS)
    assert np.array_equal(before.image, after.image) and before.cards == after.cards
    for bad in ("1.5", "-0.1", "half"):
        with pytest.raises(SystemExit):
            train.main(["--small-cards", bad, "--calibrate-only", "x.onnx"])


def test_train_scale_tolerance_takes_two_ordered_shares_and_names_a_bad_one(capsys) -> None:
    assert train._tolerance("0.3,0.45") == (0.3, 0.45)
    for bad in ("0.3", "0.45,0.3", "0,0.3", "0.3,1", "a,b"):
        with pytest.raises(SystemExit):
            train.main(["--scale-tolerance", bad, "--calibrate-only", "x.onnx"])
        assert "--scale-tolerance" in capsys.readouterr().err


def test_train_convs_builds_the_deeper_trunk_and_refuses_another_depth(capsys) -> None:
    """``--convs 5`` adds a second convolution to the last two stages; the crop still comes out
    6 x 3 and the heads are the same. Any other depth is refused by name."""
    torch = pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")

    def convs(model):  # type: ignore[no-untyped-def]
        return [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]

    shallow, deep = train.build_model(8), train.build_model(8, convs=5)
    assert [c.out_channels for c in convs(shallow)] == [8, 16, 32]
    assert [c.out_channels for c in convs(deep)] == [8, 16, 16, 32, 32]
    x = torch.zeros(3, 1, CROP_H, CROP_W)
    deep.eval()
    with torch.no_grad():
        probs = train.model_probs(deep, x)
    assert probs.shape == (3, NOT_INDEX + 1) and torch.allclose(probs.sum(1), torch.ones(3))
    with pytest.raises(ValueError, match="convs must be one of"):
        train.build_model(8, convs=4)
    with pytest.raises(SystemExit):
        train.main(["--convs", "4", "--calibrate-only", "x.onnx"])
    assert "--convs: invalid choice: 4" in capsys.readouterr().err


def test_train_two_members_side_by_side_writes_one_calibrated_ensemble(tmp_path) -> None:
    """The shipped recipe end to end at toy size: two members (their own decks and seeds) trained in
    two processes, each quantised, then the gated ensemble, its threshold from whole scenes."""
    pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    pytest.importorskip("onnxruntime.quantization")
    import json

    out, stats = tmp_path / "ens.onnx", tmp_path / "stats.json"
    rc = train.main(["--scenes", "6", "--val-scenes", "3", "--epochs", "1", "--calib-scenes", "2",
                     "--epoch-crops", "40", "--channels", "4", "--out", str(out), "--stats", str(stats),
                     "--cache-dir", str(tmp_path), "--suit-scenes", "4", "--suit-epochs", "1"])
    assert rc == 0
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert meta["ensemble"] == "mean of 2 models, the others where the first gives >= 0.9"
    assert meta["quantized"].startswith("int8")
    assert float(meta["threshold"]) >= 0.95  # the ensemble's floor
    figures = json.loads(stats.read_text())
    # a front gate, or (this toy ensemble reads too little to fit one to) none, and the reason why
    if "front_gate" in meta:
        assert figures["front_gate"]["val_refused_sure"] == 0
    else:
        assert "no front gate can be fitted" in figures["front_gate"]["skipped"]
    assert [(m["decks"], m["seed"]) for m in figures["members"]] == [("mix", 1), ("mix2", 2)]
    assert all(m["train_crops"] > 40 and m["epoch_crops"] == 40 for m in figures["members"])  # the cap
    assert all(m["device"] == "cpu" for m in figures["members"])
    assert figures["gate"] == 0.9 and figures["calibration"]["val_scenes"] == 2
    x = np.random.default_rng(0).integers(0, 255, (5, CROP_H, CROP_W), np.uint8)
    probs = _run(out, x)
    assert probs.shape == (5, NOT_INDEX + 1) and np.allclose(probs.sum(1), 1, atol=1e-3)
    # then the body-suit model, beside the ensemble
    suit = tmp_path / "card_suit.onnx"
    assert figures["suit"]["scenes"] == 4 and figures["suit"]["train_crops"] > 0
    meta = {p.key: p.value for p in onnx.load(str(suit)).metadata_props}
    assert float(meta["confirm"]) > 0.5 and "no face" in meta["classes"]
    import onnxruntime as ort

    session = ort.InferenceSession(str(suit), providers=["CPUExecutionProvider"])
    bodies = np.random.default_rng(1).standard_normal((3, 1, pips.BODY_H, pips.BODY_W)).astype(np.float32)
    body_probs = session.run(None, {"bodies": bodies})[0]
    assert body_probs.shape == (3, 18) and np.allclose(body_probs[:, :5].sum(1), 1, atol=1e-4)


def test_suit_only_trains_just_the_body_suit_model(tmp_path) -> None:
    """``--suit-only``: the body-suit model alone, to ``--suit-out``, its figures in ``--stats``."""
    pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    import json

    out, stats = tmp_path / "suit.onnx", tmp_path / "stats.json"
    rc = train.main(["--suit-only", "--suit-scenes", "3", "--suit-epochs", "1", "--suit-out", str(out),
                     "--stats", str(stats), "--cache-dir", str(tmp_path)])
    assert rc == 0 and out.exists() and not (tmp_path / "card_index.onnx").exists()
    figures = json.loads(stats.read_text())
    assert list(figures) == ["suit"] and figures["suit"]["val_scenes"] == 2
    assert figures["suit"]["device"] == "cpu"


@pytest.mark.timeout(180)
def test_training_processes_start_fresh_after_opencv_used_threads_here() -> None:
    """A process forked after OpenCV ran work on several threads deadlocks at its first
    ``cv2.setNumThreads`` (the pool's state is copied mid-use): this test process, or a training
    run that already rendered, would hang in calibration. Training's pools start fresh
    interpreters, so the reads come back, the same as one process reads them."""
    import cv2

    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(2)
        for _ in range(3):
            cv2.GaussianBlur(np.random.default_rng(0).random((1500, 1500), np.float32), (31, 31), 5)
        seeds = [[60606, 0], [60606, 1]]
        two = train.scene_reads(DEFAULT_MODEL, train.render.TRAIN_DECKS, seeds, workers=2)
    finally:
        cv2.setNumThreads(before)
    assert train.PROCESSES.get_start_method() == "spawn"
    assert two == train.scene_reads(DEFAULT_MODEL, train.render.TRAIN_DECKS, seeds, workers=1)
    assert two[1] > 0 and len(two[0]) > 0


def test_calibration_tries_thresholds_from_the_floor_up_each_in_its_own_pass(monkeypatch) -> None:
    """The recogniser reads scenes differently at every threshold (its width search and second look
    depend on it), so wrong reads need not fall as the threshold rises. Each threshold is judged on
    its own pass, from the floor up, and the first that allows itself is kept: here 0.96, though
    the pass at the floor made wrong reads as sure as 0.99 (the old rule jumped from such a pass
    to the threshold its reads allowed, 0.9905, and never looked at 0.96)."""
    passes: list[float] = []

    asked: list[tuple] = []

    def fake_reads(model_path, decks, seeds, threshold=None, workers=1,  # type: ignore[no-untyped-def]
                   index_scale=None):
        passes.append(threshold)
        asked.append((decks, index_scale))
        rights = [(0.999, True)] * 1990
        wrongs = [(0.99, False)] * 3 if threshold < 0.96 else [(0.965, False)]
        return rights + wrongs, 2000

    monkeypatch.setattr(train, "scene_reads", fake_reads)
    t, stats = train.calibrate_scenes(pathlib.Path("m.onnx"), n=3, floor=0.95)
    assert t == 0.96 and passes == [0.95, 0.955, 0.96]
    assert stats == {"val_scenes": 3, "readable": 2000, "right_pct": 99.5, "wrong": 1}
    assert asked[0] == (train.render.TRAIN_DECKS, None)  # the seen decks, the width searched
    # a jumbo-index model: the seen decks printing their jumbo index, read at the card width at 1.35
    asked.clear()
    train.calibrate_scenes(pathlib.Path("m.onnx"), n=3, floor=0.95, jumbo=True)
    decks, scale = asked[0]
    assert scale == train.JUMBO_CALIBRATION_SCALE == 1.35
    assert [d.name for d in decks] == [f"{d.name}-jumbo" for d in train.render.TRAIN_DECKS]
    assert all(1.5 <= j.index_scale / d.index_scale <= 2.1 for j, d in zip(decks, train.render.TRAIN_DECKS))


def test_suit_scenes_and_epochs_must_be_whole_numbers_of_at_least_one(capsys) -> None:
    """A body-suit run of no scenes or no epochs would train nothing: refused by name before
    anything is rendered."""
    for flag, bad, why in (("--suit-scenes", "0", "is not at least 1"), ("--suit-epochs", "-2", "is not at least 1"),
                           ("--suit-scenes", "many", "is not a whole number")):
        with pytest.raises(SystemExit):
            train.main(["--suit-only", flag, bad])
        err = capsys.readouterr().err
        assert flag in err and why in err


def test_train_device_flag_refuses_a_device_torch_cannot_train_on(capsys) -> None:
    """``--device``: the CPU (the recipe) or a GPU; a device this machine's torch cannot use is
    refused by name before anything is rendered, and bfloat16 is on by default on a GPU."""
    torch = pytest.importorskip("torch", reason="PyTorch (training extra) is not installed")
    import argparse

    with pytest.raises(SystemExit, match="not a device torch knows"):
        train.main(["--device", "toaster", "--calibrate-only", "x.onnx"])
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match="sees no CUDA GPU"):
            train.main(["--device", "cuda", "--calibrate-only", "x.onnx"])
    gpu = argparse.Namespace(bf16="auto", device="cuda")
    assert train.use_bf16(gpu) and not train.use_bf16(argparse.Namespace(bf16="off", device="cuda"))
    assert train.use_bf16(argparse.Namespace(bf16="auto", device="cpu")) == train.bf16_fast()


def test_body_crops_come_in_the_same_order_whichever_worker_finishes_first() -> None:
    """The body-suit model's data joins its chunks in their order too (``make_body_dataset``): the
    same seeds give the same crops, labels and ranks in the same order as one process renders them."""
    from vision import train_suit

    got = train_suit.make_body_dataset(9000, 6, workers=2)
    seeds = list(range(9000, 9006))
    chunks = [c for c in (seeds[i::16] for i in range(16)) if c]
    parts = [train_suit._worker((c, train_suit.SUIT_DECKS, True, train_suit.SMALL_SHARE)) for c in chunks]
    for k in range(3):
        assert np.array_equal(got[k], np.concatenate([p[k] for p in parts]))
    assert len(got[0]) > 0


def test_training_crops_come_in_the_same_order_whichever_worker_finishes_first() -> None:
    """``make_dataset`` renders its scenes' chunks on several processes and joins them in the
    chunks' order, so the same seeds give the same crops in the same order: the training then draws
    the same batches, run from nothing or from its cached crops."""
    x, y = train.make_dataset(1000, 6, "train", workers=2)
    seeds = list(range(1000, 1006))
    chunks = [c for c in (seeds[i::16] for i in range(16)) if c]
    parts = [train._worker((c, "train", False, 1, 0.0, (train.SCALE_KEEP, train.SCALE_REFUSE))) for c in chunks]
    assert np.array_equal(x, np.concatenate([p[0] for p in parts]))
    assert np.array_equal(y, np.concatenate([p[1] for p in parts]))

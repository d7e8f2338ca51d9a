"""vision.modelfile: the int8 quantisation and the ensemble of exported classifiers, on the shipped
model and real rendered crops, run by onnxruntime."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package (training extra) is not installed")
ort = pytest.importorskip("onnxruntime")

from vision import modelfile, train  # noqa: E402
from vision.recognize import DEFAULT_MODEL, NOT_INDEX, OnnxRecognizer, preprocess  # noqa: E402


@pytest.fixture(scope="module")
def crops() -> tuple[np.ndarray, np.ndarray]:
    """Labelled crops from rendered scenes of the training decks (seeds no training run uses)."""
    return train.make_dataset(9_100_000, 16, "train", 1, False, 0)


def _probs(path: pathlib.Path, x: np.ndarray) -> np.ndarray:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {"crops": preprocess(x)})[0]


def test_quantized_model_agrees_with_the_float_model_and_keeps_confidence(crops, tmp_path) -> None:
    x, y = crops
    out = tmp_path / "q.onnx"
    modelfile.quantize(DEFAULT_MODEL, out, x[:600])
    assert out.stat().st_size < DEFAULT_MODEL.stat().st_size / 2  # int8 weights
    pf, pq = _probs(DEFAULT_MODEL, x), _probs(out, x)
    assert pq.shape == pf.shape == (len(x), NOT_INDEX + 1)
    assert np.allclose(pq.sum(axis=1), 1.0, atol=1e-4)
    assert (pq.argmax(1) == pf.argmax(1)).mean() > 0.98
    cards = y != NOT_INDEX
    # the logits stay in float: confident reads survive (quantised logits would cap them near 0.98)
    assert (pq[cards].max(1) >= 0.999).sum() >= 0.8 * (pf[cards].max(1) >= 0.999).sum() > 0
    meta = OnnxRecognizer(out).session.get_modelmeta().custom_metadata_map
    assert meta["threshold"] and meta["quantized"].startswith("int8")


def test_ensemble_is_the_mean_of_its_members(crops, tmp_path) -> None:
    x, _ = crops
    q = tmp_path / "q.onnx"
    modelfile.quantize(DEFAULT_MODEL, q, x[:300])
    both = tmp_path / "both.onnx"
    modelfile.ensemble([DEFAULT_MODEL, q], both)
    got = _probs(both, x[:200])
    want = (_probs(DEFAULT_MODEL, x[:200]) + _probs(q, x[:200])) / 2
    assert np.allclose(got, want, atol=1e-5)
    rec = OnnxRecognizer(both)  # the recogniser runs it like any model file
    assert rec.threshold == OnnxRecognizer(DEFAULT_MODEL).threshold
    assert rec.session.get_modelmeta().custom_metadata_map["ensemble"] == "mean of 2 models"


def test_ensemble_refuses_a_single_model(tmp_path) -> None:
    with pytest.raises(ValueError, match="at least two"):
        modelfile.ensemble([DEFAULT_MODEL], tmp_path / "x.onnx")

"""Shared test fixtures."""

from __future__ import annotations

import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> pathlib.Path:
    """The project's shared folder (rules, protocol, real hand histories) beside the checkout."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside this checkout")
    return SHARED


@pytest.fixture
def constant_body_model():  # type: ignore[no-untyped-def]
    """``make(path, suit, rank)``: writes a body model file that gives every crop ``suit`` and ``rank``
    with certainty (:func:`_constant_body_model`), a body model whose word is known."""
    return _constant_body_model


def _constant_body_model(path: pathlib.Path, suit: str, rank: str) -> pathlib.Path:
    """A body model file (90 x 64 crops, as the shipped ones) that gives every crop the suit ``suit``
    and the rank ``rank`` with certainty: a body model whose word is known."""
    import onnx
    from onnx import TensorProto, helper

    from vision import pips

    k = pips.N_SUIT_CLASSES + pips.N_RANKS
    bias = [0.0] * k
    bias["cdhs".index(suit)] = 1.0
    bias[pips.N_SUIT_CLASSES + "23456789TJQKA".index(rank)] = 1.0
    graph = helper.make_graph(
        [helper.make_node("GlobalAveragePool", ["bodies"], ["g"]), helper.make_node("Flatten", ["g"], ["f"]),
         helper.make_node("MatMul", ["f", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["probs"])],
        "body", [helper.make_tensor_value_info("bodies", TensorProto.FLOAT, ["n", 1, pips.BODY_H, pips.BODY_W])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["n", k])],
        [helper.make_tensor("w", TensorProto.FLOAT, [1, k], [0.0] * k),
         helper.make_tensor("b", TensorProto.FLOAT, [k], bias)])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path

"""Post-training steps on exported classifier files: int8 quantisation and ensembles.

    python -m vision.modelfile quantize MODEL --out OUT          # int8 weights and activations
    python -m vision.modelfile ensemble A B [...] --out OUT      # one file, mean of the members

Both write one self-contained ONNX file with the same input (``crops``) and output (``probs``,
``N x 53``) as :func:`vision.train.export`, and keep the metadata of the (first) source model; the
threshold must be calibrated again afterwards (``python -m vision.train --calibrate-only OUT``),
because both change the distribution of confidences.

*Quantisation* (onnxruntime's static QDQ quantiser, per-channel int8 weights, uint8 activations
calibrated on validation crops): convolutions, pooling and the hidden layer run in int8, about 2.5
times faster on one CPU core; the last layer (the heads' logits) stays in float, so the softmax keeps
the resolution the threshold needs near 1 (quantised logits cap every probability well below it),
and so does the first stage (:func:`first_stage`: one input channel, where int8 is slower).

*Front gate* (:func:`front_gate`, trained by :func:`vision.train.add_front_gate`): a small model reads
every crop first and the classifier only the crops it keeps; the rest are "not an index".

*Ensembles*: the members' probabilities averaged. Two models trained from different seeds rarely
make the same confident mistake, so the mean is confident where both are, and refuses where one
hesitates: the precision-first way to read more cards at one error rate.

Needs the ``onnx`` package (the training extra); onnxruntime alone runs the results.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from collections.abc import Sequence

import numpy as np

from vision.recognize import preprocess


def _load(path: pathlib.Path):  # type: ignore[no-untyped-def]
    import onnx

    return onnx.load(str(path))


def _copy_metadata(src, dst) -> None:  # type: ignore[no-untyped-def]
    del dst.metadata_props[:]
    for p in src.metadata_props:
        q = dst.metadata_props.add()
        q.key, q.value = p.key, p.value


def quantize(src: pathlib.Path, out: pathlib.Path, crops: np.ndarray, batch: int = 100) -> None:
    """Write ``src`` quantised to int8 as ``out``; ``crops`` (uint8, as cropped at run time) are
    the calibration data for the activation ranges (a few thousand validation crops)."""
    import tempfile

    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    model = _load(src)
    name = model.graph.input[0].name
    gemms = [n.name for n in model.graph.node if n.op_type in ("Gemm", "MatMul")]
    if not gemms:
        raise ValueError(f"{src}: no Gemm/MatMul node: not a classifier exported by vision.train")

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = [preprocess(crops[i : i + batch]) for i in range(0, len(crops), batch)]

        def get_next(self):  # type: ignore[no-untyped-def]
            return {name: self.batches.pop()} if self.batches else None

    with tempfile.TemporaryDirectory() as tmp:
        pre = pathlib.Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)  # (ONNX shape inference suffices; no sympy)
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=["Conv", "Gemm", "MatMul", "MaxPool", "Relu"],
                        nodes_to_exclude=first_stage(_load(pre)) + gemms[-1:])  # the logits stay in float
    q = _load(out)
    _copy_metadata(model, q)
    _set(q, "quantized", "int8 QDQ (onnxruntime static, per-channel weights; the first stage and the logits in float)")
    onnx.save_model(q, str(out), save_as_external_data=False)


def first_stage(model) -> list[str]:  # type: ignore[no-untyped-def]
    """Names of the nodes of ``model``'s first stage: the convolution that reads the input, and the
    nodes after it up to its max-pool (batch norm, ReLU), each the only reader of the one before.
    :func:`quantize` leaves them in float: an int8 convolution of one input channel is the slowest
    layer of the quantised classifier (about a third of its time for 2% of its multiply-adds:
    onnxruntime's int8 kernels multiply nine-element rows), and in float, with the quantisation after
    the pool, the whole model takes about 14% less time. Empty when the model does not start so."""
    g = model.graph
    readers: dict[str, list] = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    first = readers.get(g.input[0].name, [])
    if len(first) != 1 or first[0].op_type != "Conv":
        return []
    stage, node = [first[0].name], first[0]
    while True:
        nxt = readers.get(node.output[0], [])
        if len(nxt) != 1 or nxt[0].op_type not in ("BatchNormalization", "Relu", "MaxPool"):
            return []
        node = nxt[0]
        stage.append(node.name)
        if node.op_type == "MaxPool":
            return stage


def ensemble(members: Sequence[pathlib.Path], out: pathlib.Path, gate: float | None = 0.9) -> None:
    """Write one model whose ``probs`` are the mean of the ``members``' (same input and output).

    ``gate``: the other members run only on the crops the first member reads as a card with at
    least this probability; every other crop keeps the first member's probabilities. With two
    members and a threshold of ``(1 + gate) / 2`` or more, every read that can pass the threshold is
    the full mean (the first member must give at least ``gate`` for the mean to get there), and
    the second member costs only the crops that look like an index (about a third). ``None``: every
    member reads every crop.
    """
    import onnx
    from onnx import compose, helper, numpy_helper

    if len(members) < 2:
        raise ValueError("an ensemble needs at least two models")
    if gate is not None and not 0.0 < gate < 1.0:
        raise ValueError(f"gate must be between 0 and 1, got {gate}")
    models = [_load(p) for p in members]
    first = models[0]
    inp, outp = first.graph.input[0].name, first.graph.output[0].name
    for p, m in zip(members, models):
        if m.graph.input[0].name != inp or m.graph.output[0].name != outp:
            raise ValueError(f"{p}: input/output names differ from {members[0]}")
    nodes, inits, outs, member_nodes = [], [], [], []
    for k, m in enumerate(models):
        m = compose.add_prefix(m, f"m{k}_", rename_inputs=gate is not None and k > 0, rename_outputs=True)
        member_nodes.append(list(m.graph.node))
        inits += list(m.graph.initializer)
        outs.append(m.graph.output[0].name)
    nodes += member_nodes[0]
    const = lambda name, value, dtype=np.float32: inits.append(numpy_helper.from_array(np.array(value, dtype), name))  # noqa: E731
    const("ens_weight", 1.0 / len(models))
    node = lambda op, ins, outs_, **kw: nodes.append(helper.make_node(op, ins, outs_, name=outs_[0], **kw))  # noqa: E731
    if gate is None:
        for more in member_nodes[1:]:
            nodes += more
        node("Sum", outs, ["ens_sum"])
        node("Mul", ["ens_sum", "ens_weight"], [outp])
    else:
        # rows where the first member's best card reaches the gate
        const("ens_gate", gate)
        const("ens_c0", [0], np.int64)
        const("ens_c52", [52], np.int64)
        const("ens_c1", [1], np.int64)
        node("Slice", [outs[0], "ens_c0", "ens_c52", "ens_c1"], ["ens_cards"])
        node("ReduceMax", ["ens_cards"], ["ens_best"], axes=[1], keepdims=0)
        node("GreaterOrEqual", ["ens_best", "ens_gate"], ["ens_mask"])
        node("NonZero", ["ens_mask"], ["ens_nz"])            # 1 x K
        node("Transpose", ["ens_nz"], ["ens_idx"], perm=[1, 0])  # K x 1
        node("Squeeze", ["ens_nz", "ens_c0"], ["ens_rows"])   # K
        for k in range(1, len(models)):
            node("Gather", [inp, "ens_rows"], [f"m{k}_{inp}"], axis=0)
            nodes += member_nodes[k]
        node("Gather", [outs[0], "ens_rows"], ["ens_first"], axis=0)
        node("Sum", ["ens_first"] + outs[1:], ["ens_sum"])
        node("Mul", ["ens_sum", "ens_weight"], ["ens_mean"])
        node("ScatterND", [outs[0], "ens_idx", "ens_mean"], [outp])
    graph = helper.make_graph(nodes, "card_index_ensemble", [first.graph.input[0]], [first.graph.output[0]], inits)
    merged = helper.make_model(graph, opset_imports=first.opset_import, producer_name="vision.modelfile")
    merged.ir_version = first.ir_version
    _copy_metadata(first, merged)
    _set(merged, "ensemble", f"mean of {len(models)} models" + ("" if gate is None else
                                                               f", the others where the first gives >= {gate}"))
    onnx.checker.check_model(merged)
    onnx.save_model(merged, str(out), save_as_external_data=False)


def front_gate(gate_model: pathlib.Path, model: pathlib.Path, out: pathlib.Path, gate: float) -> None:
    """Write ``model`` behind a front gate: ``gate_model`` (input ``crops``, output ``keep``, one
    probability a crop) reads every crop, and ``model`` only the crops it keeps with at least
    ``gate``; every other crop comes out as "not an index" (probability 1 for class 52).

    The gate is trained to keep what ``model`` reads as a card with :data:`GATE_KEEP` or more
    (:func:`vision.train.add_front_gate`), so it drops only crops the recogniser would throw away:
    a reading below that is neither looked at again nor assembled into a card. It is a few percent
    of ``model``'s work per crop, and most crops a frame makes are not an index.
    """
    import onnx
    from onnx import compose, helper, numpy_helper

    g, first = _load(gate_model), _load(model)
    inp, outp = first.graph.input[0].name, first.graph.output[0].name
    if g.graph.input[0].name != inp:
        raise ValueError(f"{gate_model}: input {g.graph.input[0].name!r} is not {inp!r}")
    if not 0.0 < gate < 1.0:
        raise ValueError(f"gate must be between 0 and 1, got {gate}")
    g = compose.add_prefix(g, "fg_", rename_inputs=False, rename_outputs=True)
    m = compose.add_prefix(first, "fm_", rename_inputs=True, rename_outputs=True)
    nodes = list(g.graph.node)
    inits = list(g.graph.initializer) + list(m.graph.initializer)
    const = lambda name, value, dtype=np.float32: inits.append(numpy_helper.from_array(np.array(value, dtype), name))  # noqa: E731
    node = lambda op, ins, outs_, **kw: nodes.append(helper.make_node(op, ins, outs_, name=outs_[0], **kw))  # noqa: E731
    const("fg_gate", gate)
    const("fg_flat", [-1], np.int64)
    const("fg_c0", [0], np.int64)
    const("fg_c1", [1], np.int64)
    const("fg_classes", [53], np.int64)
    const("fg_refused", [[0.0] * 52 + [1.0]])
    node("Reshape", [g.graph.output[0].name, "fg_flat"], ["fg_score"])
    node("GreaterOrEqual", ["fg_score", "fg_gate"], ["fg_mask"])
    node("NonZero", ["fg_mask"], ["fg_nz"])               # 1 x K
    node("Transpose", ["fg_nz"], ["fg_idx"], perm=[1, 0])  # K x 1
    node("Squeeze", ["fg_nz", "fg_c0"], ["fg_rows"])       # K
    node("Gather", [inp, "fg_rows"], [m.graph.input[0].name], axis=0)
    nodes += list(m.graph.node)
    node("Shape", [inp], ["fg_shape"])
    node("Slice", ["fg_shape", "fg_c0", "fg_c1"], ["fg_n"])
    node("Concat", ["fg_n", "fg_classes"], ["fg_out_shape"], axis=0)
    node("Expand", ["fg_refused", "fg_out_shape"], ["fg_default"])
    node("ScatterND", ["fg_default", "fg_idx", m.graph.output[0].name], [outp])
    graph = helper.make_graph(nodes, "card_index_gated", [first.graph.input[0]], [first.graph.output[0]], inits)
    merged = helper.make_model(graph, opset_imports=first.opset_import, producer_name="vision.modelfile")
    merged.ir_version = first.ir_version
    _copy_metadata(first, merged)
    _set(merged, "front_gate", f"a small model reads every crop first; the rest only those it keeps at >= {gate:.4g}")
    onnx.checker.check_model(merged)
    onnx.save_model(merged, str(out), save_as_external_data=False)


GATE_KEEP = 0.3
"""What the front gate is trained to keep: crops the classifier reads as a card with at least this
probability (:data:`vision.recognize.SECOND_LOOK_FROM`; below it a reading is thrown away)."""


def _set(model, key: str, value: str) -> None:  # type: ignore[no-untyped-def]
    for p in model.metadata_props:
        if p.key == key:
            p.value = value
            return
    p = model.metadata_props.add()
    p.key, p.value = key, value


def validation_crops(n: int = 3000, seed: int = 0) -> np.ndarray:
    """Crops for quantisation ranges: rendered like the training data (validation seeds)."""
    from vision import train

    x, _ = train.make_dataset(7_000_000, max(10, n // 60), "train", 1, False, 0)
    rng = np.random.default_rng(seed)
    return x[rng.choice(len(x), min(n, len(x)), replace=False)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quantize", help="int8 weights and activations (calibrated on rendered crops)")
    q.add_argument("model")
    q.add_argument("--out", required=True)
    e = sub.add_parser("ensemble", help="one file averaging several models' probabilities")
    e.add_argument("models", nargs="+")
    e.add_argument("--out", required=True)
    e.add_argument("--gate", type=float, default=0.9,
                   help="the other members read only crops the first reads as a card at >= GATE (0: all)")
    args = ap.parse_args(argv)
    if args.cmd == "quantize":
        quantize(pathlib.Path(args.model), pathlib.Path(args.out), validation_crops())
    else:
        ensemble([pathlib.Path(p) for p in args.models], pathlib.Path(args.out), args.gate or None)
    print(f"wrote {args.out} ({pathlib.Path(args.out).stat().st_size / 1e6:.2f} MB); calibrate it: "
          f"python -m vision.train --calibrate-only {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

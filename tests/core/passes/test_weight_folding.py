"""Weight folding moves constant per-channel scales, shifts and batch norms into weights."""

from __future__ import annotations

import numpy as np
import pytest

from tfx.core.errors import InvalidArgumentError
from tfx.core.passes.weight_folding import fold_weights

RNG = np.random.default_rng(11)
CONV = {"strides": [1, 1, 1, 1], "padding": "SAME"}
X = RNG.standard_normal((2, 5, 5, 3)).astype(np.float32)


def _fold(graph, kit, outputs):
    graph, changed = fold_weights(graph, kit.context(["x"], outputs))
    graph.validate()
    return graph, changed


def _check(builder, kit, fetch: str, x: np.ndarray = X):
    """Fold, then compare with the unfolded graph; return the folded graph."""
    graph = builder.graph()
    want = kit.run(graph, [f"{fetch}:0"], {"x:0": x})
    graph, changed = _fold(graph, kit, [fetch])
    assert changed
    kit.assert_same(want, kit.run(graph, [f"{fetch}:0"], {"x:0": x}), exact=False)
    return graph


def _conv(builder, op: str = "Conv2D", channels_out: int = 4) -> str:
    builder.placeholder("x", shape=X.shape)
    shape = (3, 3, 3, channels_out if op == "Conv2D" else 2)
    return builder.op(op, "conv", ["x", builder.const("w", RNG.standard_normal(shape))], **CONV)


@pytest.mark.parametrize("op", ["Conv2D", "DepthwiseConv2dNative"])
def test_scale_after_a_convolution_goes_into_the_filter(builder, kit, op) -> None:
    conv = _conv(builder, op)
    builder.op("Mul", "scaled", [conv, builder.const("s", RNG.uniform(0.5, 2, 4 if op ==
                                                                     "Conv2D" else 6))])
    graph = _check(builder, kit, "scaled")
    assert graph.node("scaled").op == op and "conv" not in graph


def test_scale_after_bias_scales_filter_and_bias(builder, kit) -> None:
    conv = _conv(builder)
    b = builder.op("BiasAdd", "b", [conv, builder.const("bias", RNG.standard_normal(4))])
    builder.op("Mul", "scaled", [builder.const("s", 3.0), b])  # constant first: commutes
    graph = _check(builder, kit, "scaled")
    assert graph.node("scaled").op == "BiasAdd"
    assert sorted(n.op for n in graph if n.op != "Const") == ["BiasAdd", "Conv2D",
                                                             "Placeholder"]


def test_add_after_a_linear_op_becomes_a_bias_and_biases_merge(builder, kit) -> None:
    conv = _conv(builder)
    added = builder.op("AddV2", "added", [conv, builder.const("shift", RNG.standard_normal(4))])
    builder.op("Add", "again", [added, builder.const("more", 0.25)])
    graph = builder.graph()
    want = kit.run(graph, ["again:0"], {"x:0": X})
    graph, changed = _fold(graph, kit, ["again"])
    graph, _ = _fold(graph, kit, ["again"])  # the second Add joins the new BiasAdd
    assert changed and graph.node("again").op == "BiasAdd" and "added" not in graph
    kit.assert_same(want, kit.run(graph, ["again:0"], {"x:0": X}), exact=False)


def test_scale_before_a_matmul_goes_into_its_rows(builder, kit) -> None:
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    builder.placeholder("x", shape=x.shape)
    scaled = builder.op("Mul", "pre", ["x", builder.const("s", RNG.uniform(0.5, 2, 5))])
    builder.op("MatMul", "mm", [scaled, builder.const("w", RNG.standard_normal((5, 2)))])
    graph = _check(builder, kit, "mm", x)
    assert "pre" not in graph and graph.node("mm").inputs[0].node.name == "x"


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("after_conv", [True, False])
def test_inference_batch_norm_folds(builder, kit, data_format, after_conv) -> None:
    x = X if data_format == "NHWC" else X.transpose(0, 3, 1, 2).copy()
    builder.placeholder("x", shape=x.shape)
    channels = 3
    source = "x"
    if after_conv:
        conv_attrs = dict(CONV, data_format=data_format)
        source = builder.op("Conv2D", "conv", ["x", builder.const(
            "w", RNG.standard_normal((3, 3, 3, channels)))], **conv_attrs)
    stats = [builder.const(name, RNG.uniform(0.5, 1.5, channels)) for name in
             ("scale", "offset", "mean", "var")]
    builder.op("FusedBatchNormV3", "bn", [source, *stats], U="float32", epsilon=0.001,
               is_training=False, data_format=data_format)
    builder.op("Relu", "out", ["bn"])  # a fetched batch norm might have its statistics read
    graph = _check(builder, kit, "out", x)
    ops = sorted(n.op for n in graph if n.op not in ("Const", "Placeholder", "Relu"))
    assert ops == (["BiasAdd", "Conv2D"] if after_conv else ["BiasAdd", "Mul"])
    assert graph.node("bn").op == "BiasAdd"


def test_what_must_not_change_stays(builder, kit) -> None:
    builder.placeholder("x", shape=X.shape)
    w = builder.const("w", RNG.standard_normal((1, 1, 3, 3)))
    s = builder.const("s", [1.0, 2.0, 3.0])
    kept = builder.op("Conv2D", "kept_conv", ["x", w], **CONV)  # fetched itself
    builder.op("Mul", "kept_scaled", [kept, s])
    shared = builder.op("Conv2D", "shared", ["x", w], **CONV)  # read twice
    builder.op("Mul", "shared_scaled", [shared, s])
    builder.op("Relu", "shared_relu", [shared])
    wide = builder.op("Conv2D", "wide", ["x", w], **CONV)  # a scale that is not per channel
    builder.op("Mul", "wide_scaled", [wide, builder.const("full", np.ones((5, 5, 3)))])
    stats = [builder.const(n, [1.0, 1.0, 1.0]) for n in ("g", "o", "m", "v")]
    builder.op("FusedBatchNormV3", "training_bn", ["x", *stats], U="float32",
               is_training=True)
    builder.op("FusedBatchNormV3", "kept_bn", ["x", *stats], U="float32", is_training=False)
    builder.op("FusedBatchNormV3", "stats_bn", ["x", *stats], U="float32", is_training=False)
    builder.op("Identity", "mean_out", ["stats_bn:1"])  # a statistics output is read
    outputs = ["kept_conv", "kept_scaled", "shared_scaled", "shared_relu", "wide_scaled",
               "training_bn", "kept_bn", "mean_out"]
    graph, changed = _fold(builder.graph(), kit, outputs)
    assert not changed


def test_a_scale_of_a_cond_branch_keeps_the_branch_dead(builder, kit) -> None:
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    builder.placeholder("x", shape=x.shape)
    builder.placeholder("pred", dtype="bool", shape=())
    builder.op("Switch", "switch", ["x", "pred"])
    pivot = builder.op("Identity", "pivot_t", ["switch:1"])
    mm = builder.op("MatMul", "mm", ["x", builder.const("w", RNG.standard_normal((3, 3)))])
    scale = builder.const("s", [1.0, 2.0, 3.0], controls=[pivot])  # of the true branch
    builder.op("Mul", "scaled", [mm, scale])
    builder.op("Identity", "read", ["scaled"])
    graph = builder.graph()
    live = {"x:0": x, "pred:0": True}
    want = kit.run(graph, ["read:0"], live)
    graph, changed = fold_weights(graph, kit.context(["x", "pred"], ["read"]))
    graph.validate()
    assert changed and "scaled" not in graph and graph.node("mm").op == "MatMul"
    kit.assert_same(want, kit.run(graph, ["read:0"], live), exact=False)
    with pytest.raises(InvalidArgumentError, match="dead"):  # the untaken branch stays dead
        kit.run(graph, ["read:0"], {"x:0": x, "pred:0": False})

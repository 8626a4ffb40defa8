"""Weight folding: constant scales and shifts go into convolution and matmul weights.

A linear op (`Conv2D`, `DepthwiseConv2dNative`, `MatMul`) with a constant filter
absorbs the per-output-channel arithmetic that follows it:

* `Mul(conv(x, W), s)` -> `conv(x, W * s)`;
* `Add(conv(x, W), b)` -> `BiasAdd(conv(x, W), b)`; `BiasAdd(BiasAdd(y, a), b)` and
  `Add(BiasAdd(y, a), b)` -> `BiasAdd(y, a + b)`; `Mul(BiasAdd(conv(x, W), a), s)` ->
  `BiasAdd(conv(x, W * s), a * s)`;
* `FusedBatchNorm{,V2,V3}` at inference (`is_training=false`, constant statistics)
  -> `BiasAdd(conv(x, W * g), offset - mean * g)` with `g = scale / sqrt(var + eps)`,
  or `BiasAdd(Mul(x, g), ...)` when no linear op precedes it;
* and a constant scale before it: `conv(Mul(x, s), W)` -> `conv(x, W * s)` for a
  scalar or per-input-channel `s`.

Frozen Keras graphs spell batch norm as `x * g + (beta - mean * g)`; after
constant folding that is the first two patterns. The results differ from the
original by rounding only (the products are reassociated), so the pass is not
`exact`. The linear op keeps its name; a kept (fetched) linear op is never
changed where its own output would change.
"""

from __future__ import annotations

import numpy as np

from tfx.core.graph import Graph, Node, Output
from tfx.core.passes.base import (
    CONTROL_FLOW_OPS,
    Pass,
    PassContext,
    add_const,
    binds,
    bypass,
    const_value,
    is_const,
    remove_if_unused,
    replace_node,
    same_device,
    sole_reader,
)
from tfx.protos import graph_pb2

_LINEAR_OPS = frozenset({"Conv2D", "DepthwiseConv2dNative", "MatMul"})
_FLOAT_KINDS = frozenset({"float16", "bfloat16", "float32", "float64"})
_BATCH_NORMS = frozenset({"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})


def fold_weights(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Fold constant per-channel arithmetic into linear ops' weights and biases.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes.

    Returns:
        (graph, whether anything was folded).
    """
    folded = 0
    for node in graph.topological_order():
        if node.name not in graph or graph.node(node.name) is not node:
            continue
        if ctx.is_opaque(node) or not binds(node):
            continue
        if node.op == "Mul":
            folded += _fold_scale_after(graph, node, ctx) or _fold_scale_before(graph, node, ctx)
        elif node.op in ("Add", "AddV2", "BiasAdd"):
            folded += _fold_shift(graph, node, ctx)
        elif node.op in _BATCH_NORMS:
            folded += _fold_batch_norm(graph, node, ctx)
    ctx.stats["weights folded"] += folded
    return graph, bool(folded)


# --- linear ops --------------------------------------------------------------------------


def _linear(node: Node, ctx: PassContext, output_changes: bool = True) -> bool:
    """A linear op with a constant filter that we may rewrite.

    A kept (fetched) one only where its own output stays what it was.
    """
    if node.op not in _LINEAR_OPS or not binds(node) or (output_changes and ctx.is_kept(node)):
        return False
    if node.output_types[0].name not in _FLOAT_KINDS or not is_const(node.inputs[1].node, ctx):
        return False
    if node.op != "MatMul" and node.attrs.get("data_format", "NHWC") not in ("NHWC", "NCHW"):
        return False
    return const_value(node.inputs[1].node).ndim == (2 if node.op == "MatMul" else 4)


def _out_layout(node: Node) -> tuple[int, int, int]:
    """(rank, channel axis, channel count) of a linear op's output."""
    weights = const_value(node.inputs[1].node)
    if node.op == "MatMul":
        channels = weights.shape[0] if node.attrs.get("transpose_b") else weights.shape[1]
        return 2, 1, channels
    axis = 3 if node.attrs.get("data_format", "NHWC") == "NHWC" else 1
    channels = weights.shape[3] if node.op == "Conv2D" else weights.shape[2] * weights.shape[3]
    return 4, axis, channels


def _in_layout(node: Node) -> tuple[int, int, int] | None:
    """(rank, channel axis, channel count) of a linear op's data input, when scalable."""
    weights = const_value(node.inputs[1].node)
    if node.op == "MatMul":
        if node.attrs.get("transpose_a"):
            return None
        return 2, 1, weights.shape[1] if node.attrs.get("transpose_b") else weights.shape[0]
    axis = 3 if node.attrs.get("data_format", "NHWC") == "NHWC" else 1
    return 4, axis, weights.shape[2]


def _channel_vector(value: np.ndarray, rank: int, axis: int, channels: int) -> np.ndarray | None:
    """`value` as one number per channel, if broadcasting it changes nothing else."""
    if value.ndim > rank:
        return None
    if value.size == 1:
        return np.full(channels, value.reshape(()), dtype=np.float64)
    padded = (1,) * (rank - value.ndim) + value.shape
    if padded[axis] != channels or any(d != 1 for i, d in enumerate(padded) if i != axis):
        return None
    return value.reshape(channels).astype(np.float64)


def _scaled_filter(node: Node, scale: np.ndarray, on_output: bool) -> np.ndarray:
    weights = const_value(node.inputs[1].node)
    w = weights.astype(np.float64)
    if node.op == "MatMul":
        transpose_b = bool(node.attrs.get("transpose_b"))
        columns = on_output != transpose_b  # which axis of W the scale runs along
        w = w * (scale[None, :] if columns else scale[:, None])
    elif on_output and node.op == "DepthwiseConv2dNative":
        w = w * scale.reshape(w.shape[2], w.shape[3])
    elif on_output:
        w = w * scale
    else:
        w = w * scale[None, None, :, None]
    return w.astype(weights.dtype)


def _controls(*consts: Node) -> list[Node]:
    """The control inputs of the constants a new constant is made from: it inherits them,
    so it still waits for (and is dead with) whatever they did, e.g. a cond's pivot."""
    return list(dict.fromkeys(c for const in consts for c in const.control_inputs))


def _set_filter(graph: Graph, node: Node, weights: np.ndarray, ctx: PassContext,
                folded: tuple[Node, ...] = ()) -> None:
    old = node.inputs[1].node
    new = add_const(graph, f"{node.name}/folded_filter", weights, node.output_types[0],
                    old.device, _controls(old, *folded))
    graph.set_input(node, 1, new.output(0))
    remove_if_unused(graph, old, ctx)


def _can_absorb(consumer: Node, producer: Node, ctx: PassContext) -> bool:
    """Whether `consumer` may disappear into `producer`, its only reader."""
    if ctx.is_kept(producer) or ctx.is_opaque(producer) or not same_device(consumer, producer):
        return False
    if not sole_reader(producer, consumer):
        return False
    if consumer.control_inputs and any(u.op in CONTROL_FLOW_OPS for u in consumer.users):
        return False
    return not ctx.is_opaque(consumer)


def _absorb(graph: Graph, consumer: Node, producer: Node, ctx: PassContext) -> None:
    """`producer` now computes `consumer`'s value: readers of `consumer` read it."""
    if not ctx.is_kept(consumer):
        bypass(graph, consumer, producer.output(0), ctx)
        return
    replace_node(graph, consumer, producer.op, list(producer.inputs), dict(producer.attr),
                 producer.control_inputs)
    graph.remove_node(producer)


def _split_const(node: Node, ctx: PassContext) -> tuple[Output, Node] | None:
    """(the non-constant input, the constant) of a binary node, else None."""
    a, b = node.inputs[0], node.inputs[1]
    if is_const(b.node, ctx) and not is_const(a.node, ctx):
        return a, b.node
    if is_const(a.node, ctx) and not is_const(b.node, ctx) and node.op != "BiasAdd":
        return b, a.node
    return None


# --- patterns ----------------------------------------------------------------------------


def _fold_scale_after(graph: Graph, mul: Node, ctx: PassContext) -> bool:
    split = _split_const(mul, ctx)
    if split is None:
        return False
    source, const = split
    producer = source.node
    bias_node = None
    if producer.op == "BiasAdd" and _is_const_bias(producer, ctx):
        bias_node, producer = producer, producer.inputs[0].node
    if not _linear(producer, ctx):
        return False
    rank, axis, channels = _out_layout(producer)
    if bias_node is not None and not (
        sole_reader(producer, bias_node) and same_device(producer, bias_node)
        and _bias_axis(bias_node, rank) == axis
        and const_value(bias_node.inputs[1].node).shape == (channels,)
    ):
        return False
    head = bias_node or producer
    if not _can_absorb(mul, head, ctx):
        return False
    scale = _channel_vector(const_value(const), rank, axis, channels)
    if scale is None:
        return False
    _set_filter(graph, producer, _scaled_filter(producer, scale, on_output=True), ctx,
                (const,))
    if bias_node is not None:
        bias = const_value(bias_node.inputs[1].node)
        _set_bias(graph, bias_node, (bias.astype(np.float64) * scale).astype(bias.dtype), ctx,
                  (const,))
    _absorb(graph, mul, head, ctx)
    remove_if_unused(graph, const, ctx)
    return True


def _fold_scale_before(graph: Graph, mul: Node, ctx: PassContext) -> bool:
    users = list(mul.users)
    if len(users) != 1 or ctx.is_kept(mul) or not _linear(users[0], ctx, output_changes=False):
        return False
    linear = users[0]
    if linear.inputs[0].node is not mul or not sole_reader(mul, linear):
        return False
    if mul.control_inputs or not same_device(mul, linear):
        return False
    split = _split_const(mul, ctx)
    layout = _in_layout(linear)
    if split is None or layout is None:
        return False
    source, const = split
    scale = _channel_vector(const_value(const), *layout)
    if scale is None:
        return False
    _set_filter(graph, linear, _scaled_filter(linear, scale, on_output=False), ctx, (const,))
    graph.set_input(linear, 0, source)
    remove_if_unused(graph, mul, ctx)
    return True


def _is_const_bias(node: Node, ctx: PassContext) -> bool:
    return len(node.inputs) == 2 and is_const(node.inputs[1].node, ctx)


def _bias_axis(bias_add: Node, rank: int) -> int:
    return 1 if bias_add.attrs.get("data_format", "NHWC") == "NCHW" else rank - 1


def _set_bias(graph: Graph, bias_add: Node, value: np.ndarray, ctx: PassContext,
              folded: tuple[Node, ...] = ()) -> None:
    old = bias_add.inputs[1].node
    new = add_const(graph, f"{bias_add.name}/folded_bias", value, bias_add.output_types[0],
                    old.device, _controls(old, *folded))
    graph.set_input(bias_add, 1, new.output(0))
    remove_if_unused(graph, old, ctx)


def _bias_attrs(linear: Node) -> dict[str, graph_pb2.AttrValue]:
    data_format = linear.attrs.get("data_format", "NHWC") if linear.op != "MatMul" else "NHWC"
    return {
        "T": graph_pb2.AttrValue(type=linear.output_types[0].enum),
        "data_format": graph_pb2.AttrValue(s=data_format.encode()),
    }


def _fold_shift(graph: Graph, add: Node, ctx: PassContext) -> bool:
    split = _split_const(add, ctx)
    if split is None:
        return False
    source, const = split
    producer = source.node
    if producer.op == "BiasAdd" and _is_const_bias(producer, ctx):
        return _merge_biases(graph, add, producer, const, ctx)
    if add.op == "BiasAdd" or not _linear(producer, ctx) or not same_device(add, producer):
        return False
    rank, axis, channels = _out_layout(producer)
    shift = _channel_vector(const_value(const), rank, axis, channels)
    if shift is None:
        return False
    dtype = add.output_types[0]
    bias = add_const(graph, f"{add.name}/bias", shift.astype(dtype.np), dtype, const.device,
                     const.control_inputs)
    replace_node(graph, add, "BiasAdd", [source, bias.output(0)], _bias_attrs(producer))
    remove_if_unused(graph, const, ctx)
    return True


def _merge_biases(graph: Graph, add: Node, inner: Node, const: Node, ctx: PassContext) -> bool:
    """`add(BiasAdd(y, a), c)` -> `BiasAdd(y, a + c)` for NHWC biases and a scalar or vector c."""
    if not _can_absorb(add, inner, ctx) or inner.attrs.get("data_format", "NHWC") != "NHWC":
        return False
    if add.op == "BiasAdd" and add.attrs.get("data_format", "NHWC") != "NHWC":
        return False
    old = const_value(inner.inputs[1].node)
    value = const_value(const)
    if old.ndim != 1 or value.ndim > 1 or value.size not in (1, old.shape[0]):
        return False
    shift = np.broadcast_to(value.astype(np.float64), old.shape)
    _set_bias(graph, inner, (old.astype(np.float64) + shift).astype(old.dtype), ctx, (const,))
    _absorb(graph, add, inner, ctx)
    remove_if_unused(graph, const, ctx)
    return True


def _fold_batch_norm(graph: Graph, bn: Node, ctx: PassContext) -> bool:
    attrs = bn.attrs
    if attrs.get("is_training", True) or len(bn.inputs) != 5 or ctx.is_kept(bn):
        return False  # a kept batch norm may have its statistics outputs fetched
    if any(not is_const(s.node, ctx) for s in bn.inputs[1:]):
        return False
    if any(s.index != 0 for u in bn.users for s in u.inputs if s.node is bn):
        return False  # a statistics output is read
    dtype = bn.output_types[0]
    if dtype.name not in _FLOAT_KINDS:
        return False
    data_format = attrs.get("data_format", "NHWC")
    if data_format not in ("NHWC", "NCHW"):
        return False
    scale, offset, mean, variance = (
        const_value(s.node).astype(np.float64) for s in bn.inputs[1:]
    )
    gain = scale / np.sqrt(variance + float(attrs.get("epsilon", 1e-4)))
    shift = offset - mean * gain
    source = bn.inputs[0]
    producer = source.node
    bias_attrs = {
        "T": graph_pb2.AttrValue(type=dtype.enum),
        "data_format": graph_pb2.AttrValue(s=data_format.encode()),
    }
    channel_axis = 3 if data_format == "NHWC" else 1
    statistics = [s.node for s in bn.inputs[1:]]
    controls = _controls(*statistics)
    if (
        _linear(producer, ctx)
        and sole_reader(producer, bn)
        and same_device(producer, bn)
        and _out_layout(producer)[1:] == (channel_axis, gain.size)
    ):
        _set_filter(graph, producer, _scaled_filter(producer, gain, on_output=True), ctx,
                    tuple(statistics))
        data = source
    else:
        shape = (-1,) if data_format == "NHWC" else (-1, 1, 1)
        gain_const = add_const(graph, f"{bn.name}/gain", gain.astype(dtype.np).reshape(shape),
                               dtype, bn.device, controls)
        mul = graph.add_node(graph.unique_name(f"{bn.name}/scale"), "Mul",
                             [source, gain_const.output(0)], (),
                             {"T": graph_pb2.AttrValue(type=dtype.enum)}, bn.device)
        data = mul.output(0)
    bias = add_const(graph, f"{bn.name}/shift", shift.astype(dtype.np), dtype, bn.device,
                     controls)
    replace_node(graph, bn, "BiasAdd", [data, bias.output(0)], bias_attrs)
    for const in statistics:
        remove_if_unused(graph, const, ctx)
    return True


PASS = Pass("weight_folding", fold_weights,
            "fold batch norms and constant per-channel Mul/Add into Conv2D/MatMul weights "
            "and biases", exact=False)

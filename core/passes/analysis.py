"""Static facts about a graph that passes and the report read: shapes and FLOPs.

`infer_shapes` runs every op's shape function in topological order, giving
each function the values of small constant inputs. It is best effort: an op
without a shape function, an unknown op, a shape function that fails or a
fed tensor whose shape the feed may change all give unknown shapes, never an
error. A fed placeholder keeps its declared shape, which the session checks.

`estimate_flops` counts multiply-adds as two FLOPs for convolutions and
matrix products and one FLOP per output element for elementwise ops, with
unknown dimensions taken as 1: an estimate to compare graphs, not a profile.
"""

from __future__ import annotations

from collections.abc import Container

import numpy as np

from tfx.core.graph import Graph, Node, Output
from tfx.core.passes.base import INPUT_OPS, binds, const_shape
from tfx.core.shapes import ShapeContext

Shape = tuple | None
_MAX_VALUE_ELEMENTS = 4096  # constants larger than this are not handed to shape functions


def infer_shapes(graph: Graph, opaque: Container[str] = ()) -> dict[Output, Shape]:
    """The static shape of every output (None where unknown).

    Args:
        graph: the graph.
        opaque: names of fed nodes; their outputs are unknown unless they are placeholders.

    Returns:
        {Output: shape}, a shape being a tuple of ints and Nones.
    """
    shapes: dict[Output, Shape] = {}
    for node in graph.topological_order():
        for index, shape in enumerate(node_output_shapes(node, shapes, opaque)):
            shapes[Output(node, index)] = shape
    return shapes


def node_output_shapes(node: Node, shapes: dict[Output, Shape],
                       opaque: Container[str] = (),
                       values: list[np.ndarray | None] | None = None) -> list[Shape]:
    """One node's output shapes from its inputs' shapes (and constant values)."""
    if not binds(node):
        return []
    count = node.num_outputs
    if node.op == "Const":
        return [const_shape(node)]
    if node.name in opaque and node.op not in INPUT_OPS:
        return [None] * count
    shape_fn = node.bound.schema.shape_fn
    if shape_fn is None:
        return [None] * count
    input_shapes = [shape_of(source, shapes) for source in node.inputs]
    if values is None:
        values = [_small_const_value(source.node, opaque) for source in node.inputs]
    ctx = ShapeContext(node.name, node.op, node.attrs, input_shapes, values, count)
    try:
        result = shape_fn(ctx)
    except Exception:  # noqa: BLE001 - best effort: any failure means "unknown"
        return [None] * count
    return _normalized(result, count)


def shape_of(output: Output, shapes: dict[Output, Shape]) -> Shape:
    if output in shapes:
        return shapes[output]
    if output.node.op == "Const":
        return const_shape(output.node)
    return None


def _small_const_value(node: Node, opaque: Container[str]) -> np.ndarray | None:
    if node.op != "Const" or node.name in opaque:
        return None
    shape = const_shape(node)
    if shape is None or int(np.prod(shape, dtype=np.int64)) > _MAX_VALUE_ELEMENTS:
        return None
    try:
        return node.attrs["value"].value
    except Exception:  # noqa: BLE001 - a malformed constant has no usable value
        return None


def _normalized(result: object, count: int) -> list[Shape]:
    if not isinstance(result, (list, tuple)) or len(result) != count:
        return [None] * count
    out: list[Shape] = []
    for shape in result:
        if shape is None:
            out.append(None)
            continue
        try:
            dims = tuple(None if d is None or int(d) < 0 else int(d) for d in shape)
        except (TypeError, ValueError):
            dims = None
        out.append(dims)
    return out


def num_elements(shape: Shape) -> int | None:
    """Element count of a fully known shape, else None."""
    if shape is None or any(d is None for d in shape):
        return None
    return int(np.prod(shape, dtype=np.int64))


# --- FLOPs -------------------------------------------------------------------------------

_CONV_OPS = frozenset({"Conv2D", "_FusedConv2D"})
_DEPTHWISE_OPS = frozenset({"DepthwiseConv2dNative", "_FusedDepthwiseConv2dNative"})
_MATMUL_OPS = frozenset({"MatMul", "_FusedMatMul"})
_FREE_OPS = frozenset({
    "Const", "Identity", "NoOp", "Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
    "Reshape", "Shape", "Size", "Rank", "Squeeze", "ExpandDims", "StopGradient", "Snapshot",
    "PreventGradient", "Enter", "Exit", "NextIteration", "Merge", "Switch", "LoopCond",
    "VariableV2", "VarHandleOp", "ControlTrigger",
})


def estimate_flops(graph: Graph, shapes: dict[Output, Shape] | None = None) -> int:
    """Estimated floating-point operations of one run of every node (unknown dims = 1)."""
    if shapes is None:
        shapes = infer_shapes(graph)
    total = 0
    for node in graph:
        total += node_flops(node, shapes)
    return total


def node_flops(node: Node, shapes: dict[Output, Shape]) -> int:
    if node.op in _FREE_OPS or not node.inputs:
        return 0
    out = _elements(shape_of(node.output(0), shapes)) if node.num_outputs else 0
    if node.op in _CONV_OPS or node.op in _DEPTHWISE_OPS:
        kernel = shape_of(node.inputs[1], shapes)
        if kernel is None or len(kernel) != 4:
            return 2 * out
        kh, kw, cin = (d or 1 for d in kernel[:3])
        per_output = kh * kw * (1 if node.op in _DEPTHWISE_OPS else cin)
        return 2 * out * per_output + _fused_extra(node, out)
    if node.op in _MATMUL_OPS:
        a = shape_of(node.inputs[0], shapes)
        inner = 1
        if a is not None and len(a) == 2:
            inner = (a[0] if node.attrs.get("transpose_a") else a[1]) or 1
        return 2 * out * inner + _fused_extra(node, out)
    if node.op in ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"):
        a = shape_of(node.inputs[0], shapes)
        inner = (a[-2] if node.attrs.get("adj_x") else a[-1]) if a else 1
        return 2 * out * (inner or 1)
    return out


def _fused_extra(node: Node, out: int) -> int:
    if not node.op.startswith("_Fused"):
        return 0
    return out * len(node.attrs.get("fused_ops", []))


def _elements(shape: Shape) -> int:
    if shape is None:
        return 1
    count = 1
    for d in shape:
        count *= d or 1
    return count

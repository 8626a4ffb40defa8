"""Batch-parallel steps: a step computed example by example runs as one step per core.

An inference step of a convolutional network is one chain of kernels: the
executor finds nothing independent to run at once, and a kernel splitting its
own batch (`kernels/cpu/intra_op`) hands work to a thread and waits for it at
every node. When every fetched value is computed row by row of the feeds'
first dimension, the step itself can be cut instead: each core runs the whole
plan on a slice of the batch, and the fetched slices are concatenated. Each
example meets the same kernels, so the values are the uncut step's up to the
rounding of matrix products, which BLAS blocks by the number of rows (as
TensorFlow's results depend on its batch size): once the trial below has chosen,
a given batch and thread count always gives the same values, but during it a
repeated step may differ from its earlier runs in the last bits. The
intermediate tensors of a slice are smaller, so more of them stay in cache.

`analyze` decides, once per prepared step, whether a step may be cut. A tensor
is either *batched* (axis 0 is the example axis: the fed tensors of rank >= 1
and what per-example ops compute from them) or *free* (independent of the
feeds: constants, variable reads and pure functions of them; fed scalars). An
op may take a batched input only when a rule below says how its output keeps
the example axis: elementwise ops (a free operand must broadcast without
touching axis 0), convolutions and pooling over input 0, Pad/reductions/
Concat/Squeeze/ExpandDims/Transpose/ArgMax that leave axis 0 alone, MatMul
with the batch on the left, Softmax, Reshape to `[-1, ...]` of the same
example size, inference batch norm. Anything else, a stateful or random op
anywhere in the step, a control-flow op, a target, or a fetch that is not
batched, and the step runs uncut. The rules read constant inputs (axes,
paddings, shapes) and static shapes, so a graph whose constants were folded
for one batch size (a Reshape to `[32, 1280]`) is refused, not miscomputed.

`BatchSplit.run` cuts only with more than one thread (`intra_op.threads()`;
TFX_INTRA_OP_THREADS=1 turns cutting off), a batch of at least two, and no
step trace recording (a profile counts one step as one). Whether cutting pays
depends on the kernels (memory-bound ones gain less from a second core), on
what the kernels already split themselves, and on the machine, so it is
measured, not predicted: per batch-size class, the first runs are timed uncut
and, when a slice would still take a couple of milliseconds, the next ones
cut; the faster way is kept from then on. The slices run through
`intra_op.run_pieces` (the calling thread works too), so kernels inside them
do not split again. MobileNetV2 (0.35, 96x96) on 2 cores: at batch 8 a cut
step is about 20% slower, at batch 16 10-25% faster, at batch 32 30-45% faster.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfx.core import executor
from tfx.core.graph import Graph, Node, Output
from tfx.core.passes.analysis import node_output_shapes
from tfx.core.passes.base import CONTROL_FLOW_OPS, INPUT_OPS, binds, has_side_effects
from tfx.core.plan_builder import closure
from tfx.kernels.cpu import intra_op

__all__ = ["BatchSplit", "analyze"]

# A cut is tried only when a slice would take this long: below it the handoff and the
# Python work of a second run (under one GIL) cannot be won back.
MIN_PIECE_SECONDS = 2e-3
# Runs timed each way before the faster way is kept, and the gain a cut must show.
TRIALS = 3
MIN_GAIN = 0.95

_VARIABLE_READS = frozenset({"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp"})
_UNARY = frozenset({
    "Identity", "Snapshot", "StopGradient", "PreventGradient", "Cast", "Relu", "Relu6", "Elu",
    "Selu", "LeakyRelu", "Sigmoid", "Tanh", "Softplus", "Softsign", "Neg", "Abs", "Exp",
    "Expm1", "Log", "Log1p", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Inv", "Floor", "Ceil",
    "Round", "Rint", "Sign", "Erf", "Erfc", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
    "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNan", "IsInf", "IsFinite", "LogicalNot",
    "Gelu", "Mish", "ZerosLike", "OnesLike",
})
_BINARY = frozenset({
    "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "DivNoNan", "FloorDiv", "FloorMod",
    "TruncateDiv", "Mod", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2",
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual", "LogicalAnd",
    "LogicalOr", "BiasAdd", "SelectV2", "AddN", "Relu6Grad", "ReluGrad", "ClipByValue",
})
# Ops that slide a window over input 0's spatial dims; the other inputs are weights.
_WINDOWED = frozenset({
    "Conv2D", "Conv3D", "DepthwiseConv2dNative", "_FusedConv2D",
    "_FusedDepthwiseConv2dNative", "MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D",
    "LRN",
})
_REDUCTIONS = frozenset({"Mean", "Sum", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"})
_LAST_AXIS = frozenset({"Softmax", "LogSoftmax"})
_BATCH_NORMS = frozenset({"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})


@dataclass(frozen=True)
class _Free:
    """A tensor independent of the feeds, with its static shape (None when unknown)."""

    shape: tuple | None


@dataclass(frozen=True)
class _Batched:
    """A tensor whose axis 0 is the example axis."""

    rank: int


_Kind = Any  # _Free | _Batched


def analyze(graph: Graph, feeds: Sequence[str], fetches: Sequence[str],
            targets: Sequence[str], feed_ranks: Sequence[int | None]) -> BatchSplit | None:
    """The step's BatchSplit, or None when it cannot be cut along the batch.

    Args:
        graph: the graph the step's plan was built from (after the step's optimization).
        feeds, fetches, targets: the step's signature, as tensor and op names.
        feed_ranks: each feed's rank (None when unknown: the step is then not cut).
    """
    if targets or not fetches:
        return None
    try:
        fed = [graph.tensor(name) for name in feeds]
        fetched = [graph.tensor(name) for name in fetches]
    except Exception:  # noqa: BLE001 - a bad name is build_plan's error to report
        return None
    kinds: dict[Output, _Kind] = {}
    batched_feeds = []
    for output, rank in zip(fed, feed_ranks):
        if rank is None:
            return None
        kinds[output] = _Batched(rank) if rank >= 1 else _Free(())
        batched_feeds.append(rank >= 1)
    if not any(batched_feeds):
        return None
    nodes = closure([o.node for o in fetched], set(fed))
    nodes_set = set(nodes)
    # Static shapes of the step's nodes only, as the walk reaches them (the whole graph's
    # would cost a pass over nodes the step never runs).
    opaque = {o.node.name for o in fed}
    shapes: dict[Output, Any] = {}
    outside = list(dict.fromkeys(o.node for o in fed if o.node not in nodes_set))
    for node in outside + graph.topological_order(nodes):
        for index, shape in enumerate(node_output_shapes(node, shapes, opaque)):
            shapes.setdefault(Output(node, index), shape)
        if node not in nodes_set:
            continue  # a fed node the step does not run: its shapes only
        if all(Output(node, i) in kinds for i in range(node.num_outputs)):
            continue  # a fed node (a fetch may name a fed tensor)
        outputs = _node_kinds(node, kinds, shapes)
        if outputs is None:
            return None
        for index, kind in enumerate(outputs):
            output = Output(node, index)
            if output not in kinds:  # a fed output keeps its feed's kind
                kinds[output] = kind
    if not all(isinstance(kinds.get(o), _Batched) for o in fetched):
        return None
    return BatchSplit(tuple(batched_feeds))


def _node_kinds(node: Node, kinds: dict[Output, _Kind],
                shapes: dict[Output, Any]) -> list[_Kind] | None:
    """The kinds of the node's outputs, or None when the step cannot be cut here."""
    if not binds(node) or node.op in CONTROL_FLOW_OPS:
        return None
    inputs = [kinds.get(source) for source in node.inputs]
    if any(kind is None for kind in inputs):
        return None  # reads a tensor the step cannot cut (a batch norm's batch statistics)
    outputs = [Output(node, i) for i in range(node.num_outputs)]
    if not any(isinstance(kind, _Batched) for kind in inputs):
        if node.op in INPUT_OPS:
            return None  # an unfed placeholder: the step fails anyway
        if has_side_effects(node) and node.op not in _VARIABLE_READS and not (
            node.op == "Identity" and inputs
        ):
            return None  # a random or stateful op would run once per piece
        return [_Free(shapes.get(o)) for o in outputs]
    if has_side_effects(node):
        return None
    rule = _RULES.get(node.op)
    if rule is None:
        for ops, family_rule in _FAMILY_RULES:
            if node.op in ops:
                rule = family_rule
                break
    if rule is None:
        return None
    rank = rule(node, inputs, shapes)
    if rank is None:
        return None
    return [_Batched(rank)] + [None] * (node.num_outputs - 1)


# --- rules: the output rank of the example-keeping output 0, or None -----------------------


def _const(node: Node, index: int) -> np.ndarray | None:
    source = node.inputs[index].node
    if source.op != "Const":
        return None
    try:
        return np.asarray(source.attrs["value"])
    except Exception:  # noqa: BLE001 - a malformed constant: refuse
        return None


def _axes(value: np.ndarray | None, rank: int) -> list[int] | None:
    """Normalized axes, or None when unknown or out of range."""
    if value is None or value.dtype.kind not in "iu" or value.ndim > 1:
        return None
    axes = [int(a) for a in value.reshape(-1)]
    if any(not -rank <= a < rank for a in axes):
        return None
    return sorted({a % rank for a in axes})


def _unary(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    return inputs[0].rank if len(inputs) >= 1 and isinstance(inputs[0], _Batched) else None


def _elementwise(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    """Broadcasting ops: every batched operand has the output's rank, and a free one
    broadcasts along axis 0 (a lower rank, or a leading 1)."""
    batched = {kind.rank for kind in inputs if isinstance(kind, _Batched)}
    if len(batched) != 1:
        return None
    (rank,) = batched
    if node.op == "BiasAdd" and node.attrs.get("data_format") == "NCHW" and rank < 2:
        return None
    for kind in inputs:
        if isinstance(kind, _Free) and node.op != "BiasAdd":  # a bias runs along the channels
            shape = kind.shape
            if shape is None or len(shape) > rank or (len(shape) == rank and shape[0] != 1):
                return None
    return rank


def _windowed(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if not isinstance(inputs[0], _Batched) or any(isinstance(k, _Batched) for k in inputs[1:]):
        return None
    return inputs[0].rank


def _batch_norm(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if node.attrs.get("is_training", True):
        return None  # batch statistics mix the examples
    return _windowed(node, inputs, shapes)


def _pad(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    paddings = _const(node, 1)
    rank = inputs[0].rank if isinstance(inputs[0], _Batched) else None
    if rank is None or paddings is None or paddings.shape != (rank, 2):
        return None
    if any(isinstance(k, _Batched) for k in inputs[1:]) or paddings[0].any():
        return None
    return rank


def _reduction(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if not isinstance(inputs[0], _Batched) or isinstance(inputs[1], _Batched):
        return None
    rank = inputs[0].rank
    axes = _axes(_const(node, 1), rank)
    if axes is None or 0 in axes:
        return None
    return rank if node.attrs.get("keep_dims", False) else rank - len(axes)


def _arg_reduction(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if not isinstance(inputs[0], _Batched) or isinstance(inputs[1], _Batched):
        return None
    axes = _axes(_const(node, 1), inputs[0].rank)
    if axes is None or len(axes) != 1 or axes[0] == 0:
        return None
    return inputs[0].rank - 1


def _matmul(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    a, b = inputs[0], inputs[1]
    if not isinstance(a, _Batched) or a.rank != 2 or node.attrs.get("transpose_a", False):
        return None
    if isinstance(b, _Batched) or any(isinstance(k, _Batched) for k in inputs[2:]):
        return None
    return 2


def _last_axis(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    rank = _unary(node, inputs, shapes)
    return rank if rank is not None and rank >= 2 else None


def _reshape(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    """Reshape to [-1, d1, ...] where the d's hold exactly one example's elements."""
    if not isinstance(inputs[0], _Batched) or isinstance(inputs[1], _Batched):
        return None
    target = _const(node, 1)
    if target is None or target.ndim != 1 or target.size == 0 or int(target[0]) != -1:
        return None
    rest = [int(d) for d in target[1:]]
    if any(d < 0 for d in rest):
        return None
    shape = shapes.get(node.inputs[0])
    if shape is None or len(shape) != inputs[0].rank or any(d is None for d in shape[1:]):
        return None
    if int(np.prod(shape[1:], dtype=np.int64)) != int(np.prod(rest, dtype=np.int64)):
        return None
    return len(target)


def _squeeze(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    rank = _unary(node, inputs, shapes)
    dims = node.attrs.get("squeeze_dims") or []
    if rank is None or not dims:
        return None  # squeezing every size-1 dim would squeeze a one-example piece's batch
    axes = _axes(np.asarray(dims, np.int64), rank)
    if axes is None or 0 in axes:
        return None
    return rank - len(axes)


def _expand_dims(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if not isinstance(inputs[0], _Batched) or isinstance(inputs[1], _Batched):
        return None
    rank = inputs[0].rank
    axes = _axes(_const(node, 1), rank + 1)
    if axes is None or axes == [0] or len(axes) != 1:
        return None
    return rank + 1


def _concat(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    values, axis = inputs[:-1], inputs[-1]
    if isinstance(axis, _Batched) or not values:
        return None
    if not all(isinstance(k, _Batched) for k in values) or len({k.rank for k in values}) != 1:
        return None
    rank = values[0].rank
    axes = _axes(_const(node, len(node.inputs) - 1), rank)
    if axes is None or axes == [0]:
        return None
    return rank


def _transpose(node: Node, inputs: list[_Kind], shapes: dict) -> int | None:
    if not isinstance(inputs[0], _Batched) or isinstance(inputs[1], _Batched):
        return None
    perm = _const(node, 1)
    rank = inputs[0].rank
    if perm is None or perm.shape != (rank,) or int(perm[0]) != 0:
        return None
    return rank


_RULES: dict[str, Callable[[Node, list[_Kind], dict], int | None]] = {
    "Pad": _pad, "PadV2": _pad, "MirrorPad": _pad,
    "MatMul": _matmul, "_FusedMatMul": _matmul,
    "Reshape": _reshape, "Squeeze": _squeeze, "ExpandDims": _expand_dims,
    "ConcatV2": _concat, "Transpose": _transpose,
    "ArgMax": _arg_reduction, "ArgMin": _arg_reduction,
}
_FAMILY_RULES: tuple[tuple[frozenset[str], Callable[..., int | None]], ...] = (
    (_UNARY, _unary), (_BINARY, _elementwise), (_WINDOWED, _windowed),
    (_REDUCTIONS, _reduction), (_LAST_AXIS, _last_axis), (_BATCH_NORMS, _batch_norm),
)


# --- running a cut step ----------------------------------------------------------------


@dataclass
class _Trial:
    """Timed runs of one batch-size class, in seconds per example, until cutting is decided."""

    uncut: list[float] = field(default_factory=list)
    cut: list[float] = field(default_factory=list)
    cut_pays: bool | None = None


@dataclass
class BatchSplit:
    """How a step is cut (which feeds are sliced), and whether cutting pays, per batch size."""

    batched_feeds: tuple[bool, ...]
    # By the batch size's bit length: batches of 16-31 examples share a decision.
    trials: dict[int, _Trial] = field(default_factory=dict, compare=False, repr=False)

    def run(self, run_step: Callable[[list[Any]], list[Any]], feeds: Sequence[Any]
            ) -> list[Any]:
        """run_step(feeds) -> fetched values, cut along the batch when that pays."""
        batch = self._batch(feeds)
        if batch is None or batch < 2 or intra_op.serial() or executor.tracing():
            return run_step(list(feeds))
        count = min(intra_op.threads(), batch)
        trial = self.trials.setdefault(batch.bit_length(), _Trial())
        cut = _decide(trial, batch, count)
        if trial.cut_pays is not None:
            return self._run_cut(run_step, feeds, batch, count) if cut else run_step(list(feeds))
        start = time.perf_counter()
        results = self._run_cut(run_step, feeds, batch, count) if cut else run_step(list(feeds))
        (trial.cut if cut else trial.uncut).append((time.perf_counter() - start) / batch)
        return results

    def _batch(self, feeds: Sequence[Any]) -> int | None:
        batches = {np.shape(v)[0] for v, cut in zip(feeds, self.batched_feeds) if cut}
        # Feeds that disagree on the batch run uncut, for the kernels to report.
        return batches.pop() if len(batches) == 1 else None

    def _run_cut(self, run_step: Callable[[list[Any]], list[Any]], feeds: Sequence[Any],
                 batch: int, count: int) -> list[Any]:
        bounds = [batch * k // count for k in range(count + 1)]
        pieces = [slice(a, b) for a, b in zip(bounds, bounds[1:])]
        outputs: dict[int, list[Any]] = {}

        def run_piece(piece: slice) -> None:
            outputs[piece.start] = run_step(
                [v[piece] if cut else v for v, cut in zip(feeds, self.batched_feeds)])

        intra_op.run_pieces(run_piece, pieces)
        return [np.concatenate(parts) for parts in zip(*(outputs[p.start] for p in pieces))]


def _decide(trial: _Trial, batch: int, count: int) -> bool:
    """Whether this run is cut: TRIALS + 1 uncut runs, then as many cut ones (the first
    of each way warms caches and buffers up and is not counted), then the faster way."""
    if trial.cut_pays is not None:
        return trial.cut_pays
    if len(trial.uncut) <= TRIALS:
        return False
    uncut = min(trial.uncut[1:])
    if uncut * batch / count < MIN_PIECE_SECONDS:
        trial.cut_pays = False
    elif len(trial.cut) <= TRIALS:
        return True
    else:
        trial.cut_pays = min(trial.cut[1:]) < MIN_GAIN * uncut
    return trial.cut_pays

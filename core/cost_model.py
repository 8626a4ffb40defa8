"""The cost model: how long a node takes on a device, and how big its outputs are.

Estimates come from static shapes. `infer_shapes` runs every op's shape
function over the graph in topological order, with the constant values it can
see (Const, and Shape of a statically known shape) and any shapes the caller
pins (`--input-shape x:0=32,784`, usually the batch dimension a Placeholder
leaves unknown). A dimension still unknown counts as `unknown_dim` (1).

From shapes, each node gets FLOPs (MatMul 2mnk, convolutions
2 x output x window x input channels, pooling output x window, transcendental
functions ~10 per element, anything else one per element) and bytes touched
(inputs + outputs). A gather (Gather, GatherV2, GatherNd and their resource
forms: an embedding lookup) touches only the rows it gathers, not the table it
gathers them from: its table counts as its output's size, and it does one
FLOP per output element. Its time on a device is

    op_overhead + max(FLOPs / flops, bytes / mem_bandwidth)

and ops that only move references (Identity, Reshape, control flow, Const...)
cost nothing: no kernel is launched for them (TensorFlow's Const hands over a
tensor it holds), so they neither load a device nor lengthen a path. Moving a
tensor between two devices costs the link's latency + bytes / bandwidth
(`DeviceSet.transfer_time`).

Measured costs replace the estimates where given: `record_profile` runs one
step with every kernel timed and returns a `Profile` (per node: seconds and
output bytes) that `CostModel(profile=...)` uses, scaled by the ratio of
FLOP rates for devices faster or slower than the one measured.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util
from tfx.core.devices import DeviceAttributes
from tfx.core.errors import InvalidArgumentError, NotFoundError, TfxError
from tfx.core.gcpause import paused_gc
from tfx.core.graph import Graph, Node, Output
from tfx.core.shapes import Shape, ShapeContext

# Ops that hand over a reference, route control, or only exist: their time is the overhead.
FREE_OPS = frozenset({
    "Const", "Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "Identity", "IdentityN",
    "Snapshot", "StopGradient", "PreventGradient", "NoOp", "Reshape", "Squeeze", "ExpandDims",
    "Shape", "ShapeN", "Size", "Rank", "Bitcast", "Switch", "RefSwitch", "_SwitchN", "Merge",
    "RefMerge",
    "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond",
    "ControlTrigger", "VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
    "_Send", "_Recv", "_HostSend", "_HostRecv",
})
_TRANSCENDENTAL = frozenset({
    "Exp", "Expm1", "Log", "Log1p", "Tanh", "Sigmoid", "Softplus", "Softsign", "Sin", "Cos",
    "Tan", "Asin", "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Erf", "Erfc", "Pow", "Elu", "Selu",
    "Lgamma", "Digamma", "TanhGrad", "SigmoidGrad",
})
_SOFTMAX = frozenset({"Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits",
                      "SparseSoftmaxCrossEntropyWithLogits"})
_VARIABLE_OPS = frozenset({"VariableV2", "Variable", "VarHandleOp"})
# Lookups: input 0 is the table (params, or a resource variable's handle), and only the
# gathered rows of it are read, one output's worth, however large the table.
_GATHER_OPS = frozenset({"Gather", "GatherV2", "GatherNd", "ResourceGather",
                         "ResourceGatherNd"})
_OBJECT_ITEM_BYTES = 8  # strings, handles: count a pointer each
_MAX_VALUE_ELEMENTS = 4096  # larger constants are not handed to shape functions


# --- static shapes ------------------------------------------------------------------------


def infer_shapes(graph: Graph, input_shapes: Mapping[str, Sequence[int | None]] | None = None,
                 ) -> dict[Output, Shape]:
    """Static shapes of every tensor of the graph (best effort, never raises on an op).

    Args:
        graph: the graph.
        input_shapes: tensor name -> shape that overrides what inference finds (for
            placeholders with unknown dims).

    Returns:
        Output -> shape tuple (None entries for unknown dims) or None (unknown rank).
    """
    pinned: dict[Output, Shape] = {}
    for name, shape in (input_shapes or {}).items():
        pinned[graph.tensor(name)] = tuple(shape)
    shapes: dict[Output, Shape] = {}
    values: dict[Output, np.ndarray] = {}
    for node in graph.topological_order():
        out_shapes = _node_shapes(node, shapes, values)
        for k, shape in enumerate(out_shapes):
            output = Output(node, k)
            shapes[output] = pinned.get(output, shape)
        _known_value(node, shapes, values)
    return shapes


def _node_shapes(node: Node, shapes: dict[Output, Shape],
                 values: dict[Output, np.ndarray]) -> list[Shape]:
    if node.op == "Const":
        return [_const_shape(node)]
    try:
        bound = node.bound
    except TfxError:
        return []
    count = len(bound.output_types)
    fn = bound.schema.shape_fn
    found: list[Shape] = [None] * count
    if fn is not None:
        ctx = ShapeContext(
            node.name, node.op, bound.attrs,
            [shapes.get(source) for source in node.inputs],
            [values.get(source) for source in node.inputs],
            count,
        )
        try:
            result = list(fn(ctx))
        except Exception:  # noqa: BLE001 - a shape function's failure means "unknown" here
            result = []
        found = [_as_shape(s) for s in result[:count]] + [None] * (count - len(result))
    if any(s is None for s in found) and "_output_shapes" in node.attr:
        recorded = _recorded_shapes(node)
        found = [s if s is not None else (recorded[k] if k < len(recorded) else None)
                 for k, s in enumerate(found)]
    return found


def _const_shape(node: Node) -> Shape:
    """A Const's shape from its proto: its values may stand for gigabytes (a splat)."""
    value = node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    try:
        return tensor_util.proto_shape(value.tensor, node.name)
    except TfxError:
        return None


def _as_shape(shape: Any) -> Shape:
    if shape is None:
        return None
    try:
        return tuple(None if d is None or int(d) < 0 else int(d) for d in shape)
    except (TypeError, ValueError):
        return None


def _recorded_shapes(node: Node) -> list[Shape]:
    from tfx.core.op_registry import attr_value_to_python

    try:
        return [_as_shape(s) for s in attr_value_to_python(
            node.attr["_output_shapes"], "list(shape)", node.name)]
    except TfxError:
        return []


def _known_value(node: Node, shapes: dict[Output, Shape],
                 values: dict[Output, np.ndarray]) -> None:
    """Remember values shape functions may use: constants and static shapes."""
    try:
        if node.op == "Const":
            shape = shapes.get(Output(node, 0))
            if shape is not None and None not in shape and math.prod(shape) <= _MAX_VALUE_ELEMENTS:
                values[Output(node, 0)] = node.attrs["value"].value
        elif node.op == "Shape" and node.inputs:
            shape = shapes.get(node.inputs[0])
            if shape is not None and None not in shape:
                values[Output(node, 0)] = np.array(shape, node.attrs["out_type"].np)
        elif node.op in ("Identity", "Snapshot", "StopGradient") and node.inputs:
            value = values.get(node.inputs[0])
            if value is not None:
                values[Output(node, 0)] = value
    except TfxError:
        return


# --- measured costs ------------------------------------------------------------------------


@dataclass
class Profile:
    """Measured per-node costs of one step on one device.

    Attributes:
        device: the device measured.
        device_type: its type.
        flops: its FLOP rate, to scale the times to other devices.
        times: node name -> seconds.
        output_bytes: node name -> bytes of each output.
    """

    device: str
    device_type: str
    flops: float
    times: dict[str, float] = field(default_factory=dict)
    output_bytes: dict[str, list[int]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "format": "tfx-profile",
            "version": 1,
            "device": self.device,
            "device_type": self.device_type,
            "flops": self.flops,
            "nodes": {
                name: {"time": self.times[name], "output_bytes": self.output_bytes.get(name, [])}
                for name in sorted(self.times)
            },
        }

    def save(self, path: str | Path) -> None:
        from tfx.core import fileio

        fileio.atomic_write_bytes(str(path), (json.dumps(self.to_json(), indent=1) + "\n")
                                  .encode())

    @classmethod
    def from_json(cls, data: Any, label: str = "profile") -> Profile:
        if not isinstance(data, dict) or data.get("format") != "tfx-profile":
            raise InvalidArgumentError(f"{label}: not a tfx profile (written by record_profile)")
        try:
            profile = cls(str(data["device"]), str(data["device_type"]), float(data["flops"]))
            for name, entry in data["nodes"].items():
                seconds = float(entry["time"])
                if not seconds >= 0 or math.isinf(seconds):
                    raise ValueError(f"node {name!r} has time {seconds}")
                profile.times[name] = seconds
                profile.output_bytes[name] = [int(b) for b in entry.get("output_bytes", [])]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidArgumentError(f"{label}: malformed profile: {exc}") from None
        if profile.flops <= 0:
            raise InvalidArgumentError(f"{label}: 'flops' must be positive")
        return profile

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        label = str(path)
        try:
            data = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise NotFoundError(f"{label}: no such profile file") from None
        except json.JSONDecodeError as exc:
            raise InvalidArgumentError(f"{label}: not valid JSON: {exc}") from None
        return cls.from_json(data, label)


class _TimedKernel:
    """A kernel wrapper that records each call's duration and output sizes."""

    def __init__(self, kernel: Any, profile: Profile) -> None:
        self.kernel = kernel
        self.profile = profile
        for flag in ("expensive", "blocking", "needs_context"):
            setattr(self, flag, getattr(kernel, flag, False))

    def compute(self, *args: Any) -> tuple:
        start = time.perf_counter()
        outputs = self.kernel.compute(*args)
        seconds = time.perf_counter() - start
        name = self.kernel.name
        best = self.profile.times.get(name)
        if best is None or seconds < best:
            self.profile.times[name] = seconds
        self.profile.output_bytes[name] = [_nbytes(v) for v in outputs]
        return outputs


def _nbytes(value: Any) -> int:
    nbytes = getattr(value, "nbytes", None)
    return int(nbytes) if isinstance(nbytes, (int, np.integer)) else 0


def record_profile(graph: Graph, feeds: Mapping[str, Any], fetches: Sequence[str],
                   targets: Sequence[str] = (), *, repeats: int = 1,
                   device: DeviceAttributes | None = None) -> Profile:
    """Run a step `repeats` times with every kernel timed; keep each node's fastest time.

    Args:
        graph: the graph (run on the local CPU).
        feeds: tensor name -> value.
        fetches: tensor names to fetch.
        targets: op names to run.
        repeats: how many times to run the step.
        device: the device the profile is said to be measured on (default: local CPU:0).

    Returns:
        The Profile.

    Example:
        >>> profile = record_profile(graph, {"x:0": x}, ["probs:0"], repeats=3)
        >>> profile.save("prof.json")
    """
    from tfx.core.devices import DeviceSet
    from tfx.core.executor import Plan, StepState, run_plan
    from tfx.core.plan_builder import build_plan
    from tfx.core.resources import ResourceManager

    device = device or DeviceSet.local(1).devices[0]
    profile = Profile(device.name, device.device_type, device.flops)
    names = list(feeds)
    prepared = build_plan(graph, names, list(fetches), list(targets))
    nodes = prepared.plan.nodes
    for pnode in nodes:
        pnode.kernel = _TimedKernel(pnode.kernel, profile)
    old = prepared.plan
    plan = Plan(nodes, old.feed_edges, old.num_fetches, old.fetch_names, old.deref_fetches)
    values = [np.asarray(feeds[n], dtype=spec.dtype.np) if spec.dtype.np is not None
              and spec.dtype.np.kind != "O" else feeds[n]
              for n, spec in zip(names, prepared.feeds)]
    resources = ResourceManager()
    try:
        for _ in range(max(1, repeats)):
            run_plan(plan, values, StepState(resources))
    finally:
        resources.clear()
    return profile


# --- the model -------------------------------------------------------------------------------


class CostModel:
    """Per-node compute times and output sizes for placement.

    Args:
        graph: the graph to cost.
        input_shapes: tensor name -> shape, pinning unknown dims (batch size).
        profile: measured costs that replace the estimates for the nodes they cover.
        unknown_dim: the size assumed for a dimension still unknown.

    Example:
        >>> model = CostModel(graph, input_shapes={"x:0": (32, 784)})
        >>> model.compute_time(graph.node("matmul"), devices.devices[0])
    """

    @paused_gc()
    def __init__(self, graph: Graph, *, input_shapes: Mapping[str, Sequence[int | None]]
                 | None = None, profile: Profile | None = None, unknown_dim: int = 1) -> None:
        self.graph = graph
        self.profile = profile
        self.unknown_dim = unknown_dim
        self.shapes = infer_shapes(graph, input_shapes)
        self._flops: dict[str, float] = {}
        self._bytes: dict[str, float] = {}
        self._out_bytes: dict[str, list[int]] = {}
        self._persistent: dict[str, int] = {}
        for node in graph:
            self._cost_node(node)
        self._time_cache: dict[tuple[str, str], float] = {}

    # --- queries -----------------------------------------------------------------------
    def flops(self, node: Node) -> float:
        return self._flops[node.name]

    def bytes_accessed(self, node: Node) -> float:
        return self._bytes[node.name]

    def output_bytes(self, node: Node) -> list[int]:
        """Bytes of each output of `node` (a ref or resource output counts as a value)."""
        return self._out_bytes[node.name]

    def persistent_bytes(self, node: Node) -> int:
        """Memory a node holds for the whole session (a variable's value)."""
        return self._persistent.get(node.name, 0)

    def compute_time(self, node: Node, device: DeviceAttributes) -> float:
        key = (node.name, device.name)
        cached = self._time_cache.get(key)
        if cached is not None:
            return cached
        measured = self.profile.times.get(node.name) if self.profile else None
        if measured is not None:
            seconds = measured * self.profile.flops / device.flops
        elif node.op in FREE_OPS:
            seconds = 0.0
        else:
            seconds = device.op_overhead + max(
                self._flops[node.name] / device.flops,
                self._bytes[node.name] / device.mem_bandwidth,
            )
        self._time_cache[key] = seconds
        return seconds

    # --- estimates -----------------------------------------------------------------------
    def _elements(self, shape: Shape) -> int:
        if shape is None:
            return self.unknown_dim
        return math.prod(self.unknown_dim if d is None else d for d in shape)

    def _tensor_bytes(self, output: Output) -> int:
        try:
            dtype = output.dtype.base
        except (TfxError, IndexError):
            return 0
        item = dtype.itemsize or _OBJECT_ITEM_BYTES
        return self._elements(self.shapes.get(output)) * item

    def _cost_node(self, node: Node) -> None:
        name = node.name
        try:
            count = node.num_outputs
        except TfxError:
            count = 0
        outputs = [Output(node, k) for k in range(count)]
        measured = self.profile.output_bytes.get(name) if self.profile else None
        out_bytes = (list(measured) + [0] * count)[:count] if measured else [
            self._tensor_bytes(o) for o in outputs
        ]
        self._out_bytes[name] = out_bytes
        if node.op in _VARIABLE_OPS:
            self._persistent[name] = self._variable_bytes(node)
        if node.op in FREE_OPS:
            self._flops[name] = 0.0
            self._bytes[name] = 0.0
            return
        in_shapes = [self.shapes.get(s) for s in node.inputs]
        out_shapes = [self.shapes.get(o) for o in outputs]
        in_bytes = sum(self._tensor_bytes(s) for s in node.inputs)
        if node.op in _GATHER_OPS and node.inputs:
            in_bytes += sum(out_bytes) - self._tensor_bytes(node.inputs[0])
        self._bytes[name] = float(in_bytes + sum(out_bytes))
        self._flops[name] = float(self._estimate_flops(node, in_shapes, out_shapes))

    def _variable_bytes(self, node: Node) -> int:
        try:
            shape = node.attrs.get("shape")
            dtype = node.attrs.get("dtype")
        except TfxError:
            return 0
        if not isinstance(dtype, dtypes.DType):
            return 0
        return self._elements(tuple(shape) if shape is not None else None) * (
            dtype.itemsize or _OBJECT_ITEM_BYTES
        )

    def _estimate_flops(self, node: Node, ins: list[Shape], outs: list[Shape]) -> float:
        op = node.op
        out_elems = sum(self._elements(s) for s in outs) if outs else 0
        if op in _GATHER_OPS:
            return float(out_elems)  # a copy per gathered element, none per table element
        try:
            attrs = node.attrs
            if op == "MatMul" and len(ins) == 2:
                a, b = ins
                k = _dim(a, 0 if attrs.get("transpose_a") else 1, self.unknown_dim)
                return 2.0 * out_elems * k
            if op.startswith("BatchMatMul") and len(ins) == 2:
                a = ins[0]
                k = _dim(a, -2 if attrs.get("adj_x") else -1, self.unknown_dim)
                return 2.0 * out_elems * k
            if op in ("Conv2D", "Conv2DBackpropInput", "Conv3D", "Conv2DBackpropFilter"):
                filt = ins[1] if op != "Conv2DBackpropFilter" else outs[0]
                if filt is None:
                    return 2.0 * out_elems
                window = self._elements(filt[:-1])  # kh * kw * in_channels
                reference = outs[0] if op != "Conv2DBackpropFilter" else ins[2]
                return 2.0 * self._elements(reference) * window
            if op in ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput"):
                filt = ins[1]
                window = self._elements(filt[:2]) if filt is not None else 1
                return 2.0 * out_elems * window
            if op in ("MaxPool", "AvgPool", "MaxPoolV2", "MaxPoolGrad", "AvgPoolGrad"):
                ksize = attrs.get("ksize") or [1]
                return float(out_elems) * math.prod(ksize)
        except (TfxError, IndexError, TypeError):
            pass
        in_elems = sum(self._elements(s) for s in ins)
        per_element = 10.0 if op in _TRANSCENDENTAL else 5.0 if op in _SOFTMAX else 1.0
        return per_element * max(out_elems, in_elems)


def _dim(shape: Shape, axis: int, unknown: int) -> int:
    if shape is None or not shape:
        return unknown
    value = shape[axis]
    return unknown if value is None else value

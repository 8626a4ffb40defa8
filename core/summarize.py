"""What a graph is, at a glance: TensorFlow's `summarize_graph`, as data.

`summarize_graph(graph)` reports the likely inputs (placeholders), the likely
outputs (nodes nobody reads that are not constants, placeholders, bare NoOps
or assignments), the op histogram, the parameter count, the devices named,
the control edges, and which ops tfx cannot run: op types that are not
registered at all, and registered ops without a CPU kernel.

The summary is meant for graphs nobody has checked yet, so it never calls
`Graph.validate()` and never fails on one bad node: an unknown op or a
malformed attr is recorded in `issues` and the rest of the graph is still
summarized. Constant tensors are sized from their `tensor_shape` dims without
decoding their values, so a summary of a large frozen model allocates nothing
big. The module only computes; printing is the CLI's job (`tfx inspect`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from tfx.core import dtypes
from tfx.core.errors import NotFoundError, TfxError
from tfx.core.graph import Graph, Node
from tfx.core.kernel_registry import has_kernel
from tfx.core.op_registry import get_op, has_op
from tfx.protos import tensor_pb2

INPUT_OPS = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})
VARIABLE_OPS = frozenset({"Variable", "VariableV2", "VarHandleOp"})
# Nodes that end a chain without being a result: initializers and constants.
_UNLIKELY_OUTPUT_OPS = frozenset(
    {"Const", "Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
     "AssignAddVariableOp", "AssignSubVariableOp"}
) | INPUT_OPS


@dataclass
class InputInfo:
    """A likely input: a placeholder, with the dtype and shape from its attrs."""

    name: str
    op: str
    dtype: str | None  # None when the attr is missing or invalid
    shape: list[int | None] | None  # None for unknown rank; None dims are unknown
    has_default: bool = False

    @property
    def tensor(self) -> str:
        return f"{self.name}:0"


@dataclass
class OutputInfo:
    """A likely output: a node whose results nobody reads."""

    name: str
    op: str
    # Its output tensors as (name, dtype); None when the op or its attrs are unknown.
    tensors: list[tuple[str, str]] | None


@dataclass
class GraphSummary:
    """The facts `tfx inspect` prints. `to_dict()` gives the JSON form."""

    node_count: int
    op_counts: list[tuple[str, int]]  # most frequent first
    inputs: list[InputInfo]
    outputs: list[OutputInfo]
    const_parameters: int
    variable_parameters: int
    variable_count: int
    control_edge_count: int
    devices: list[str]
    unknown_ops: list[str]  # op types that are not registered
    ops_without_cpu_kernel: list[str]  # registered, but nothing runs them on CPU
    issues: list[str] = field(default_factory=list)  # per-node problems, one line each
    producer_version: int = 0
    function_count: int = 0

    @property
    def parameter_count(self) -> int:
        return self.const_parameters + self.variable_parameters

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["op_counts"] = [{"op": op, "count": n} for op, n in self.op_counts]
        data["parameter_count"] = self.parameter_count
        for entry, info in zip(data["inputs"], self.inputs):
            entry["tensor"] = info.tensor
        for entry in data["outputs"]:
            if entry["tensors"] is not None:
                entry["tensors"] = [{"name": n, "dtype": t} for n, t in entry["tensors"]]
        return data


def summarize_graph(graph: Graph) -> GraphSummary:
    """Summarize a graph without validating or running it.

    Args:
        graph: the graph IR (`Graph.from_graph_def(load_graph(path))`).

    Returns:
        A `GraphSummary`; problems with single nodes are listed in `issues`.

    Example:
        >>> summary = summarize_graph(Graph.from_graph_def(load_graph("model.pb")))
        >>> [i.tensor for i in summary.inputs], summary.parameter_count
    """
    nodes = graph.nodes
    histogram = Counter(node.op for node in nodes)
    issues: list[str] = []
    functions = {f.signature.name for f in graph.library.function}
    # A library function's name is an op type its calls use (TF1 Defun graphs).
    unknown = sorted(op for op in histogram if not has_op(op) and op not in functions)
    unknown_set = set(unknown)
    no_cpu = sorted(op for op in histogram
                    if op not in unknown_set and op not in functions and not has_kernel(op, "CPU"))

    inputs: list[InputInfo] = []
    outputs: list[OutputInfo] = []
    const_params = variable_params = variable_count = 0
    for node in nodes:
        where = f"node {node.name!r} (op {node.op})"
        if node.op in INPUT_OPS:
            inputs.append(_input_info(node, where, issues))
        elif node.op == "Const":
            const_params += _const_elements(node, where, issues)
        elif node.op in VARIABLE_OPS:
            variable_count += 1
            variable_params += _variable_elements(node, where, issues)
        if node.op not in unknown_set and node.op != "Const":
            # Binding checks the attrs (Const is skipped: binding decodes its value).
            try:
                node.bound  # noqa: B018 - evaluated for its checks
            except TfxError as exc:
                issues.append(str(exc))
        if _is_likely_output(node):
            outputs.append(OutputInfo(node.name, node.op, _output_tensors(node, unknown_set)))
    for op in reversed(unknown):
        names = [n.name for n in nodes if n.op == op]
        shown = ", ".join(repr(n) for n in names[:3]) + (" ..." if len(names) > 3 else "")
        issues.insert(0, f"{_unknown_op_message(op)}; used by node(s) {shown}")

    return GraphSummary(
        node_count=len(nodes),
        op_counts=sorted(histogram.items(), key=lambda item: (-item[1], item[0])),
        inputs=inputs,
        outputs=outputs,
        const_parameters=const_params,
        variable_parameters=variable_params,
        variable_count=variable_count,
        control_edge_count=sum(len(node.control_inputs) for node in nodes),
        devices=sorted({node.device for node in nodes if node.device}),
        unknown_ops=unknown,
        ops_without_cpu_kernel=no_cpu,
        issues=issues,
        producer_version=int(graph.versions.producer),
        function_count=len(graph.library.function),
    )


def _unknown_op_message(op: str) -> str:
    try:
        get_op(op)
    except NotFoundError as exc:
        return str(exc)
    return f"op type {op!r} is not registered"


def _is_likely_output(node: Node) -> bool:
    if node.users or node.op in _UNLIKELY_OUTPUT_OPS:
        return False
    # A NoOp that groups other ops (`train`, `init`) is a target; a bare one is nothing.
    return not (node.op == "NoOp" and not node.control_inputs and not node.inputs)


def _output_tensors(node: Node, unknown: set[str]) -> list[tuple[str, str]] | None:
    if node.op in unknown:
        return None
    try:
        types = node.output_types
    except TfxError:
        return None
    return [(f"{node.name}:{i}", str(t)) for i, t in enumerate(types)]


def _attr_kind(node: Node, key: str) -> str | None:
    value = node.attr.get(key)
    return value.WhichOneof("value") if value is not None else None


def _dims(shape: Any) -> list[int | None] | None:
    """A TensorShapeProto's dims (None for -1), None for unknown rank; raises on bad dims."""
    if shape.unknown_rank:
        return None
    dims: list[int | None] = []
    for dim in shape.dim:
        if dim.size < -1:
            raise ValueError(f"invalid dimension {dim.size}")
        dims.append(None if dim.size == -1 else int(dim.size))
    return dims


def _input_info(node: Node, where: str, issues: list[str]) -> InputInfo:
    dtype = None
    if _attr_kind(node, "dtype") == "type":
        try:
            dtype = str(dtypes.as_dtype(node.attr["dtype"].type))
        except TfxError as exc:
            issues.append(f"{where}, attr 'dtype': {exc}")
    shape = None
    if _attr_kind(node, "shape") == "shape":
        try:
            shape = _dims(node.attr["shape"].shape)
        except ValueError as exc:
            issues.append(f"{where}, attr 'shape': {exc}")
    has_default = node.op == "PlaceholderWithDefault"
    return InputInfo(node.name, node.op, dtype, shape, has_default=has_default)


def _element_count(dims: list[int | None] | None) -> int | None:
    if dims is None or any(d is None for d in dims):
        return None
    count = 1
    for d in dims:
        count *= d  # type: ignore[operator]
    return count


def _const_elements(node: Node, where: str, issues: list[str]) -> int:
    if _attr_kind(node, "value") != "tensor":
        issues.append(f"{where}: attr 'value' is missing or not a tensor")
        return 0
    tensor: tensor_pb2.TensorProto = node.attr["value"].tensor
    try:
        count = _element_count(_dims(tensor.tensor_shape))
    except ValueError as exc:
        issues.append(f"{where}, attr 'value': {exc}")
        return 0
    if count is None:
        issues.append(f"{where}, attr 'value': the tensor's shape is not fully known")
        return 0
    return count


def _variable_elements(node: Node, where: str, issues: list[str]) -> int:
    if _attr_kind(node, "shape") != "shape":
        return 0  # the binding check reports a missing or mistyped attr
    try:
        count = _element_count(_dims(node.attr["shape"].shape))
    except ValueError as exc:
        issues.append(f"{where}, attr 'shape': {exc}")
        return 0
    return count or 0

"""summarize_graph: inputs, outputs, histogram, parameters; never fails on one bad node."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

import tfx.graphs
from tfx.core import summarize
from tfx.core.eager import make_node_def
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.summarize import summarize_graph
from tfx.protos import graph_pb2

DEFAULT = Path(tfx.graphs.__file__).parent / "default.pbtxt"
CONFORMANCE = Path(__file__).parents[1] / "data" / "conformance"


def graph_of(*nodes: graph_pb2.NodeDef) -> Graph:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(nodes)
    return Graph.from_graph_def(graph_def)


def const(name: str, value: np.ndarray) -> graph_pb2.NodeDef:
    return make_node_def("Const", name, [], {"dtype": value.dtype, "value": value})


def test_default_graph() -> None:
    summary = summarize_graph(Graph.from_graph_def(load_graph(DEFAULT)))
    assert summary.node_count == 12
    assert summary.op_counts[0] == ("Const", 5)
    assert dict(summary.op_counts)["MatMul"] == 2
    (inp,) = summary.inputs
    assert (inp.tensor, inp.op, inp.dtype, inp.shape, inp.has_default) == (
        "input:0", "PlaceholderWithDefault", "float32", [None, 4], True
    )
    assert [o.name for o in summary.outputs] == ["probs"]
    # 2x4 input + 4x3 + 3 + 3x3 + 3
    assert summary.const_parameters == 35 and summary.parameter_count == 35
    assert summary.variable_count == 0 and summary.control_edge_count == 0
    assert summary.devices == [] and summary.producer_version > 0


def test_conformance_graph_inputs_and_outputs_match_its_manifest() -> None:
    manifest = json.loads((CONFORMANCE / "mlp_frozen.json").read_text())
    summary = summarize_graph(Graph.from_graph_def(load_graph(CONFORMANCE / "mlp_frozen.pb")))
    assert [i.tensor for i in summary.inputs] == list(manifest["steps"][0]["feeds"])
    output_tensors = {
        name for out in summary.outputs for name, _ in (out.tensors or [(out.name + ":0", "")])
    }
    assert "probs:0" in output_tensors
    assert set(dict(summary.op_counts)) == set(manifest["ops"])
    assert summary.unknown_ops == [] or set(summary.unknown_ops) <= set(manifest["ops"])


def test_variables_control_edges_devices_and_targets() -> None:
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    v = make_node_def("VariableV2", "v", [], {"dtype": "float32", "shape": (3, 4)})
    v.device = cpu
    graph = graph_of(
        make_node_def("Placeholder", "x", [], {"dtype": "int32"}),  # no shape: unknown rank
        v,
        make_node_def("VarHandleOp", "h", [], {"dtype": "float32", "shape": (5,)}),
        const("zeros", np.zeros((3, 4), np.float32)),
        make_node_def("Assign", "assign", ["v", "zeros"], {"T": "float32"}),
        make_node_def("NoOp", "init", ["^assign", "^h"], {}),
        make_node_def("NoOp", "nothing", [], {}),
        make_node_def("Identity", "read", ["v"], {"T": "float32"}),
    )
    summary = summarize_graph(graph)
    assert [(i.name, i.dtype, i.shape) for i in summary.inputs] == [("x", "int32", None)]
    # Unread: x (an input), init (a target), nothing (a bare NoOp) and read (a result);
    # only init and read are likely outputs.
    outputs = {o.name: o.tensors for o in summary.outputs}
    assert outputs == {"init": [], "read": [("read:0", "float32")]}
    assert summary.variable_count == 2 and summary.variable_parameters == 12 + 5
    assert summary.const_parameters == 12 and summary.parameter_count == 29
    assert summary.control_edge_count == 2
    assert summary.devices == [cpu]
    assert summary.issues == []


def test_unknown_ops_and_bad_attrs_are_listed_not_raised(monkeypatch) -> None:
    x = make_node_def("Placeholder", "x", [], {"dtype": "float32"})
    unknown = graph_pb2.NodeDef(name="act", op="Relu7", input=["x"])
    bad_attr = make_node_def("MatMul", "mm", ["x", "x"], {"T": "float32"})
    bad_attr.attr["transpose_a"].Clear()
    bad_attr.attr["transpose_a"].s = b"yes"
    bad_dtype = graph_pb2.NodeDef(name="p", op="Placeholder")
    bad_dtype.attr["dtype"].type = 77  # not a DataType
    summary = summarize_graph(graph_of(x, unknown, bad_attr, bad_dtype))
    assert summary.unknown_ops == ["Relu7"]
    outputs = {o.name: o.tensors for o in summary.outputs}
    assert outputs == {"act": None, "mm": None}
    assert [i.name for i in summary.inputs] == ["x", "p"]
    assert summary.inputs[1].dtype is None
    text = "\n".join(summary.issues)
    assert "'Relu7'" in text and "'act'" in text
    assert "'mm'" in text and "transpose_a" in text
    assert "'p'" in text
    json.dumps(summary.to_dict())


def test_ops_without_a_cpu_kernel(monkeypatch) -> None:
    monkeypatch.setattr(summarize, "has_kernel", lambda op, device: op != "MatMul")
    summary = summarize_graph(Graph.from_graph_def(load_graph(DEFAULT)))
    assert summary.ops_without_cpu_kernel == ["MatMul"]


def test_huge_constants_are_counted_without_decoding() -> None:
    node = graph_pb2.NodeDef(name="huge", op="Const")
    node.attr["dtype"].type = 1
    tensor = node.attr["value"].tensor
    tensor.dtype = 1
    for size in (100_000, 100_000, 1_000):
        tensor.tensor_shape.dim.add().size = size
    tensor.float_val.append(0.5)  # a splat: decoding it would need 40 TB
    broken = graph_pb2.NodeDef(name="broken", op="Const")
    broken.attr["value"].tensor.tensor_shape.dim.add().size = -7
    start = time.perf_counter()
    summary = summarize_graph(graph_of(node, broken))
    assert time.perf_counter() - start < 1.0
    assert summary.const_parameters == 10**13
    assert any("'broken'" in issue and "-7" in issue for issue in summary.issues)


def test_to_dict_is_json() -> None:
    summary = summarize_graph(Graph.from_graph_def(load_graph(DEFAULT)))
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["parameter_count"] == 35
    assert data["inputs"][0]["tensor"] == "input:0"
    assert data["op_counts"][0] == {"op": "Const", "count": 5}
    assert data["outputs"][0]["name"] == "probs"


def test_a_library_function_called_as_an_op_is_not_unknown() -> None:
    # A TF1 Defun graph written by TensorFlow 2.21: its call's op type is the function.
    graph = Graph.from_graph_def(load_graph(
        Path(__file__).resolve().parents[1] / "data" / "functions" / "defun.pb"))
    summary = summarize_graph(graph)
    assert summary.unknown_ops == [] and summary.issues == []
    assert any(op.startswith("scaled_add") for op, _ in summary.op_counts)

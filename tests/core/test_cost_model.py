"""The cost model: static shapes, FLOPs and bytes, time on a device, measured profiles."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tfx.core.cost_model import CostModel, Profile, infer_shapes, record_profile
from tfx.core.devices import DeviceSet
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError
from tfx.core.graph import Graph
from tfx.protos import graph_pb2


def _graph() -> Graph:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": (None, 784)}),
        make_node_def("Const", "w", [], {"dtype": "float32",
                                         "value": np.ones((784, 100), np.float32)}),
        make_node_def("MatMul", "y", ["x", "w"], {"T": "float32"}),
        make_node_def("Tanh", "t", ["y"], {"T": "float32"}),
        make_node_def("Reshape", "flat", ["t", "shape"], {"T": "float32"}),
        make_node_def("Const", "shape", [], {"dtype": "int32", "value": np.array([-1], np.int32)}),
        make_node_def("VariableV2", "v", [], {"dtype": "float32", "shape": (10, 20)}),
    ])
    return Graph.from_graph_def(graph_def)


def test_shapes_use_pinned_input_shapes() -> None:
    graph = _graph()
    shapes = infer_shapes(graph)
    assert shapes[graph.tensor("y:0")] == (None, 100)
    pinned = infer_shapes(graph, {"x:0": (32, 784)})
    assert pinned[graph.tensor("y:0")] == (32, 100)
    assert pinned[graph.tensor("flat:0")] == (3200,)  # Reshape reads the Const shape


def test_flops_bytes_and_outputs() -> None:
    graph = _graph()
    model = CostModel(graph, input_shapes={"x:0": (32, 784)})
    y, t = graph.node("y"), graph.node("t")
    assert model.flops(y) == 2 * 32 * 784 * 100
    assert model.output_bytes(y) == [32 * 100 * 4]
    assert model.bytes_accessed(y) == (32 * 784 + 784 * 100 + 32 * 100) * 4
    assert model.flops(t) == 10 * 32 * 100  # a transcendental: ~10 FLOPs an element
    assert model.flops(graph.node("flat")) == 0  # moves a reference only
    assert model.persistent_bytes(graph.node("v")) == 10 * 20 * 4
    # An unknown batch dimension counts as `unknown_dim`.
    assert CostModel(graph, unknown_dim=8).flops(y) == 2 * 8 * 784 * 100


def test_compute_time_is_overhead_plus_the_slower_of_flops_and_memory() -> None:
    graph = _graph()
    model = CostModel(graph, input_shapes={"x:0": (32, 784)})
    cpu, gpu = DeviceSet.from_names("cpu:0,gpu:1").devices
    y = graph.node("y")
    expected = cpu.op_overhead + max(model.flops(y) / cpu.flops,
                                     model.bytes_accessed(y) / cpu.mem_bandwidth)
    assert model.compute_time(y, cpu) == pytest.approx(expected)
    assert model.compute_time(y, gpu) < model.compute_time(y, cpu)
    # Ops that launch no kernel cost nothing.
    assert model.compute_time(graph.node("w"), cpu) == 0.0
    assert model.compute_time(graph.node("flat"), gpu) == 0.0


def test_conv_and_pool_flops() -> None:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        make_node_def("Placeholder", "img", [], {"dtype": "float32", "shape": (2, 8, 8, 3)}),
        make_node_def("Const", "k", [], {"dtype": "float32",
                                         "value": np.ones((3, 3, 3, 16), np.float32)}),
        make_node_def("Conv2D", "conv", ["img", "k"],
                      {"T": "float32", "strides": [1, 1, 1, 1], "padding": "SAME"}),
        make_node_def("MaxPool", "pool", ["conv"],
                      {"T": "float32", "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                       "padding": "VALID"}),
    ])
    graph = Graph.from_graph_def(graph_def)
    model = CostModel(graph)
    assert model.output_bytes(graph.node("conv")) == [2 * 8 * 8 * 16 * 4]
    assert model.flops(graph.node("conv")) == 2 * (2 * 8 * 8 * 16) * (3 * 3 * 3)
    assert model.flops(graph.node("pool")) == (2 * 4 * 4 * 16) * 4


def test_a_gather_costs_the_rows_it_reads_not_the_table() -> None:
    # An embedding lookup: 512 rows of a 1M x 64 float table (256 MB); the gathered rows
    # are 128 KB. Each form of gather costs its output's worth, not the table's.
    vocab, dim, ids = 1_000_000, 64, 512
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        make_node_def("VariableV2", "table", [], {"dtype": "float32", "shape": (vocab, dim)}),
        make_node_def("VarHandleOp", "handle", [], {"dtype": "float32", "shape": (vocab, dim)}),
        make_node_def("Placeholder", "ids", [], {"dtype": "int32", "shape": (ids,)}),
        make_node_def("Const", "axis", [], {"dtype": "int32", "value": np.int32(0)}),
        make_node_def("Gather", "gather", ["table", "ids"],
                      {"Tparams": "float32", "Tindices": "int32"}),
        make_node_def("GatherV2", "gather_v2", ["table", "ids", "axis"],
                      {"Tparams": "float32", "Tindices": "int32", "Taxis": "int32"}),
        make_node_def("ResourceGather", "resource_gather", ["handle", "ids"],
                      {"dtype": "float32", "Tindices": "int32"}),
    ])
    graph = Graph.from_graph_def(graph_def)
    # ResourceGather's shape function cannot see the variable's shape: pin its output.
    model = CostModel(graph, input_shapes={"resource_gather:0": (ids, dim)})
    cpu = DeviceSet.from_names("cpu:0").devices[0]
    rows = ids * dim * 4
    for name, extra in (("gather", 0), ("gather_v2", 4), ("resource_gather", 0)):
        node = graph.node(name)
        assert model.output_bytes(node) == [rows]
        # The rows read from the table, the indices (and axis), the rows written.
        assert model.bytes_accessed(node) == rows + ids * 4 + extra + rows
        assert model.flops(node) == ids * dim
        seconds = model.compute_time(node, cpu)
        assert seconds == pytest.approx(cpu.op_overhead + (2 * rows + ids * 4 + extra)
                                        / cpu.mem_bandwidth)
        assert seconds < 1e-3 < vocab * dim * 4 / cpu.mem_bandwidth  # the table: 25.6 ms


def test_measured_profile_replaces_estimates(tmp_path: Path) -> None:
    graph = _graph()
    x = np.ones((4, 784), np.float32)
    profile = record_profile(graph, {"x:0": x}, ["flat:0"], repeats=2)
    assert set(profile.times) >= {"w", "y", "t", "flat"} and "x" not in profile.times  # fed
    assert all(t >= 0 for t in profile.times.values())
    assert profile.output_bytes["y"] == [4 * 100 * 4]

    path = tmp_path / "prof.json"
    profile.save(path)
    loaded = Profile.load(path)
    assert loaded.times == profile.times and loaded.output_bytes == profile.output_bytes

    cpu, gpu = DeviceSet.from_names("cpu:0,gpu:1").devices
    model = CostModel(graph, profile=loaded)
    y = graph.node("y")
    assert model.compute_time(y, cpu) == pytest.approx(profile.times["y"])
    # Scaled by FLOP rate for another device.
    assert model.compute_time(y, gpu) == pytest.approx(
        profile.times["y"] * cpu.flops / gpu.flops)
    assert model.output_bytes(y) == [1600]


def test_malformed_profiles_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "prof.json"
    path.write_text(json.dumps({"format": "something"}))
    with pytest.raises(InvalidArgumentError, match="not a tfx profile"):
        Profile.load(path)
    path.write_text(json.dumps({"format": "tfx-profile", "device": "d", "device_type": "CPU",
                                "flops": 1e9, "nodes": {"a": {"time": -1}}}))
    with pytest.raises(InvalidArgumentError, match="malformed profile: node 'a' has time -1"):
        Profile.load(path)

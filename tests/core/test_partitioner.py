"""The partitioner: one graph per device, TF-style _Send/_Recv pairs, one Recv per
(tensor, destination), control edges as dummy tensors, loop frames on one device."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfx.core.colocation import loop_frames
from tfx.core.devices import DeviceSet, incarnation_of
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.partitioner import file_name, merge, partition
from tfx.core.placer import place
from tfx.core.rendezvous import create_key
from tfx.protos import graph_pb2

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
DATA = Path(__file__).resolve().parent.parent / "data" / "conformance"


def _node(op: str, name: str, inputs: list[str], attrs: dict, device: str) -> graph_pb2.NodeDef:
    node_def = make_node_def(op, name, inputs, attrs)
    node_def.device = device
    return node_def


def _placed() -> Graph:
    """x on CPU:0 read by two nodes on CPU:1, their results back on CPU:0, plus a control
    edge from CPU:1 to CPU:0."""
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}, CPU0),
        _node("Neg", "a", ["x"], {"T": "float32"}, CPU1),
        _node("Abs", "b", ["x"], {"T": "float32"}, CPU1),
        _node("Add", "c", ["a", "b"], {"T": "float32"}, CPU0),
        _node("NoOp", "after", ["^a"], {}, CPU0),
    ])
    return Graph.from_graph_def(graph_def)


def _attr(node, key):
    return node.attrs[key]


def test_one_recv_per_tensor_and_destination() -> None:
    graph = _placed()
    parts = partition(graph)
    assert list(parts.graphs) == [CPU0, CPU1]
    dev1 = parts.graphs[CPU1]
    recvs = [n for n in dev1 if n.op == "_Recv"]
    assert len(recvs) == 1  # x is read twice on CPU:1, received once
    assert dev1.node("a").inputs[0].node is recvs[0]
    assert dev1.node("b").inputs[0].node is recvs[0]
    sends = [n for n in parts.graphs[CPU0] if n.op == "_Send"]
    assert len(sends) == 1 and sends[0].inputs[0].node.name == "x"
    # a and b each come back (two tensors), and the control edge as a third pair.
    assert len(parts.transfers) == 4
    assert [t.source for t in parts.transfers] == ["x:0", "a:0", "b:0", "^a"]
    # The original graph is not changed.
    assert [n.name for n in graph] == ["x", "a", "b", "c", "after"]


def test_send_and_recv_attrs_follow_tensorflow() -> None:
    parts = partition(_placed())
    send = parts.graphs[CPU0].node(parts.transfers[0].send_node)
    recv = parts.graphs[CPU1].node(parts.transfers[0].recv_node)
    assert send.op == "_Send" and recv.op == "_Recv"
    assert send.device == CPU0 and recv.device == CPU1
    for node in (send, recv):
        assert _attr(node, "tensor_name") == "edge_0_x"  # edge_<edge id>_<source node>
        assert _attr(node, "send_device") == CPU0
        assert _attr(node, "recv_device") == CPU1
        assert _attr(node, "send_device_incarnation") == incarnation_of(CPU0)
        assert _attr(node, "client_terminated") is False
    assert _attr(send, "T").name == "float32"
    assert _attr(recv, "tensor_type").name == "float32"
    # Edge ids count every edge of the graph in order: a -> c is edge 2.
    assert [t.tensor_name for t in parts.transfers] == [
        "edge_0_x", "edge_2_a", "edge_3_b", "edge_4_a"]


def test_control_edges_travel_as_a_dummy_tensor() -> None:
    parts = partition(_placed())
    control = parts.transfers[-1]
    assert control.is_control and control.source_node == "a"
    dummy = parts.graphs[CPU1].node(control.dummy_node)
    assert dummy.op == "Const" and [c.name for c in dummy.control_inputs] == ["a"]
    assert np.asarray(dummy.attrs["value"]).size == 0
    send = parts.graphs[CPU1].node(control.send_node)
    assert send.inputs[0].node is dummy
    after = parts.graphs[CPU0].node("after")
    assert [c.name for c in after.control_inputs] == [control.recv_node]


def test_rendezvous_keys_in_the_index() -> None:
    parts = partition(_placed(), {CPU0: 1, CPU1: 0x1F})
    index = parts.index_json({CPU0: "a.pb", CPU1: "b.pb"})
    assert index["devices"] == [{"device": CPU0, "nodes": 7, "file": "a.pb"},
                                {"device": CPU1, "nodes": 7, "file": "b.pb"}]
    first = index["transfers"][0]
    assert first["key"] == f"{CPU0};0000000000000001;{CPU1};edge_0_x;0:0"
    assert index["transfers"][1]["key"] == create_key(CPU1, 0x1F, CPU0, "edge_2_a")
    assert index["transfers"][1]["key"].split(";")[1] == "000000000000001f"
    assert file_name(CPU1) == "job_localhost_replica_0_task_0_device_CPU_1.pb"


def test_partition_graphs_round_trip_as_graph_defs() -> None:
    parts = partition(_placed())
    for graph in parts.graphs.values():
        graph.validate()
        again = Graph.from_graph_def(graph.to_graph_def())
        assert [n.name for n in again] == [n.name for n in graph]


def test_unplaced_nodes_are_refused() -> None:
    graph = _placed()
    graph.node("a").device = "/device:CPU:1"
    graph.node("b").device = ""
    with pytest.raises(InvalidArgumentError,
                       match=r"not placed: node\(s\) 'a' \(/device:CPU:1\), 'b' \(no device\)"):
        partition(graph)


def test_loops_stay_on_one_device() -> None:
    graph = Graph.from_graph_def(load_graph(str(DATA / "while_v1.pb")))
    place(graph, DeviceSet.from_names("cpu:0,cpu:1"))
    frames = loop_frames(graph)
    in_loop = [n for n in graph if frames[n]]
    assert in_loop and len({n.device for n in in_loop}) == 1
    partition(graph)  # no edge crosses inside the frame

    # Move one node of the loop body to the other device: refused, naming the frame.
    body = next(n for n in in_loop if n.op not in ("Enter", "Exit", "Merge", "Switch",
                                                   "NextIteration", "LoopCond"))
    other = CPU1 if body.device == CPU0 else CPU0
    body.device = other
    with pytest.raises(InvalidArgumentError, match=r"crosses from .* inside loop frame"):
        partition(graph)


def _edges(graph: Graph) -> dict[str, tuple[list[str], str]]:
    return {n.name: (list(n.to_node_def().input), n.device) for n in graph}


@pytest.mark.parametrize("name", ["mlp_train_adagrad", "cond_v1", "while_v1", "fifo_queue",
                                  "mobilenet_v2_frozen"])
def test_merge_joins_partitions_back(name: str) -> None:
    graph = Graph.from_graph_def(load_graph(str(DATA / f"{name}.pb")))
    place(graph, DeviceSet.from_names("cpu:0,cpu:1,cpu:2"))
    parts = partition(graph)
    if name in ("mlp_train_adagrad", "mobilenet_v2_frozen"):
        assert len(parts.graphs) >= 2 and parts.transfers
    assert _edges(merge(list(parts.graphs.values()))) == _edges(graph)


def test_merge_of_control_edges_and_missing_sends() -> None:
    graph = _placed()
    parts = partition(graph)
    merged = merge(list(parts.graphs.values()))
    assert _edges(merged) == _edges(graph)  # the dummy tensor is gone, ^a is back
    with pytest.raises(InvalidArgumentError,
                       match=r"_Recv 'x/_1' on .*CPU:1 waits for tensor 'edge_0_x' from "
                             r".*CPU:0, but no partition has the _Send of it"):
        merge([parts.graphs[CPU1]])


def test_feeds_and_fetches_go_through_the_client_device() -> None:
    graph = _placed()
    parts = partition(graph, {CPU0: 7, CPU1: 9}, feeds=["x"], fetches=["c:0", "a:0", "c:0"],
                      client=CPU0)
    cpu0, cpu1 = parts.graphs[CPU0], parts.graphs[CPU1]
    # The fed tensor comes from a client-terminated _Recv on the client's device...
    [feed] = parts.feeds
    recv = cpu0.node(feed.node)
    assert (feed.tensor, feed.node, recv.op, recv.device) == ("x:0", "_recv_x_0", "_Recv", CPU0)
    assert {k: recv.attrs[k] for k in ("tensor_name", "send_device", "recv_device",
                                       "send_device_incarnation", "client_terminated")} == {
        "tensor_name": "x:0", "send_device": CPU0, "recv_device": CPU0,
        "send_device_incarnation": 7, "client_terminated": True}
    assert recv.attrs["tensor_type"].name == "float32"
    assert feed.key == create_key(CPU0, 7, CPU0, "x:0") == f"{CPU0};0000000000000007;{CPU0};x:0;0:0"
    # ... which its readers on CPU:1 get through one ordinary pair; the placeholder is unread.
    [to_cpu1] = [t for t in parts.transfers if t.recv_device == CPU1]
    assert to_cpu1.source == "_recv_x_0:0" and to_cpu1.send_device == CPU0
    assert cpu1.node("a").inputs[0].node.name == cpu1.node("b").inputs[0].node.name == (
        to_cpu1.recv_node)
    assert not cpu0.node("x").users
    # Each fetched tensor, once however often fetched, gets a client-terminated _Send there.
    assert [f.tensor for f in parts.fetches] == ["c:0", "a:0"]
    send_c, send_a = (cpu0.node(f.node) for f in parts.fetches)
    assert send_c.op == send_a.op == "_Send" and send_c.inputs[0].name == "c:0"
    assert send_c.attrs["client_terminated"] is True and send_c.attrs["tensor_name"] == "c:0"
    assert send_c.attrs["send_device"] == send_c.attrs["recv_device"] == CPU0
    # a:0 reaches the client through the Recv that c already reads it by.
    assert send_a.inputs[0].node is cpu0.node("c").inputs[0].node
    index = parts.index_json()
    assert [f["key"] for f in index["fetches"]] == [f.key for f in parts.fetches]
    assert index["feeds"] == [{"tensor": "x:0", "node": "_recv_x_0", "device": CPU0,
                               "key": feed.key}]
    # The graph given is not changed, and the whole graph's cut has no client nodes.
    assert [n.name for n in graph] == ["x", "a", "b", "c", "after"]
    whole = partition(graph)
    assert not whole.feeds and not whole.fetches
    assert "feeds" not in whole.index_json() and "fetches" not in whole.index_json()
    # Joined back, the readers read the fed tensor again and the client's Sends go.
    assert _edges(merge(list(parts.graphs.values()))) == _edges(graph)


def test_a_fetch_of_a_fed_tensor_reads_the_feed_and_the_client_may_be_apart() -> None:
    client = "/job:localhost/replica:0/task:0/device:CPU:2"
    parts = partition(_placed(), feeds=["a:0"], fetches=["a:0", "c:0"], client=client)
    assert list(parts.graphs) == [CPU0, CPU1, client]
    graph = parts.graphs[client]
    assert graph.node(parts.fetches[0].node).inputs[0].node.name == parts.feeds[0].node
    # c on CPU:0 reads the fed a from the client's device; CPU:1 sends its own a nowhere.
    assert [t.source for t in parts.transfers if t.recv_device == CPU0][0] == "_recv_a_0:0"
    assert [t.send_device for t in parts.transfers if t.source == "c:0"] == [CPU0]
    assert "a:0" not in [t.source for t in parts.transfers]


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"fetches": ["c:0"]}, InvalidArgumentError, r"client's device, and '' is not a full"),
    ({"feeds": ["x:0"], "client": "/cpu:0"}, InvalidArgumentError, "'/cpu:0' is not a full"),
    ({"feeds": ["x:0", "x"], "client": CPU0}, InvalidArgumentError, "'x:0' is fed twice"),
    ({"feeds": ["y:0"], "client": CPU0}, NotFoundError, r"feed 'y:0': no node named 'y'"),
    ({"fetches": ["c:3"], "client": CPU0}, NotFoundError, r"fetch 'c:3': tensor 'c:3' does not"),
])
def test_bad_feeds_and_fetches(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        partition(_placed(), **kwargs)


def test_feeds_and_fetches_inside_a_loop_are_refused() -> None:
    graph = Graph.from_graph_def(load_graph(str(DATA / "while_v1.pb")))
    place(graph, DeviceSet.from_names("cpu:0,cpu:1"))
    frames = loop_frames(graph)
    body = next(n for n in graph if frames[n] and n.op not in (
        "Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"))
    with pytest.raises(InvalidArgumentError, match=rf"cannot fetch '{body.name}:0': it is "
                                                   "inside loop frame"):
        partition(graph, fetches=[f"{body.name}:0"], client=CPU0)
    with pytest.raises(InvalidArgumentError, match=rf"cannot feed '{body.name}:0': node .* "
                                                   "reads it inside loop frame"):
        partition(graph, feeds=[f"{body.name}:0"], client=CPU0)


def test_incarnations_with_the_top_bit_set_are_written_as_tensorflow_writes_them() -> None:
    # A TensorFlow task draws its devices' incarnations from all 64 bits; the int64 attr
    # holds the same bits (negative), and the key spells them unsigned. Such an incarnation
    # made the partition graph unserializable ("Value out of range") for a tfx master
    # driving a TensorFlow worker.
    big = 2**64 - 5
    parts = partition(_placed(), {CPU0: big, CPU1: 9}, feeds=["x"], fetches=["c:0"],
                      client=CPU0)
    for device_graph in parts.graphs.values():
        graph_def = graph_pb2.GraphDef.FromString(
            device_graph.to_graph_def().SerializeToString())
        for node in graph_def.node:
            if node.op in ("_Send", "_Recv") and node.attr["send_device"].s == CPU0.encode():
                assert node.attr["send_device_incarnation"].i == -5
    assert parts.transfers[0].key.split(";")[1] == "fffffffffffffffb"
    assert parts.feeds[0].key.split(";")[1] == "fffffffffffffffb"

"""The partitioner: cut a placed graph into one graph per device, joined by `_Send`/`_Recv`.

Every node must carry a full device name (`tfx.core.placer.place`). Each node
goes to its device's graph unchanged; every edge that crosses devices becomes
a `_Send` on the source device and a `_Recv` on the destination, named and
attributed as TensorFlow does: `tensor_name` is `edge_<edge id>_<source node>`,
with `send_device`, `send_device_incarnation`, `recv_device`,
`client_terminated` and the type (`T` on the Send, `tensor_type` on the Recv).
There is ONE Recv per (tensor, destination device), however many consumers
read the tensor there. A control edge across devices is carried by a dummy
tensor: an empty float Const on the source device, run after the source node,
is sent, and its Recv becomes the control input on the destination.

A loop frame must stay on one device: tfx does not build TensorFlow's
cross-device loop control, so an edge that crosses devices inside a while
loop is refused, naming the frame, the nodes and the devices. Conditionals
need nothing special: a dead value crosses like a live one.

Feeds and fetches stay where their nodes are: the placer puts a placeholder
that asks for no device on the client's device, where its feed arrives, and
its readers elsewhere get a Send/Recv like any edge. The runner
(`tfx.core.multi_device`) hands a fed tensor to each partition that reads it
(when a tensor other than a placeholder is fed) and takes each fetch from the
partition that computes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.colocation import frame_after, frame_paths
from tfx.core.devices import DeviceName, incarnation_of
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError
from tfx.core.graph import Graph, Node, Output
from tfx.core.rendezvous import create_key
from tfx.protos import graph_pb2


@dataclass(frozen=True)
class Transfer:
    """One Send/Recv pair.

    Attributes:
        source: the tensor carried ("node:k"), or "^node" for a control edge.
        tensor_name: the rendezvous name, `edge_<id>_<node>`.
        send_device, recv_device: full device names.
        incarnation: the sending device's incarnation.
        send_node: the `_Send` in the sending partition.
        recv_node: the `_Recv` in the receiving partition.
        dummy_node: for a control edge, the Const that is sent.
    """

    source: str
    tensor_name: str
    send_device: str
    recv_device: str
    incarnation: int
    send_node: str
    recv_node: str
    dummy_node: str = ""

    @property
    def is_control(self) -> bool:
        return self.source.startswith("^")

    @property
    def source_node(self) -> str:
        return self.source[1:] if self.is_control else self.source.rsplit(":", 1)[0]

    @property
    def key(self) -> str:
        """The rendezvous key in the root frame."""
        return create_key(self.send_device, self.incarnation, self.recv_device,
                          self.tensor_name)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "tensor_name": self.tensor_name,
                "send_device": self.send_device, "recv_device": self.recv_device,
                "send_device_incarnation": self.incarnation, "send_node": self.send_node,
                "recv_node": self.recv_node, "key": self.key}


@dataclass
class PartitionedGraph:
    """A placed graph cut into per-device graphs.

    Attributes:
        source: the placed graph that was cut.
        graphs: device -> its partition graph.
        transfers: every Send/Recv pair.
        device_of: node name (of `source`) -> its device.
    """

    source: Graph
    graphs: dict[str, Graph]
    transfers: list[Transfer]
    device_of: dict[str, str]

    def index_json(self, files: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The devices (with their files, if given) and rendezvous keys, for `tfx partition`."""
        return {
            "format": "tfx-partitions",
            "version": 1,
            "devices": [
                {"device": device, "nodes": len(graph),
                 **({"file": files[device]} if files else {})}
                for device, graph in self.graphs.items()
            ],
            "transfers": [t.to_json() for t in self.transfers],
        }


def file_name(device: str) -> str:
    """A file name for a device's partition: '/job:a/.../device:CPU:0' -> 'job_a_..._CPU_0.pb'."""
    return re.sub(r"[^A-Za-z0-9]+", "_", device).strip("_") + ".pb"


def partition(graph: Graph, incarnations: Mapping[str, int] | None = None) -> PartitionedGraph:
    """Cut a placed graph into one graph per device.

    Args:
        graph: every node carries a full device name.
        incarnations: device -> incarnation (default: a stable number per device name).

    Returns:
        The PartitionedGraph; `graph` itself is not changed.

    Raises:
        InvalidArgumentError: a node without a full device name, or an edge crossing
            devices inside a loop frame.

    Example:
        >>> place(graph, DeviceSet.from_names("cpu:0,cpu:1"))
        >>> parts = partition(graph)
        >>> sorted(parts.graphs)
    """
    device_of = _devices(graph)
    incarnations = dict(incarnations or {})
    for device in set(device_of.values()):
        incarnations.setdefault(device, incarnation_of(device))
    paths = frame_paths(graph)
    taken = {node.name for node in graph}
    builder = _Builder(graph, device_of, incarnations, taken)

    node_defs: dict[str, list[graph_pb2.NodeDef]] = {
        device: [] for device in dict.fromkeys(device_of.values())
    }
    edge_id = 0
    for node in graph:
        device = device_of[node.name]
        node_def = node.to_node_def()
        node_def.device = device
        del node_def.input[:]
        for source in node.inputs:
            src_device = device_of[source.node.name]
            if src_device == device:
                node_def.input.append(_tensor_ref(source))
            else:
                _check_frame(node, source.node, paths, src_device, device)
                recv = builder.data_transfer(source, device, edge_id)
                node_def.input.append(recv)
            edge_id += 1
        for control in node.control_inputs:
            src_device = device_of[control.name]
            if src_device == device:
                node_def.input.append("^" + control.name)
            else:
                _check_frame(node, control, paths, src_device, device)
                node_def.input.append("^" + builder.control_transfer(control, device, edge_id))
            edge_id += 1
        node_defs[device].append(node_def)
    for device, extra in builder.extra.items():
        node_defs.setdefault(device, []).extend(extra)

    graphs: dict[str, Graph] = {}
    for device, defs in node_defs.items():
        graph_def = graph_pb2.GraphDef()
        graph_def.versions.CopyFrom(graph.versions)
        if graph.library.ByteSize():
            graph_def.library.CopyFrom(graph.library)
        graph_def.node.extend(defs)
        graphs[device] = Graph.from_graph_def(graph_def)
    return PartitionedGraph(graph, graphs, builder.transfers, device_of)


def _devices(graph: Graph) -> dict[str, str]:
    device_of: dict[str, str] = {}
    unplaced: list[str] = []
    for node in graph:
        try:
            name = DeviceName.parse(node.device) if node.device else None
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"node {node.name!r} (op {node.op}): {exc}") from None
        if name is None or not name.is_full:
            unplaced.append(f"{node.name!r} ({node.device or 'no device'})")
            continue
        device_of[node.name] = str(name)
    if unplaced:
        shown = ", ".join(unplaced[:5]) + (f" and {len(unplaced) - 5} more"
                                            if len(unplaced) > 5 else "")
        raise InvalidArgumentError(
            f"the graph is not placed: node(s) {shown} lack a full device name; "
            "place it first (tfx place)"
        )
    return device_of


def _check_frame(node: Node, producer: Node, paths: dict[Node, tuple[str, ...]],
                 src_device: str, dst_device: str) -> None:
    frames = frame_after(producer, paths.get(producer, ()))
    if frames:
        raise InvalidArgumentError(
            f"the edge {producer.name!r} -> {node.name!r} crosses from {src_device} to "
            f"{dst_device} inside loop frame {frames[-1]!r}: tfx keeps a while loop on one "
            "device (place with tfx place, which does, or pin the loop's nodes together)"
        )


def _tensor_ref(source: Output) -> str:
    return source.node.name if source.index == 0 else f"{source.node.name}:{source.index}"


class _Builder:
    """Creates Send/Recv pairs, one per (tensor, destination device)."""

    def __init__(self, graph: Graph, device_of: dict[str, str], incarnations: dict[str, int],
                 taken: set[str]) -> None:
        self.graph = graph
        self.device_of = device_of
        self.incarnations = incarnations
        self.taken = taken
        self.counter = 0
        self.recvs: dict[tuple[str, str], str] = {}
        self.transfers: list[Transfer] = []
        self.extra: dict[str, list[graph_pb2.NodeDef]] = {}

    def new_name(self, prefix: str) -> str:
        while True:
            name = f"{prefix}/_{self.counter}"
            self.counter += 1
            if name not in self.taken:
                self.taken.add(name)
                return name

    def data_transfer(self, source: Output, dst: str, edge_id: int) -> str:
        key = (source.name, dst)
        recv = self.recvs.get(key)
        if recv is None:
            dtype = source.dtype.base
            recv = self._pair(source.name, _tensor_ref(source), source.node.name, dtype, dst,
                              edge_id)
            self.recvs[key] = recv
        return recv

    def control_transfer(self, control: Node, dst: str, edge_id: int) -> str:
        key = ("^" + control.name, dst)
        recv = self.recvs.get(key)
        if recv is None:
            src = self.device_of[control.name]
            dummy = self.new_name(control.name)
            const = make_node_def("Const", dummy, ["^" + control.name],
                                  {"dtype": dtypes.float32, "value": np.zeros(0, np.float32)})
            const.device = src
            self.extra.setdefault(src, []).append(const)
            recv = self._pair("^" + control.name, dummy, control.name, dtypes.float32, dst,
                              edge_id, dummy)
            self.recvs[key] = recv
        return recv

    def _pair(self, source: str, sent: str, src_node: str, dtype: dtypes.DType, dst: str,
              edge_id: int, dummy: str = "") -> str:
        src = self.device_of[src_node]
        tensor_name = f"edge_{edge_id}_{src_node}"
        common = {
            "tensor_name": tensor_name,
            "send_device": src,
            "send_device_incarnation": self.incarnations[src],
            "recv_device": dst,
            "client_terminated": False,
        }
        send_name = self.new_name(src_node)
        recv_name = self.new_name(src_node)
        send = make_node_def("_Send", send_name, [sent], {"T": dtype, **common})
        send.device = src
        recv = make_node_def("_Recv", recv_name, [], {"tensor_type": dtype, **common})
        recv.device = dst
        self.extra.setdefault(src, []).append(send)
        self.extra.setdefault(dst, []).append(recv)
        self.transfers.append(Transfer(source, tensor_name, src, dst, self.incarnations[src],
                                       send_name, recv_name, dummy))
        return recv_name


# --- joining partitions back --------------------------------------------------------------

_SENDS = ("_Send", "_HostSend")
_RECVS = ("_Recv", "_HostRecv")


def merge(partitions: Sequence[Graph]) -> Graph:
    """Join partition graphs into the placed graph they were cut from (`partition`'s inverse).

    Each `_Recv` is matched to the `_Send` with the same `tensor_name`, `send_device`
    and `recv_device`; a data use of the Recv reads the Send's input again, a control
    use becomes a control edge from the node the Send carries (through the dummy tensor
    of a control edge). Dummy tensors left without readers are dropped.

    Args:
        partitions: the per-device graphs (e.g. the files `tfx partition` wrote).

    Returns:
        The placed graph, every node keeping its device.

    Raises:
        InvalidArgumentError: a Recv without its Send, or a node name used twice.

    Example:
        >>> placed = merge(partition(graph).graphs.values())
    """
    sends: dict[tuple[str, str, str], Node] = {}
    for graph in partitions:
        for node in graph:
            if node.op in _SENDS:
                sends[_transfer_key(node)] = node
    data_of: dict[str, str] = {}  # Recv name -> the tensor it carries ("node" or "node:k")
    control_of: dict[str, str] = {}  # Recv name -> the node its arrival stands for
    dummies: set[str] = set()
    for graph in partitions:
        for node in graph:
            if node.op not in _RECVS:
                continue
            send = sends.get(_transfer_key(node))
            if send is None:
                name, src, dst = _transfer_key(node)
                raise InvalidArgumentError(
                    f"_Recv {node.name!r} on {dst} waits for tensor {name!r} from {src}, but "
                    "no partition has the _Send of it"
                )
            source = send.inputs[0]
            data_of[node.name] = _tensor_ref(source)
            control_of[node.name] = source.node.name
            if _is_dummy(source.node):
                dummies.add(source.node.name)
                control_of[node.name] = source.node.control_inputs[0].name
    used_dummies: set[str] = set()
    node_defs = []
    for graph in partitions:
        for node in graph:
            if node.op in _SENDS or node.op in _RECVS:
                continue
            node_def = node.to_node_def()
            del node_def.input[:]
            for source in node.inputs:
                name = source.node.name
                ref = data_of[name] if name in data_of else _tensor_ref(source)
                used_dummies.add(ref.split(":")[0])
                node_def.input.append(ref)
            for control in node.control_inputs:
                node_def.input.append("^" + control_of.get(control.name, control.name))
            node_defs.append(node_def)
    graph_def = graph_pb2.GraphDef()
    if partitions:
        graph_def.versions.CopyFrom(partitions[0].versions)
        if partitions[0].library.ByteSize():
            graph_def.library.CopyFrom(partitions[0].library)
    graph_def.node.extend(d for d in node_defs
                          if d.name not in dummies or d.name in used_dummies)
    return Graph.from_graph_def(graph_def)


def _transfer_key(node: Node) -> tuple[str, str, str]:
    attrs = node.attrs
    return (str(attrs["tensor_name"]), str(attrs["send_device"]), str(attrs["recv_device"]))


def _is_dummy(node: Node) -> bool:
    """The empty float Const `partition` sends for a control edge."""
    if node.op != "Const" or node.inputs or len(node.control_inputs) != 1:
        return False
    value = node.attrs.get("value")
    return isinstance(value, np.ndarray) and value.size == 0

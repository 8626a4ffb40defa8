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

Feeds and fetches are at the client's device, as TensorFlow rewrites a graph
for a step (`subgraph::RewriteGraphForExecution`) before cutting it: given a
step's feeds and fetches, each fed tensor is replaced by a client-terminated
`_Recv` on the client's device (`_recv_<node>_<k>`; every reader of the
tensor reads it instead), and each fetched tensor gets a client-terminated
`_Send` there (`_send_<node>_<k>`). Their `tensor_name` is the tensor's name
and both `send_device` and `recv_device` are the client's device, so the
client sends a feed, and receives a fetch, under
`client;incarnation;client;x:0;0:0` (`ClientTensor.key`). Readers and
producers on other devices reach them through ordinary Send/Recv pairs. This
is what a worker's RunGraph takes and returns (the rendezvous keys of its
sends and receives); the in-process runner is `tfx.core.multi_device`.
Without feeds or fetches (`tfx partition` of a whole graph, without `--feed`
or `--fetch`) nothing is added: a placeholder stays where the placer put it
(at the client's device, unless it asks for another).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.colocation import frame_after, frame_paths
from tfx.core.devices import DeviceName, incarnation_of
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.graph import Graph, Node, Output, parse_tensor_name
from tfx.core.rendezvous import create_key, incarnation_attr
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


@dataclass(frozen=True)
class ClientTensor:
    """A feed or a fetch, carried between the client and the graph by the rendezvous.

    Attributes:
        tensor: the tensor ("node:k"), also its rendezvous `tensor_name`.
        device: the device the client hands the value to or takes it from (the key's
            source and destination): the client's, or with `near_use` the readers' or
            the producer's.
        incarnation: that device's incarnation.
        node: the client-terminated `_Recv` (a feed) or `_Send` (a fetch), on `device`.
    """

    tensor: str
    device: str
    incarnation: int
    node: str

    @property
    def key(self) -> str:
        """The rendezvous key the client sends the feed, or receives the fetch, under."""
        return create_key(self.device, self.incarnation, self.device, self.tensor)

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "node": self.node, "device": self.device,
                "key": self.key}


@dataclass
class PartitionedGraph:
    """A placed graph cut into per-device graphs.

    Attributes:
        source: the placed graph that was cut, with the client-terminated nodes of the
            step's feeds and fetches when there are any.
        graphs: device -> its partition graph.
        transfers: every Send/Recv pair between partitions.
        device_of: node name (of `source`) -> its device.
        feeds, fetches: the client-terminated Recvs and Sends, in the order given.
    """

    source: Graph
    graphs: dict[str, Graph]
    transfers: list[Transfer]
    device_of: dict[str, str]
    feeds: list[ClientTensor] = field(default_factory=list)
    fetches: list[ClientTensor] = field(default_factory=list)

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
            **({"feeds": [f.to_json() for f in self.feeds]} if self.feeds else {}),
            **({"fetches": [f.to_json() for f in self.fetches]} if self.fetches else {}),
        }


def file_name(device: str) -> str:
    """A file name for a device's partition: '/job:a/.../device:CPU:0' -> 'job_a_..._CPU_0.pb'."""
    return re.sub(r"[^A-Za-z0-9]+", "_", device).strip("_") + ".pb"


def partition(graph: Graph, incarnations: Mapping[str, int] | None = None, *,
              feeds: Sequence[str] = (), fetches: Sequence[str] = (),
              client: str = "", near_use: bool = False,
              numbers: Iterator[int] | None = None) -> PartitionedGraph:
    """Cut a placed graph into one graph per device.

    Args:
        graph: every node carries a full device name.
        incarnations: device -> incarnation (default: a stable number per device name).
        feeds: tensors the step feeds: each becomes a client-terminated `_Recv` on the
            client's device, read by all the tensor's readers.
        fetches: tensors the step fetches: each gets a client-terminated `_Send` on the
            client's device (a tensor fetched twice gets one).
        client: the client's full device name; needed with feeds or fetches.
        near_use: put a feed's `_Recv` on its readers' device when they share one, and
            a fetch's `_Send` on its producer's device, instead of the client's: the
            client then hands each value to, or takes it from, that device itself (a
            step saves the hop through the client's device; a master sends the feed
            with that task's RunGraph and takes the fetch from its answer).
        numbers: where the `/_N` suffixes of new Send and Recv names come from (default:
            0, 1, 2, ...). A master cutting one session's steps passes one counter for
            all of them, as TensorFlow's does, so no two steps' pieces hold different
            nodes of the same name: a TensorFlow worker keeps one kernel per stateful
            node name in a session, and would run one step's Recv in another's place.

    Returns:
        The PartitionedGraph; `graph` itself is not changed.

    Raises:
        InvalidArgumentError: a node without a full device name, an edge crossing
            devices inside a loop frame or into an input that takes a reference, a
            tensor fed twice, a feed or fetch inside a
            loop frame, or feeds or fetches without a full client device name.
        NotFoundError: a feed or fetch that is not a tensor of the graph.

    Example:
        >>> place(graph, DeviceSet.from_names("cpu:0,cpu:1"))
        >>> parts = partition(graph, feeds=["x:0"], fetches=["probs:0"],
        ...                   client="/job:localhost/replica:0/task:0/device:CPU:0")
        >>> parts.feeds[0].key, sorted(parts.graphs)
    """
    device_of = placed_devices(graph)
    incarnations = dict(incarnations or {})
    client_feeds: list[ClientTensor] = []
    client_fetches: list[ClientTensor] = []
    if feeds or fetches:
        graph, client_feeds, client_fetches = _at_client(graph, feeds, fetches, client,
                                                         incarnations, near_use)
        device_of = placed_devices(graph)
    for device in set(device_of.values()):
        incarnations.setdefault(device, incarnation_of(device))
    paths = frame_paths(graph)
    taken = {node.name for node in graph}
    builder = _Builder(graph, device_of, incarnations, taken, numbers)

    node_defs: dict[str, list[graph_pb2.NodeDef]] = {
        device: [] for device in dict.fromkeys(device_of.values())
    }
    edge_id = 0
    for node in graph:
        device = device_of[node.name]
        node_def = node.to_node_def()
        node_def.device = device
        del node_def.input[:]
        for i, source in enumerate(node.inputs):
            src_device = device_of[source.node.name]
            if src_device == device:
                node_def.input.append(_tensor_ref(source))
            else:
                _check_frame(node, source.node, paths, src_device, device)
                _check_not_ref(node, i, source, src_device, device)
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
    return PartitionedGraph(graph, graphs, builder.transfers, device_of, client_feeds,
                            client_fetches)


def _at_client(graph: Graph, feeds: Sequence[str], fetches: Sequence[str], client: str,
               incarnations: dict[str, int], near_use: bool = False,
               ) -> tuple[Graph, list[ClientTensor], list[ClientTensor]]:
    """A copy of `graph` whose feeds come from, and fetches go to, client-terminated
    `_Recv`/`_Send` nodes on the client's device (`near_use`: see `partition`)."""
    try:
        name = DeviceName.parse(client) if client else None
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"client device: {exc}") from None
    if name is None or not name.is_full:
        raise InvalidArgumentError(
            f"feeds and fetches go through the client's device, and {client!r} is not a full "
            "device name (give client=/job:NAME/replica:R/task:T/device:TYPE:I)"
        )
    client = str(name)
    incarnations.setdefault(client, incarnation_of(client))
    paths = frame_paths(graph)
    fed: list[str] = []
    for tensor in feeds:
        out = _tensor(graph, tensor, "feed")
        if out.name in fed:
            raise InvalidArgumentError(f"tensor {out.name!r} is fed twice")
        for reader in out.node.users:
            if out in reader.inputs and paths.get(reader):
                raise InvalidArgumentError(
                    f"cannot feed {out.name!r}: node {reader.name!r} reads it inside loop "
                    f"frame {paths[reader][-1]!r}"
                )
        fed.append(out.name)
    fetched: list[str] = []
    for tensor in fetches:
        out = _tensor(graph, tensor, "fetch")
        frames = frame_after(out.node, paths.get(out.node, ()))
        if frames:
            raise InvalidArgumentError(
                f"cannot fetch {out.name!r}: it is inside loop frame {frames[-1]!r}")
        if out.name not in fetched:
            fetched.append(out.name)

    copy = Graph.from_graph_def(graph.to_graph_def())

    def endpoint(device: str) -> tuple[str, int, dict[str, Any]]:
        """The device a client-terminated node goes on, its incarnation and its attrs."""
        device = str(DeviceName.parse(device))  # a placed node's: parsed already
        known = incarnations.setdefault(device, incarnation_of(device))
        return device, known, {"send_device": device,
                               "send_device_incarnation": incarnation_attr(known),
                               "recv_device": device, "client_terminated": True}

    recv_of: dict[str, Output] = {}
    client_feeds = []
    for tensor in fed:
        out = copy.tensor(tensor)
        node_name, index = parse_tensor_name(tensor)
        readers = {reader.device for reader in out.node.users if out in reader.inputs}
        device, known, common = endpoint(
            readers.pop() if near_use and len(readers) == 1 else client)
        recv = copy.add_node(copy.unique_name(f"_recv_{node_name}_{index}"), "_Recv",
                             attr=_attrs("_Recv", tensor_type=out.dtype.base,
                                         tensor_name=tensor, **common), device=device)
        copy.replace_uses(out, recv.output(0))
        recv_of[tensor] = recv.output(0)
        client_feeds.append(ClientTensor(tensor, device, known, recv.name))
    client_fetches = []
    for tensor in fetched:
        out = copy.tensor(tensor)
        node_name, index = parse_tensor_name(tensor)
        source = recv_of.get(tensor, out)
        device, known, common = endpoint(source.node.device if near_use else client)
        send = copy.add_node(copy.unique_name(f"_send_{node_name}_{index}"), "_Send",
                             [source], attr=_attrs("_Send", T=out.dtype.base,
                                                   tensor_name=tensor, **common),
                             device=device)
        client_fetches.append(ClientTensor(tensor, device, known, send.name))
    return copy, client_feeds, client_fetches


def _tensor(graph: Graph, name: str, what: str) -> Output:
    try:
        return graph.tensor(name)
    except (NotFoundError, InvalidArgumentError) as exc:
        raise type(exc)(f"{what} {name!r}: {exc}") from None


def _attrs(op: str, **values: Any) -> dict[str, graph_pb2.AttrValue]:
    return dict(make_node_def(op, "_", [], values).attr)


def placed_devices(graph: Graph) -> dict[str, str]:
    """Where each node of a placed graph runs.

    Args:
        graph: every node carries a full device name.

    Returns:
        Node name -> its full device name, in TensorFlow's canonical spelling.

    Raises:
        InvalidArgumentError: a node without a full device name (the graph is not placed)
            or with a malformed one.

    Example:
        >>> sorted(set(placed_devices(graph).values()))
    """
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


def _check_not_ref(node: Node, index: int, source: Output, src_device: str,
                   dst_device: str) -> None:
    """A Send carries a value: an input that must be a reference cannot come from afar."""
    if node.input_types[index].is_ref:
        raise InvalidArgumentError(
            f"node {node.name!r} (op {node.op}) on {dst_device} takes {source.name!r} "
            f"by reference, but {source.node.name!r} is on {src_device}: a reference "
            "cannot cross devices (place them together: tfx place colocates them)"
        )


def _tensor_ref(source: Output) -> str:
    return source.node.name if source.index == 0 else f"{source.node.name}:{source.index}"


class _Builder:
    """Creates Send/Recv pairs, one per (tensor, destination device)."""

    def __init__(self, graph: Graph, device_of: dict[str, str], incarnations: dict[str, int],
                 taken: set[str], numbers: Iterator[int] | None = None) -> None:
        self.graph = graph
        self.device_of = device_of
        self.incarnations = incarnations
        self.taken = taken
        self.numbers = numbers if numbers is not None else itertools.count()
        self.recvs: dict[tuple[str, str], str] = {}
        self.transfers: list[Transfer] = []
        self.extra: dict[str, list[graph_pb2.NodeDef]] = {}

    def new_name(self, prefix: str) -> str:
        while True:
            name = f"{prefix}/_{next(self.numbers)}"
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
            "send_device_incarnation": incarnation_attr(self.incarnations[src]),
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
    of a control edge). Dummy tensors left without readers are dropped. A step's
    client-terminated nodes go too: readers of a feed's `_Recv` read the fed tensor
    again, and a fetch's `_Send` is dropped.

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
            if node.op in _SENDS and not _client_terminated(node):
                sends[_transfer_key(node)] = node
    data_of: dict[str, str] = {}  # Recv name -> the tensor it carries ("node" or "node:k")
    control_of: dict[str, str] = {}  # Recv name -> the node its arrival stands for
    dummies: set[str] = set()
    for graph in partitions:
        for node in graph:
            if node.op not in _RECVS:
                continue
            if _client_terminated(node):  # a feed: it stands for the fed tensor
                node_name, index = parse_tensor_name(str(node.attrs["tensor_name"]))
                data_of[node.name] = node_name if index == 0 else f"{node_name}:{index}"
                control_of[node.name] = node_name
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
    # A Recv may carry a feed's Recv on to another device: follow it to the fed tensor.
    for name in data_of:
        ref = data_of[name]
        while ref.split(":")[0] in data_of and ref.split(":")[0] != name:
            node_name = ref.split(":")[0]
            ref, control_of[name] = data_of[node_name], control_of[node_name]
        data_of[name] = ref
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


def _client_terminated(node: Node) -> bool:
    return bool(node.attrs.get("client_terminated", False))


def _transfer_key(node: Node) -> tuple[str, str, str]:
    attrs = node.attrs
    return (str(attrs["tensor_name"]), str(attrs["send_device"]), str(attrs["recv_device"]))


def _is_dummy(node: Node) -> bool:
    """The empty float Const `partition` sends for a control edge."""
    if node.op != "Const" or node.inputs or len(node.control_inputs) != 1:
        return False
    value = node.attrs.get("value")
    return value is not None and value.size == 0

"""The placer: give every node a device, by simulating the step (the seed's greedy heuristic).

In order:

1. feasibility: a node goes only where its op has a kernel;
2. hard constraints: the node's own device field (partial specs allowed),
   relaxed under soft placement when nothing satisfies it;
3. colocation (`tfx.core.colocation`): state with its users, `_class` groups,
   loop frames; a group is placed as a unit;
4. the greedy choice: a simulated execution visits nodes as they become
   ready and puts each where it would *finish earliest*, counting when the
   device is free, the node's compute time there (`tfx.core.cost_model`) and
   the time to bring its inputs from other devices (one transfer per tensor
   per destination, as the partitioner will build). Among ready nodes the
   most critical goes first: the longest path to the end of the step, each
   node at its mean time over its devices and each edge at its mean transfer
   time (HEFT's upward rank). A node may start in an idle gap the device has
   before work already scheduled (HEFT's insertion policy), as an executor
   runs whatever is ready while it would otherwise wait. It runs twice, with
   linear chains placed as units and node by node, and keeps the shorter
   step;
5. memory: a device whose simulated memory would exceed its capacity is not
   a candidate; if no device has room, placement fails naming the node.

Named heuristics: *generators follow their only consumer* (a Const or
Placeholder read by one node is placed with it, as TensorFlow's placer
prefers); *a linear chain is placed as a unit* (its head goes where the whole
chain would finish first, into an idle span long enough for all of it, which
the chain then holds, so a tower is not split because one node costs less
than a transfer);
*ties go to the device already holding most of the inputs*.

Feeds arrive at the client's device: a placeholder that asks for no device is
placed there (the client is the set's first CPU unless a spec file names it).

A device is sequential in the simulation: it runs one node at a time, as
`tfx.core.multi_device` runs a partition.

The same simulation scores two baselines computed in the same run:
everything on the single best device, and TensorFlow's default placer (the
first feasible device of the highest-priority type after colocation). The
greedy result is never worse than the best baseline: if it loses, the
baseline is taken and the report says so.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tfx.core.colocation import ColocationGroup, colocation_groups
from tfx.core.cost_model import FREE_OPS, CostModel
from tfx.core.devices import TYPE_PRIORITY, DeviceAttributes, DeviceSet
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
from tfx.core.gcpause import paused_gc
from tfx.core.graph import Graph, Node

_NEXT = ("NextIteration", "RefNextIteration")
STRATEGIES = ("greedy", "single", "default")


@dataclass
class SimulationReport:
    """The simulated step of one placement.

    Attributes:
        strategy: "greedy", "single:<device>" or "default".
        makespan: seconds from the first node's start to the last node's end.
        busy: device -> seconds spent computing.
        peak_memory: device -> simulated peak bytes.
        bytes_moved: bytes sent between devices.
        transfers: Send/Recv pairs (one per tensor or control edge and destination).
        nodes: device -> number of nodes placed there.
        over_memory: devices whose capacity the placement exceeds.
    """

    strategy: str
    makespan: float
    busy: dict[str, float]
    peak_memory: dict[str, float]
    bytes_moved: float
    transfers: int
    nodes: dict[str, int]
    over_memory: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "makespan_s": self.makespan,
            "busy_s": self.busy,
            "peak_memory_bytes": self.peak_memory,
            "bytes_moved": self.bytes_moved,
            "send_recv_pairs": self.transfers,
            "nodes": self.nodes,
            "over_memory": self.over_memory,
        }


@dataclass
class Placement:
    """What `place` decided.

    Attributes:
        assignment: node name -> full device name.
        chosen: the report of the placement applied.
        greedy: the greedy placement's report.
        baselines: "single" (best single device) and "default" reports.
        lower_bound: max(critical path, total work / total speed), in seconds.
        note: why a baseline was taken, when it was.
    """

    assignment: dict[str, str]
    chosen: SimulationReport
    greedy: SimulationReport | None
    baselines: dict[str, SimulationReport]
    lower_bound: float
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "chosen": self.chosen.to_json(),
            "greedy": self.greedy.to_json() if self.greedy else None,
            "baselines": {k: v.to_json() for k, v in self.baselines.items()},
            "lower_bound_s": self.lower_bound,
            "note": self.note,
        }


@paused_gc()
def place(graph: Graph, device_set: DeviceSet, *, cost_model: CostModel | None = None,
          soft_placement: bool = False, strategy: str = "greedy") -> Placement:
    """Set every node's device; return the placement and its simulated reports.

    Args:
        graph: the graph; node device fields are constraints, and are overwritten with
            full device names.
        device_set: the devices.
        cost_model: costs (default: estimates from static shapes).
        soft_placement: relax device constraints no device satisfies.
        strategy: "greedy" (the simulated-execution heuristic, never worse than the
            baselines), "single" (best single device) or "default" (TensorFlow's).

    Returns:
        The Placement.

    Raises:
        InvalidArgumentError / NotFoundError: unsatisfiable constraints, unknown
            devices, colocation conflicts, ops without kernels (naming nodes, devices).
        ResourceExhaustedError: the graph does not fit the devices' memory.

    Example:
        >>> placement = place(graph, DeviceSet.from_names("cpu:0,cpu:1"))
        >>> placement.chosen.makespan, graph.node("matmul").device
    """
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(
            f"unknown placement strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    graph.validate()
    cost_model = cost_model or CostModel(graph)
    groups = colocation_groups(graph, device_set, soft_placement=soft_placement)
    _feeds_at_client(groups, device_set)
    sim = _Simulator(graph, device_set, cost_model, groups)

    baselines: dict[str, SimulationReport] = {}
    assignments: dict[str, list[int]] = {}
    default = sim.fixed_default()
    baselines["default"], _ = sim.run(lambda g, cands: default[g], "default")
    assignments["default"] = default
    best_single: tuple[SimulationReport, list[int]] = (baselines["default"], default)
    simulated: list[int] = []
    for d, device in enumerate(device_set):
        if any(sim.interchangeable(r, d) for r in simulated):
            continue  # its report would equal one already made (a tie never wins)
        simulated.append(d)
        choice = sim.fixed_single(d)
        report, _ = sim.run(lambda g, cands, c=choice: c[g], f"single:{device.name}")
        if d == 0 or _better(report, best_single[0]):
            best_single = (report, choice)
    baselines["single"], assignments["single"] = best_single

    greedy_report = None
    note = ""
    if strategy == "greedy":
        # Chains as units keep towers whole; node by node wins where a chain's hold would
        # keep a device from work that is ready sooner. The shorter step is kept.
        greedy_report, greedy_choice = sim.run(None, "greedy")
        alone, alone_choice = sim.run(None, "greedy", chains=False)
        if _better(alone, greedy_report):
            greedy_report, greedy_choice = alone, alone_choice
        best_name = min(baselines, key=lambda k: _rank(baselines[k]))
        if _better(baselines[best_name], greedy_report):
            chosen_name, chosen = best_name, assignments[best_name]
            note = (f"the greedy placement ({greedy_report.makespan:.6g} s) lost to the "
                    f"{best_name} baseline ({baselines[best_name].makespan:.6g} s); using it")
        else:
            chosen_name, chosen = "greedy", greedy_choice
    else:
        chosen_name, chosen = strategy, assignments[strategy]
    report = greedy_report if chosen_name == "greedy" else baselines[chosen_name]
    assignment = sim.apply(chosen)
    if report.over_memory and chosen_name != "greedy":
        raise ResourceExhaustedError(
            f"the {chosen_name} placement exceeds the memory of "
            f"{', '.join(report.over_memory)}"
        )
    return Placement(assignment, report, greedy_report, baselines, sim.lower_bound(), note)


@paused_gc()
def simulate(graph: Graph, device_set: DeviceSet, cost_model: CostModel | None = None,
             strategy: str = "given") -> SimulationReport:
    """Simulate a graph whose nodes already carry full device names from `device_set`."""
    cost_model = cost_model or CostModel(graph)
    groups = [ColocationGroup([node], devices=[device_set.get(node.device)]) for node in graph]
    sim = _Simulator(graph, device_set, cost_model, groups)
    report, _ = sim.run(lambda g, cands: cands[0], strategy)
    return report


_FEED_OPS = ("Placeholder", "PlaceholderV2")


def _feeds_at_client(groups: list[ColocationGroup], device_set: DeviceSet) -> None:
    """A placeholder that asks for no device lives on the client's device, where its feed
    arrives (as TensorFlow receives feeds there); its readers elsewhere get a transfer."""
    client = device_set.get(device_set.client)
    for group in groups:
        if (len(group.members) == 1 and group.members[0].op in _FEED_OPS
                and not group.members[0].device and client in group.devices):
            group.devices = [client]


def _capabilities(device: DeviceAttributes) -> tuple:
    return (device.device_type, device.flops, device.mem_bandwidth, device.memory,
            device.op_overhead, device.kernels, device.unsupported_ops)


def _rank(report: SimulationReport) -> tuple[bool, float]:
    return (bool(report.over_memory), report.makespan)


def _better(a: SimulationReport, b: SimulationReport) -> bool:
    """Whether a beats b: fits in memory first, then a shorter makespan (beyond noise)."""
    if bool(a.over_memory) != bool(b.over_memory):
        return not a.over_memory
    return a.makespan < b.makespan * (1 - 1e-9)


Choose = Callable[[int, list[int]], int]

_GAP_WINDOW = 16  # idle gaps a node may try, from its ready time on: insertion stays O(1)


class _Timeline:
    """A sequential device in the simulation: the idle gaps before `end`, then idle for good.

    A node goes into the earliest idle span, from its ready time on, that is long enough
    for it (HEFT's insertion policy). Only the first `_GAP_WINDOW` gaps after the ready
    time are tried, so a long schedule full of slivers stays cheap to search.
    """

    __slots__ = ("starts", "ends", "end")

    def __init__(self) -> None:
        self.starts: list[float] = []  # idle gaps, sorted and disjoint
        self.ends: list[float] = []
        self.end = 0.0

    def find(self, ready: float, span: float) -> float:
        """The earliest start at or after `ready` of an idle span `span` (> 0) long."""
        starts, ends = self.starts, self.ends
        j = bisect_right(ends, ready)
        for k in range(j, min(len(ends), j + _GAP_WINDOW)):
            start = starts[k] if starts[k] > ready else ready
            if ends[k] - start >= span:
                return start
        return ready if ready > self.end else self.end

    def book(self, start: float, stop: float) -> None:
        """Mark [start, stop) busy; `start` came from `find` for at least that span."""
        if start >= self.end:
            if start > self.end:
                self.starts.append(self.end)
                self.ends.append(start)
            self.end = stop
            return
        starts, ends = self.starts, self.ends
        k = bisect_right(ends, start)  # the gap holding start
        gap_start, gap_end = starts[k], ends[k]
        if start > gap_start and gap_end > stop:
            ends[k] = start
            starts.insert(k + 1, stop)
            ends.insert(k + 1, gap_end)
        elif start > gap_start:
            ends[k] = start
        elif gap_end > stop:
            starts[k] = stop
        else:
            del starts[k], ends[k]

    def release(self, start: float, stop: float) -> None:
        """Mark the booked span [start, stop) idle again."""
        starts, ends = self.starts, self.ends
        if stop >= self.end:
            self.end = start
            if ends and ends[-1] >= start:
                self.end = starts.pop()
                ends.pop()
            return
        k = bisect_left(starts, start)
        after = k < len(starts) and starts[k] == stop
        if k > 0 and ends[k - 1] == start:
            if after:
                ends[k - 1] = ends[k]
                del starts[k], ends[k]
            else:
                ends[k - 1] = stop
        elif after:
            starts[k] = start
        else:
            starts.insert(k, start)
            ends.insert(k, stop)


def _followers_deepest_first(i: int, direct: list[list[int]]) -> list[int]:
    """Every node that follows `i`, directly or through others, each after its own."""
    order: list[int] = []
    stack = [(i, iter(direct[i]))]
    while stack:
        node, pending = stack[-1]
        follower = next(pending, None)
        if follower is None:
            stack.pop()
            if stack:
                order.append(node)
        else:
            stack.append((follower, iter(direct[follower])))
    return order


class _Simulator:
    """List scheduling over sequential devices; indexes everything once for speed."""

    def __init__(self, graph: Graph, device_set: DeviceSet, cost: CostModel,
                 groups: list[ColocationGroup]) -> None:
        self.graph = graph
        self.device_set = device_set
        self.devices: list[DeviceAttributes] = list(device_set)
        self.dev_index = {d.name: k for k, d in enumerate(self.devices)}
        order = graph.topological_order()
        self.nodes: list[Node] = order
        n = len(order)
        index = {node: i for i, node in enumerate(order)}
        self.groups = groups
        self.group_of = [0] * n
        self.group_devices: list[list[int]] = []
        self.group_persistent: list[float] = []
        for g, group in enumerate(groups):
            self.group_devices.append([self.dev_index[d.name] for d in group.devices])
            self.group_persistent.append(float(sum(cost.persistent_bytes(m)
                                                   for m in group.members)))
            for member in group.members:
                self.group_of[index[member]] = g
        # Edges without loop back edges: data (producer, output, bytes) and control producers.
        self.data_in: list[list[tuple[int, int, float]]] = []
        self.ctrl_in: list[list[int]] = []
        self.users: list[list[int]] = [[] for _ in range(n)]
        self.out_bytes: list[list[int]] = []
        self.consumers: list[list[int]] = []  # per node, per output: number of reading edges
        for node in order:
            out_bytes = cost.output_bytes(node)
            self.out_bytes.append(out_bytes)
            self.consumers.append([0] * len(out_bytes))
        for i, node in enumerate(order):
            data = []
            for source in node.inputs:
                if source.node.op in _NEXT:
                    continue
                p = index[source.node]
                sizes = self.out_bytes[p]
                data.append((p, source.index, float(sizes[source.index])
                             if source.index < len(sizes) else 0.0))
                if source.index < len(self.consumers[p]):
                    self.consumers[p][source.index] += 1
                self.users[p].append(i)
            ctrl = []
            for control in node.control_inputs:
                if control.op in _NEXT:
                    continue
                p = index[control]
                ctrl.append(p)
                self.users[p].append(i)
            self.data_in.append(data)
            self.ctrl_in.append(ctrl)
        self.times = [
            [cost.compute_time(node, d) for d in self.devices] for node in order
        ]
        # Generators follow their only consumer: a node read by one node, alone in its group,
        # that has no inputs (a Const, a Placeholder) or is a free op whose inputs all follow
        # it (a Const -> Identity). Real work never follows, or a chain would become one unit.
        group_sizes = [len(g.members) for g in groups]
        self.follows = [-1] * n
        for i in range(n):
            inputs = [p for p, _, _ in self.data_in[i]] + self.ctrl_in[i]
            if (len(self.users[i]) == 1 and group_sizes[self.group_of[i]] == 1
                    and len(self.group_devices[self.group_of[i]]) > 1
                    and (not inputs or order[i].op in FREE_OPS)
                    and all(self.follows[p] == i for p in inputs)):
                self.follows[i] = self.users[i][0]
        # Per node, the producers it waits for in the simulation (followers run with it).
        self.waits_for = [
            sum(1 for p, _, _ in self.data_in[i] if self.follows[p] < 0)
            + sum(1 for p in self.ctrl_in[i] if self.follows[p] < 0) for i in range(n)]
        # Per node that does not follow, the followers placed with it, deepest first. A
        # follower's own list is never read, and copying it into its leader's would cost
        # quadratic memory on a long chain of free ops (a hostile graph's 30000 Identity).
        direct: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            for p in [p for p, _, _ in self.data_in[i]] + self.ctrl_in[i]:
                if self.follows[p] == i:
                    direct[i].append(p)
        self.leaders: list[list[int]] = [
            _followers_deepest_first(i, direct) if self.follows[i] < 0 and direct[i] else []
            for i in range(n)]
        # Most critical first: among ready nodes, the one with the longest path to the end
        # of the step is placed first (HEFT's upward rank: a node's mean time over its
        # devices, plus the longest of its out-edges' mean transfer time and successor's
        # rank), so work off the critical path does not take the devices the critical
        # path needs next, and a path that must cross devices counts its transfers.
        self._default: list[int] | None = None
        latency, per_byte = self._mean_link()
        out_edges: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for i in range(n):
            for p, _, size in self.data_in[i]:
                out_edges[p].append((i, latency + size * per_byte))
            for p in self.ctrl_in[i]:
                out_edges[p].append((i, latency))
        self.rank = [0.0] * n
        rank = self.rank
        for i in range(n - 1, -1, -1):
            cands = self.group_devices[self.group_of[i]]
            row = self.times[i]
            mean = sum(row[d] for d in cands) / len(cands)
            rank[i] = mean + max((c + rank[u] for u, c in out_edges[i]), default=0.0)
        # A linear chain is placed as a unit: a node whose one producer (followers aside)
        # has it as its one user, both alone in their groups with the same candidates,
        # continues its producer's chain. The chain's head picks the device where the
        # whole chain would finish first, so a tower is not split node by node because
        # its next node alone costs less than a transfer.
        self.chain_head = list(range(n))
        self.chain_tail: list[list[float]] = [[0.0] * len(self.devices) for _ in range(n)]
        for i in range(n):
            producers = {p for p in [p for p, _, _ in self.data_in[i]] + self.ctrl_in[i]
                         if self.follows[p] < 0}
            if len(producers) != 1 or self.follows[i] >= 0:
                continue
            p = producers.pop()
            if (set(self.users[p]) == {i} and group_sizes[self.group_of[i]] == 1
                    and group_sizes[self.group_of[p]] == 1
                    and self.group_devices[self.group_of[i]]
                    == self.group_devices[self.group_of[p]]):
                head = self.chain_head[p]
                self.chain_head[i] = head
                tail = self.chain_tail[head]
                for d in range(len(self.devices)):
                    tail[d] += self.times[i][d] + sum(self.times[f][d] for f in self.leaders[i])

    def _mean_link(self) -> tuple[float, float]:
        """Mean latency and seconds per byte over the ordered pairs of distinct devices."""
        names = [d.name for d in self.devices]
        links = [self.device_set.link(a, b) for a in names for b in names if a != b]
        if not links:
            return 0.0, 0.0
        return (sum(link.latency for link in links) / len(links),
                sum(1.0 / link.bandwidth for link in links) / len(links))

    # --- fixed strategies ------------------------------------------------------------------
    def fixed_default(self) -> list[int]:
        """TensorFlow's default: the first feasible device of the highest-priority type."""
        if self._default is not None:
            return self._default
        self._default = [
            min(cands, key=lambda d: (-TYPE_PRIORITY.get(self.devices[d].device_type, 0), d))
            for cands in self.group_devices
        ]
        return self._default

    def fixed_single(self, d: int) -> list[int]:
        default = self.fixed_default()
        return [d if d in cands else default[g] for g, cands in enumerate(self.group_devices)]

    def interchangeable(self, a: int, b: int) -> bool:
        """Whether devices a and b look the same to every node: equal rates, memory and
        kernels, equal compute times, the same groups may use them, equal links to every
        other device and to each other, and neither is the client. Everything placed on
        one alone then simulates as it would on the other."""
        da, db = self.devices[a], self.devices[b]
        if _capabilities(da) != _capabilities(db) or self.device_set.client in (da.name, db.name):
            return False
        if any(row[a] != row[b] for row in self.times):
            return False
        if any((a in cands) != (b in cands) for cands in self.group_devices):
            return False
        link = self.device_set.link
        if link(da.name, db.name) != link(db.name, da.name):
            return False
        return all(link(da.name, e.name) == link(db.name, e.name)
                   and link(e.name, da.name) == link(e.name, db.name)
                   for e in self.devices if e is not da and e is not db)

    def apply(self, choice: list[int]) -> dict[str, str]:
        assignment = {}
        for i, node in enumerate(self.nodes):
            device = self.devices[choice[self.group_of[i]]].name
            node.device = device
            assignment[node.name] = device
        return assignment

    # --- the simulation -----------------------------------------------------------------
    def run(self, choose: Choose | None, strategy: str, chains: bool = True,
            ) -> tuple[SimulationReport, list[int]]:
        """Simulate; `choose(group, candidates)` fixes devices, None means greedy.

        Ready nodes are taken most critical first. The greedy choice places linear chains
        as units (`chains`) or node by node.
        """
        n = len(self.nodes)
        num_dev = len(self.devices)
        data_in, ctrl_in, users, times = self.data_in, self.ctrl_in, self.users, self.times
        follows, leaders = self.follows, self.leaders
        group_of, group_devices = self.group_of, self.group_devices
        links = self.device_set
        names = [d.name for d in self.devices]
        capacity = [d.memory for d in self.devices]
        group_choice = [-1] * len(self.groups)
        chain_head, chain_tail = self.chain_head, self.chain_tail
        chains = chains and choose is None
        out_total = [float(sum(sizes)) for sizes in self.out_bytes]
        chain_choice: dict[int, int] = {}
        # A chain placed as a unit holds its device from its head's end for the rest of its
        # work: chain head -> [the held span's next free time, its end].
        holds: dict[int, list[float]] = {}
        timeline = [_Timeline() for _ in range(num_dev)]
        busy = [0.0] * num_dev
        mem = [0.0] * num_dev
        peak = [0.0] * num_dev
        placed = [0] * num_dev
        finish = [0.0] * n
        dev = [-1] * n
        arrival: dict[tuple[int, int, int], float] = {}
        remaining = [list(c) for c in self.consumers]
        held: dict[tuple[int, int], list[tuple[int, float]]] = {}
        bytes_moved = 0.0
        over: set[int] = set()

        pending = list(self.waits_for)
        rank = self.rank
        heap = [(-rank[i], i) for i in range(n) if pending[i] == 0 and follows[i] < 0]
        heapq.heapify(heap)

        def input_ready(i: int, d: int) -> tuple[float, float, float]:
            """When node i's inputs are on device d; bytes already there; bytes to fetch."""
            ready = 0.0
            local = 0.0
            fetch = 0.0
            for p, k, size in data_in[i]:
                src = dev[p]
                if src == d or src < 0:  # src < 0: a generator placed with i
                    local += size
                    t = finish[p] if src >= 0 else 0.0
                else:
                    t = arrival.get((p, k, d), -1.0)
                    if t < 0:
                        t = finish[p] + links.transfer_time(names[src], names[d], size)
                        fetch += size
                if t > ready:
                    ready = t
            for p in ctrl_in[i]:
                src = dev[p]
                t = finish[p] if src == d or src < 0 else finish[p] + links.transfer_time(
                    names[src], names[d], 0.0)
                if t > ready:
                    ready = t
            return ready, local, fetch

        def pick(i: int, cands: list[int]) -> int:
            g = group_of[i]
            first_of_group = group_choice[g] < 0
            extra = self.group_persistent[g] if first_of_group else 0.0
            tail = chain_tail[i] if chains and chain_head[i] == i else None
            best, best_key = -1, None
            short = float("inf")
            for d in cands:
                span = times[i][d]
                need = mem[d] + extra + out_total[i]
                for leader in leaders[i]:
                    if d in group_devices[group_of[leader]]:
                        span += times[leader][d]
                        need += out_total[leader]
                ready, local, fetch = input_ready(i, d)
                need += fetch
                if need > capacity[d]:
                    short = min(short, need - mem[d])
                    continue
                if tail is not None:
                    span += tail[d]
                end = (timeline[d].find(ready, span) if span > 0 else ready) + span
                key = (end, -local, d)
                if best_key is None or key < best_key:
                    best, best_key = d, key
            if best < 0:
                shown = ", ".join(f"{names[d]} ({mem[d]:.0f} of {capacity[d]:.0f} bytes used)"
                                  for d in cands)
                raise ResourceExhaustedError(
                    f"node {self.nodes[i].name!r} (op {self.nodes[i].op}) fits on no device: "
                    f"it needs {short:.0f} bytes more (its outputs, inputs and the generators "
                    f"placed with it); {shown}"
                )
            return best

        def allocate(d: int, amount: float) -> None:
            mem[d] += amount
            if mem[d] > peak[d]:
                peak[d] = mem[d]
            if mem[d] > capacity[d]:
                over.add(d)

        def arrive(i: int, d: int) -> float:
            """Put node i on device d and bring its inputs there; when they are all there."""
            nonlocal bytes_moved
            g = group_of[i]
            if group_choice[g] < 0:
                group_choice[g] = d
                allocate(d, self.group_persistent[g])
            dev[i] = d
            ready = 0.0
            for p, k, size in data_in[i]:
                src = dev[p]
                if src == d:
                    t = finish[p]
                else:
                    key = (p, k, d)
                    t = arrival.get(key, -1.0)
                    if t < 0:
                        t = finish[p] + links.transfer_time(names[src], names[d], size)
                        arrival[key] = t
                        bytes_moved += size
                        allocate(d, size)
                        held.setdefault((p, k), []).append((d, size))
                if t > ready:
                    ready = t
            for p in ctrl_in[i]:
                src = dev[p]
                if src == d:
                    t = finish[p]
                else:
                    key = (p, -1, d)
                    t = arrival.get(key, -1.0)
                    if t < 0:
                        t = finish[p] + links.transfer_time(names[src], names[d], 0.0)
                        arrival[key] = t
                if t > ready:
                    ready = t
            return ready

        def complete(i: int, d: int, start: float) -> float:
            """Run node i on device d from `start`; when it ends."""
            end = start + times[i][d]
            finish[i] = end
            busy[d] += times[i][d]
            placed[d] += 1
            # Outputs nobody reads (fetched results) stay allocated to the end.
            allocate(d, float(out_total[i]))
            # Inputs whose last reader this was are freed on every device holding them.
            for p, k, size in data_in[i]:
                left = remaining[p][k] - 1
                remaining[p][k] = left
                if left == 0:
                    mem[dev[p]] -= size
                    for holder, copy in held.pop((p, k), ()):
                        mem[holder] -= copy
            return end

        def run_block(i: int, d: int, hold: float) -> None:
            """Run node i on device d right after the generators placed with it, in the
            earliest idle span that fits them (and `hold` more seconds for i's chain)."""
            block = []
            for leader in leaders[i]:
                lg = group_of[leader]
                ld = d if d in group_devices[lg] else (
                    group_choice[lg] if group_choice[lg] >= 0
                    else choose(lg, group_devices[lg]) if choose is not None
                    else group_devices[lg][0]
                )
                if ld == d:
                    block.append(leader)
                else:  # a generator that cannot follow i onto d runs alone where it may
                    start = arrive(leader, ld)
                    if times[leader][ld] > 0:
                        start = timeline[ld].find(start, times[leader][ld])
                        timeline[ld].book(start, start + times[leader][ld])
                    complete(leader, ld, start)
            block.append(i)
            ready = 0.0
            span = 0.0
            for m in block:
                ready = max(ready, arrive(m, d))
                span += times[m][d]
            h = chain_head[i]
            start = -1.0
            spot = holds.get(h) if h != i else None
            if spot is not None:
                if chain_choice[h] == d and max(ready, spot[0]) + span <= spot[1] * (1 + 1e-12):
                    start = max(ready, spot[0])
                    spot[0] = start + span
                    if spot[1] - spot[0] <= spot[1] * 1e-12:
                        del holds[h]
                else:  # the chain cannot continue in its hold: give the rest back
                    timeline[chain_choice[h]].release(spot[0], spot[1])
                    del holds[h]
            if start < 0:
                if span + hold > 0:
                    start = timeline[d].find(ready, span + hold)
                    timeline[d].book(start, start + span + hold)
                else:  # nothing to compute: no kernel waits for the device
                    start = ready
                if hold > 0:
                    holds[i] = [start + span, start + span + hold]
            for m in block:
                start = complete(m, d, start)

        while heap:
            _, i = heapq.heappop(heap)
            g = group_of[i]
            hold = 0.0
            if group_choice[g] >= 0:
                d = group_choice[g]
            elif choose is not None:
                d = choose(g, group_devices[g])
            elif chains and chain_head[i] in chain_choice:
                d = chain_choice[chain_head[i]]
            else:
                d = pick(i, group_devices[g])
                if chains and chain_head[i] == i:
                    chain_choice[i] = d
                    hold = chain_tail[i][d]
            run_block(i, d, hold)
            for u in users[i]:
                pending[u] -= 1
                if pending[u] == 0:
                    heapq.heappush(heap, (-rank[u], u))
        if any(d < 0 for d in dev):
            stuck = [self.nodes[i].name for i in range(n) if dev[i] < 0][:5]
            raise InvalidArgumentError(f"placement could not schedule nodes: {', '.join(stuck)}")
        report = SimulationReport(
            strategy=strategy,
            makespan=max(finish, default=0.0),
            busy={names[d]: busy[d] for d in range(num_dev)},
            peak_memory={names[d]: peak[d] for d in range(num_dev)},
            bytes_moved=bytes_moved,
            transfers=len(arrival),
            nodes={names[d]: placed[d] for d in range(num_dev)},
            over_memory=[names[d] for d in sorted(over)],
        )
        return report, [c if c >= 0 else cands[0] for c, cands in zip(group_choice,
                                                                        group_devices)]

    def lower_bound(self) -> float:
        """max(critical path at each node's fastest time, the work bound).

        The work bound is total work / total device speed, made exact for devices that
        differ: for any weights y over the devices (summing to 1), the sum over nodes of
        min_d y_d * time(node, d) is a lower bound on the makespan (it is the dual of
        spreading every node fractionally over the devices). Tried: y proportional to
        FLOP rates (work in FLOPs over total FLOP/s), equal weights, and y_d proportional
        to 1 / (time to run everything on d), which for devices that differ only in
        speed gives the harmonic bound 1 / sum_d (1 / T_d).
        """
        n = len(self.nodes)
        cands = [self.group_devices[self.group_of[i]] for i in range(n)]
        fastest = [min(self.times[i][d] for d in cands[i]) for i in range(n)]
        longest = [0.0] * n
        for i in range(n):
            start = 0.0
            for p, _, _ in self.data_in[i]:
                start = max(start, longest[p])
            for p in self.ctrl_in[i]:
                start = max(start, longest[p])
            longest[i] = start + fastest[i]
        num_dev = len(self.devices)
        alone = [sum(self.times[i][d] for i in range(n)) for d in range(num_dev)]
        weightings = [
            [d.flops for d in self.devices],
            [1.0] * num_dev,
            [1.0 / t if t > 0 else 0.0 for t in alone],
        ]
        work = 0.0
        for weights in weightings:
            total = sum(weights)
            if total <= 0:
                continue
            y = [w / total for w in weights]
            work = max(work, sum(min(y[d] * self.times[i][d] for d in cands[i])
                                 for i in range(n)))
        return max(max(longest, default=0.0), work)

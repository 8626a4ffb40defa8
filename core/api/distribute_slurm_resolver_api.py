"""tf.distribute.cluster_resolver.SlurmClusterResolver: the cluster of a Slurm job step.

Slurm starts one process per task and tells each, in its environment, who it is and
where the others are:

* `SLURM_PROCID`: this task's rank in [0, number of tasks);
* `SLURM_STEP_NUM_TASKS`: how many tasks (the default job is that many "worker"s);
* `SLURM_STEP_NODELIST`: the nodes, as a host list ("n[1-2],m5,o[3-4,6,7-9]");
* `SLURM_STEP_TASKS_PER_NODE`: tasks on each node in that order ("3(x2),2,1").

The resolver lays the tasks out as TensorFlow's does: nodes sorted by name, a node's
k-th task listening on `port_base + k`, jobs sorted by name taking consecutive ranges
of those addresses (so `{"ps": 1, "worker": 3}` makes the first address the ps task);
each task gets `gpus_per_task` GPUs of its node, in order, and with `auto_set_gpu` the
call to `cluster_spec()` sets this process's CUDA_VISIBLE_DEVICES to its share. The
task type and index are known once `cluster_spec()` has run (None before, and
`master()` is then ""), as in TensorFlow.

GPUs per node default to the count in CUDA_VISIBLE_DEVICES, else to what
`nvidia-smi --list-gpus` lists. With no GPUs at all TensorFlow's layout divides by
zero (`range() arg 3 must not be zero` from `cluster_spec()`); tfx keeps that error
so that a script fails the same way on both.

    os.environ.update(SLURM_PROCID="0", SLURM_STEP_NUM_TASKS="2",
                      SLURM_STEP_NODELIST="n[1-2]", SLURM_STEP_TASKS_PER_NODE="1(x2)")
    resolver = SlurmClusterResolver(gpus_per_node=1)
    resolver.cluster_spec().as_dict()   # {"worker": ["n1:8888", "n2:8888"]}
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

from tfx.core.api.distribute_cluster_resolver_api import ClusterResolver, format_master_url
from tfx.core.cluster import ClusterSpec

__all__ = ["SlurmClusterResolver"]

_HOST_PART = re.compile(r"([^,[\]]*)(\[([^\]]+)\])?$")
_TASKS_PART = re.compile(r"(\d+)(\(x(\d+)\))?$")


def _split_hostlist(hostlist: str) -> list[str]:
    """The comma-separated parts of a host list, ranges in brackets kept whole."""
    parts: list[str] = []
    current = ""
    depth = 0
    for char in hostlist:
        if char == "[":
            if depth:
                raise ValueError()  # TensorFlow's failed assertion: no message
            depth = 1
        elif char == "]" and depth:
            depth = 0
        elif char == "," and not depth:
            if not current:
                raise ValueError()
            parts.append(current)
            current = ""
            continue
        current += char
    if current:
        parts.append(current)
    return parts


def _expand_range(ranges: str) -> list[str]:
    """"3-5,7" -> ["3", "4", "5", "7"], zero-padded to the width of each range's start."""
    out: list[str] = []
    for item in ranges.split(","):
        bounds = item.split("-")
        if len(bounds) > 2:
            raise ValueError()
        first, last = bounds[0], bounds[-1]
        out.extend(str(i).zfill(len(first)) for i in range(int(first), int(last) + 1))
    return out


def expand_hostlist(hostlist: str) -> list[str]:
    """The hosts of a Slurm host list, in order, repeats kept.

    Example:
        >>> expand_hostlist("n[1-2],m5,o[3-4,6,7-9]")
        ['n1', 'n2', 'm5', 'o3', 'o4', 'o6', 'o7', 'o8', 'o9']
    """
    hosts: list[str] = []
    try:
        for part in _split_hostlist(hostlist):
            match = _HOST_PART.match(part)
            if match is None:
                raise ValueError(f"Invalid part: {part}")
            prefix = match.group(1) or ""
            if match.group(3) is None:
                hosts.append(prefix)
            else:
                hosts.extend(prefix + i for i in _expand_range(match.group(3)))
    except Exception as e:  # every malformed list is one ValueError, as TensorFlow's
        raise ValueError(f'Invalid hostlist format "{hostlist}": {e}') from None
    return hosts


def expand_tasks_per_node(tasks_per_node: str) -> list[int]:
    """The task counts of a Slurm tasks-per-node list, one per node in order.

    Example:
        >>> expand_tasks_per_node("3(x2),2,1")
        [3, 3, 2, 1]
    """
    counts: list[int] = []
    for part in tasks_per_node.split(","):
        match = _TASKS_PART.match(part)
        if match is None:
            # TensorFlow's message ends with the (empty) text of a failed assertion.
            raise ValueError(f'Invalid tasks-per-node list format "{tasks_per_node}": ')
        counts.extend([int(match.group(1))] * int(match.group(3) or 1))
    return counts


def _slurm_var(name: str) -> str:
    key = "SLURM_" + name
    try:
        return os.environ[key]
    except KeyError:
        raise RuntimeError(f"{key} not found in environment. Not running inside a SLURM "
                           "step?") from None


def get_num_gpus() -> int:
    """The GPUs of this node: CUDA_VISIBLE_DEVICES's count, else nvidia-smi's list."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len(visible.split(","))
    try:
        output = subprocess.check_output(["nvidia-smi", "--list-gpus"], encoding="utf-8")
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"Could not get number of GPUs from nvidia-smi. Maybe it is "
                           f"missing?\nOutput: {e.output}") from None
    return sum(line.startswith("GPU ") for line in output.strip().split("\n"))


class SlurmClusterResolver(ClusterResolver):
    """The cluster of the current Slurm job step (see the module doc).

    Args:
        jobs: job name -> number of tasks (default {"worker": SLURM_STEP_NUM_TASKS}).
        port_base: the port of a node's first task; the k-th listens on port_base + k.
        gpus_per_node: GPUs on each node (default: this node's count).
        gpus_per_task: GPUs given to each task (default: evenly shared on the fullest node).
        tasks_per_node: tasks on each node: an int for every node of the step, or a dict
            host -> count (default: from SLURM_STEP_TASKS_PER_NODE).
        auto_set_gpu: set CUDA_VISIBLE_DEVICES to this task's GPUs in `cluster_spec()`.
        rpc_layer: the protocol of `master()` ("grpc").

    Raises:
        RuntimeError: a SLURM_* variable it needs is missing, more GPUs or tasks are asked
            for than the step has.
    """

    def __init__(self, jobs: dict[str, int] | None = None, port_base: int = 8888,
                 gpus_per_node: int | None = None, gpus_per_task: int | None = None,
                 tasks_per_node: int | dict[str, int] | None = None,
                 auto_set_gpu: bool = True, rpc_layer: str | None = "grpc") -> None:
        self._rank = int(_slurm_var("PROCID"))
        if jobs is None:
            jobs = {"worker": int(_slurm_var("STEP_NUM_TASKS"))}
        self._jobs = jobs
        self._port_base = port_base
        if tasks_per_node is None:
            hosts = expand_hostlist(_slurm_var("STEP_NODELIST"))
            counts = expand_tasks_per_node(_slurm_var("STEP_TASKS_PER_NODE"))
            self._task_configuration = dict(zip(hosts, counts))
        elif isinstance(tasks_per_node, dict):
            self._task_configuration = dict(tasks_per_node)
        else:
            hosts = expand_hostlist(_slurm_var("STEP_NODELIST"))
            self._task_configuration = {host: int(tasks_per_node) for host in hosts}
        max_tasks_per_node = max(self._task_configuration.values())
        num_tasks = sum(self._task_configuration.values())
        if gpus_per_node is None:
            gpus_per_node = get_num_gpus()
        if gpus_per_task is None:
            gpus_per_task = gpus_per_node // max_tasks_per_node
        self._gpus_per_node = gpus_per_node
        self._gpus_per_task = gpus_per_task
        self._auto_set_gpu = auto_set_gpu
        self.task_type = None
        self.task_id = None
        self.rpc_layer = rpc_layer
        self._gpu_allocation: list[str] = []
        self._cluster_allocation: dict[str, list[str]] = {}
        if max_tasks_per_node * gpus_per_task > gpus_per_node:
            raise RuntimeError("Requested more GPUs per node than available.")
        if sum(jobs.values()) != num_tasks:
            raise RuntimeError(f"Requested {sum(jobs.values())} tasks but only {num_tasks} "
                               "were assigned.")

    def cluster_spec(self) -> ClusterSpec:
        """The cluster laid out from the step (module doc); sets this task's type and index
        and, with auto_set_gpu, CUDA_VISIBLE_DEVICES."""
        addresses: list[str] = []
        self._gpu_allocation = []
        for host, num_tasks in sorted(self._task_configuration.items()):
            # A node holds as many tasks as it has GPU shares for (TensorFlow zips them).
            gpu_starts = range(0, self._gpus_per_node, self._gpus_per_task)
            for offset, first_gpu in zip(range(num_tasks), gpu_starts):
                addresses.append(f"{host}:{self._port_base + offset}")
                self._gpu_allocation.append(",".join(
                    str(g) for g in range(first_gpu, first_gpu + self._gpus_per_task)))
        self._cluster_allocation = {}
        start = 0
        for task_type, num_tasks in sorted(self._jobs.items()):
            end = start + num_tasks
            self._cluster_allocation[task_type] = addresses[start:end]
            if start <= self._rank < end:
                self.task_type = task_type
                self.task_id = self._rank - start
            start = end
        if self._auto_set_gpu:
            os.environ["CUDA_VISIBLE_DEVICES"] = self._gpu_allocation[self._rank]
        return ClusterSpec(self._cluster_allocation)

    def get_task_info(self) -> tuple[str | None, int | None]:
        """(task type, task index) of this process; (None, None) before `cluster_spec()`."""
        return self.task_type, self.task_id

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The session target of a task (this one by default); "" while it is unknown."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        return format_master_url(self.cluster_spec().task_address(task_type, task_id),
                                 rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """{"GPU": gpus_per_task}: every task gets the same share."""
        return {"GPU": self._gpus_per_task}

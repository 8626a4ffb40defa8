"""tf.distribute.cluster_resolver: where the tasks of a cluster are, from a spec or TF_CONFIG.

A cluster resolver answers three questions for the process that owns it: the cluster
(`cluster_spec()`, a `tf.train.ClusterSpec`), the address a TensorFlow 1.x session
should connect to (`master(task_type, task_id, rpc_layer)`, "grpc://host:port" when an
RPC layer is named, the bare address otherwise, "" for an in-process session), and
this task's identity (`task_type`, `task_id`, `rpc_layer`, `environment`).

* `SimpleClusterResolver` holds what it is given.
* `TFConfigClusterResolver` reads the `TF_CONFIG` environment variable each time it
  is asked, so a launcher may set it after the resolver was made: "cluster" (the
  spec; none gives an empty one), "task" ({"type", "index"}), "rpc_layer",
  "session_master" (an explicit master) and "environment"; the constructor's
  arguments override them. Its master is "" when the cluster has no job or one
  task only (the session then runs in process), as TensorFlow's.
* `UnionResolver` merges the specs of several resolvers (a job's task lists are
  concatenated; sparse task maps merged, a task index given twice refused) and
  otherwise answers as its first resolver.

The namespace also holds the resolvers that ask a cluster manager:
`SlurmClusterResolver` (distribute_slurm_resolver_api), `KubernetesClusterResolver`
and `GCEClusterResolver` (distribute_cloud_resolver_api) and `TPUClusterResolver`
(distribute_tpu_api).

`num_accelerators` counts the accelerators (GPUs) of a task: tfx can only look at
its own process, so the base implementation answers for an in-process master and
refuses a remote one.
"""

from __future__ import annotations

import abc
import json
import os
from collections import defaultdict
from typing import Any

from tfx.core.cluster import ClusterSpec
from tfx.core.errors import UnimplementedError

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver",
           "UnionResolver"]


def format_master_url(master: str, rpc_layer: str | None = None) -> str:
    """`master` prefixed with "rpc_layer://" when an RPC layer is named."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


class ClusterResolver(abc.ABC):
    """The interface of the cluster resolvers (see the module doc)."""

    @abc.abstractmethod
    def cluster_spec(self) -> ClusterSpec:
        """The cluster, as a `tf.train.ClusterSpec`."""

    @abc.abstractmethod
    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The address of a task's session target (this task's by default)."""

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """How many accelerators of each type ("GPU") the task has."""
        master = self.master(task_type, task_id)
        if master and not master.startswith("local"):
            raise UnimplementedError(f"tfx counts the accelerators of its own process only, "
                                     f"not of the task at {master!r}")
        from tfx.core.api.config_api import list_logical_devices

        counts: dict[str, int] = defaultdict(int)
        for device in list_logical_devices():
            if device.device_type not in ("CPU", "XLA_CPU"):
                counts[device.device_type] += 1
        return counts

    @property
    def environment(self) -> str:
        """Where the cluster runs ("" unless a resolver knows, such as "google")."""
        return ""

    @property
    def task_type(self) -> str | None:
        return getattr(self, "_task_type", None)

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        return getattr(self, "_task_id", None)

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def rpc_layer(self) -> str | None:
        return getattr(self, "_rpc_layer", None)

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer


class SimpleClusterResolver(ClusterResolver):
    """A resolver that returns what it was given.

    Args:
        cluster_spec: the ClusterSpec.
        master: this task's session target ("" for in-process).
        task_type, task_id: this task's job and index.
        environment: where the cluster runs.
        num_accelerators: {"GPU": n} per task (default: none).
        rpc_layer: the protocol of `master` ("grpc").

    Example:
        >>> resolver = SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1"]}))
        >>> resolver.master("worker", 0, rpc_layer="grpc")
        'grpc://a:1'
    """

    def __init__(self, cluster_spec: ClusterSpec, master: str = "",
                 task_type: str | None = None, task_id: int | None = None,
                 environment: str = "", num_accelerators: dict[str, int] | None = None,
                 rpc_layer: str | None = None) -> None:
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._cluster_spec = cluster_spec
        self._master = master
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        address = self._master
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
        return format_master_url(address, rpc_layer or self._rpc_layer)

    @property
    def environment(self) -> str:
        return self._environment

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        return {} if self._num_accelerators is None else self._num_accelerators


def _tf_config() -> dict[str, Any]:
    text = os.environ.get("TF_CONFIG", "{}")
    return json.loads(text) if text else {}


class TFConfigClusterResolver(ClusterResolver):
    """A resolver that reads the `TF_CONFIG` environment variable when asked.

    Args:
        task_type, task_id, rpc_layer, environment: override TF_CONFIG's.

    Example:
        >>> os.environ["TF_CONFIG"] = json.dumps({
        ...     "cluster": {"worker": ["w0:2222", "w1:2222"]},
        ...     "task": {"type": "worker", "index": 1}})
        >>> TFConfigClusterResolver().master(rpc_layer="grpc")
        'grpc://w1:2222'
    """

    def __init__(self, task_type: str | None = None, task_id: int | None = None,
                 rpc_layer: str | None = None, environment: str | None = None) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> str | None:
        if self._task_type is not None:
            return str(self._task_type)
        task = _tf_config().get("task", {})
        return str(task["type"]) if "type" in task else None

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        if self._task_id is not None:
            return int(self._task_id)
        task = _tf_config().get("task", {})
        return int(task["index"]) if "index" in task else None

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def rpc_layer(self) -> str | None:
        if self._rpc_layer is not None:
            return self._rpc_layer
        return _tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    @property
    def environment(self) -> str | None:
        return self._environment

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec(_tf_config().get("cluster", {}))

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        session_master = _tf_config().get("session_master")
        if session_master is not None:
            return session_master
        spec = self.cluster_spec()
        jobs = spec.jobs
        if not jobs or (len(jobs) == 1 and len(spec.job_tasks(jobs[0])) == 1):
            return ""  # a one-task cluster: the session runs in this process
        address = spec.task_address(self.task_type if task_type is None else task_type,
                                    self.task_id if task_id is None else task_id)
        return format_master_url(address, self.rpc_layer if rpc_layer is None else rpc_layer)

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        return super().num_accelerators(self.task_type if task_type is None else task_type,
                                        self.task_id if task_id is None else task_id,
                                        config_proto)


class UnionResolver(ClusterResolver):
    """The union of several resolvers' clusters; the rest answered by the first one.

    Args:
        *resolvers: the ClusterResolvers (at least one).
        rpc_layer, task_type, task_id: override the first resolver's.
    """

    def __init__(self, *resolvers: ClusterResolver, **kwargs: Any) -> None:
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not resolvers:
            raise ValueError("At least one ClusterResolver is required.")
        if not all(isinstance(r, ClusterResolver) for r in resolvers):
            raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._resolvers = resolvers

    def cluster_spec(self) -> ClusterSpec:
        dicts = [r.cluster_spec().as_dict() for r in self._resolvers]
        # A job stays a list only while every resolver gives it as a list.
        sparse = {job for d in dicts for job, tasks in d.items() if isinstance(tasks, dict)}
        merged: dict[str, Any] = {}
        for d in dicts:
            for job, tasks in d.items():
                if job not in sparse:
                    merged.setdefault(job, []).extend(tasks)
                    continue
                given = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                have = merged.setdefault(job, {})
                twice = set(given) & set(have)
                if twice:
                    raise KeyError(f"Duplicate keys detected when merging two ClusterSpecs: "
                                   f"{twice!r}")
                have.update(given)
        return ClusterSpec(merged)

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        if task_type is not None and task_id is not None:
            address = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(address, rpc_layer or self._rpc_layer)
        return self._resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self) -> str | None:
        return self._task_type or self._resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        return self._task_id or self._resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def rpc_layer(self) -> str | None:
        return self._rpc_layer or self._resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    @property
    def environment(self) -> str:
        return self._resolvers[0].environment

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        return self._resolvers[0].num_accelerators(task_type, task_id, config_proto)

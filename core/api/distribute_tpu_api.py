"""TPUClusterResolver and TPUStrategy as TensorFlow 2.21 behaves on a machine without TPUs.

tfx has no TPU devices, so what remains of these is the part that does not need one:

* `TPUClusterResolver(tpu)` resolves the addresses it is given: `tpu="local"` (a TPU
  attached to this machine) gives an empty cluster and master ""; a worker address
  `tpu="grpc://host:port"` gives the cluster {job_name: ["host:port"]} (plus a
  coordinator job when `coordinator_name`/`coordinator_address` are given) and master
  "grpc://host:port" whatever task or RPC layer is asked for. Without a name it is
  TensorFlow's ValueError, several names its NotImplementedError. A Cloud TPU *name*
  would be looked up through the Cloud TPU API on Google Compute Engine; tfx does not
  call that API and says so (UnimplementedError). `num_accelerators()` counts the TPU
  cores of one host of the cluster (a session's `list_devices` on the master; this
  process's devices for "local"): 0 on any tfx cluster, as are the cores and hosts of
  `get_tpu_system_metadata()`; `connect()` ends in TensorFlow's NotFoundError ("TPUs
  not found in the cluster").
* `TPUStrategy` (tf.compat.v1.distribute.experimental) fails as TensorFlow's does
  without TPUs: no resolver is the resolver's ValueError; with one, TensorFlow fails
  reading the TPU system's (empty) device array, an IndexError, which tfx raises with
  TensorFlow's text and the reason.
"""

from __future__ import annotations

import collections
import re
import socket
from typing import Any, NamedTuple

from tfx.core.api.distribute_cluster_resolver_api import ClusterResolver, format_master_url
from tfx.core.cluster import ClusterSpec
from tfx.core.errors import NotFoundError, UnimplementedError

__all__ = ["TPUClusterResolver", "TPUStrategy"]

_TPU_DEVICE = re.compile(r".*task:(?P<host>\d+)/.*device:TPU:(?P<core>\d+)$")


class TPUSystemMetadata(NamedTuple):
    """What `get_tpu_system_metadata` finds: the TPU cores and hosts, and the devices."""

    num_cores: int
    num_hosts: int
    num_of_cores_per_host: int
    topology: Any
    devices: tuple[Any, ...]


def _tpu_cores_per_host(device_names: list[str]) -> int:
    """The TPU cores of one host (every host must have as many), 0 without TPUs."""
    hosts: dict[str, list[str]] = collections.defaultdict(list)
    for name in device_names:
        match = _TPU_DEVICE.match(name)
        if match:
            hosts[match.group("host")].append(match.group("core"))
    if not hosts:
        return 0
    counts = {len(cores) for cores in hosts.values()}
    if len(counts) != 1:
        raise RuntimeError(f"TPU cores on each device is not the same. This should never "
                           f"happen. Devices: {dict(hosts)}")
    return counts.pop()


class TPUClusterResolver(ClusterResolver):
    """The cluster of a TPU worker given by address, or of a local TPU (module doc).

    Args:
        tpu: "local", or the TPU worker's "grpc://host:port".
        zone, project, credentials, service, discovery_url: for the Cloud TPU API, which
            tfx does not call (accepted).
        job_name: the job of the TPU workers ("worker").
        coordinator_name: a job for the coordinator in the cluster (None: no such job).
        coordinator_address: its address; None with a coordinator_name starts a
            server in this process for it.

    Raises:
        ValueError: no TPU is named.
        NotImplementedError: several TPUs are named.
        UnimplementedError: a Cloud TPU name, which needs the Cloud TPU API.

    Example:
        >>> TPUClusterResolver(tpu="grpc://10.0.0.1:8470").cluster_spec().as_dict()
        {'worker': ['10.0.0.1:8470']}
    """

    def __init__(self, tpu: Any = None, zone: str | None = None, project: str | None = None,
                 job_name: str = "worker", coordinator_name: str | None = None,
                 coordinator_address: str | None = None, credentials: Any = "default",
                 service: Any = None, discovery_url: str | None = None) -> None:
        if isinstance(tpu, bytes):
            tpu = tpu.decode("utf-8")
        if isinstance(tpu, (list, tuple)):
            raise NotImplementedError("Using multiple TPUs in a single session is not yet "
                                      "implemented")
        if not tpu:
            raise ValueError("Please provide a TPU Name to connect to.")
        if tpu != "local" and not tpu.startswith("grpc://"):
            raise UnimplementedError(
                f"TPUClusterResolver(tpu={tpu!r}): finding a Cloud TPU by name asks the Cloud "
                "TPU API on Google Compute Engine, which tfx does not call; give the TPU "
                "worker's address ('grpc://host:port') or 'local'")
        self._tpu = tpu
        self.task_type = job_name
        self.task_id = 0
        self._coordinator_name = coordinator_name
        self._coordinator_address = coordinator_address
        self._server: Any = None
        if coordinator_name and not coordinator_address:
            self._start_local_server()

    @staticmethod
    def connect(tpu: Any = None, zone: str | None = None, project: str | None = None
                ) -> TPUClusterResolver:
        """Resolve `tpu`, connect to it and initialize its TPU system: without TPUs, the
        resolver's errors or TensorFlow's NotFoundError("TPUs not found in the cluster...")."""
        resolver = TPUClusterResolver(tpu, zone, project)
        raise NotFoundError(f"TPUs not found in the cluster. Failed in initialization: the "
                            f"cluster of {resolver._tpu!r} has no TPU devices (tfx has none)")

    def _start_local_server(self) -> None:
        from tfx.core.distributed.server import Server

        self._server = Server({"local": ["0.0.0.0:0"]}, protocol="grpc", start=True)
        port = self._server.target.rsplit(":", 1)[1]
        self._coordinator_address = f"{socket.gethostbyname(socket.gethostname())}:{port}"

    def cluster_spec(self) -> ClusterSpec:
        """{job_name: [the worker's address]} (and the coordinator); empty for "local"."""
        if self._tpu == "local":
            return ClusterSpec({})
        jobs = {self.task_type: [self._tpu[len("grpc://"):]]}
        if self._coordinator_address:
            jobs[self._coordinator_name] = [self._coordinator_address]
        return ClusterSpec(jobs)

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """"grpc://" and the worker's address ("" for a local TPU); the RPC layer is
        always gRPC."""
        if self._tpu == "local":
            return ""
        spec = self.cluster_spec()
        if task_type is not None and task_id is not None:
            address = spec.task_address(task_type, task_id)
        elif self.task_type is not None and self.task_id is not None:
            address = spec.task_address(self.task_type, self.task_id)
        else:
            tasks = spec.job_tasks(self.task_type)
            if not tasks:
                raise ValueError("No TPUs with the specified names exist.")
            address = tasks[0]
        return format_master_url(address, "grpc")

    def _device_list(self, config_proto: Any = None) -> list[Any]:
        """The devices of the master's cluster (this process's for "local")."""
        from tfx.core.api.graph_builder import Graph
        from tfx.core.api.session_api import Session

        with Graph().as_default(), Session(self.master(), config=config_proto) as session:
            return list(session.list_devices())

    def get_tpu_system_metadata(self) -> TPUSystemMetadata:
        """The TPU system's cores and hosts (none on tfx) and the devices found."""
        devices = self._device_list()
        names = [d.name for d in devices]
        per_host = _tpu_cores_per_host(names)
        hosts = len({m.group("host") for m in map(_TPU_DEVICE.match, names) if m})
        return TPUSystemMetadata(per_host * hosts, hosts, per_host, None, tuple(devices))

    def get_master(self) -> str:
        return self.master()

    def get_job_name(self) -> str | None:
        return self.task_type

    def get_coordination_service_leader(self) -> str:
        """Where the coordination service runs: the first TPU worker."""
        return f"/job:{self.get_job_name()}/task:0"

    @property
    def tpu_hardware_feature(self) -> Any:
        """The TPU's hardware features: None, as no TPU system was initialized."""
        return None

    @property
    def environment(self) -> str:
        return ""

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """{"TPU": cores per host}: this process's TPUs for "local", else those the
        master lists (0 on tfx's servers, which have CPUs only)."""
        if self._tpu == "local":
            from tfx.core.api.config_api import list_logical_devices

            return {"TPU": len(list_logical_devices("TPU"))}
        names = [d.name for d in self._device_list(config_proto)]
        return {"TPU": _tpu_cores_per_host(names)}


class TPUStrategy:
    """tf.compat.v1.distribute.experimental.TPUStrategy: fails as TensorFlow's does on a
    machine without TPUs (see the module doc).

    Args:
        tpu_cluster_resolver: the TPU (default: TPUClusterResolver(""), an error).
        steps_per_run, device_assignment: TensorFlow's (never reached).

    Raises:
        ValueError: no resolver (TensorFlow's "Please provide a TPU Name to connect to.").
        IndexError: a resolver, and no TPU devices (TensorFlow's message, then why).
    """

    def __init__(self, tpu_cluster_resolver: ClusterResolver | None = None,
                 steps_per_run: int | None = None, device_assignment: Any = None) -> None:
        if tpu_cluster_resolver is None:
            tpu_cluster_resolver = TPUClusterResolver("")
        raise IndexError("index 0 is out of bounds for axis 0 with size 0 (TPUStrategy "
                         "found no TPU devices: tfx has none)")

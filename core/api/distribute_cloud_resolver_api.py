"""tf.distribute.cluster_resolver's Kubernetes and Google Compute Engine resolvers.

Both ask a cluster manager's API for the machines of a job each time `cluster_spec()`
is called, through that manager's Python client, which tfx imports only when it is
used (as TensorFlow does):

* `KubernetesClusterResolver(job_to_label_mapping, tf_server_port)`: for each job, the
  pods matching each of its label selectors (`list_pod_for_all_namespaces`), sorted by
  pod name, as "host_ip:port"; a pod that is not Running is a RuntimeError. It needs
  the `kubernetes` package unless a client is passed as `override_client` (anything
  with `list_pod_for_all_namespaces(label_selector=...)` returning `.items` of pods).
  Task type and index are not known to it: set them (`resolver.task_type = "worker"`).
* `GCEClusterResolver(project, zone, instance_group, port)`: the instances of a
  managed instance group (all pages of `instanceGroups().listInstances`), each
  instance's first network address, sorted as strings, as one job (`task_type`,
  "worker" by default, which cannot be changed afterwards). It needs
  `googleapiclient` (and `oauth2client` for the default credentials) unless a client
  is passed as `service`.

Without the client library and without an injected client the constructors raise
TensorFlow's ImportError. `num_accelerators` is the base resolver's.
"""

from __future__ import annotations

import enum
from typing import Any

from tfx.core.api.distribute_cluster_resolver_api import ClusterResolver, format_master_url
from tfx.core.cluster import ClusterSpec

__all__ = ["KubernetesClusterResolver", "KubernetesExecutableLocation", "GCEClusterResolver"]

_NO_KUBERNETES = ("The Kubernetes Python client must be installed before using the Kubernetes "
                  "Cluster Resolver. To install the Kubernetes Python client, run `pip install "
                  "kubernetes` on your command line.")


class KubernetesExecutableLocation(enum.Enum):
    """Where the program runs: in a pod of the cluster, or outside it (which decides
    how the Kubernetes client finds its configuration)."""

    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1


class KubernetesClusterResolver(ClusterResolver):
    """The cluster of the pods that label selectors pick (see the module doc).

    Args:
        job_to_label_mapping: job name -> label selectors (default
            {"worker": ["job-name=tensorflow"]}).
        tf_server_port: the port the TensorFlow servers listen on.
        rpc_layer: the protocol of `master()`.
        override_client: a Kubernetes client to use instead of the `kubernetes` package's.
        executable_location: a KubernetesExecutableLocation.

    Raises:
        ImportError: no `kubernetes` package and no `override_client`.
        ValueError: `executable_location` is not a KubernetesExecutableLocation.

    Example:
        >>> resolver = KubernetesClusterResolver({"worker": ["job-name=w"]},
        ...                                      override_client=client)
        >>> resolver.task_type, resolver.task_id = "worker", 0
    """

    def __init__(self, job_to_label_mapping: dict[str, list[str]] | None = None,
                 tf_server_port: int = 8470, rpc_layer: str | None = "grpc",
                 override_client: Any = None,
                 executable_location: KubernetesExecutableLocation = (
                     KubernetesExecutableLocation.WITHIN_CLUSTER)) -> None:
        try:
            from kubernetes import config as k8s_config
        except ImportError:
            if not override_client:
                raise ImportError(_NO_KUBERNETES) from None
        else:
            if not override_client:
                if executable_location == KubernetesExecutableLocation.OFF_CLUSTER:
                    k8s_config.load_kube_config()
                elif executable_location == KubernetesExecutableLocation.WITHIN_CLUSTER:
                    k8s_config.load_incluster_config()
                else:
                    raise ValueError("The executable location provided is invalid.")
        self._job_to_label_mapping = job_to_label_mapping or {
            "worker": ["job-name=tensorflow"]}
        self._tf_server_port = tf_server_port
        self._override_client = override_client
        self.task_type = None
        self.task_id = None
        self.rpc_layer = rpc_layer

    def _client(self) -> Any:
        if self._override_client:
            return self._override_client
        from kubernetes import client as k8s_client
        from kubernetes import config as k8s_config

        k8s_config.load_kube_config()
        return k8s_client.CoreV1Api()

    def cluster_spec(self) -> ClusterSpec:
        """The pods of each job now (see the module doc).

        Raises:
            RuntimeError: a selected pod is not Running.
        """
        client = self._client()
        jobs: dict[str, list[str]] = {}
        for job, selectors in self._job_to_label_mapping.items():
            addresses: list[str] = []
            for selector in selectors:
                pods = client.list_pod_for_all_namespaces(label_selector=selector).items
                for pod in sorted(pods, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(f'Pod "{pod.metadata.name}" is not running; '
                                           f'phase: "{pod.status.phase}"')
                    addresses.append(f"{pod.status.host_ip}:{self._tf_server_port}")
            jobs[job] = addresses
        return ClusterSpec(jobs)

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The session target of a task (the one set on the resolver by default; "" if
        none is)."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        return format_master_url(self.cluster_spec().task_address(task_type, task_id),
                                 rpc_layer or self.rpc_layer)


class GCEClusterResolver(ClusterResolver):
    """The instances of a Compute Engine instance group as one job (see the module doc).

    Args:
        project, zone, instance_group: where the instance group is.
        port: the port the TensorFlow servers listen on.
        task_type: the job of the instances ("worker"); fixed once made.
        task_id: this instance's index in the job.
        rpc_layer: the protocol of `master()`.
        credentials: the API credentials ("default": the application default ones).
        service: a Compute Engine API client to use instead of googleapiclient's.

    Raises:
        ImportError: no googleapiclient and no `service`.
    """

    def __init__(self, project: str, zone: str, instance_group: str, port: int,
                 task_type: str = "worker", task_id: int = 0, rpc_layer: str | None = "grpc",
                 credentials: Any = "default", service: Any = None) -> None:
        self._project = project
        self._zone = zone
        self._instance_group = instance_group
        self._port = port
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._credentials = credentials
        discovery = _google_api()
        if credentials == "default" and discovery is not None:
            from oauth2client.client import GoogleCredentials

            self._credentials = GoogleCredentials.get_application_default()
        if service is not None:
            self._service = service
        elif discovery is None:
            raise ImportError("googleapiclient must be installed before using the GCE "
                              "cluster resolver")
        else:
            self._service = discovery.build("compute", "v1", credentials=self._credentials)

    def cluster_spec(self) -> ClusterSpec:
        """The group's running instances now, "ip:port" sorted, as job `task_type`."""
        service = self._service
        request = service.instanceGroups().listInstances(
            project=self._project, zone=self._zone, instanceGroups=self._instance_group,
            body={"instanceState": "RUNNING"}, orderBy="name")
        addresses: list[str] = []
        while request is not None:
            response = request.execute()
            for item in response["items"]:
                name = item["instance"].split("/")[-1]
                details = service.instances().get(project=self._project, zone=self._zone,
                                                  instance=name)
                if details is not None:
                    ip = details.execute()["networkInterfaces"][0]["networkIP"]
                    addresses.append(f"{ip}:{self._port}")
            request = service.instanceGroups().listInstances_next(
                previous_request=request, previous_response=response)
        return ClusterSpec({self._task_type: sorted(addresses)})

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The session target of a task (this one by default)."""
        task_type = self._task_type if task_type is None else task_type
        task_id = self._task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        return format_master_url(address, rpc_layer or self._rpc_layer)

    @property
    def task_type(self) -> str:
        return self._task_type

    @task_type.setter
    def task_type(self, task_type: str) -> None:
        raise RuntimeError("You cannot reset the task_type of the GCEClusterResolver after it "
                           "has been created.")

    @property
    def task_id(self) -> int:
        return self._task_id

    @task_id.setter
    def task_id(self, task_id: int) -> None:
        self._task_id = task_id

    @property
    def rpc_layer(self) -> str | None:
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer


def _google_api() -> Any:
    """googleapiclient's `discovery` module, or None when the client is not installed."""
    try:
        from googleapiclient import discovery
        from oauth2client.client import GoogleCredentials  # noqa: F401 - needed as well
    except ImportError:
        return None
    return discovery

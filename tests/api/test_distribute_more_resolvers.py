"""tf.distribute.cluster_resolver's Slurm, Kubernetes, GCE and TPU resolvers and
tf.distribute.experimental.TPUStrategy, against TensorFlow 2.21's values
(tests/data/cluster_resolvers/generate.py: the same SLURM_* environments and the same
fake Kubernetes and Compute Engine clients; tf_values.json)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.distribute_slurm_resolver_api import expand_hostlist, expand_tasks_per_node
from tfx.core.errors import UnimplementedError

DATA = Path(__file__).resolve().parents[1] / "data" / "cluster_resolvers"
TF = json.loads((DATA / "tf_values.json").read_text())


def _load_inputs():
    """The inputs shared with the TensorFlow side, loaded by path (not via sys.path)."""
    path = DATA / "inputs.py"
    spec = importlib.util.spec_from_file_location("cluster_resolver_inputs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_INPUTS = _load_inputs()
FakeKubernetes, FakeGCE = _INPUTS.FakeKubernetes, _INPUTS.FakeGCE
SLURM_CASES, SLURM_VARS = _INPUTS.SLURM_CASES, _INPUTS.SLURM_VARS
K8S_PODS = _INPUTS.K8S_PODS
cr = tf.distribute.cluster_resolver


def outcome(fn):
    """["ok", value] or [error type, message], as generate.py records them."""
    try:
        return ["ok", fn()]
    except Exception as e:  # noqa: BLE001 - compared with what TensorFlow raised
        return [type(e).__name__, str(e)]


def as_json(value):
    return json.loads(json.dumps(value, default=str))


# --- Slurm -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(SLURM_CASES))
def test_slurm_resolver_reads_the_step_as_tensorflow(case, monkeypatch) -> None:
    env, kwargs = SLURM_CASES[case]
    for var in SLURM_VARS:
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)

    def run():
        import os

        r = cr.SlurmClusterResolver(**kwargs)
        before = [list(r.get_task_info()), r.master()]
        spec = r.cluster_spec().as_dict()
        return {"before": before, "spec": spec, "task": list(r.get_task_info()),
                "master": r.master(), "master_ps0": outcome(lambda: r.master("worker", 0)),
                "master_rpc": outcome(lambda: r.master(rpc_layer="foo")),
                "accelerators": r.num_accelerators(),
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                "rpc_layer": r.rpc_layer, "environment": r.environment}

    assert as_json(outcome(run)) == TF["slurm"][case]


def test_slurm_lists_expand_as_tensorflows() -> None:
    for hostlist, expected in TF["slurm"]["expand_hostlist"].items():
        assert outcome(lambda h=hostlist: expand_hostlist(h)) == expected, hostlist
    for tasks, expected in TF["slurm"]["expand_tasks_per_node"].items():
        assert outcome(lambda t=tasks: expand_tasks_per_node(t)) == expected, tasks


@given(st.text("abcxyz", min_size=1, max_size=3),
       st.lists(st.integers(0, 30), min_size=1, max_size=8), st.integers(1, 3))
def test_slurm_bracket_ranges_expand_to_their_hosts(prefix, numbers, width) -> None:
    # Each run of consecutive numbers written as a range, zero-padded to `width`.
    numbers = sorted(set(numbers))
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    pad = lambda n: str(n).zfill(width)  # noqa: E731
    ranges = ",".join(pad(r[0]) if len(r) == 1 else f"{pad(r[0])}-{pad(r[-1])}" for r in runs)
    assert expand_hostlist(f"{prefix}[{ranges}],solo") == [
        prefix + pad(n) for n in numbers] + ["solo"]


# --- Kubernetes and GCE --------------------------------------------------------------------


def test_kubernetes_resolver_as_tensorflow() -> None:
    expected = TF["kubernetes"]
    assert [[m.name, m.value] for m in cr.KubernetesExecutableLocation] == expected["locations"]
    assert outcome(lambda: cr.KubernetesClusterResolver()) == expected["no_client"]
    assert outcome(lambda: cr.KubernetesClusterResolver(
        executable_location=cr.KubernetesExecutableLocation.OFF_CLUSTER)) == (
        expected["no_client_off_cluster"])
    client = FakeKubernetes(K8S_PODS)
    r = cr.KubernetesClusterResolver({"worker": ["job-name=worker"], "ps": ["job-name=ps"]},
                                     override_client=client)
    first = [r.task_type, r.task_id, r.rpc_layer, r.master(), r.environment]
    r.task_type, r.task_id = "worker", 1
    got = {"first": first, "spec": r.cluster_spec().as_dict(), "master": r.master(),
           "master_ps": r.master("ps", 0, rpc_layer="foo")}
    want = dict(expected["resolver"][1])
    # TensorFlow 2.21 counts the accelerators of its own (eager) process here ({});
    # tfx's base resolver refuses to count a remote master's.
    assert want.pop("accelerators") == ["ok", {}]
    assert as_json(got) == want
    assert as_json(outcome(lambda: cr.KubernetesClusterResolver(
        override_client=FakeKubernetes({"job-name=tensorflow": [("t", "Running", "1.2.3.4")]}),
        tf_server_port=1234).cluster_spec().as_dict())) == expected["default_mapping"]
    assert outcome(lambda: cr.KubernetesClusterResolver(
        {"worker": ["job-name=pending"]}, override_client=client).cluster_spec()) == (
        expected["pending"])


def test_gce_resolver_as_tensorflow() -> None:
    expected = TF["gce"]
    assert outcome(lambda: cr.GCEClusterResolver("p", "z", "g", 8470)) == expected["no_client"]
    service = FakeGCE([["i2", "i1"], ["i3"]], {"i1": "10.0.0.9", "i2": "10.0.0.10",
                                               "i3": "10.0.0.1"})
    r = cr.GCEClusterResolver("proj", "zone-a", "group", 2222, service=service)
    first = [r.task_type, r.task_id, r.rpc_layer, r.environment]
    spec = r.cluster_spec().as_dict()
    masters = [r.master(), r.master(task_id=2, rpc_layer="foo")]
    r.task_id = 1
    r.rpc_layer = None
    masters.append(r.master())
    set_type = outcome(lambda: setattr(r, "task_type", "ps"))
    got = {"first": first, "spec": spec, "masters": masters, "set_type": set_type,
           "calls": service.calls[0]}
    assert as_json(["ok", got]) == expected["resolver"]


# --- TPU -----------------------------------------------------------------------------------


def describe(r) -> dict:
    return {"master": r.master(), "master_worker0": r.master("worker", 0),
            "get_master": r.get_master(), "spec": r.cluster_spec().as_dict(),
            "task": [r.task_type, r.task_id], "job": r.get_job_name(),
            "leader": r.get_coordination_service_leader(),
            "environment": r.environment, "hardware": r.tpu_hardware_feature}


def test_tpu_resolver_as_tensorflow_without_tpus() -> None:
    expected = TF["tpu"]
    for name, kwargs in {"none": {}, "empty": {"tpu": ""}, "list": {"tpu": ["a", "b"]}}.items():
        assert outcome(lambda kwargs=kwargs: cr.TPUClusterResolver(**kwargs)) == expected[name]
    assert outcome(lambda: describe(cr.TPUClusterResolver(tpu="local"))) == expected["local"]
    assert outcome(lambda: cr.TPUClusterResolver(tpu="local").num_accelerators()) == (
        expected["local_accelerators"])
    grpc = "grpc://10.0.0.1:8470"
    assert outcome(lambda: describe(cr.TPUClusterResolver(tpu=grpc))) == expected["grpc"]
    assert outcome(lambda: describe(cr.TPUClusterResolver(tpu=grpc, job_name="tpu_worker"))) \
        == expected["grpc_job"]
    assert outcome(lambda: describe(cr.TPUClusterResolver(
        tpu=grpc, coordinator_name="coordinator", coordinator_address="10.0.0.2:1234"))) == (
        expected["grpc_coordinator"])


def test_tpu_connect_and_system_metadata_without_tpus() -> None:
    expected = TF["tpu"]
    assert outcome(lambda: cr.TPUClusterResolver.connect()) == expected["connect_none"]
    kind, message = outcome(lambda: cr.TPUClusterResolver.connect(tpu="local"))
    assert kind == expected["connect_local"][0] == "NotFoundError"
    prefix = "TPUs not found in the cluster. Failed in initialization: "
    assert expected["connect_local"][1].startswith(prefix) and message.startswith(prefix)

    def metadata():
        m = cr.TPUClusterResolver(tpu="local").get_tpu_system_metadata()
        return [m.num_cores, m.num_hosts, m.num_of_cores_per_host, m.topology,
                [d.name for d in m.devices]]

    assert outcome(metadata) == expected["metadata_local"]


def test_a_tpu_name_needs_the_cloud_tpu_api() -> None:
    # TensorFlow asks Google Compute Engine's metadata server (a URLError off GCE).
    with pytest.raises(UnimplementedError, match="'my-tpu'.*Cloud TPU API"):
        cr.TPUClusterResolver(tpu="my-tpu")


@pytest.mark.distributed
def test_tpu_resolver_counts_no_tpu_on_a_tfx_server() -> None:
    server = tf.train.Server.create_local_server()
    try:
        assert cr.TPUClusterResolver(tpu=server.target).num_accelerators() == {"TPU": 0}
    finally:
        server.stop(0)


def test_tpu_strategy_fails_as_tensorflow_without_tpus() -> None:
    expected = TF["tpu"]
    assert outcome(lambda: tf.distribute.experimental.TPUStrategy()) == (
        expected["strategy_no_resolver"])
    kind, message = outcome(lambda: tf.compat.v1.distribute.experimental.TPUStrategy(
        cr.TPUClusterResolver(tpu="local")))
    assert kind == expected["strategy_local"][0] == "IndexError"
    assert message.startswith(expected["strategy_local"][1])

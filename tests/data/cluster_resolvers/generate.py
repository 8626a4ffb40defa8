"""Record TensorFlow 2.21's Slurm, Kubernetes, GCE and TPU cluster resolvers (and
TPUStrategy without a TPU) for tests/api/test_distribute_more_resolvers.py.

The SLURM_* variables are set as a Slurm step sets them; Kubernetes and GCE get fake
clients (what their `override_client` and `service` arguments accept), the same fakes
as the test's. Run with TensorFlow installed:
    python tests/data/cluster_resolvers/generate.py
Writes tf_values.json next to this file.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import tensorflow as tf

cr = tf.distribute.cluster_resolver


def _load_inputs():
    """The inputs shared with the TensorFlow side, loaded by path (not via sys.path)."""
    path = Path(__file__).resolve().parent / "inputs.py"
    spec = importlib.util.spec_from_file_location("cluster_resolver_inputs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_INPUTS = _load_inputs()
FakeKubernetes, FakeGCE = _INPUTS.FakeKubernetes, _INPUTS.FakeGCE
SLURM_CASES, SLURM_VARS = _INPUTS.SLURM_CASES, _INPUTS.SLURM_VARS
K8S_PODS = _INPUTS.K8S_PODS


def outcome(fn):
    try:
        return ["ok", fn()]
    except Exception as e:  # noqa: BLE001 - recording what TensorFlow raises
        return [type(e).__name__, str(e)]


def slurm() -> dict:
    out = {}
    for name, (env, kwargs) in SLURM_CASES.items():
        for var in SLURM_VARS:
            os.environ.pop(var, None)
        os.environ.update(env)

        def run(kwargs=kwargs):
            r = cr.SlurmClusterResolver(**kwargs)
            before = [r.get_task_info(), r.master()]
            spec = r.cluster_spec().as_dict()
            return {"before": before, "spec": spec, "task": list(r.get_task_info()),
                    "master": r.master(), "master_ps0": outcome(lambda: r.master("worker", 0)),
                    "master_rpc": outcome(lambda: r.master(rpc_layer="foo")),
                    "accelerators": r.num_accelerators(),
                    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                    "rpc_layer": r.rpc_layer, "environment": r.environment}

        out[name] = outcome(run)
    for var in SLURM_VARS:
        os.environ.pop(var, None)
    from tensorflow.python.distribute.cluster_resolver import slurm_cluster_resolver as s

    out["expand_hostlist"] = {h: outcome(lambda h=h: s.expand_hostlist(h)) for h in (
        "n[1-2],m5,o[3-4,6,7-9]", "a[01-03]", "x", "", "n[1-2", "n[2-x]")}
    out["expand_tasks_per_node"] = {t: outcome(lambda t=t: s.expand_tasks_per_node(t)) for t in (
        "3(x2),2,1", "1", "2(x3)", "x", "")}
    return out


# --- fakes of the Kubernetes and GCE clients -------------------------------------------------


def kubernetes() -> dict:
    out = {"locations": [[m.name, m.value] for m in cr.KubernetesExecutableLocation],
           "no_client": outcome(lambda: cr.KubernetesClusterResolver()),
           "no_client_off_cluster": outcome(lambda: cr.KubernetesClusterResolver(
               executable_location=cr.KubernetesExecutableLocation.OFF_CLUSTER))}
    client = FakeKubernetes(K8S_PODS)

    def run():
        r = cr.KubernetesClusterResolver({"worker": ["job-name=worker"], "ps": ["job-name=ps"]},
                                         override_client=client)
        first = [r.task_type, r.task_id, r.rpc_layer, r.master(), r.environment]
        r.task_type, r.task_id = "worker", 1
        return {"first": first, "spec": r.cluster_spec().as_dict(), "master": r.master(),
                "master_ps": r.master("ps", 0, rpc_layer="foo"),
                "accelerators": outcome(r.num_accelerators)}

    out["resolver"] = outcome(run)
    out["default_mapping"] = outcome(lambda: cr.KubernetesClusterResolver(
        override_client=FakeKubernetes({"job-name=tensorflow": [("t", "Running", "1.2.3.4")]}),
        tf_server_port=1234).cluster_spec().as_dict())
    out["pending"] = outcome(lambda: cr.KubernetesClusterResolver(
        {"worker": ["job-name=pending"]}, override_client=client).cluster_spec())
    return out


def gce() -> dict:
    out = {"no_client": outcome(lambda: cr.GCEClusterResolver("p", "z", "g", 8470))}
    service = FakeGCE([["i2", "i1"], ["i3"]], {"i1": "10.0.0.9", "i2": "10.0.0.10",
                                               "i3": "10.0.0.1"})

    def run():
        r = cr.GCEClusterResolver("proj", "zone-a", "group", 2222, service=service)
        first = [r.task_type, r.task_id, r.rpc_layer, r.environment]
        spec = r.cluster_spec().as_dict()
        masters = [r.master(), r.master(task_id=2, rpc_layer="foo")]
        r.task_id = 1
        r.rpc_layer = None
        masters.append(r.master())
        set_type = outcome(lambda: setattr(r, "task_type", "ps"))
        return {"first": first, "spec": spec, "masters": masters, "set_type": set_type,
                "calls": service.calls[0]}

    out["resolver"] = outcome(run)
    return out


def tpu() -> dict:
    out = {}
    for name, kwargs in {"none": {}, "empty": {"tpu": ""},
                         "list": {"tpu": ["a", "b"]}}.items():
        out[name] = outcome(lambda kwargs=kwargs: cr.TPUClusterResolver(**kwargs))

    def describe(r):
        return {"master": r.master(), "master_worker0": r.master("worker", 0),
                "get_master": r.get_master(), "spec": r.cluster_spec().as_dict(),
                "task": [r.task_type, r.task_id], "job": r.get_job_name(),
                "leader": r.get_coordination_service_leader(),
                "environment": r.environment, "hardware": r.tpu_hardware_feature}

    out["local"] = outcome(lambda: describe(cr.TPUClusterResolver(tpu="local")))
    out["local_accelerators"] = outcome(
        lambda: cr.TPUClusterResolver(tpu="local").num_accelerators())
    out["grpc"] = outcome(lambda: describe(cr.TPUClusterResolver(tpu="grpc://10.0.0.1:8470")))
    out["grpc_job"] = outcome(lambda: describe(cr.TPUClusterResolver(
        tpu="grpc://10.0.0.1:8470", job_name="tpu_worker")))
    out["grpc_coordinator"] = outcome(lambda: describe(cr.TPUClusterResolver(
        tpu="grpc://10.0.0.1:8470", coordinator_name="coordinator",
        coordinator_address="10.0.0.2:1234")))
    out["connect_local"] = outcome(lambda: cr.TPUClusterResolver.connect(tpu="local"))
    out["connect_none"] = outcome(lambda: cr.TPUClusterResolver.connect())

    def metadata():
        m = cr.TPUClusterResolver(tpu="local").get_tpu_system_metadata()
        return [m.num_cores, m.num_hosts, m.num_of_cores_per_host, m.topology,
                [d.name for d in m.devices]]

    out["metadata_local"] = outcome(metadata)
    out["strategy_no_resolver"] = outcome(lambda: tf.compat.v1.distribute.experimental
                                          .TPUStrategy())
    out["strategy_local"] = outcome(lambda: tf.compat.v1.distribute.experimental.TPUStrategy(
        cr.TPUClusterResolver(tpu="local")))
    return out


if __name__ == "__main__":
    values = {"slurm": slurm(), "kubernetes": kubernetes(), "gce": gce(), "tpu": tpu()}
    path = Path(__file__).resolve().parent / "tf_values.json"
    path.write_text(json.dumps(values, indent=1, default=str) + "\n")
    print(json.dumps(values, indent=1, default=str))

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


def outcome(fn):
    try:
        return ["ok", fn()]
    except Exception as e:  # noqa: BLE001 - recording what TensorFlow raises
        return [type(e).__name__, str(e)]


SLURM_CASES = {
    # name -> (environment, constructor kwargs)
    "two_nodes_two_tasks": ({"SLURM_PROCID": "3", "SLURM_STEP_NUM_TASKS": "4",
                             "SLURM_STEP_NODELIST": "t02n[13-14]",
                             "SLURM_STEP_TASKS_PER_NODE": "2(x2)",
                             "CUDA_VISIBLE_DEVICES": "0,1,2,3"},
                            {"jobs": {"ps": 1, "worker": 3}}),
    "default_jobs": ({"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "3",
                      "SLURM_STEP_NODELIST": "node1,node[03-04]",
                      "SLURM_STEP_TASKS_PER_NODE": "1(x3)"},
                     {"gpus_per_node": 2, "port_base": 2222, "rpc_layer": None}),
    "uneven_tasks": ({"SLURM_PROCID": "2", "SLURM_STEP_NUM_TASKS": "3",
                      "SLURM_STEP_NODELIST": "b[1-2]", "SLURM_STEP_TASKS_PER_NODE": "2,1"},
                     {"jobs": {"worker": 2, "evaluator": 1}, "gpus_per_node": 4,
                      "gpus_per_task": 2, "auto_set_gpu": False}),
    "tasks_per_node_int": ({"SLURM_PROCID": "1", "SLURM_STEP_NODELIST": "h[7,9]"},
                           {"jobs": {"worker": 4}, "tasks_per_node": 2,
                            "gpus_per_node": 2}),
    "tasks_per_node_dict": ({"SLURM_PROCID": "0"},
                            {"jobs": {"chief": 1, "worker": 1},
                             "tasks_per_node": {"zz": 1, "aa": 1}, "gpus_per_node": 1}),
    "too_many_gpus": ({"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "2",
                       "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "2"},
                      {"gpus_per_node": 2, "gpus_per_task": 2}),
    "too_many_tasks": ({"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "n1",
                        "SLURM_STEP_TASKS_PER_NODE": "2"},
                       {"jobs": {"worker": 3}, "gpus_per_node": 2}),
    "no_procid": ({}, {}),
    "no_num_tasks": ({"SLURM_PROCID": "0"}, {}),
    "bad_hostlist": ({"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1",
                      "SLURM_STEP_NODELIST": "n[1-2", "SLURM_STEP_TASKS_PER_NODE": "1"},
                     {"gpus_per_node": 1}),
    "bad_tasks_per_node": ({"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1",
                            "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "x"},
                           {"gpus_per_node": 1}),
    "no_gpus": ({"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1",
                 "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "1"},
                {"gpus_per_node": 0}),
}
SLURM_VARS = ("SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_NODELIST",
              "SLURM_STEP_TASKS_PER_NODE", "CUDA_VISIBLE_DEVICES")


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


def _load_fakes():
    """The fakes shared with the TensorFlow side, loaded by path (not via sys.path)."""
    path = Path(__file__).resolve().parent / "fakes.py"
    spec = importlib.util.spec_from_file_location("cluster_resolver_fakes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_FAKES = _load_fakes()
FakeKubernetes, FakeGCE = _FAKES.FakeKubernetes, _FAKES.FakeGCE


K8S_PODS = {"job-name=worker": [("w-b", "Running", "10.1.0.2"), ("w-a", "Running", "10.1.0.1")],
            "job-name=ps": [("ps-0", "Running", "10.2.0.1")],
            "job-name=pending": [("p-0", "Pending", "10.3.0.1")]}


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

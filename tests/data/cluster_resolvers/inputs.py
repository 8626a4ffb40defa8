"""The inputs both sides get: Slurm environments, Kubernetes pods, and fakes of the
Kubernetes and GCE clients (what the resolvers' `override_client` and `service` arguments
accept). generate.py feeds them to TensorFlow's resolvers and
tests/api/test_distribute_more_resolvers.py to tfx's; both load this file by path."""

from __future__ import annotations

from types import SimpleNamespace


class FakeKubernetes:
    def __init__(self, pods: dict) -> None:
        self.pods = pods  # selector -> [(name, phase, host_ip)]

    def list_pod_for_all_namespaces(self, label_selector: str):
        items = [SimpleNamespace(metadata=SimpleNamespace(name=n),
                                 status=SimpleNamespace(phase=p, host_ip=ip))
                 for n, p, ip in self.pods.get(label_selector, [])]
        return SimpleNamespace(items=items)


class _Request:
    def __init__(self, result) -> None:
        self.result = result

    def execute(self):
        return self.result


class FakeGCE:
    """The Compute Engine client's calls the resolver makes, over pages of instances."""

    def __init__(self, pages: list[list[str]], addresses: dict) -> None:
        self.pages = pages
        self.addresses = addresses
        self.calls = []

    def instanceGroups(self):  # noqa: N802 - the client's name
        return self

    def instances(self):
        return self

    def listInstances(self, **kwargs):  # noqa: N802
        self.calls.append(sorted(kwargs.items()))
        return _Request({"items": [{"instance": f"projects/p/zones/z/instances/{n}"}
                                   for n in self.pages[0]], "page": 0})

    def listInstances_next(self, previous_request, previous_response):  # noqa: N802
        page = previous_response["page"] + 1
        if page >= len(self.pages):
            return None
        return _Request({"items": [{"instance": f"projects/p/zones/z/instances/{n}"}
                                   for n in self.pages[page]], "page": page})

    def get(self, project, zone, instance):
        return _Request({"networkInterfaces": [{"networkIP": self.addresses[instance]}]})


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

K8S_PODS = {"job-name=worker": [("w-b", "Running", "10.1.0.2"), ("w-a", "Running", "10.1.0.1")],
            "job-name=ps": [("ps-0", "Running", "10.2.0.1")],
            "job-name=pending": [("p-0", "Pending", "10.3.0.1")]}

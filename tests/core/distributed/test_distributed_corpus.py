"""Every TensorFlow corpus case, run on a two-task cluster, gives TensorFlow's values.

The graph is placed by the greedy placer on two devices (as for the local
multi-device runs), and the two devices become two tasks, so each case's
cross-device tensors travel between servers over gRPC.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from corpus import DATA, STEP_CASES, run_steps

import tfx
from tfx.core.distributed.server import create_local_cluster
from tfx.core.multi_device import MultiDeviceSession

pytestmark = pytest.mark.distributed

_TASK_OF = {"/job:localhost/replica:0/task:0/device:CPU:0": "/job:worker/replica:0/task:0",
            "/job:localhost/replica:0/task:0/device:CPU:1": "/job:worker/replica:0/task:1"}


@pytest.fixture(scope="module")
def cluster():
    workers, _ = create_local_cluster(2, 0)
    yield workers
    for server in workers:
        server.stop(0)


def _placed_on_two_tasks(name: str):
    with MultiDeviceSession(str(DATA / f"{name}.pb"), devices="cpu:0,cpu:1") as local:
        graph_def = local.graph.to_graph_def()
    for node in graph_def.node:
        node.device = f"{_TASK_OF[node.device]}/device:CPU:0"
    return graph_def


@pytest.mark.parametrize("name", STEP_CASES)
def test_corpus_case_on_two_tasks(cluster, name: str) -> None:
    manifest = json.loads((DATA / f"{name}.json").read_text())
    expected = np.load(DATA / f"{name}.expected.npz")
    graph_def = _placed_on_two_tasks(name)
    tasks = {node.device.rsplit("/device", 1)[0] for node in graph_def.node}
    # The cases share the cluster; each keeps its variables to itself.
    config = tfx.ConfigProto(isolate_session_state=True)
    with tfx.Session(cluster[0].target, graph=graph_def, config=config) as sess:
        got = run_steps(sess, name)
    for i, (values, step) in enumerate(zip(got, manifest["steps"])):
        for tensor, value in zip(step.get("fetches", []), values):
            want = expected[f"step{i}/{tensor}"]
            value = np.asarray(value)
            assert value.shape == want.shape, f"step {i} {tensor}"
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(value, want, rtol=manifest["rtol"],
                                           atol=manifest["atol"], err_msg=f"step {i} {tensor}")
            else:
                np.testing.assert_array_equal(value, want, err_msg=f"step {i} {tensor}")
    if name == "mobilenet_v2_frozen":
        assert len(tasks) == 2  # a large graph really is spread over both tasks

"""Collective ops on the devices of one process: TensorFlow 2.21's values and errors.

The expected values were printed by TF 2.21 running the same graphs in a
tf.compat.v1.Session over 2 or 3 logical CPUs (scratch scripts, not kept: TF is
no test dependency).
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import emulated_cupy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from threads import on_threads

import tfx as tf
from tfx.core.collectives import CollectiveCall, Collectives, rank_key, reduce
from tfx.core.errors import DeadlineExceededError, InternalError, InvalidArgumentError
from tfx.core.graph_io import load_graph
from tfx.core.multi_device import MultiDeviceSession


def _session(graph: tf.Graph, cpus: int) -> tf.compat.v1.Session:
    return tf.compat.v1.Session(graph=graph,
                                config=tf.compat.v1.ConfigProto(device_count={"CPU": cpus}))


@pytest.fixture(params=["session", "multi_device"])
def run(request):
    """`run(build, cpus, steps)`: the values of the graph `build()` makes, for `steps`
    steps, in a tf.compat.v1.Session (one executor; each member is named by the device
    it asks for) or placed and partitioned on `cpus` virtual CPUs."""

    def run_graph(build, cpus: int = 3, steps: int = 1):
        graph = tf.Graph()
        with graph.as_default():
            outputs = build()
        if request.param == "multi_device":
            devices = ",".join(f"cpu:{i}" for i in range(cpus))
            sess = MultiDeviceSession(graph.as_graph_def(), devices=devices)
            outputs = [t.name for t in outputs]
        else:
            sess = _session(graph, cpus)
        with sess:
            return [[np.asarray(v).tolist() for v in sess.run(outputs)] for _ in range(steps)]

    return run_graph


def test_gather_and_reduce_rank_devices_by_index_over_two_steps(run):
    def build():
        outputs = []
        for device, value in [(1, [1.0, 2.0]), (0, [10.0, 20.0]), (2, [100.0, 200.0])]:
            with tf.device(f"/cpu:{device}"):
                c = tf.constant(value)
                outputs.append(tf.raw_ops.CollectiveGather(
                    input=c, group_size=3, group_key=1, instance_key=1, shape=[2]))
                outputs.append(tf.raw_ops.CollectiveReduce(
                    input=c * 2, group_size=3, group_key=1, instance_key=2, merge_op="Add",
                    final_op="Div", subdiv_offsets=[0]))
        return outputs

    gathered = [10.0, 20.0, 1.0, 2.0, 100.0, 200.0]  # TF: CPU:0's first
    expected = [gathered, [74.0, 148.0]] * 3
    assert run(build, steps=2) == [expected, expected]


def test_v2_all_to_all_gather_reduce_and_broadcast(run):
    def build():
        outputs = []
        for device, value in [(1, [[1.0, 2.0], [3, 4], [5, 6], [7, 8]]),
                              (0, [[10.0, 20.0], [30, 40], [50, 60], [70, 80]])]:
            with tf.device(f"/cpu:{device}"):
                c = tf.constant(value)
                outputs.append(tf.raw_ops.CollectiveAllToAllV2(
                    input=c[:2], group_size=2, group_key=1, instance_key=4, ordering_token=[]))
                outputs.append(tf.raw_ops.CollectiveGatherV2(
                    input=c[:2], group_size=2, group_key=1, instance_key=5, ordering_token=[]))
        return outputs

    assert run(build, cpus=2) == [[
        [[30.0, 40.0], [3.0, 4.0]],
        [[10.0, 20.0], [30.0, 40.0], [1.0, 2.0], [3.0, 4.0]],
        [[10.0, 20.0], [1.0, 2.0]],
        [[10.0, 20.0], [30.0, 40.0], [1.0, 2.0], [3.0, 4.0]],
    ]]


def test_v2_reduce_max_and_broadcast_with_keys_as_inputs(run):
    def build():
        outputs = []
        for device, value in [(0, [1.0, 2.0]), (1, [3.0, 4.0])]:
            with tf.device(f"/cpu:{device}"):
                c = tf.constant(value)
                outputs.append(tf.raw_ops.CollectiveReduceV2(
                    input=c, group_size=2, group_key=7, instance_key=9, ordering_token=[],
                    merge_op="Max", final_op="Id"))
                if device == 0:
                    outputs.append(tf.raw_ops.CollectiveBcastSendV2(
                        input=c, group_size=2, group_key=7, instance_key=10))
                else:
                    outputs.append(tf.raw_ops.CollectiveBcastRecvV2(
                        T=tf.float32, group_size=2, group_key=7, instance_key=10, shape=[2]))
        return outputs

    assert run(build, cpus=2) == [[[3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0]]]


def test_broadcast_from_the_middle_device(run):
    def build():
        outputs = []
        for device in (0, 1, 2):
            with tf.device(f"/cpu:{device}"):
                if device == 1:
                    outputs.append(tf.raw_ops.CollectiveBcastSend(
                        input=tf.constant([[1.0, 2.0]]), group_size=3, group_key=1,
                        instance_key=1, shape=[1, 2]))
                else:
                    outputs.append(tf.raw_ops.CollectiveBcastRecv(
                        T=tf.float32, group_size=3, group_key=1, instance_key=1, shape=[1, 2]))
        return outputs

    assert run(build) == [[[[1.0, 2.0]]] * 3]


def test_integer_mean_truncates_towards_zero_and_a_group_of_one(run):
    def build():
        outputs = []
        for device, value in [(0, [-3, 5]), (1, [0, 0])]:
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveReduce(
                    input=tf.constant(value), group_size=2, group_key=1, instance_key=1,
                    merge_op="Add", final_op="Div", subdiv_offsets=[0]))
        with tf.device("/cpu:0"):
            outputs.append(tf.raw_ops.CollectiveReduce(
                input=tf.constant([1.0, 2.0]), group_size=1, group_key=2, instance_key=2,
                merge_op="Mul", final_op="Div", subdiv_offsets=[0]))
            outputs.append(tf.raw_ops.CollectiveGather(
                input=tf.constant([3.0]), group_size=1, group_key=2, instance_key=3, shape=[1]))
        return outputs

    assert run(build, cpus=2) == [[[-1, 2], [-1, 2], [1.0, 2.0], [3.0]]]


def _error_of(run, build, cpus: int = 2) -> Exception:
    with pytest.raises(Exception) as info:
        run(build, cpus)
    return info.value


def test_members_with_different_shapes_fail_as_in_tensorflow(run):
    def build():
        outputs = []
        for device, value in [(0, [1.0, 2.0]), (1, [1.0, 2.0, 3.0])]:
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveReduce(
                    input=tf.constant(value), group_size=2, group_key=1, instance_key=1,
                    merge_op="Add", final_op="Id", subdiv_offsets=[0]))
        return outputs

    error = _error_of(run, build)
    assert isinstance(error, InvalidArgumentError)
    assert "Shape mismatch in the collective instance 1. Op at device " in str(error)
    assert "This is likely due to different input shapes" in str(error)


def test_a_member_asking_for_another_group_size_fails(run):
    def build():
        outputs = []
        for device, size in [(0, 2), (1, 3)]:
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveReduce(
                    input=tf.constant([1.0]), group_size=size, group_key=1, instance_key=1,
                    merge_op="Add", final_op="Id", subdiv_offsets=[0], timeout_seconds=5))
        return outputs

    error = _error_of(run, build)
    assert isinstance(error, InternalError)
    # Whichever member joins first fixes the size; the other is refused.
    assert re.search(r"is joining a group with size(3, but that group has size 2|2, but that "
                     r"group has size 3) \(group_key=1\)", str(error))


def test_a_missing_member_times_out_with_tensorflows_message(run):
    def build():
        with tf.device("/cpu:0"):
            return [tf.raw_ops.CollectiveReduce(
                input=tf.constant([1.0]), group_size=2, group_key=1, instance_key=1,
                merge_op="Add", final_op="Id", subdiv_offsets=[0], timeout_seconds=0.5)]

    error = _error_of(run, build)
    assert isinstance(error, DeadlineExceededError)
    assert "Collective has timed out waiting for other workers." in str(error)


def test_a_broadcast_without_sender_fails_as_in_tensorflow(run):
    def build():
        outputs = []
        for device in (0, 1):
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveBcastRecv(
                    T=tf.float32, group_size=2, group_key=1, instance_key=1, shape=[1, 2]))
        return outputs

    error = _error_of(run, build)
    assert isinstance(error, InternalError)
    assert ("Instance 1 found no source for broadcast.  This could mean that there were "
            "group_size=2 BcastRecvs but no BcastSend.") in str(error)


def test_all_to_all_needs_one_slice_per_member(run):
    def build():
        outputs = []
        for device in (0, 1):
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveAllToAllV2(
                    input=tf.zeros([4, 2]), group_size=2, group_key=1, instance_key=4,
                    ordering_token=[], timeout_seconds=2))
        return outputs

    error = _error_of(run, build)
    assert isinstance(error, InvalidArgumentError)
    assert ("input to all-to-all first dimension size (4) must be the same as the group "
            "size (2)") in str(error)


def test_reduce_scatter_gives_each_rank_its_slice_of_the_sum(run):
    # TensorFlow 2.21's CPU runtime has no reduce-scatter (InternalError "did not find
    # collective implementation"); tfx's reduces, then hands rank r the r-th slice.
    def build():
        outputs = []
        for device, value in [(0, [[1.0], [2.0], [3.0], [4.0]]),
                              (1, [[10.0], [20.0], [30.0], [40.0]])]:
            with tf.device(f"/cpu:{device}"):
                outputs.append(tf.raw_ops.CollectiveReduceScatterV2(
                    input=tf.constant(value), group_size=2, group_key=1, instance_key=3,
                    ordering_token=[], merge_op="Add", final_op="Id"))
        return outputs

    assert run(build, cpus=2) == [[[[11.0], [22.0]], [[33.0], [44.0]]]]


@pytest.mark.parametrize("assignment, index, base, expected", [
    ([[0, 1], [2, 3]], 2, 5, (2, 6)),
    ([[0, 1, 4], [2, 3, 5]], 0, 3, (3, 3)),
])
def test_assign_group_v2_matches_tensorflow(assignment, index, base, expected):
    graph = tf.Graph()
    with graph.as_default():
        size, key = tf.raw_ops.CollectiveAssignGroupV2(
            group_assignment=assignment, device_index=index, base_key=base)
        with tf.compat.v1.Session(graph=graph) as sess:
            assert tuple(int(v) for v in sess.run([size, key])) == expected


@pytest.mark.parametrize("index, base, message", [
    (7, 5, "device_index 7 is not found in group_assignment"),
    (0, 0, "Using the reserved group_key = 0 is not allowed: group_id = 0, base_key = 0"),
])
def test_assign_group_v2_errors(index, base, message):
    graph = tf.Graph()
    with graph.as_default():
        outputs = tf.raw_ops.CollectiveAssignGroupV2(
            group_assignment=[[0, 1], [2, 3]], device_index=index, base_key=base)
        with tf.compat.v1.Session(graph=graph) as sess:
            with pytest.raises(InvalidArgumentError, match=message):
                sess.run(list(outputs))


def test_ranks_follow_task_then_device_index():
    devices = ["/job:worker/replica:0/task:10/device:CPU:0",
               "/job:worker/replica:0/task:2/device:CPU:1",
               "/job:worker/replica:0/task:2/device:CPU:0",
               "/job:chief/replica:0/task:0/device:CPU:0"]
    assert sorted(devices, key=rank_key) == [devices[3], devices[2], devices[1], devices[0]]


def test_members_on_threads_pair_up_run_after_run():
    collectives = Collectives()
    devices = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(3)]
    results: dict[int, list] = {}

    def member(rank: int) -> None:
        results[rank] = [collectives.run(CollectiveCall(
            "reduce", 1, 3, 1, devices[rank], np.array([rank + 10 * run], np.int64)))
            for run in range(4)]

    threads = [threading.Thread(target=member, args=(rank,)) for rank in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    for rank in range(3):
        assert [int(v[0]) for v in results[rank]] == [3, 33, 63, 93]


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int64, st.tuples(st.integers(1, 4), st.integers(1, 3)),
                  elements=st.integers(-1000, 1000)),
       st.sampled_from(["Add", "Mul", "Min", "Max"]), st.sampled_from(["Id", "Div"]))
def test_reduce_matches_numpy(stacked, merge_op, final_op):
    values = list(stacked)
    merge = {"Add": np.sum, "Mul": np.prod, "Min": np.min, "Max": np.max}[merge_op]
    expected = merge(stacked, axis=0)
    if final_op == "Div":
        expected = np.trunc(expected / len(values)).astype(np.int64)
    np.testing.assert_array_equal(reduce(values, merge_op, final_op), expected)


def test_members_on_two_gpus_reduce_through_host_copies(monkeypatch):
    from tfx.core import devices

    monkeypatch.setattr(devices, "_GPUS", {})  # a GPU device keeps the CuPy it was made with
    cupy = emulated_cupy.install(monkeypatch, gpus=2)
    graph = tf.Graph()
    with graph.as_default():
        outputs = []
        for device, value in [("/gpu:1", [1.0, 2.0]), ("/gpu:0", [10.0, 20.0])]:
            with tf.device(device):
                c = tf.constant(value)
                outputs.append(tf.raw_ops.CollectiveReduce(
                    input=c, group_size=2, group_key=1, instance_key=1, merge_op="Add",
                    final_op="Id", subdiv_offsets=[0]))
                outputs.append(tf.raw_ops.CollectiveGather(
                    input=c, group_size=2, group_key=1, instance_key=2, shape=[2]))
    names = [t.name for t in outputs]
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0,gpu:1") as sess:
        assert [v.tolist() for v in sess.run(names)] == \
            [[11.0, 22.0], [10.0, 20.0, 1.0, 2.0]] * 2
    assert cupy.devices_used == {0, 1}
    assert cupy.to_host >= 4  # every member's input went through the host


def test_a_group_of_one_on_a_gpu(gpu_cupy):
    """A collective on a GPU (emulated, or a real one where present) goes through host
    copies; a group of one is its own result (TensorFlow allows group_size 1)."""
    graph = tf.Graph()
    with graph.as_default(), tf.device("/gpu:0"):
        c = tf.constant([1.0, 2.0])
        keys = dict(group_size=1, group_key=1, shape=[2])
        outputs = [tf.raw_ops.CollectiveReduce(input=c, instance_key=1, merge_op="Add",
                                               final_op="Div", subdiv_offsets=[0],
                                               group_size=1, group_key=1),
                   tf.raw_ops.CollectiveGather(input=c, instance_key=2, **keys),
                   tf.raw_ops.CollectiveBcastSend(input=c * 3.0, instance_key=3, **keys)]
    names = [t.name for t in outputs]
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0") as sess:
        assert {n.device[-5:] for n in sess.graph if n.op.startswith("Collective")} == {"GPU:0"}
        assert [v.tolist() for v in sess.run(names)] == [[1.0, 2.0], [1.0, 2.0], [3.0, 6.0]]


def test_a_member_that_timed_out_joining_may_join_again():
    collectives = Collectives()
    devices = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(2)]
    with pytest.raises(DeadlineExceededError):
        collectives.run(CollectiveCall("reduce", 4, 2, 1, devices[0], np.array([1.0]), 0.2))
    results = {}

    def member(rank: int) -> None:
        results[rank] = collectives.run(CollectiveCall(
            "reduce", 4, 2, 1, devices[rank], np.array([rank + 1.0])))

    threads = [threading.Thread(target=member, args=(rank,)) for rank in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert [results[rank].tolist() for rank in range(2)] == [[3.0], [3.0]]


DATA = Path(__file__).resolve().parents[1] / "data" / "collectives"


@pytest.mark.parametrize("multi_device", [False, True])
def test_a_graph_tensorflow_wrote_gives_its_values(multi_device):
    # graph.pb and expected.json: tests/data/collectives/generate.py (TF 2.21, 3 CPUs).
    expected = json.loads((DATA / "expected.json").read_text())
    graph_def = load_graph(DATA / "graph.pb")
    if multi_device:
        sess = MultiDeviceSession(graph_def, devices="cpu:0,cpu:1,cpu:2")
    else:
        graph = tf.Graph()
        with graph.as_default():
            tf.import_graph_def(graph_def, name="")
        sess = _session(graph, 3)
    with sess:
        runs = [[np.asarray(v).tolist() for v in sess.run(expected["fetches"])]
                for _ in range(2)]
    assert runs == expected["runs"]


def test_a_broadcast_result_is_not_the_senders_tensor():
    collectives = Collectives()
    devices = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(2)]
    sent = np.array([1.0, 2.0])
    calls = [CollectiveCall("broadcast_send", 1, 2, 1, devices[0], sent),
             CollectiveCall("broadcast_recv", 1, 2, 1, devices[1])]
    results = on_threads(collectives.run, calls)
    results[1][0] = 99.0  # a consumer updating its input in place
    assert sent.tolist() == [1.0, 2.0] and results[0].tolist() == [1.0, 2.0]

"""Kernels of stateful ops belong to the session (TensorFlow's OpSegment).

A seeded random op or candidate sampler draws one stream across every step of a
session, whatever the step's fetches: `run(r)`, `run([r, x])`, `run(r)` give its 1st,
2nd and 3rd samples, and a second session on the same graph starts again from the
1st. The expected values were recorded with TensorFlow 2.21 (`tensorflow.compat.v1`,
graph mode) running the same graphs, seeds and steps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.graph import Graph
from tfx.core.multi_device import MultiDeviceSession
from tfx.core.plan_builder import OpSegment, build_plan
from tfx.core.session import Session as CoreSession
from tfx.protos import graph_pb2

Build = Callable[[], tuple]


def _plus_one(sample: tf.Tensor) -> tuple:
    return sample, sample + 1


def _sampler(fn: Callable) -> Build:
    def build() -> tuple:
        true_classes = tf.constant([[1], [3]], tf.int64)
        sampled = fn(true_classes=true_classes, num_true=1, num_sampled=3, unique=False,
                     range_max=10, seed=1)[0]
        return sampled, sampled + 1
    return build


# name -> (graph builder returning (r, x = r + 1), TensorFlow 2.21's 1st, 2nd, 3rd sample)
CASES: dict[str, tuple[Build, tuple]] = {
    "random_uniform": (
        lambda: _plus_one(tf.random_uniform([2], seed=1)),
        ([0.2390374, 0.92039955], [0.34304976, 0.1896193], [0.97840536, 0.7541301])),
    "random_normal": (
        lambda: _plus_one(tf.random_normal([2], seed=1)),
        ([-0.8113182, 1.4845988], [1.3587774, 0.5417413], [-0.20888524, 0.005421882])),
    "random_shuffle": (
        lambda: _plus_one(tf.random_shuffle(tf.range(5), seed=1)),
        ([2, 4, 0, 3, 1], [2, 3, 0, 4, 1], [4, 3, 0, 2, 1])),
    "multinomial": (
        lambda: _plus_one(tf.multinomial(tf.log([[0.2, 0.3, 0.5]]), 4, seed=1)),
        ([[2, 1, 2, 2]], [[0, 1, 2, 0]], [[0, 0, 2, 2]])),
    "learned_unigram": (
        _sampler(tf.nn.learned_unigram_candidate_sampler),
        ([7, 9, 3], [6, 4, 9], [1, 3, 1])),
    "log_uniform": (
        _sampler(tf.nn.log_uniform_candidate_sampler),
        ([7, 1, 4], [0, 3, 4], [1, 1, 2])),
}


def _built(build: Build) -> tuple[tf.Graph, tf.Tensor, tf.Tensor]:
    graph = tf.Graph()
    with graph.as_default():
        r, x = build()
    return graph, r, x


def _check(got: np.ndarray, want: list) -> None:
    want_array = np.asarray(want, dtype=got.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want_array, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want_array)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_stream_across_fetch_signatures_as_tensorflow(case: str) -> None:
    build, (first, second, third) = CASES[case]
    graph, r, x = _built(build)
    with tf.Session(graph=graph) as sess:
        _check(sess.run(r), first)
        r2, x2 = sess.run([r, x])
        _check(r2, second)
        np.testing.assert_array_equal(x2, r2 + 1)
        _check(sess.run(r), third)


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_session_starts_the_stream_again(case: str) -> None:
    build, (first, second, _) = CASES[case]
    graph, r, x = _built(build)
    with tf.Session(graph=graph) as one, tf.Session(graph=graph) as two:
        _check(one.run(r), first)
        _check(two.run(x) - 1, first)
        _check(one.run([r, x])[0], second)
        _check(two.run([r, x])[0], second)


def test_learned_unigram_weights_carry_across_signatures() -> None:
    graph = tf.Graph()
    with graph.as_default():
        true_classes = tf.constant([[1], [3]], tf.int64)
        true_expected = tf.nn.learned_unigram_candidate_sampler(
            true_classes, 1, 3, True, 10, seed=1)[1]
        y = true_expected + 0
    with tf.Session(graph=graph) as sess:
        # TensorFlow 2.21: the classes seen by each run raise their weight for the next.
        _check(sess.run(true_expected), [[0.3], [0.3]])
        _check(sess.run([true_expected, y])[0], [[0.5], [0.5]])
        _check(sess.run(true_expected), [[0.6188828], [0.6188828]])


def _stream(r: tf.Tensor, n: int) -> list[np.ndarray]:
    """The first n samples of r's stream: n runs of one step in a new session."""
    with tf.Session(graph=r.graph) as sess:
        return [sess.run(r) for _ in range(n)]


@pytest.mark.parametrize("optimize", ["none", "basic"])
def test_core_session_shares_whatever_the_optimization(optimize: str) -> None:
    graph, r, x = _built(CASES["random_uniform"][0])
    first, second, _ = CASES["random_uniform"][1]
    with CoreSession(graph.as_graph_def(), optimize=optimize) as sess:
        _check(sess.run(r.name), first)
        _check(sess.run([x.name, r.name])[1], second)
        assert sess.run(r.op.name) is None  # run as a target, it draws the 3rd sample
        np.testing.assert_array_equal(sess.run(x.name), _stream(r, 4)[3] + 1)


def _kernels_by_node(sess: CoreSession, fetches: list) -> dict[str, object]:
    (prepared,) = [p for key, p in sess._plans.items() if key == sess.step_key(fetches)]
    return {node.name: node.kernel for node in prepared.plan.nodes}


def test_only_stateful_kernels_are_shared_between_plans() -> None:
    graph, r, x = _built(CASES["random_uniform"][0])
    with graph.as_default():
        y = x * 2
    with tf.Session(graph=graph) as sess:
        sess.run(x)
        sess.run([x, y])
        one = _kernels_by_node(sess, [x.name])
        two = _kernels_by_node(sess, [x.name, y.name])
    assert one[r.op.name] is two[r.op.name]
    assert one[x.op.name] is not two[x.op.name]  # a stateless kernel stays its plan's own
    assert len(sess._kernels) == 0  # close drops them


def test_nodes_added_after_a_run_join_the_stream() -> None:
    build, (first, second, third) = CASES["random_uniform"]
    graph, r, x = _built(build)
    with tf.Session(graph=graph) as sess:
        _check(sess.run(r), first)
        _check(sess.run(x) - 1, second)
        with graph.as_default():
            z = r * 2  # the graph grows after the session ran
        r3, z3 = sess.run([r, z])
    _check(r3, third)
    np.testing.assert_array_equal(z3, r3 * 2)


def test_a_changed_node_definition_gets_a_kernel_of_its_own() -> None:
    graph, r, x = _built(CASES["random_uniform"][0])
    first, second, _ = CASES["random_uniform"][1]
    ir = Graph.from_graph_def(graph.as_graph_def())
    node = ir.node(r.op.name)
    original = graph_pb2.AttrValue()
    original.CopyFrom(node.attr["seed2"])
    changed = graph_pb2.AttrValue(i=original.i + 6)
    with CoreSession(ir) as sess:
        _check(sess.run(r.name), first)
        node.set_attr("seed2", changed)  # edited between steps: a new stream from its start
        edited = sess.run([r.name, x.name])[0]
        node.set_attr("seed2", original)  # the first definition again: its kernel, drawn on
        _check(sess.run([x.name, r.name])[1], second)
    node.set_attr("seed2", changed)
    with CoreSession(ir) as fresh:
        np.testing.assert_array_equal(edited, fresh.run(r.name))
    assert not np.array_equal(edited, np.asarray(second, np.float32))


def test_partitioned_runs_share_the_kernel_per_device() -> None:
    first, second, third = CASES["random_uniform"][1]
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/cpu:0"):
            r = tf.random_uniform([2], seed=1)
        with tf.device("/cpu:1"):
            x = r + 1
    for _ in range(2):  # a second session starts again
        with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,cpu:1") as sess:
            _check(sess.run(r.name), first)
            r2, x2 = sess.run([r.name, x.name])
            _check(r2, second)
            np.testing.assert_array_equal(x2, r2 + 1)
            _check(sess.run(x.name) - 1, third)


def test_concurrent_steps_of_different_signatures_split_one_stream() -> None:
    graph, r, x = _built(CASES["random_uniform"][0])
    threads, runs = 4, 6
    drawn: list[list[float]] = []
    lock = threading.Lock()
    with tf.Session(graph=graph) as sess:
        start = threading.Barrier(threads)

        def work(i: int) -> None:
            start.wait()
            for j in range(runs):
                if (i + j) % 3 == 0:
                    value = sess.run(r)
                elif (i + j) % 3 == 1:
                    value = sess.run([x, r])[1]
                else:
                    value = sess.run({"r": r})["r"]
                with lock:
                    drawn.append(value.tolist())

        workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    # Each run took its own samples of the one stream: together, its first 24 samples.
    assert sorted(drawn) == sorted(v.tolist() for v in _stream(r, threads * runs))


def test_concurrent_learned_sampler_steps_count_every_class() -> None:
    graph = tf.Graph()
    with graph.as_default():
        true_classes = tf.constant([[1], [3]], tf.int64)
        true_expected = tf.nn.learned_unigram_candidate_sampler(
            true_classes, 1, 3, False, 10, seed=1)[1]
        y = true_expected + 0
    threads, runs = 4, 10
    with tf.Session(graph=graph) as sess:
        def work(i: int) -> None:
            for j in range(runs):
                sess.run(true_expected if (i + j) % 2 else [y, true_expected])

        workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seen = threads * runs  # each run added 1 to ids 1 and 3 (all weights start at 1)
        want = np.float32(1 + seen) / np.float32(10 + 2 * seen) * np.float32(3)
        np.testing.assert_array_equal(sess.run(y), np.full((2, 1), want, np.float32))


def test_op_segment_keys_on_device_and_definition() -> None:
    graph, r, _ = _built(CASES["random_uniform"][0])
    ir = Graph.from_graph_def(graph.as_graph_def())
    node = ir.node(r.op.name)
    segment = OpSegment()
    made: list[object] = []

    def create() -> object:
        made.append(object())
        return made[-1]

    cpu0, cpu1 = "/device:CPU:0", "/device:CPU:1"
    a = segment.find_or_create(node, cpu0, "CPU", create)
    assert segment.find_or_create(node, cpu0, "cpu", create) is a
    assert segment.find_or_create(node, cpu1, "CPU", create) is not a
    node.set_attr("_class", graph_pb2.AttrValue(s=b"loc:@other"))  # never reaches a kernel
    assert segment.find_or_create(node, cpu0, "CPU", create) is a
    node.set_attr("seed", graph_pb2.AttrValue(i=5))
    b = segment.find_or_create(node, cpu0, "CPU", create)
    assert b is not a and len(made) == 3 and len(segment) == 3
    segment.clear()
    assert len(segment) == 0


def test_op_segment_keeps_one_kernel_when_plans_race_to_build_it() -> None:
    graph, r, _ = _built(CASES["random_uniform"][0])
    node = Graph.from_graph_def(graph.as_graph_def()).node(r.op.name)
    segment = OpSegment()
    both_building = threading.Barrier(2)
    got: list[object] = [None, None]

    def build(i: int) -> None:
        def create() -> object:
            both_building.wait()  # neither finds the other's kernel before making its own
            return object()
        got[i] = segment.find_or_create(node, "/device:CPU:0", "CPU", create)

    workers = [threading.Thread(target=build, args=(i,)) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert got[0] is not None and got[0] is got[1] and len(segment) == 1


def test_build_plan_without_a_segment_gives_every_plan_its_own_kernels() -> None:
    graph, r, x = _built(CASES["random_uniform"][0])
    ir = Graph.from_graph_def(graph.as_graph_def())
    def kernel(segment: OpSegment | None, fetches: list[str]) -> object:
        prepared = build_plan(ir, [], fetches, [], kernels=segment)
        return {node.name: node.kernel for node in prepared.plan.nodes}[r.op.name]

    assert kernel(None, [r.name]) is not kernel(None, [r.name, x.name])
    segment = OpSegment()
    assert kernel(segment, [r.name]) is kernel(segment, [r.name, x.name])


# A step fetches r, or y = 2r (exact in float32), or runs r's op as a target.
_STEPS = st.lists(st.sampled_from(["r", "y", "r+y", "target", "target+y"]), min_size=1,
                  max_size=8)


@settings(max_examples=15, deadline=None)
@given(_STEPS)
def test_any_mix_of_signatures_draws_the_single_signature_stream(steps: list[str]) -> None:
    graph, r, _ = _built(CASES["random_uniform"][0])
    with graph.as_default():
        y = r * 2
    reference = _stream(r, len(steps))
    with tf.Session(graph=graph) as sess:
        for step, want in zip(steps, reference):
            if step == "r":
                got = sess.run(r)
            elif step == "y":
                got = sess.run(y) / 2
            elif step == "r+y":
                got, twice = sess.run([r, y])
                np.testing.assert_array_equal(twice, got * 2)
            elif step == "target":
                assert sess.run(r.op) is None
                continue
            else:
                got = sess.run([r.op, y])[1] / 2
            np.testing.assert_array_equal(got, want)

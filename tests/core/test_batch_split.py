"""Batch-parallel steps: which steps may be cut along the batch, and that a cut step
gives the uncut step's values."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core import batch_split, executor
from tfx.core.api.ops_api import apply_op
from tfx.core.graph import Graph
from tfx.kernels.cpu import intra_op


@pytest.fixture(autouse=True)
def graph() -> tf.Graph:
    g = tf.Graph()
    with g.as_default():
        yield g


def _analyze(fetches: list, feeds: list, targets: tuple = ()) -> batch_split.BatchSplit | None:
    graph = Graph.from_graph_def(tf.get_default_graph().as_graph_def())
    ranks = [t.shape.ndims for t in feeds]
    return batch_split.analyze(graph, [t.name for t in feeds], [t.name for t in fetches],
                               list(targets), ranks)


def _weights(*shape: int, seed: int = 0) -> tf.Tensor:
    return tf.constant(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _convnet() -> tuple[tf.Tensor, tf.Tensor]:
    """Conv, relu, pad, pool, mean over space, reshape, matmul, softmax."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="images")
    y = tf.nn.relu6(tf.nn.bias_add(
        tf.nn.conv2d(x, _weights(3, 3, 3, 4), [1, 1, 1, 1], "SAME"), _weights(4, seed=1)))
    y = tf.pad(y, [[0, 0], [1, 1], [1, 1], [0, 0]])
    y = tf.nn.depthwise_conv2d(y, _weights(3, 3, 4, 1, seed=2), [1, 2, 2, 1], "VALID")
    y = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
    y = tf.reduce_mean(y, [1, 2], keepdims=True)
    y = tf.reshape(y, [-1, 4])
    logits = tf.matmul(y, _weights(4, 5, seed=3)) * 0.5 + _weights(5, seed=4)
    return x, tf.nn.softmax(logits, name="probs")


# --- analysis ------------------------------------------------------------------------


def test_a_convnet_inference_step_may_be_cut() -> None:
    x, probs = _convnet()
    split = _analyze([probs, tf.argmax(probs, 1)], [x])
    assert split is not None and split.batched_feeds == (True,)


def test_a_fetched_feed_is_batched() -> None:
    x = tf.placeholder(tf.float32, [None, 3])
    assert _analyze([x, x * 2.0], [x]) is not None


def test_a_fed_scalar_is_passed_whole_to_every_piece() -> None:
    x = tf.placeholder(tf.float32, [None, 3])
    scale = tf.placeholder(tf.float32, [])
    split = _analyze([x * scale], [x, scale])
    assert split is not None and split.batched_feeds == (True, False)


@pytest.mark.parametrize("build", [
    # A shape folded for one batch size: slicing would break it.
    lambda x: tf.reshape(x, [4, 6]),
    # The batch size itself is read.
    lambda x: tf.cast(tf.shape(x), tf.float32),
    # A reduction across the examples.
    lambda x: tf.reduce_sum(x, 0),
    lambda x: tf.reduce_sum(x),
    # A free operand as large as the batch pairs example i with row i of a constant.
    lambda x: x + _weights(4, 6),
    # Random ops would draw once per piece.
    lambda x: x + tf.random_uniform([6], seed=1),
    # The batch is the contracted dimension.
    lambda x: tf.matmul(x, _weights(4, 6), transpose_a=True),
    # Squeeze without dims would drop the batch axis of a one-example piece.
    lambda x: tf.squeeze(x),
])
def test_steps_that_mix_or_read_the_batch_run_uncut(build: Callable) -> None:
    x = tf.placeholder(tf.float32, [None, 6])
    assert _analyze([build(x)], [x]) is None


def test_training_batch_norm_and_targets_run_uncut() -> None:
    x = tf.placeholder(tf.float32, [None, 2, 2, 3])
    ones, zeros = tf.ones([3]), tf.zeros([3])
    for training in (True, False):
        y = apply_op("FusedBatchNormV3", x=x, scale=ones, offset=zeros, mean=zeros,
                     variance=ones, is_training=training)[0]
        assert (_analyze([y], [x]) is None) == training
    v = tf.Variable(tf.zeros([3]))
    update = tf.assign_add(v, tf.ones([3]))
    assert _analyze([x * 2.0], [x], targets=(update.op.name,)) is None


def test_an_unknown_rank_feed_runs_uncut() -> None:
    x = tf.placeholder(tf.float32)
    assert _analyze([x * 2.0], [x]) is None


def test_reads_of_variables_are_free_operands() -> None:
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(tf.ones([3, 2]))
    assert _analyze([tf.matmul(x, w)], [x]) is not None


# --- running -------------------------------------------------------------------------


def _force_cutting(patch: pytest.MonkeyPatch) -> None:
    """Cut every batch after the shortest trial (two uncut runs, two cut), however light
    its kernels."""
    patch.setattr(batch_split, "MIN_PIECE_SECONDS", 0.0)
    patch.setattr(batch_split, "MIN_GAIN", float("inf"))
    patch.setattr(batch_split, "TRIALS", 1)


def _whole_then_cut(patch: pytest.MonkeyPatch, fetch: tf.Tensor, feed_dict: dict,
                    threads: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """`fetch` run on one thread, then four times on `threads`: uncut twice, then cut."""
    _force_cutting(patch)
    with tf.Session() as s:
        patch.setattr(intra_op, "_threads", 1)
        whole = s.run(fetch, feed_dict)
        patch.setattr(intra_op, "_threads", threads)
        return whole, [s.run(fetch, feed_dict) for _ in range(4)]


@pytest.fixture
def forced_cutting(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Cut every batch into `threads` pieces after the shortest trial."""
    _force_cutting(monkeypatch)

    def force(threads: int) -> None:
        monkeypatch.setattr(intra_op, "_threads", threads)

    return force


def _count_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the batch size of every run of the plan."""
    batches: list[int] = []
    real = batch_split.BatchSplit.run

    def counting(self, run_step, feeds):  # type: ignore[no-untyped-def]
        def step(values):  # type: ignore[no-untyped-def]
            batches.append(len(values[0]))
            return run_step(values)
        return real(self, step, feeds)

    monkeypatch.setattr(batch_split.BatchSplit, "run", counting)
    return batches


def test_a_cut_step_gives_the_uncut_values(
        forced_cutting: Callable[[int], None], monkeypatch: pytest.MonkeyPatch) -> None:
    x, probs = _convnet()
    images = np.random.default_rng(5).standard_normal((7, 8, 8, 3)).astype(np.float32)
    with tf.Session() as s:
        forced_cutting(1)
        uncut = s.run(probs, {x: images})
        forced_cutting(3)
        batches = _count_runs(monkeypatch)
        runs = [s.run(probs, {x: images}) for _ in range(4)]
    assert batches[:2] == [7, 7] and sorted(batches[2:]) == [2, 2, 2, 2, 3, 3]
    for cut in runs[2:]:
        assert cut.shape == (7, 5)
        np.testing.assert_allclose(cut, uncut, rtol=1e-6, atol=1e-7)


@settings(max_examples=25, deadline=None)
@given(batch=st.integers(1, 9), threads=st.integers(2, 4), seed=st.integers(0, 2**16))
def test_cut_equals_uncut_for_any_batch_and_thread_count(
        batch: int, threads: int, seed: int) -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        h = tf.nn.relu(tf.matmul(x, _weights(5, 4, seed=seed)) + 1.0)
        out = tf.concat([tf.nn.log_softmax(h), tf.expand_dims(tf.reduce_max(h, 1), 1)], 1)
        feed = np.random.default_rng(seed).standard_normal((batch, 5)).astype(np.float32)
        with pytest.MonkeyPatch.context() as patch:
            uncut, runs = _whole_then_cut(patch, out, {x: feed}, threads)
    for cut in runs:
        assert cut.shape == (batch, 5)
        np.testing.assert_allclose(cut, uncut, rtol=1e-6, atol=1e-6)


def test_concurrent_cut_steps_each_get_their_own_values(
        forced_cutting: Callable[[int], None]) -> None:
    x, probs = _convnet()
    rng = np.random.default_rng(9)
    batches = [rng.standard_normal((5, 8, 8, 3)).astype(np.float32) for _ in range(4)]
    with tf.Session() as s:
        forced_cutting(1)
        want = [s.run(probs, {x: b}) for b in batches]
        forced_cutting(2)
        for _ in range(4):  # through the trial: cut from here on
            s.run(probs, {x: batches[0]})
        got: dict[int, list] = {}

        def worker(k: int) -> None:
            got[k] = [s.run(probs, {x: batches[k]}) for _ in range(5)]

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for k in range(4):
        for value in got[k]:
            np.testing.assert_allclose(value, want[k], rtol=1e-6, atol=1e-7)


def test_one_thread_or_a_trace_keeps_the_step_whole(
        forced_cutting: Callable[[int], None], monkeypatch: pytest.MonkeyPatch) -> None:
    x, probs = _convnet()
    images = np.zeros((6, 8, 8, 3), np.float32)
    with tf.Session() as s:
        batches = _count_runs(monkeypatch)
        forced_cutting(1)
        for _ in range(3):
            s.run(probs, {x: images})
        forced_cutting(2)
        previous = executor.set_trace_hook(lambda plan: plan)
        try:
            s.run(probs, {x: images})
        finally:
            executor.set_trace_hook(previous)
        assert batches == [6, 6, 6, 6]
        for _ in range(3):  # the trial starts only now: two uncut runs, then cut
            s.run(probs, {x: images})
        assert batches[4:] == [6, 6, 3, 3]


def test_light_steps_are_never_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intra_op, "_threads", 2)
    x = tf.placeholder(tf.float32, [None, 3])
    y = x * 2.0 + 1.0
    with tf.Session() as s:
        batches = _count_runs(monkeypatch)
        for _ in range(2 * batch_split.TRIALS + 3):
            np.testing.assert_array_equal(s.run(y, {x: np.ones((4, 3), np.float32)}),
                                          np.full((4, 3), 3.0, np.float32))
    assert set(batches) == {4}


def _sleeping_step(seconds_per_example: float, seconds_per_run: float = 0.0):
    def step(values: list) -> list:
        time.sleep(seconds_per_run + seconds_per_example * len(values[0]))
        return [values[0] * 2]
    return step


def test_cutting_is_kept_only_where_it_was_faster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intra_op, "_threads", 2)
    monkeypatch.setattr(batch_split, "MIN_PIECE_SECONDS", 0.0)
    feeds = [np.arange(8.0)]
    # Time per example: two halves at once take half as long.
    scaling = batch_split.BatchSplit(batched_feeds=(True,))
    # Time per run: two halves at once take as long as the whole.
    fixed = batch_split.BatchSplit(batched_feeds=(True,))
    for _ in range(2 * batch_split.TRIALS + 3):
        np.testing.assert_array_equal(scaling.run(_sleeping_step(0.003), feeds)[0], feeds[0] * 2)
        np.testing.assert_array_equal(fixed.run(_sleeping_step(0.0, 0.008), feeds)[0],
                                      feeds[0] * 2)
    key = (8).bit_length()
    assert scaling.trials[key].cut_pays is True
    assert fixed.trials[key].cut_pays is False
    # Another batch-size class has its own trial.
    scaling.run(_sleeping_step(0.0), [np.arange(40.0)])
    assert scaling.trials[(40).bit_length()].cut_pays is None


def test_an_error_in_a_piece_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intra_op, "_threads", 2)
    split = batch_split.BatchSplit(batched_feeds=(True,))
    split.trials[(4).bit_length()] = batch_split._Trial(cut_pays=True)

    def step(values: list) -> list:
        if values[0][0] > 0:
            raise ValueError("second piece failed")
        return [values[0] * 2]

    with pytest.raises(ValueError, match="second piece"):
        split.run(step, [np.arange(4)])
    np.testing.assert_array_equal(split.run(lambda v: [v[0] * 2], [np.arange(4)])[0],
                                  [0, 2, 4, 6])


# --- random graphs: the analysis accepts exactly the per-example ones, and a cut step
# --- computes what the whole step does ---------------------------------------------------


def _random_step(draw: st.DrawFn, x: tf.Tensor) -> tuple[tf.Tensor, bool]:
    """Up to five random ops on x (rank 3, batch unknown); the last tensor, and whether
    every op keeps the example axis (so the step may be cut)."""
    t, per_example = x, True
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    for _ in range(draw(st.integers(1, 5))):
        if not per_example:
            break  # the batch has left axis 0: the ops below read static shapes after it
        shape = t.shape.as_list()
        rank = len(shape)
        kind = draw(st.sampled_from([
            "unary", "broadcast", "reduce", "reshape", "transpose", "concat", "expand",
            "matmul", "softmax", "argmax", "shape"]))
        if kind == "unary":
            t = draw(st.sampled_from([tf.nn.relu, tf.tanh, tf.square, tf.negative]))(t)
        elif kind == "broadcast" and rank >= 1:
            # A free operand of the example's shape, or with a leading 1.
            rest = shape[1:] if draw(st.booleans()) else [1, *shape[1:]]
            t = t * tf.constant(rng.standard_normal(rest).astype(np.float32))
        elif kind == "reduce" and rank >= 1:
            axis = draw(st.integers(-rank, rank - 1))
            keep = draw(st.booleans())
            t = draw(st.sampled_from([tf.reduce_sum, tf.reduce_mean, tf.reduce_max]))(
                t, [axis], keepdims=keep)
            per_example &= axis % rank != 0
        elif kind == "reshape" and rank >= 2:
            t = tf.reshape(t, [-1, int(np.prod(shape[1:]))])
        elif kind == "transpose" and rank >= 2:
            perm = draw(st.permutations(range(rank)))
            t = tf.transpose(t, perm)
            per_example &= perm[0] == 0
        elif kind == "concat" and rank >= 1:
            axis = draw(st.integers(0, rank - 1))
            t = tf.concat([t, t * 2.0], axis)
            per_example &= axis != 0
        elif kind == "expand" and rank <= 3:
            axis = draw(st.integers(0, rank))
            t = tf.expand_dims(t, axis)
            per_example &= axis != 0
            if axis != 0 and draw(st.booleans()):
                t = tf.squeeze(t, [axis])
        elif kind == "matmul" and rank == 2:
            t = tf.matmul(t, tf.constant(rng.standard_normal((shape[1], 3)).astype(np.float32)))
        elif kind == "softmax" and rank >= 1:
            t = tf.nn.softmax(t)
            per_example &= rank >= 2
        elif kind == "argmax" and rank >= 2:
            axis = draw(st.integers(1, rank - 1))
            t = tf.cast(tf.argmax(t, axis), tf.float32)
        elif kind == "shape":
            t = t * tf.reduce_sum(tf.cast(tf.shape(t), tf.float32))  # reads the batch size
            per_example = False
    return t, per_example and len(t.shape.as_list()) >= 1


@settings(max_examples=60, deadline=None)
@given(data=st.data(), batch=st.integers(2, 6))
def test_random_steps_are_cut_exactly_when_per_example_and_agree(data, batch: int) -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 3])
        out, per_example = _random_step(data.draw, x)
        assert (_analyze([out], [x]) is not None) == per_example
        feed = np.random.default_rng(batch).standard_normal((batch, 4, 3)).astype(np.float32)
        with pytest.MonkeyPatch.context() as patch:
            batches = _count_runs(patch)
            whole, runs = _whole_then_cut(patch, out, {x: feed}, threads=3)
    event(f"cut: {per_example}")
    # Three whole runs and two cut into min(3, batch) pieces; none counted when uncuttable.
    assert len(batches) == (3 + 2 * min(3, batch) if per_example else 0)
    for got in runs:
        assert got.shape == whole.shape
        np.testing.assert_allclose(got, whole, rtol=1e-5, atol=1e-5)

"""PartitionedVariables in safe_embedding_lookup_sparse, the Saver and tf.layers, and the
candidate samplers' namedtuples.

Every value, name, checkpoint key and slice spec asserted here was recorded with
TensorFlow 2.21's tf.compat.v1 in graph mode (disable_v2_behavior; tf.layers through
tf_keras 2.21 with TF_USE_LEGACY_KERAS=1) running the same code.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.nn_sampling_api import safe_embedding_lookup_sparse
from tfx.core.api.partitioned_variables_api import PartitionedVariable

# s/emb is [10, 3] in 3 parts (rows 0-3, 4-6, 7-9) holding VALUES.
VALUES = np.arange(30, dtype=np.float32).reshape(10, 3) * 0.5 - 3.0


def _partitioned_emb(parts: int = 3, values: np.ndarray = VALUES) -> PartitionedVariable:
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(parts)):
        return tf.get_variable("emb", list(values.shape), initializer=tf.zeros_initializer())


def _sparse(values: list, dtype: tf.DType) -> tf.SparseTensor:
    indices = [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]]
    return tf.SparseTensor(indices, tf.constant(values, dtype), [4, 3])


# --- safe_embedding_lookup_sparse -----------------------------------------------------

# TF 2.21: a bare PartitionedVariable is looked up as its list of parts, so "mod" reads
# id i from part i % 3, row i // 3; a PartitionedVariable inside a list is one shard
# (converted to its full value), the same for both strategies.
SAFE_LOOKUP_TF = {
    "mod": (
        [[7.5, 8.5, 9.5], [6.0, 6.5, 7.0], [0.0, 0.0, 0.0], [9.0, 10.0, 11.0]],
        [[4.0, 4.5, 5.0], [6.0, 6.5, 7.0], [9.0, 9.5, 10.0], [1.5, 2.0, 2.5]],
    ),
    "div": (
        [[1.5, 2.5, 3.5], [7.5, 8.0, 8.5], [0.0, 0.0, 0.0], [10.5, 11.5, 12.5]],
        [[1.5, 2.0, 2.5], [7.5, 8.0, 8.5], [4.5, 5.0, 5.5], [10.5, 11.0, 11.5]],
    ),
}
SAFE_LOOKUP_LIST_TF = [
    [1.0606601238250732, 1.7677669525146484, 2.4748737812042236], [7.5, 8.0, 8.5],
    [0.0, 0.0, 0.0], [7.424621105194092, 8.131728172302246, 8.838834762573242]]


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_safe_embedding_lookup_sparse_reads_the_parts_of_a_partitioned_variable(
        strategy: str) -> None:
    with tf.Graph().as_default():
        emb = _partitioned_emb()
        ids = _sparse([1, 4, 7, 9, -1, 2], tf.int64)
        weights = _sparse([1.0, 2.0, 0.5, 1.0, 1.0, -1.0], tf.float32)
        summed = safe_embedding_lookup_sparse(emb, ids, None, combiner="sum",
                                              partition_strategy=strategy)
        mean = safe_embedding_lookup_sparse(emb, ids, weights, combiner="mean",
                                            partition_strategy=strategy, default_id=5)
        in_list = safe_embedding_lookup_sparse([emb], ids, None, combiner="sqrtn",
                                               partition_strategy=strategy)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(emb.assign(VALUES))
            got_sum, got_mean, got_list = sess.run([summed, mean, in_list])
    want_sum, want_mean = SAFE_LOOKUP_TF[strategy]
    np.testing.assert_allclose(got_sum, want_sum, rtol=1e-6)
    np.testing.assert_allclose(got_mean, want_mean, rtol=1e-6)
    np.testing.assert_allclose(got_list, SAFE_LOOKUP_LIST_TF, rtol=1e-6)


@settings(max_examples=8, deadline=None)
@given(parts=st.integers(1, 4), strategy=st.sampled_from(["mod", "div"]),
       ids=st.lists(st.integers(-1, 8), min_size=1, max_size=6))
def test_safe_embedding_lookup_sparse_matches_a_numpy_reference(
        parts: int, strategy: str, ids: list[int]) -> None:
    values = np.arange(18, dtype=np.float32).reshape(9, 2)
    sizes = [9 // parts + (1 if p < 9 % parts else 0) for p in range(parts)]
    offsets = np.cumsum([0] + sizes)
    # The row an id reads from the concatenated parts: "div" puts ids in contiguous ranges
    # of the parts' sizes (the full tensor's row), "mod" puts id i in part i % n.
    def row(i: int) -> int:
        return i if strategy == "div" else int(offsets[i % parts]) + i // parts
    want = np.zeros((1, 2), np.float32)
    for i in ids:
        if i >= 0:
            want[0] += values[row(i)]
    with tf.Graph().as_default():
        emb = _partitioned_emb(parts, values)
        sparse_ids = tf.SparseTensor([[0, j] for j in range(len(ids))],
                                     tf.constant(ids, tf.int64), [1, len(ids)])
        looked_up = safe_embedding_lookup_sparse(emb, sparse_ids, combiner="sum",
                                                 partition_strategy=strategy)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(emb.assign(values))
            np.testing.assert_allclose(sess.run(looked_up), want)


# --- Saver ----------------------------------------------------------------------------

def _const(name: str) -> list[bytes]:
    with tf.Session() as sess:
        return sess.run(tf.get_default_graph().get_tensor_by_name(name)).tolist()


def test_saver_saves_a_partitioned_variable_as_slices_of_one_key(tmp_path) -> None:
    with tf.Graph().as_default():
        emb = _partitioned_emb()
        other = tf.get_variable("other", [2], initializer=tf.ones_initializer())
        by_list = tf.train.Saver([emb, other])
        by_key = tf.train.Saver({"k": emb})
        # TF 2.21's SaveV2 constants for the same two savers
        assert _const("save/SaveV2/tensor_names:0") == [b"other", b"s/emb", b"s/emb", b"s/emb"]
        assert _const("save/SaveV2/shape_and_slices:0") == [
            b"", b"10 3 0,4:0,3", b"10 3 4,3:0,3", b"10 3 7,3:0,3"]
        assert _const("save_1/SaveV2/tensor_names:0") == [b"k", b"k", b"k"]
        assert _const("save_1/SaveV2/shape_and_slices:0") == [
            b"10 3 0,4:0,3", b"10 3 4,3:0,3", b"10 3 7,3:0,3"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(emb.assign(VALUES))
            list_path = by_list.save(sess, str(tmp_path / "a"))
            key_path = by_key.save(sess, str(tmp_path / "b"))
    assert sorted(tf.train.list_variables(list_path)) == [("other", [2]), ("s/emb", [10, 3])]
    assert tf.train.list_variables(key_path) == [("k", [10, 3])]
    np.testing.assert_array_equal(tf.train.load_variable(key_path, "k"), VALUES)

    # Restored into two parts (by key, and by name through the default Saver).
    with tf.Graph().as_default():
        halves = _partitioned_emb(parts=2)
        restore_key = tf.train.Saver({"k": halves})
        restore_all = tf.train.Saver()
        with tf.Session() as sess:
            restore_key.restore(sess, key_path)
            assert [p.shape.as_list() for p in halves] == [[5, 3], [5, 3]]
            np.testing.assert_array_equal(sess.run(halves.as_tensor()), VALUES)
            sess.run(halves.assign(np.zeros_like(VALUES)))
            with pytest.raises(tf.errors.NotFoundError):
                restore_all.restore(sess, key_path)  # it holds "k", not "s/emb" / "other"
            restore_all.restore(sess, list_path)
            np.testing.assert_array_equal(sess.run(halves.as_tensor()), VALUES)


def test_saver_refuses_a_partitioned_variable_twice() -> None:
    # TF 2.21: "At least two variables have the same name: s/emb"
    with tf.Graph().as_default():
        emb = _partitioned_emb()
        with pytest.raises(ValueError, match="at least two variables have the name 's/emb'"):
            tf.train.Saver([emb, emb])


# --- tf.layers ------------------------------------------------------------------------

def test_layer_tracks_the_parts_of_a_partitioned_weight_as_tensorflow_does() -> None:
    # TF 2.21 files a layer's weight as trainable only when the variable get_variable
    # returned is in TRAINABLE_VARIABLES; that collection holds a PartitionedVariable's
    # parts, not the object, so tf.layers lists the parts under non_trainable_weights.
    parts = ["s/dense/kernel/part_0:0", "s/dense/kernel/part_1:0",
             "s/dense/bias/part_0:0", "s/dense/bias/part_1:0"]
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
            layer = tf.layers.Dense(4, kernel_regularizer=tf.reduce_sum)
            y = layer(x)
        assert layer.trainable_weights == []
        assert [w.name for w in layer.non_trainable_weights] == parts
        assert [w.name for w in layer.variables] == parts
        assert [v.name for v in tf.trainable_variables()] == parts
        assert isinstance(layer.kernel, PartitionedVariable)
        # one regularization loss per part
        losses = graph.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.name for t in losses] == ["s/dense/kernel/Regularizer/Sum:0",
                                            "s/dense/kernel/Regularizer_1/Sum:0"]
        layer(x)  # a second call reuses the weights and adds no loss
        assert len(graph.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 2
        assert len(layer.variables) == 4
        kernel = np.arange(12, dtype=np.float32).reshape(3, 4)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(layer.kernel.assign(kernel))
            out, total = sess.run([y, tf.add_n(losses)], {x: [[1.0, 2.0, 3.0]]})
    np.testing.assert_allclose(out, [[32.0, 38.0, 44.0, 50.0]])
    assert total == pytest.approx(kernel.sum())


# --- candidate samplers ---------------------------------------------------------------

SAMPLED_FIELDS = ("sampled_candidates", "true_expected_count", "sampled_expected_count")


@pytest.mark.parametrize("sampler, type_name, kwargs", [
    (tf.nn.uniform_candidate_sampler, "UniformCandidateSampler", {"range_max": 10}),
    (tf.nn.log_uniform_candidate_sampler, "LogUniformCandidateSampler", {"range_max": 10}),
    (tf.nn.learned_unigram_candidate_sampler, "LearnedUnigramCandidateSampler",
     {"range_max": 10}),
    (tf.nn.fixed_unigram_candidate_sampler, "FixedUnigramCandidateSampler",
     {"range_max": 3, "unigrams": [1.0, 2.0, 3.0]}),
    (tf.nn.all_candidate_sampler, "AllCandidateSampler", {}),
])
def test_candidate_samplers_return_tensorflows_namedtuples(sampler, type_name, kwargs) -> None:
    with tf.Graph().as_default():
        result = sampler(tf.constant([[1], [2]], tf.int64), 1, 3, True, **kwargs)
        assert type(result).__name__ == type_name
        assert type(result)._fields == SAMPLED_FIELDS
        assert isinstance(result, tuple) and len(result) == 3
        sampled, true_count, sampled_count = result
        assert result.sampled_candidates is sampled is result[0]
        assert result.true_expected_count is true_count
        assert result.sampled_expected_count is sampled_count
        assert result.true_expected_count.shape.as_list() == [2, 1]


def test_sampler_fields_hold_tensorflows_values() -> None:
    with tf.Graph().as_default():
        true_classes = tf.constant([[1], [2]], tf.int64)
        sampled = tf.nn.all_candidate_sampler(true_classes, 1, 3, True)
        hits = tf.nn.compute_accidental_hits(true_classes, sampled.sampled_candidates, 1)
        assert type(hits).__name__ == "ComputeAccidentalHits"
        assert type(hits)._fields == ("indices", "ids", "weights")
        with tf.Session() as sess:
            got, got_hits = sess.run([sampled, hits])
    assert type(got).__name__ == "AllCandidateSampler"
    assert got.sampled_candidates.tolist() == [0, 1, 2]
    assert got.true_expected_count.tolist() == [[1.0], [1.0]]
    assert got.sampled_expected_count.tolist() == [1.0, 1.0, 1.0]
    assert got_hits.indices.tolist() == [0, 1]
    assert got_hits.ids.tolist() == [1, 2]
    np.testing.assert_array_equal(got_hits.weights, np.full(2, -3.4028235e38, np.float32))


def test_a_partitioned_variable_inside_a_list_is_one_shard():
    # TensorFlow 2.21: [pv] is one shard (the concatenated table), a bare pv is its parts.
    row = {0: [0.38692939281463623, 0.3600262403488159, 0.9768795967102051],
           1: [0.0865163803100586, 0.5038012266159058, 0.3585019111633301],
           4: [0.20932388305664062, 0.02714252471923828, 0.4244014024734497],
           9: [0.5076814889907837, 0.344677209854126, 0.48250293731689453]}
    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
            pv = tf.get_variable("emb", [10, 3],
                                 initializer=tf.random_uniform_initializer(seed=3))
        ids = tf.constant([0, 1, 4, 9])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            in_list, bare_mod, bare_div = sess.run([
                tf.nn.embedding_lookup([pv], ids), tf.nn.embedding_lookup(pv, ids),
                tf.nn.embedding_lookup(pv, ids, partition_strategy="div")])
    np.testing.assert_allclose(in_list, [row[0], row[1], row[0], row[4]], rtol=1e-6)
    np.testing.assert_allclose(bare_mod, [row[0], row[0], row[1], row[9]], rtol=1e-6)
    np.testing.assert_allclose(bare_div, in_list, rtol=1e-6)

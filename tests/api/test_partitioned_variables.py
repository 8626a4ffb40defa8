"""Partitioned variables: partitioners, get_variable(partitioner=...), PartitionedVariable.

Every shard count, name, shape, error message and value here was recorded with
TensorFlow 2.21's tf.compat.v1 in graph mode (disable_v2_behavior) running the same
code; the checkpoint tests also run TensorFlow itself in a subprocess when it is
installed. As in TensorFlow, a seeded random initializer draws each piece with the
piece's own shape and the same seed (so the pieces repeat the draw's first rows); it
is not the full tensor's draw sliced. Initializers that use `partition_info`
(variance scaling's fan, identity) see the full shape.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.partitioned_variables_api import (
    PartitionedVariable,
    PartitionInfo,
    create_partitioned_variables,
    fixed_size_partitioner,
    iter_slices,
    min_max_variable_partitioner,
    variable_axis_size_partitioner,
)
from tfx.core.api.variable_scope_api import AUTO_REUSE, get_variable, variable_scope

HAS_TENSORFLOW = importlib.util.find_spec("tensorflow") is not None
F32 = tf.float32

# s/emb: [10, 4], fixed_size_partitioner(3), random_uniform_initializer(-1, 1, seed=7).
EMB_DRAW = np.array([[-0.03211808, 0.01240611, -0.48971248, -0.75051546],
                     [0.8660202, 0.32921863, -0.5415511, 0.6884544],
                     [0.53820705, 0.10224605, 0.8729181, -0.7815435],
                     [0.65480447, -0.6677685, -0.6759684, -0.41057158]], np.float32)
EMB = np.concatenate([EMB_DRAW, EMB_DRAW[:3], EMB_DRAW[:3]])


def shape(dims: list[int | None]) -> tf.TensorShape:
    return tf.TensorShape(dims)


def make_emb() -> PartitionedVariable:
    with variable_scope("s", partitioner=fixed_size_partitioner(3)):
        return get_variable("emb", [10, 4],
                            initializer=tf.random_uniform_initializer(-1, 1, seed=7))


# --- partitioners (TF 2.21's shard counts) --------------------------------------------

def test_fixed_size_partitioner() -> None:
    assert fixed_size_partitioner(3)(shape=shape([10, 4]), dtype=F32) == [3, 1]
    assert fixed_size_partitioner(3)(shape=shape([2, 4]), dtype=F32) == [2, 1]
    assert fixed_size_partitioner(3, axis=1)(shape=shape([10, 4]), dtype=F32) == [1, 3]


@pytest.mark.parametrize("args, dims, dtype, want", [
    ((100,), [10, 4], tf.float32, [2, 1]),
    ((16,), [10, 4], tf.float32, [10, 1]),
    ((1,), [10, 4], tf.float32, [10, 1]),
    ((100, 0, 16, 3), [10, 4], tf.float32, [2, 1]),
    ((64, 1), [10, 4], tf.float64, [1, 4]),
    ((100, 0, 5), [10, 4], tf.string, [2, 1]),
    ((1000,), [10, 4], tf.float32, [1, 1]),
    ((50,), [7, 3], tf.int64, [4, 1]),
])
def test_variable_axis_size_partitioner(args: tuple, dims: list[int], dtype: tf.DType,
                                        want: list[int]) -> None:
    assert variable_axis_size_partitioner(*args)(shape=shape(dims), dtype=dtype) == want


@pytest.mark.parametrize("args, dims, dtype, want", [
    ((4, 0, 64), [10, 4], tf.float32, [3, 1]),
    ((1,), [10, 4], tf.float32, [1, 1]),
    ((100, 0, 16), [10, 4], tf.float32, [10, 1]),
    ((8, 1, 32), [3, 10], tf.float32, [1, 4]),
    ((3, 0, 64, 4), [10, 4], tf.string, [3, 1]),
    ((20, 0, 1), [10, 4], tf.float32, [10, 1]),
    ((10, 0, 40), [10, 4], tf.float64, [8, 1]),
])
def test_min_max_variable_partitioner(args: tuple, dims: list[int], dtype: tf.DType,
                                      want: list[int]) -> None:
    assert min_max_variable_partitioner(*args)(shape=shape(dims), dtype=dtype) == want


def test_partitioner_errors() -> None:
    with pytest.raises(ValueError, match="max_shard_bytes is 0 and bytes_per_string_element "
                                         "is 16"):
        variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="bytes_per_string_element is 0"):
        variable_axis_size_partitioner(10, bytes_per_string_element=0)
    with pytest.raises(ValueError, match="max_shards must be positive."):
        variable_axis_size_partitioner(10, max_shards=-1)
    with pytest.raises(ValueError, match=r"shape is not fully defined: \(\?, 3\)"):
        variable_axis_size_partitioner(10)(shape=shape([None, 3]), dtype=F32)
    with pytest.raises(ValueError, match=r"Can not partition variable along axis 2 when shape "
                                         r"is only \(10, 4\)"):
        min_max_variable_partitioner(2, axis=2)(shape=shape([10, 4]), dtype=F32)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2), st.integers(1, 3))
def test_pieces_tile_the_full_shape(dim: int, count: int, axis: int, rank_extra: int) -> None:
    count = min(count, dim)
    full = [2] * rank_extra + [dim]
    axis = min(axis, len(full) - 1)
    full[axis] = dim
    pieces = list(iter_slices(full, count, axis))
    sizes = [p[1][axis] for p in pieces]
    assert sum(sizes) == dim and max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # the first dim % count get the extra one
    assert [p[0][axis] for p in pieces] == list(np.cumsum([0] + sizes[:-1]))


# --- get_variable with a partitioner -------------------------------------------------

def test_pieces_names_shapes_and_slice_info() -> None:
    emb = make_emb()
    assert isinstance(emb, PartitionedVariable)
    assert (emb.name, emb.shape.as_list(), emb.dtype, len(emb)) == ("s/emb", [10, 4], F32, 3)
    assert emb.get_partitions() == [3, 1] and emb._get_partitions() == [3, 1]
    assert [v.name for v in emb] == ["s/emb/part_0:0", "s/emb/part_1:0", "s/emb/part_2:0"]
    assert [v.shape.as_list() for v in emb.get_variable_list()] == [[4, 4], [3, 4], [3, 4]]
    infos = [v._save_slice_info for v in emb]
    assert [i.spec for i in infos] == ["10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
    assert {i.full_name for i in infos} == {"s/emb"}
    assert [v.name for v in tf.global_variables()] == [v.name for v in emb]
    assert len(tf.trainable_variables()) == 3


def test_initial_values_as_tensorflow(graph: tf.Graph) -> None:
    emb = make_emb()
    glorot = get_variable("glor", [5, 3], initializer=tf.glorot_uniform_initializer(seed=3),
                          partitioner=fixed_size_partitioner(2))
    normal = get_variable("tn", [4, 6], initializer=tf.truncated_normal_initializer(seed=5),
                          partitioner=fixed_size_partitioner(2, axis=1))
    value = get_variable("cst", initializer=tf.constant(np.arange(12, dtype=np.float32)
                                                        .reshape(6, 2)),
                         partitioner=fixed_size_partitioner(4))
    eye = get_variable("iden", [4, 4], initializer=tf.initializers.identity(),
                       partitioner=fixed_size_partitioner(3))
    const = get_variable("ci", [5, 2], initializer=tf.constant_initializer(2.5),
                         partitioner=fixed_size_partitioner(2))
    assert [v.shape.as_list() for v in value] == [[2, 2], [2, 2], [1, 2], [1, 2]]
    assert graph.get_operation_by_name("cst/part_0/PartitionedInitializer/Slice").type == "Slice"
    glorot_draw = [[-0.19584405, -0.24244165, 0.82597965],
                   [-0.7161746, 0.00658393, -0.2450819],
                   [-0.5034658, -0.8190132, -0.13094062]]
    normal_draw = [[-1.1780828, -0.7099414, -1.748158], [-0.49537227, -0.86415327, 1.245701],
                   [-0.9056705, 1.5953234, -0.33712417], [1.2564257, 0.65661585, -0.06814051]]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(emb.as_tensor()), EMB, rtol=1e-6)
        np.testing.assert_allclose(s.run(glorot.as_tensor()), glorot_draw + glorot_draw[:2],
                                   rtol=1e-6)
        np.testing.assert_allclose(s.run(normal.as_tensor()),
                                   np.concatenate([normal_draw, normal_draw], 1), rtol=1e-6)
        assert s.run(value.as_tensor()).tolist() == np.arange(12).reshape(6, 2).tolist()
        assert s.run(eye.as_tensor()).tolist() == np.eye(4).tolist()
        assert s.run(const.as_tensor()).tolist() == [[2.5, 2.5]] * 5


def test_initializers_get_partition_info() -> None:
    def offset_fill(shape: list[int], dtype: tf.DType = None,
                    partition_info: PartitionInfo | None = None) -> tf.Tensor:
        return tf.fill(shape, float(partition_info.single_offset(shape)))

    v = get_variable("pinit", [5, 2], partitioner=fixed_size_partitioner(2),
                     initializer=offset_fill)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(v.as_tensor()).tolist() == [[0, 0]] * 3 + [[3, 3]] * 2
    info = PartitionInfo([10, 4], [4, 0])
    assert (info.full_shape, info.var_offset) == ([10, 4], [4, 0])
    assert info.single_slice_dim([3, 4]) == 0 and info.single_slice_dim([6, 4]) == 0
    with pytest.raises(ValueError, match="would exceed"):
        info.single_slice_dim([7, 4])
    with pytest.raises(ValueError, match="Expected 0 <= offset < shape"):
        PartitionInfo([10, 4], [10, 0])


def test_as_tensor_is_tensorflows_concat() -> None:
    emb = make_emb()
    full = tf.convert_to_tensor(emb)
    assert (full.name, full.op.type) == ("s/emb:0", "Identity")
    concat = full.op.inputs[0].op
    assert concat.name == "s/emb/ConcatPartitions/concat"
    assert [t.name for t in concat.inputs] == [
        "s/emb/part_0/read:0", "s/emb/part_1/read:0", "s/emb/part_2/read:0",
        "s/emb/ConcatPartitions/concat/axis:0"]
    one = get_variable("one", [3, 2], initializer=tf.ones_initializer(),
                       partitioner=fixed_size_partitioner(1))
    single = one.as_tensor()
    assert (single.name, [t.name for t in single.op.inputs]) == ("one:0", ["one/part_0/read:0"])
    with pytest.raises(NotImplementedError, match="used as a reference"):
        tf.convert_to_tensor(emb, as_ref=True)
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        tf.convert_to_tensor(emb, dtype=tf.int32)


def test_assign_splits_the_value() -> None:
    v = get_variable("asg", initializer=tf.constant(np.arange(6.0, dtype=np.float32)),
                     partitioner=fixed_size_partitioner(4))
    assigns = v.assign(tf.constant(np.arange(6.0, dtype=np.float32) * 10))
    assert [a.name for a in assigns] == ["Assign:0", "Assign_1:0", "Assign_2:0", "Assign_3:0"]
    adds = v.assign_add([tf.ones([2]), tf.ones([2]), tf.ones([1]), tf.ones([1])])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert [a.tolist() for a in s.run(assigns)] == [[0, 10], [20, 30], [40], [50]]
        s.run(adds)
        assert s.run(v.as_tensor()).tolist() == [1, 11, 21, 31, 41, 51]
    with pytest.raises(ValueError, match="has 4 parts, but 2 values"):
        v.assign([1.0, 2.0])


# --- reuse and errors (TF 2.21's messages) -------------------------------------------

def test_reuse_finds_the_partitioned_variable() -> None:
    with variable_scope("s", regularizer=tf.nn.l2_loss) as sc:
        emb = get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(3))
        get_variable("plain", [3])
        scalar = get_variable("sca", [], partitioner=fixed_size_partitioner(3))
    assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
        "s/emb/part_0/Regularizer/L2Loss:0", "s/emb/part_1/Regularizer/L2Loss:0",
        "s/emb/part_2/Regularizer/L2Loss:0", "s/plain/Regularizer/L2Loss:0",
        "s/sca/Regularizer/L2Loss:0"]
    assert not isinstance(scalar, PartitionedVariable) and scalar.name == "s/sca:0"
    with variable_scope(sc, reuse=True):
        assert get_variable("emb") is emb
        assert get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(3)) is emb
        assert get_variable("emb/part_0").name == "s/emb/part_0:0"
        with pytest.raises(ValueError, match=r"specified partitions \[2, 1\] and found "
                                             r"partitions \[3, 1\]"):
            get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(2))
        with pytest.raises(ValueError, match=r"specified shape \(10, 5\) and found shape"):
            get_variable("emb", [10, 5])
        with pytest.raises(ValueError, match="PartitionedVariable s/nope does not exist"):
            get_variable("nope", [10, 4], partitioner=fixed_size_partitioner(2))
    with variable_scope(sc):
        with pytest.raises(ValueError, match="Partitioned variable with name s/emb already "
                                             "exists"):
            get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(3))
        with pytest.raises(ValueError, match="No partitioner was provided, but a partitioned "
                                             "version of the variable was found: s/emb/part_0"):
            get_variable("emb", [10, 4])
        with pytest.raises(ValueError, match="A partitioner was provided, but an unpartitioned "
                                             "version of the variable was found: s/plain"):
            get_variable("plain", [3], partitioner=fixed_size_partitioner(3))
    with variable_scope("a", reuse=AUTO_REUSE):
        first = get_variable("x", [6], partitioner=fixed_size_partitioner(2))
        assert get_variable("x", [6], partitioner=fixed_size_partitioner(2)) is first


@pytest.mark.parametrize("partitioner, message", [
    ("p", "Partitioner must be callable, but received: p"),
    (lambda shape, dtype: [2, 2], r"Can only slice a variable along one dimension: shape: "
                                  r"\(10, 4\), partitioning: \[2, 2\]"),
    (lambda shape, dtype: [2], r"does not match the Variable's rank: \[2\] vs. \(10, 4\)"),
    (lambda shape, dtype: [0, 1], r"zero partitions for some axes: \[0, 1\]"),
])
def test_bad_partitioners(partitioner: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_variable("v", [10, 4], partitioner=partitioner)


def test_partitioned_shape_must_be_fully_defined() -> None:
    with pytest.raises(ValueError, match=r"must be fully defined, but instead was \(\?, 4\)"):
        get_variable("v", [None, 4], partitioner=fixed_size_partitioner(2))


# --- create_partitioned_variables -----------------------------------------------------

def test_create_partitioned_variables() -> None:
    whole = create_partitioned_variables([7, 2], [1, 1], tf.ones_initializer())
    assert [(v.name, v.shape.as_list()) for v in whole] == [("PartitionedVariable/part_0:0",
                                                             [7, 2])]
    mine = create_partitioned_variables([7, 2], [3, 1], tf.constant_initializer(2.0),
                                        name="mine")
    assert [(v.name, v.shape.as_list()) for v in mine] == [
        ("mine/part_0:0", [3, 2]), ("mine/part_1:0", [2, 2]), ("mine/part_2:0", [2, 2])]
    with variable_scope("outer"):
        inner = create_partitioned_variables([4], [2], tf.zeros_initializer())
    assert [v.name for v in inner] == ["outer/PartitionedVariable/part_0:0",
                                       "outer/PartitionedVariable/part_1:0"]
    with pytest.raises(ValueError, match=r"must have the length: shape: \[4, 2\], slicing: "
                                         r"\[2\]"):
        create_partitioned_variables([4, 2], [2], tf.zeros_initializer())
    with pytest.raises(ValueError, match=r"must have rank at least 1: shape: \[\]"):
        create_partitioned_variables([], [], tf.zeros_initializer())
    with pytest.raises(ValueError, match="Can only slice a variable along one dimension"):
        create_partitioned_variables([4, 2], [2, 2], tf.zeros_initializer())


# --- lookups, losses and training -----------------------------------------------------

def sparse_ids() -> tf.SparseTensor:
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]],
                           tf.constant([1, 8, 5, 9], tf.int64), [3, 2])


def test_embedding_lookup_mod_and_div() -> None:
    emb = make_emb()
    ids = tf.constant([[0, 9, 3], [7, 4, 4]], tf.int64)
    by_mod = tf.nn.embedding_lookup(emb, ids, partition_strategy="mod")
    by_div = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
    weights = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], [2.0, 0.5, 1.0, 3.0], [3, 2])
    sparse_sum = tf.nn.embedding_lookup_sparse(emb, sparse_ids(), weights, combiner="sum",
                                               partition_strategy="mod")
    sparse_mean = tf.nn.embedding_lookup_sparse(emb, sparse_ids(), None, combiner="mean",
                                                partition_strategy="div")
    # Row i of the full tensor with mod: shard i % 3, row i // 3.
    mod_rows = np.stack([emb_row for emb_row in EMB])[[0, 4, 7, 1, 5, 8, 2, 6, 9, 3]]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got_mod, got_div, got_sum, got_mean = s.run([by_mod, by_div, sparse_sum, sparse_mean])
    np.testing.assert_allclose(got_mod, mod_rows[[[0, 9, 3], [7, 4, 4]]], rtol=1e-6)
    np.testing.assert_allclose(got_div, EMB[[[0, 9, 3], [7, 4, 4]]], rtol=1e-6)
    np.testing.assert_allclose(got_sum, [[0.20486736, 0.07593524, -0.5429659, -1.8918027],
                                         [0.8660202, 0.32921863, -0.5415511, 0.6884544],
                                         [1.9644134, -2.0033054, -2.0279052, -1.2317147]],
                               rtol=1e-6)
    np.testing.assert_allclose(got_mean, [EMB_DRAW[1], EMB_DRAW[1], EMB_DRAW[2]], rtol=1e-6)


def test_gradients_and_training_update_each_piece() -> None:
    emb = make_emb()
    ids = tf.constant([[0, 9, 3], [7, 4, 4]], tf.int64)
    rows = tf.nn.embedding_lookup(emb, ids)
    loss = tf.reduce_sum(rows * tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4)))
    grads = tf.gradients(loss, list(emb))
    assert [type(g).__name__ for g in grads] == ["IndexedSlices"] * 3
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    after = EMB.copy()
    after[[0, 1, 3]] -= 0.5 * np.array([[0, 1, 2, 3], [8, 9, 10, 11], [4, 5, 6, 7]])
    after[[5, 6]] -= 0.5 * np.array([[36, 38, 40, 42], [12, 13, 14, 15]])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        dense = s.run([tf.convert_to_tensor(g) for g in grads])
        assert dense[0].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11], [0] * 4, [4, 5, 6, 7]]
        assert dense[1].tolist() == [[0] * 4, [36, 38, 40, 42], [12, 13, 14, 15]]
        assert dense[2].tolist() == [[0] * 4] * 3
        s.run(train)
        np.testing.assert_allclose(s.run(emb.as_tensor()), after, rtol=1e-6)


def test_sampled_losses_take_a_partitioned_variable() -> None:
    emb = make_emb()
    b = get_variable("b", initializer=tf.constant(np.linspace(-0.5, 0.4, 10)
                                                  .astype(np.float32)),
                     partitioner=fixed_size_partitioner(3))
    x = tf.constant([[0.5, -1.0, 2.0, 0.25], [1.5, 0.5, -0.5, 1.0]])
    labels = tf.constant([[1], [8]], tf.int64)
    sampled = (tf.constant([0, 3, 5, 9], tf.int64), tf.constant([[0.5], [0.25]]),
               tf.constant([0.1, 0.2, 0.3, 0.4]))
    losses = {}
    for strategy in ("mod", "div"):
        losses[f"softmax_{strategy}"] = tf.nn.sampled_softmax_loss(
            emb, b, labels, x, 4, 10, sampled_values=sampled, remove_accidental_hits=False,
            partition_strategy=strategy)
        losses[f"nce_{strategy}"] = tf.nn.nce_loss(
            emb, b, labels, x, 4, 10, sampled_values=sampled, partition_strategy=strategy)
    grads = tf.gradients(tf.reduce_sum(losses["nce_mod"]), list(emb))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(losses)
        dense = s.run([tf.convert_to_tensor(g) for g in grads])
    want = {"softmax_mod": [2.5733767, 3.1770368], "nce_mod": [4.92628, 10.86049],
            "softmax_div": [3.8201218, 0.60827035], "nce_div": [7.293583, 8.570851]}
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(dense[1], [[-0.32309937, 0.64619875, -1.2923975, -0.16154969],
                                          [0] * 4, [0] * 4], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dense[2][2], [-0.2904142, -0.09680474, 0.09680474, -0.19360948],
                               rtol=1e-5)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.sampled_from(["mod", "div"]),
       st.lists(st.integers(0, 11), min_size=1, max_size=6))
def test_lookup_matches_a_numpy_reference(rows: int, shards: int, strategy: str,
                                          ids: list[int]) -> None:
    ids = [i % rows for i in ids]
    full = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
    with tf.Graph().as_default():
        pv = get_variable("p", initializer=tf.constant(full),
                          partitioner=fixed_size_partitioner(shards))
        looked = tf.nn.embedding_lookup(pv, tf.constant(ids, tf.int64),
                                        partition_strategy=strategy)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(looked)
            pieces = [s.run(v) for v in pv]
    n = len(pieces)
    if strategy == "mod":
        want = [pieces[i % n][i // n] for i in ids]
    else:
        starts = np.cumsum([0] + [len(p) for p in pieces])
        want = [pieces[k][i - starts[k]] for i in ids
                for k in [int(np.searchsorted(starts, i, side="right")) - 1]]
    np.testing.assert_array_equal(got, np.array(want).reshape(len(ids), 2))
    np.testing.assert_array_equal(np.concatenate(pieces), full)


# --- checkpoints ----------------------------------------------------------------------

def test_saver_writes_one_key_with_the_full_tensor(tmp_path: Path) -> None:
    emb = make_emb()
    create_partitioned_variables([7, 2], [1, 1], tf.ones_initializer())
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        path = saver.save(s, str(tmp_path / "model"))
        assert tf.train.list_variables(path) == [("PartitionedVariable", [7, 2]),
                                                 ("s/emb", [10, 4])]
        np.testing.assert_allclose(tf.train.load_variable(path, "s/emb"), EMB, rtol=1e-6)
        s.run(emb.assign(tf.zeros([10, 4])))
        saver.restore(s, path)
        np.testing.assert_allclose(s.run(emb.as_tensor()), EMB, rtol=1e-6)


_TF_SCRIPT = """
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tfx_prefix, tf_prefix = sys.argv[1], sys.argv[2]
out = {}
with tf.Graph().as_default():
    emb = tf.get_variable("emb", [10, 4], initializer=tf.zeros_initializer(),
                          partitioner=tf.fixed_size_partitioner(2))
    with tf.Session() as s:
        tf.train.Saver().restore(s, tfx_prefix)
        out["restored"] = s.run(emb.as_tensor()).tolist()
with tf.Graph().as_default():
    emb = tf.get_variable("emb", initializer=-tf.reshape(tf.range(40.0), [10, 4]),
                          partitioner=tf.fixed_size_partitioner(3))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, tf_prefix, write_state=False)
print("RESULT" + json.dumps(out))
"""


@pytest.mark.skipif(not HAS_TENSORFLOW, reason="tensorflow is not installed")
def test_checkpoints_move_between_tfx_and_tensorflow(tmp_path: Path) -> None:
    values = np.arange(40, dtype=np.float32).reshape(10, 4)
    emb = get_variable("emb", initializer=tf.constant(values),
                       partitioner=fixed_size_partitioner(3))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tfx_prefix = tf.train.Saver().save(s, str(tmp_path / "tfx" / "model"),
                                           write_state=False)
    tf_prefix = str(tmp_path / "tf" / "model")
    proc = subprocess.run([sys.executable, "-c", _TF_SCRIPT, tfx_prefix, tf_prefix],
                          capture_output=True, text=True, timeout=300,
                          env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT"))
    assert json.loads(line[len("RESULT"):])["restored"] == values.tolist()
    assert tf.train.list_variables(tf_prefix) == [("emb", [10, 4])]
    with tf.Graph().as_default():
        quarters = get_variable("emb", [10, 4], initializer=tf.zeros_initializer(),
                                partitioner=fixed_size_partitioner(4))
        with tf.Session() as s:
            tf.train.Saver().restore(s, tf_prefix)
            assert s.run(quarters.as_tensor()).tolist() == (-values).tolist()
    assert [v.shape.as_list() for v in emb] == [[4, 4], [3, 4], [3, 4]]

"""tf.feature_column: columns, input_layer, linear_model, make_parse_example_spec, and
the Bucketize and SparseCross kernels under them.

Expected ids, layer outputs and variable names were recorded with TensorFlow 2.21
(tf.compat.v1.feature_column in graph mode, `tf1.disable_v2_behavior()`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api import feature_column_api as fc
from tfx.core.api.feature_column_categorical_api import FeatureBuilder
from tfx.core.api.ops_api import apply_op
from tfx.core.errors import InvalidArgumentError
from tfx.kernels.cpu.feature import fingerprint_cat64
from tfx.kernels.cpu.strings import fingerprint64

# TensorFlow 2.21's dir(tf.compat.v1.feature_column).
TF1_NAMES = [
    "bucketized_column", "categorical_column_with_hash_bucket",
    "categorical_column_with_identity", "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list", "crossed_column", "embedding_column",
    "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
    "numeric_column", "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column",
    "shared_embedding_columns", "weighted_categorical_column",
]

EMBEDDING = np.arange(15, dtype=np.float32).reshape(5, 3) / 10 - 0.5


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, *before):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
        for ops in before:
            sess.run(ops)
        return sess.run(fetches)


def _ids(column, features):
    value = _run(column.get_sparse_tensors(FeatureBuilder(features)).id_tensor)
    return value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()


def _var_names():
    return [(v.name, v.shape.as_list()) for v in tf.global_variables()]


def _cross(ints_or_strings, num_buckets, key=0xDECAFCAFFE):
    value = key
    for f in ints_or_strings:
        value = fingerprint_cat64(value, fingerprint64(f.encode()) if isinstance(f, str)
                                  else f & (2**64 - 1))
    return value % num_buckets


# --- kernels ---------------------------------------------------------------------------


def test_bucketize_kernel():
    x = tf.constant([[-1.0, 0.0, 0.5], [1.0, 2.0, 9.0]])
    out = _run(apply_op("Bucketize", input=x, boundaries=[0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(out, [[0, 1, 1], [2, 3, 3]])
    assert out.dtype == np.int32


def test_bucketize_rejects_unsorted_boundaries():
    y = apply_op("Bucketize", input=tf.constant([1.0]), boundaries=[2.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="Expected sorted boundaries"):
        _run(y)


@settings(deadline=None, max_examples=20)
@given(st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=6),
       st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=4, unique=True))
def test_bucketize_matches_numpy(values, boundaries):
    boundaries = sorted(boundaries)
    with tf.Graph().as_default():
        out = _run(apply_op("Bucketize", input=tf.constant(values, tf.float32),
                            boundaries=boundaries))
    expected = np.searchsorted(np.float32(boundaries), np.float32(values), side="right")
    np.testing.assert_array_equal(out, expected)


def _sparse_cross(sparse, dense, hashed=True, num_buckets=0, hash_key=0xDECAFCAFFE):
    values = [s.values for s in sparse]
    return apply_op(
        "SparseCross", indices=[s.indices for s in sparse], values=values,
        shapes=[s.dense_shape for s in sparse], dense_inputs=dense, N=len(sparse),
        hashed_output=hashed, num_buckets=num_buckets, hash_key=hash_key,
        sparse_types=[v.dtype for v in values], dense_types=[d.dtype for d in dense],
        out_type=tf.int64 if hashed else tf.string, internal_type=tf.string)


def test_sparse_cross_hashed_matches_tensorflow():
    dense = [tf.constant([["x", "y"], ["z", ""]]), tf.constant([["p"], ["q"]])]
    indices, values, shape = _run(_sparse_cross([], dense, num_buckets=1000))
    assert indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert values.tolist() == [452, 734, 751, 679]
    assert shape.tolist() == [2, 2]
    _, values, _ = _run(_sparse_cross([], dense, num_buckets=10**9))
    assert values.tolist() == [998231452, 727121734, 720679751, 285613679]


def test_sparse_cross_strings_sparse_first_then_dense():
    sparse = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 2, 3], tf.int64),
                             [2, 2])
    dense = tf.constant([["a"], ["b"]])
    indices, values, shape = _run(_sparse_cross([sparse], [dense], hashed=False))
    assert indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert values.tolist() == [b"1_X_a", b"2_X_b", b"3_X_b"]
    assert shape.tolist() == [2, 2]


def test_sparse_cross_errors():
    a = tf.constant([["x"], ["y"]])
    b = tf.constant([["x"], ["y"], ["z"]])
    with pytest.raises(InvalidArgumentError, match="Expected batch size 2 got 3"):
        _run(_sparse_cross([], [a, b]))
    with pytest.raises(InvalidArgumentError, match="Dense inputs should be a matrix"):
        _run(_sparse_cross([], [tf.constant(["x", "y"])]))


@settings(deadline=None, max_examples=15)
@given(st.lists(st.lists(st.lists(st.integers(-3, 9), max_size=3), min_size=2, max_size=2),
                min_size=2, max_size=3))
def test_sparse_cross_is_the_product_of_each_rows_features(columns):
    """Per row: every combination, the last input varying fastest, hashed as a chain."""
    with tf.Graph().as_default():
        sparse = []
        for column in columns:
            indices = [[r, k] for r, row in enumerate(column) for k in range(len(row))]
            values = [v for row in column for v in row]
            sparse.append(tf.SparseTensor(np.array(indices, np.int64).reshape(-1, 2),
                                          tf.constant(values, tf.int64), [2, 3]))
        indices, values, shape = _run(_sparse_cross(sparse, [], num_buckets=97))
    expected = [(r, k, _cross(combo, 97)) for r in range(2) for k, combo in
                enumerate(itertools.product(*(c[r] for c in columns)))]
    assert [tuple(i) for i in indices.tolist()] == [(r, k) for r, k, _ in expected]
    assert values.tolist() == [v for _, _, v in expected]
    assert shape.tolist() == [2, max([k + 1 for _, k, _ in expected], default=0)]


# --- categorical columns: ids as TensorFlow gives them ---------------------------------


def test_hash_bucket_ids():
    column = fc.categorical_column_with_hash_bucket("s", 10)
    s = tf.constant([["a", "b"], ["hello", ""]])
    assert _ids(column, {"s": s}) == ([[0, 0], [0, 1], [1, 0]], [9, 2, 6], [2, 2])
    column = fc.categorical_column_with_hash_bucket("s", 1000)
    assert _ids(column, {"s": tf.constant(["x", "y", "zz"])}) == (
        [[0, 0], [1, 0], [2, 0]], [970, 105, 342], [3, 1])
    column = fc.categorical_column_with_hash_bucket("i", 100, dtype=tf.int64)
    ints = tf.constant([[1, 25], [-1, 7]], tf.int64)
    assert _ids(column, {"i": ints}) == ([[0, 0], [0, 1], [1, 1]], [49, 88, 88], [2, 2])


def test_crossed_ids():
    features = {"a": tf.constant([["x", "y"], ["z", ""]]), "b": tf.constant([["p"], ["q"]])}
    assert _ids(fc.crossed_column(["a", "b"], 1000), features) == (
        [[0, 0], [0, 1], [1, 0], [1, 1]], [452, 734, 751, 679], [2, 2])
    ids = fc.categorical_column_with_identity("n", 5)
    features = {"n": tf.constant([[1, 3], [4, -1]], tf.int64),
                "s": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["u", "v", "w"], [2, 2])}
    assert _ids(fc.crossed_column([ids, "s"], 100, hash_key=7), features) == (
        [[0, 0], [0, 1], [1, 0], [1, 1]], [46, 31, 34, 55], [2, 2])


def test_crossed_with_bucketized_and_nested_cross():
    bucketized = fc.bucketized_column(fc.numeric_column("x"), [0.0, 1.0, 2.0])
    column = fc.crossed_column([bucketized, "a", fc.crossed_column(["c", "b"], 10)], 50)
    assert column.name == "a_X_b_X_c_X_x_bucketized"
    # the keys' order (not the name's) is the hash order: here x, a, b, c
    column = fc.crossed_column([bucketized, "a", fc.crossed_column(["b", "c"], 10)], 50)
    features = {"x": tf.constant([[0.5], [2.5]]), "a": tf.constant([["x"], ["y"]]),
                "b": tf.constant([["p"], ["q"]]), "c": tf.constant([[3], [4]], tf.int64)}
    assert _ids(column, features) == ([[0, 0], [1, 0]], [2, 43], [2, 1])


def test_vocabulary_list_ids():
    column = fc.categorical_column_with_vocabulary_list("v", ["apple", "banana"],
                                                        num_oov_buckets=3)
    v = tf.constant([["apple", "kiwi"], ["banana", "zzz"]])
    assert _ids(column, {"v": v}) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 4, 1, 2], [2, 2])
    assert column.num_buckets == 5
    column = fc.categorical_column_with_vocabulary_list("v", [10, 20], num_oov_buckets=4)
    v = tf.constant([[10, 33], [20, 5]], tf.int64)
    assert _ids(column, {"v": v}) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 4, 1, 5], [2, 2])
    column = fc.categorical_column_with_vocabulary_list("v", ["apple", "banana"],
                                                        default_value=7)
    v = tf.constant([["apple", "kiwi"], ["banana", ""]])
    assert _ids(column, {"v": v}) == ([[0, 0], [0, 1], [1, 0]], [0, 7, 1], [2, 2])


def test_vocabulary_file_ids(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\nbanana\ncherry\n")
    column = fc.categorical_column_with_vocabulary_file("v", str(path), num_oov_buckets=2)
    assert column.vocabulary_size == 3 and column.num_buckets == 5
    v = tf.constant([["cherry", "kiwi"], ["apple", ""]])
    assert _ids(column, {"v": v}) == ([[0, 0], [0, 1], [1, 0]], [2, 4, 0], [2, 2])
    column = fc.categorical_column_with_vocabulary_file("v", str(path), vocabulary_size=2)
    assert _ids(column, {"v": v}) == ([[0, 0], [0, 1], [1, 0]], [-1, -1, 0], [2, 2])


def test_identity_and_bucketized_ids():
    column = fc.categorical_column_with_identity("n", 5, default_value=0)
    n = tf.constant([[1, 7], [4, -1]], tf.int64)
    assert _ids(column, {"n": n}) == ([[0, 0], [0, 1], [1, 0]], [1, 0, 4], [2, 2])
    column = fc.bucketized_column(fc.numeric_column("x", shape=2), [0.0, 1.0, 2.0])
    x = tf.constant([[0.5, -1.0], [2.0, 1.0]])
    assert _ids(column, {"x": x}) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 4, 3, 6], [2, 2])
    assert column.num_buckets == 8


def test_identity_out_of_range_fails_at_run_time():
    column = fc.categorical_column_with_identity("n", 3)
    ids = column.get_sparse_tensors(FeatureBuilder({"n": tf.constant([[5]], tf.int64)}))
    with pytest.raises(InvalidArgumentError):
        _run(ids.id_tensor.values)


# --- input_layer -----------------------------------------------------------------------


def _dense_features():
    return {
        "price": tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        "age": tf.constant([17.0, 30.0, 64.0]),
        "ids": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 4], tf.int64),
                               [3, 2]),
        "w": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [2.0, 0.5, 3.0], [3, 2]),
        "color": tf.constant([["R", "G"], ["B", ""], ["X", "R"]]),
    }


def test_input_layer_matches_tensorflow():
    ids = fc.categorical_column_with_identity("ids", 5)
    init = tf.constant_initializer(EMBEDDING)
    columns = [
        fc.numeric_column("price", shape=2, normalizer_fn=lambda x: x * 2.0),
        fc.bucketized_column(fc.numeric_column("age"), [18.0, 30.0, 50.0]),
        fc.embedding_column(ids, 3, initializer=init),
        fc.embedding_column(fc.weighted_categorical_column(ids, "w"), 3, combiner="sqrtn",
                            initializer=init),
        fc.indicator_column(fc.categorical_column_with_vocabulary_list("color",
                                                                       ["R", "G", "B"])),
        fc.embedding_column(fc.categorical_column_with_hash_bucket("color", 5), 3,
                            combiner="sum", initializer=init, max_norm=0.6),
    ]
    assert [c.name for c in columns] == [
        "price", "age_bucketized", "ids_embedding", "ids_weighted_by_w_embedding",
        "color_indicator", "color_embedding"]
    cols_to_vars = {}
    out = fc.input_layer(_dense_features(), columns, cols_to_vars=cols_to_vars)
    assert out.shape.as_list() == [3, 18]
    expected = [
        [1.0, 0.0, 0.0, 0.0, 7.3505402e-02, 2.4188176e-01, 4.1025811e-01, 1.0, 1.0, 0.0,
         9.9999994e-02, 2.0000000e-01, 3.0000001e-01, -9.7014248e-02, 2.4253570e-02,
         1.4552139e-01, 2.0, 4.0],
        [0.0, 0.0, 1.0, 0.0, 2.7350539e-01, 3.4188175e-01, 4.1025811e-01, 0.0, 0.0, 1.0,
         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0, 8.0],
        [0.0, 0.0, 0.0, 1.0, -1.5075871e-01, 2.4704635e-03, 1.5569967e-01, 1.0, 0.0, 0.0,
         7.0000005e-01, 7.9999995e-01, 8.9999998e-01, 7.0000005e-01, 7.9999995e-01,
         8.9999992e-01, 10.0, 12.0]]
    np.testing.assert_allclose(_run(out), expected, rtol=1e-5, atol=1e-7)
    names = ["input_layer/color_embedding/embedding_weights:0",
             "input_layer/ids_embedding/embedding_weights:0",
             "input_layer/ids_weighted_by_w_embedding/embedding_weights:0"]
    assert _var_names() == [(n, [5, 3]) for n in names]
    assert [v.name for v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)] == names
    assert [v.name for v in tf.trainable_variables()] == names
    assert sorted((c.name, [v.name for v in vs]) for c, vs in cols_to_vars.items()) == [
        ("age_bucketized", []), ("color_embedding", [names[0]]), ("color_indicator", []),
        ("ids_embedding", [names[1]]), ("ids_weighted_by_w_embedding", [names[2]]),
        ("price", [])]


def test_input_layer_second_call_and_untrainable():
    ids = fc.categorical_column_with_identity("ids", 5)
    outputs = {}
    fc.input_layer(_dense_features(), [fc.embedding_column(ids, 3), fc.numeric_column("age")],
                   cols_to_output_tensors=outputs)
    assert sorted((c.name, t.shape.as_list()) for c, t in outputs.items()) == [
        ("age", [3, 1]), ("ids_embedding", [None, 3])]
    fc.input_layer(_dense_features(), [fc.embedding_column(ids, 2)], trainable=False)
    assert _var_names() == [("input_layer/ids_embedding/embedding_weights:0", [5, 3]),
                            ("input_layer_1/ids_embedding/embedding_weights:0", [5, 2])]
    assert [v.name for v in tf.trainable_variables()] == [
        "input_layer/ids_embedding/embedding_weights:0"]


def test_default_embedding_initializer_is_truncated_normal():
    column = fc.embedding_column(fc.categorical_column_with_identity("ids", 50), 4)
    fc.input_layer(_dense_features(), [column])
    value = _run(tf.global_variables()[0])
    assert value.shape == (50, 4)
    assert np.all(np.abs(value) <= 2 / np.sqrt(4)) and value.std() > 0.2


def test_dynamic_rank_feature_is_expanded_at_run_time():
    x = tf.placeholder(tf.float32)
    out = fc.input_layer({"x": x}, [fc.numeric_column("x")])
    assert out.shape.as_list() == [None, 1]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {x: [1.0, 2.0]}), [[1.0], [2.0]])
        np.testing.assert_array_equal(sess.run(out, {x: [[1.0], [2.0]]}), [[1.0], [2.0]])
        with pytest.raises(InvalidArgumentError, match=r"Feature \(key: x\) cannot have rank 0"):
            sess.run(out, {x: 3.0})


def test_embedding_from_checkpoint_and_weight_collections(tmp_path):
    with tf.Graph().as_default():
        v = tf.get_variable("old/emb", initializer=tf.constant(EMBEDDING))
        with tf.Session() as sess:
            sess.run(v.initializer)
            prefix = tf.train.Saver([v]).save(sess, str(tmp_path / "model"))
    ids = fc.categorical_column_with_identity("ids", 5)
    column = fc.embedding_column(ids, 3, combiner="sum", ckpt_to_load_from=prefix,
                                 tensor_name_in_ckpt="old/emb", trainable=False)
    features = {"ids": tf.constant([[4, 0], [2, -1]], tf.int64)}
    out = fc.input_layer(features, [column], weight_collections=["mine"])
    np.testing.assert_allclose(_run(out), [EMBEDDING[4] + EMBEDDING[0], EMBEDDING[2]],
                               rtol=1e-6)
    assert [v.name for v in tf.get_collection("mine")] == [
        "input_layer/ids_embedding/embedding_weights:0"]
    assert tf.trainable_variables() == []


def test_partitioned_weights_under_a_partitioner_scope():
    from tfx.core.api.partitioned_variables_api import fixed_size_partitioner

    with tf.variable_scope("s", partitioner=fixed_size_partitioner(2)):
        ids = fc.categorical_column_with_identity("ids", 5)
        features = {"ids": tf.constant([[4, 0], [2, -1]], tf.int64),
                    "x": tf.constant([[1.0], [2.0]])}
        out = fc.input_layer(features, [fc.embedding_column(ids, 3)])
        logits = fc.linear_model(features, [ids, fc.numeric_column("x")], units=2)
    assert _var_names() == [
        ("s/input_layer/ids_embedding/embedding_weights/part_0:0", [3, 3]),
        ("s/input_layer/ids_embedding/embedding_weights/part_1:0", [2, 3]),
        ("s/linear_model/ids/weights/part_0:0", [3, 2]),
        ("s/linear_model/ids/weights/part_1:0", [2, 2]),
        ("s/linear_model/x/weights/part_0:0", [1, 2]),
        ("s/linear_model/bias_weights/part_0:0", [1]),
        ("s/linear_model/bias_weights/part_1:0", [1])]
    assigns = []
    for v in tf.global_variables():
        shape = v.shape.as_list()
        assigns.append(v.assign(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10
                                + len(v.name)))
    emb, lin = _run([out, logits], assigns)
    np.testing.assert_allclose(emb, [[54.15, 54.25, 54.35], [54.6, 54.7, 54.8]], rtol=1e-6)
    np.testing.assert_allclose(lin, [[139.2, 139.5], [137.4, 137.7]], rtol=1e-6)


def test_shared_embedding_columns():
    features = {"a": tf.constant([[1, 2], [0, -1]], tf.int64),
                "b": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([4, 3, 0], tf.int64),
                                     [2, 2])}
    b, a = fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("b", 5), fc.categorical_column_with_identity("a", 5)],
        3, initializer=tf.constant_initializer(EMBEDDING), combiner="sum")
    assert (b.name, a.name) == ("b_shared_embedding", "a_shared_embedding")
    cols_to_vars = {}
    out = fc.input_layer(features, [b, a], cols_to_vars=cols_to_vars)
    np.testing.assert_allclose(_run(out), [
        [-0.099999964, 0.099999994, 0.3, 0.70000005, 0.79999995, 0.9],
        [-0.5, -0.4, -0.3, -0.100000024, 0.099999994, 0.3]], rtol=1e-6)
    name = "input_layer/a_b_shared_embedding/embedding_weights:0"
    assert _var_names() == [(name, [5, 3])]
    assert sorted((c.name, [v.name for v in vs]) for c, vs in cols_to_vars.items()) == [
        ("a_shared_embedding", [name]), ("b_shared_embedding", [])]
    assert [v.name for v in tf.get_collection("a_b_shared_embedding")] == [name]


def test_shared_embedding_columns_must_match():
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 5),
                                     fc.categorical_column_with_identity("b", 4)], 2)
    with pytest.raises(ValueError, match="same type"):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 5),
                                     fc.categorical_column_with_hash_bucket("b", 5)], 2)


def test_input_layer_refuses_categorical_and_duplicates():
    ids = fc.categorical_column_with_identity("ids", 5)
    with pytest.raises(ValueError, match="must be a _DenseColumn"):
        fc.input_layer(_dense_features(), [ids])
    with pytest.raises(ValueError, match="Duplicate feature column name"):
        fc.input_layer(_dense_features(), [fc.numeric_column("age"), fc.numeric_column("age")])
    with pytest.raises(ValueError, match="Expected feature_columns to be non-empty"):
        fc.input_layer(_dense_features(), [])
    with pytest.raises(ValueError, match="Feature nope is not in features dictionary"):
        fc.input_layer(_dense_features(), [fc.numeric_column("nope")])
    with pytest.raises(ValueError, match="SparseTensor is not supported"):
        fc.input_layer(_dense_features(), [fc.numeric_column("w")])
    with pytest.raises(ValueError, match="Batch size"):
        fc.input_layer({"a": tf.constant([1.0, 2.0]), "b": tf.constant([1.0])},
                       [fc.numeric_column("a"), fc.numeric_column("b")])


def test_weighted_indicator_sums_weights():
    column = fc.indicator_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("ids", 5), "w"))
    features = {"ids": tf.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                       tf.constant([1, 1, 4], tf.int64), [2, 2]),
                "w": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2.0, 0.5, 3.0], [2, 2])}
    np.testing.assert_allclose(_run(fc.input_layer(features, [column])),
                               [[0, 2.5, 0, 0, 0], [0, 0, 0, 0, 3.0]])


def _slice_initializer(shape, dtype=None, partition_info=None):
    return tf.constant(np.arange(24, dtype=np.float32).reshape(8, 3)[:shape[0], :shape[1]] / 10
                       - 0.5)


def test_dense_inputs_crosses_and_weights_in_both_layers():
    """Dense ids and weights, crossed indicators, int features: TensorFlow 2.21's values."""
    features = {
        "ids": tf.constant([[1, 2, 0], [3, -1, -1]], tf.int64),
        "w": tf.constant([[0.5, 1.0, 2.0], [1.0, 0.0, 0.0]]),
        "a": tf.constant([["x", "y"], ["z", ""]]),
        "b": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([7, 8, 9], tf.int64), [2, 2]),
        "n": tf.constant([[1, 2], [3, 4]], tf.int32),
        "s": tf.constant(["q", "r"]),
    }
    init = _slice_initializer
    ids = fc.categorical_column_with_identity("ids", 4)
    n = fc.numeric_column("n", shape=2, dtype=tf.int32)
    columns = [
        fc.embedding_column(fc.weighted_categorical_column(ids, "w"), 3, initializer=init),
        fc.indicator_column(fc.crossed_column(["a", "b"], 8)),
        fc.embedding_column(fc.categorical_column_with_hash_bucket("b", 8, dtype=tf.int64), 3,
                            combiner="sqrtn", initializer=init),
        n,
        fc.embedding_column(fc.categorical_column_with_vocabulary_list("s", ["r"],
                                                                       num_oov_buckets=2),
                            3, initializer=init),
        fc.indicator_column(fc.crossed_column([fc.bucketized_column(n, [2, 3]), "s"], 5,
                                              hash_key=3)),
    ]
    out = fc.input_layer(features, columns)
    linear = fc.linear_model(features, [c.categorical_column for c in columns
                                        if hasattr(c, "categorical_column")] + [n],
                             sparse_combiner="sqrtn")
    assert _var_names() == [
        ("input_layer/b_embedding/embedding_weights:0", [8, 3]),
        ("input_layer/ids_weighted_by_w_embedding/embedding_weights:0", [4, 3]),
        ("input_layer/s_embedding/embedding_weights:0", [3, 3]),
        ("linear_model/a_X_b/weights:0", [8, 1]), ("linear_model/b/weights:0", [8, 1]),
        ("linear_model/ids_weighted_by_w/weights:0", [4, 1]),
        ("linear_model/n/weights:0", [2, 1]),
        ("linear_model/n_bucketized_X_s/weights:0", [5, 1]),
        ("linear_model/s/weights:0", [3, 1]), ("linear_model/bias_weights:0", [1])]
    assigns = []
    for v in tf.global_variables():
        if v.name.startswith("linear_model"):
            shape = v.shape.as_list()
            assigns.append(v.assign(np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
                                    / 10 + len(v.name)))
    dense, logits = _run([out, linear], assigns)
    np.testing.assert_allclose(dense, [
        [1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5, -0.4, -0.3, -0.28571, -0.18571,
         -0.08571, 1.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3],
        [0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.98995, 1.13137, 1.27279, 0.4, 0.5, 0.6, 3.0,
         4.0, 1.0, 0.0, 0.0, 0.0, 1.0, -0.5, -0.4, -0.3]], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(logits, [[303.5745849609375], [406.4939880371094]], rtol=1e-6)


def test_linear_model_combiner_is_checked_only_where_used():
    features = {"x": tf.constant([[1.0]]), "ids": tf.constant([[1]], tf.int64)}
    assert fc.linear_model(features, [fc.numeric_column("x")],
                           sparse_combiner="bad").shape.as_list() == [1, 1]
    with pytest.raises(ValueError, match="combiner must be one of"):
        fc.linear_model(features, [fc.categorical_column_with_identity("ids", 3)],
                        sparse_combiner="bad")


# --- linear_model ----------------------------------------------------------------------


def test_linear_model_matches_tensorflow():
    features = {"price": tf.constant([[1.0], [3.0]]),
                "ids": tf.constant([[1, 3], [4, -1]], tf.int64),
                "color": tf.constant([["R"], ["B"]])}
    columns = [fc.numeric_column("price"), fc.categorical_column_with_identity("ids", 5),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                   "color", ["R", "G", "B"]))]
    cols_to_vars = {}
    out = fc.linear_model(features, columns, units=2, cols_to_vars=cols_to_vars,
                          sparse_combiner="mean")
    names = [("linear_model/color_indicator/weights:0", [3, 2]),
             ("linear_model/ids/weights:0", [5, 2]), ("linear_model/price/weights:0", [1, 2]),
             ("linear_model/bias_weights:0", [2])]
    assert _var_names() == names
    assert [v.name for v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)] == [
        n for n, _ in names]
    assert sorted((str(getattr(c, "name", c)), [v.name for v in vs])
                  for c, vs in cols_to_vars.items()) == [
        ("bias", ["linear_model/bias_weights:0"]),
        ("color_indicator", ["linear_model/color_indicator/weights:0"]),
        ("ids", ["linear_model/ids/weights:0"]), ("price", ["linear_model/price/weights:0"])]
    assigns = [v.assign(np.arange(1, np.prod(v.shape.as_list()) + 1, dtype=np.float32)
                        .reshape(v.shape.as_list())) for v in tf.global_variables()]
    np.testing.assert_allclose(_run(out, assigns), [[8.0, 12.0], [18.0, 24.0]])
    np.testing.assert_allclose(_run(out), [[0.0, 0.0], [0.0, 0.0]])
    fc.linear_model(features, columns[:2])
    assert _var_names()[-3:] == [("linear_model_1/ids_1/weights:0", [5, 1]),
                                 ("linear_model_1/price_1/weights:0", [1, 1]),
                                 ("linear_model_1/bias_weights:0", [1])]


def test_linear_model_scope_names_follow_the_calling_scope():
    features = {"price": tf.constant([[1.0], [3.0]]), "q": tf.constant([[1.0], [3.0]])}
    fc.input_layer(features, [fc.numeric_column("price")])
    fc.linear_model(features, [fc.numeric_column("price")])
    fc.linear_model(features, [fc.numeric_column("q")])
    with tf.variable_scope("outer"):
        fc.linear_model(features, [fc.numeric_column("price")])
    assert [n for n, _ in _var_names()] == [
        "linear_model/price/weights:0", "linear_model/bias_weights:0",
        "linear_model_1/q/weights:0", "linear_model_1/bias_weights:0",
        "outer/linear_model/price/weights:0", "outer/linear_model/bias_weights:0"]


def test_linear_model_after_a_scope_of_the_columns_name():
    with tf.variable_scope("price"):
        tf.get_variable("z", [1])
    fc.linear_model({"price": tf.constant([[1.0]])}, [fc.numeric_column("price")])
    assert [n for n, _ in _var_names()] == [
        "price/z:0", "linear_model/price_1/weights:0", "linear_model/bias_weights:0"]


def test_linear_model_bucketized_is_categorical():
    column = fc.bucketized_column(fc.numeric_column("x", shape=2), [0.0, 1.0])
    out = fc.linear_model({"x": tf.constant([[0.5, 3.0], [-1.0, 0.0]])}, [column])
    var = tf.global_variables()[0]
    assert (var.name, var.shape.as_list()) == ("linear_model/x_bucketized/weights:0", [6, 1])
    weights = np.arange(6, dtype=np.float32).reshape(6, 1)
    # row 0: ids 1 and 3 + 2 = 5; row 1: ids 0 and 1 + 3 = 4 (summed)
    np.testing.assert_allclose(_run(out, var.assign(weights)), [[6.0], [4.0]])


# --- sequence columns ------------------------------------------------------------------


def test_sequence_categorical_columns(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\nbanana\ncherry\n")
    columns = [fc.sequence_categorical_column_with_identity("a", 5),
               fc.sequence_categorical_column_with_hash_bucket("h", 7),
               fc.sequence_categorical_column_with_vocabulary_list("v", ["x", "y"],
                                                                   num_oov_buckets=1),
               fc.sequence_categorical_column_with_vocabulary_file("f", str(path))]
    assert [(c.name, c.num_buckets) for c in columns] == [("a", 5), ("h", 7), ("v", 3),
                                                          ("f", 3)]
    assert repr(columns[0]) == ("SequenceCategoricalColumn(categorical_column="
                                "IdentityCategoricalColumn(key='a', number_buckets=5, "
                                "default_value=None))")
    assert columns[3].categorical_column.default_value == -1
    assert fc.make_parse_example_spec(columns) == {
        "a": tf.VarLenFeature(tf.int64), "h": tf.VarLenFeature(tf.string),
        "v": tf.VarLenFeature(tf.string), "f": tf.VarLenFeature(tf.string)}
    features = {"a": tf.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                     tf.constant([1, 3, 4], tf.int64), [2, 2]),
                "h": tf.constant([["p", "q"], ["r", ""]])}
    indices = [[0, 0, 0], [0, 1, 0], [1, 0, 0]]
    assert _ids(columns[0], features) == (indices, [1, 3, 4], [2, 2, 1])
    assert _ids(columns[1], features) == (indices, [0, 1, 4], [2, 2, 1])


def test_sequence_columns_in_the_layers():
    ids = fc.sequence_categorical_column_with_identity("a", 5)
    features = {"a": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 4], tf.int64),
                                     [2, 2])}
    with pytest.raises(ValueError, match="In embedding_column: a_embedding. categorical_column "
                                         "must not be of type _SequenceCategoricalColumn"):
        fc.input_layer(features, [fc.embedding_column(ids, 2)])
    with pytest.raises(ValueError, match="In indicator_column: a_indicator"):
        fc.input_layer(features, [fc.indicator_column(ids)])
    other = fc.sequence_categorical_column_with_identity("b", 5)
    with pytest.raises(ValueError, match="use sequence_input_layer instead of input_layer"):
        fc.input_layer(features, fc.shared_embedding_columns([ids, other], 2))
    numeric = fc.sequence_numeric_column("n", shape=2)
    with pytest.raises(ValueError, match="Items of feature_columns must be a _FeatureColumn"):
        fc.input_layer({"n": tf.constant([[1.0, 2.0]])}, [numeric])
    with pytest.raises(ValueError, match="All feature_columns must be _FeatureColumn"):
        fc.make_parse_example_spec([numeric])
    out = fc.linear_model(features, [ids])
    assert [n for n, _ in _var_names()] == ["linear_model/a/weights:0",
                                             "linear_model/bias_weights:0"]
    var = tf.global_variables()[0]
    weights = np.arange(5, dtype=np.float32).reshape(5, 1)
    np.testing.assert_allclose(_run(out, var.assign(weights)), [[4.0], [4.0]])


def test_sequence_numeric_column():
    column = fc.sequence_numeric_column("n", shape=2)
    assert repr(column) == ("SequenceNumericColumn(key='n', shape=(2,), default_value=0.0, "
                            "dtype=tfx.float32, normalizer_fn=None)")
    assert column.parse_example_spec == {"n": tf.VarLenFeature(tf.float32)}
    with pytest.raises(ValueError, match="shape dimensions must be greater than 0"):
        fc.sequence_numeric_column("n", shape=0)
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.sequence_numeric_column("n", dtype=tf.string)
    with pytest.raises(TypeError, match="normalizer_fn must be a callable"):
        fc.sequence_numeric_column("n", normalizer_fn=1)


# --- parse spec, parse_example and the namespace ---------------------------------------


def test_make_parse_example_spec():
    spec = fc.make_parse_example_spec([
        fc.numeric_column("a", shape=(2,), default_value=1.0),
        fc.embedding_column(fc.crossed_column(["x", fc.categorical_column_with_identity("y", 3)],
                                              10), 2),
        fc.weighted_categorical_column(
            fc.categorical_column_with_hash_bucket("h", 4, dtype=tf.int64), "hw")])
    assert spec == {"a": tf.FixedLenFeature((2,), tf.float32, (1.0, 1.0)),
                    "x": tf.VarLenFeature(tf.string), "y": tf.VarLenFeature(tf.int64),
                    "h": tf.VarLenFeature(tf.int64), "hw": tf.VarLenFeature(tf.float32)}
    with pytest.raises(ValueError, match="different parse_spec for key a"):
        fc.make_parse_example_spec([fc.numeric_column("a"), fc.numeric_column("a", shape=2)])


def test_parse_example_feeds_input_layer():
    def example(price, colors):
        return tf.train.Example(features=tf.train.Features(feature={
            "price": tf.train.Feature(float_list=tf.train.FloatList(value=price)),
            "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
        })).SerializeToString()

    columns = [fc.numeric_column("price", shape=2),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                   "color", ["R", "G", "B"]))]
    serialized = tf.constant([example([1.0, 2.0], [b"R", b"B"]), example([3.0, 4.0], [b"G"])])
    features = tf.parse_example(serialized, fc.make_parse_example_spec(columns))
    np.testing.assert_allclose(_run(fc.input_layer(features, columns)),
                               [[1, 0, 1, 1, 2], [0, 1, 0, 3, 4]])


def test_column_values_compare_and_print_like_tensorflow():
    assert fc.numeric_column("a", shape=2, default_value=1.0) == fc.numeric_column(
        "a", shape=(2,), default_value=(1.0, 1.0))
    assert repr(fc.categorical_column_with_identity("y", 3)) == (
        "IdentityCategoricalColumn(key='y', number_buckets=3, default_value=None)")
    assert fc.numeric_column("a", default_value=3).default_value == (3,)


def test_constructor_errors():
    with pytest.raises(ValueError, match="key must be a string"):
        fc.numeric_column(1)
    with pytest.raises(ValueError, match="shape dimensions must be greater than 0"):
        fc.numeric_column("a", shape=(0,))
    with pytest.raises(TypeError, match="normalizer_fn must be a callable"):
        fc.numeric_column("a", normalizer_fn=3)
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.numeric_column("a", dtype=tf.string)
    with pytest.raises(ValueError, match="The shape of default_value must be equal"):
        fc.numeric_column("a", shape=2, default_value=[1.0])
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("a"), [1.0, 1.0])
    with pytest.raises(ValueError, match="must be one-dimensional"):
        fc.bucketized_column(fc.numeric_column("a", shape=(2, 2)), [1.0])
    with pytest.raises(ValueError, match="num_buckets 0 < 1"):
        fc.categorical_column_with_identity("a", 0)
    with pytest.raises(ValueError, match=r"default_value 5 not in range \[0, 5\)"):
        fc.categorical_column_with_identity("a", 5, default_value=5)
    with pytest.raises(ValueError, match="Duplicate keys in vocabulary_list"):
        fc.categorical_column_with_vocabulary_list("a", ["x", "x"])
    with pytest.raises(ValueError, match="Can't specify both num_oov_buckets"):
        fc.categorical_column_with_vocabulary_list("a", ["x"], default_value=2,
                                                   num_oov_buckets=1)
    with pytest.raises(ValueError, match="does not exist"):
        fc.categorical_column_with_vocabulary_file("a", "/nonexistent/vocab.txt")
    with pytest.raises(ValueError, match="hash_bucket_size must be at least 1"):
        fc.categorical_column_with_hash_bucket("a", 0)
    with pytest.raises(ValueError, match="keys must be a list with length > 1"):
        fc.crossed_column(["a"], 10)
    with pytest.raises(ValueError, match="categorical_column_with_hash_bucket is not supported"):
        fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("b", 3)], 10)
    with pytest.raises(ValueError, match="Invalid dimension 0"):
        fc.embedding_column(fc.categorical_column_with_identity("a", 3), 0)
    with pytest.raises(ValueError, match="Must specify both `ckpt_to_load_from`"):
        fc.embedding_column(fc.categorical_column_with_identity("a", 3), 2,
                            ckpt_to_load_from="x")
    with pytest.raises(ValueError, match="is not convertible to float"):
        fc.weighted_categorical_column(fc.categorical_column_with_identity("a", 3), "w",
                                       dtype=tf.string)


def test_dtype_mismatch_at_transform():
    column = fc.categorical_column_with_vocabulary_list("v", ["a"])
    with pytest.raises(ValueError, match="Column dtype and SparseTensors dtype"):
        column.get_sparse_tensors(FeatureBuilder({"v": tf.constant([[1]], tf.int64)}))
    column = fc.categorical_column_with_identity("v", 3)
    with pytest.raises(ValueError, match="Invalid input, not integer"):
        column.get_sparse_tensors(FeatureBuilder({"v": tf.constant([["a"]])}))


def test_namespace_holds_tensorflows_names():
    assert sorted(fc.FEATURE_COLUMN_NAMESPACE) == TF1_NAMES

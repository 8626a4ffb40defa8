"""int64 shape arguments to tf.fill, tf.zeros, tf.ones, tf.reshape and tf.tile, and lists that
mix int64 tensors with Python numbers, built and run as TensorFlow 2.21 builds and runs them.

The graphs (node names, ops, input wiring and types) and the values below were recorded with
TensorFlow 2.21's tf.compat.v1 in graph mode on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf
from tfx.core.errors import InvalidArgumentError

I32, I64, F32 = 3, 9, 1  # DataType enum values


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def i64(value):
    return tf.constant(value, tf.int64)


def nodes():
    """(name, op, inputs, the node's T / DstT / dtype attr) of each node, as recorded."""
    return [(n.name, n.op, list(n.input),
             n.attr["T"].type or n.attr["DstT"].type or n.attr["dtype"].type)
            for n in tf.get_default_graph().as_graph_def().node]


def value(t):
    with tf.Session() as sess:
        return sess.run(t).tolist()


# fmt: off
GRAPH_CASES = {
    "fill_int64_scalar_in_list": (
        lambda: tf.fill([i64(2), 3], 1.0),
        [("Const", "Const", [], I64), ("Fill/dims/1", "Const", [], I64),
         ("Fill/dims", "Pack", ["Const", "Fill/dims/1"], I64), ("Fill/value", "Const", [], F32),
         ("Fill", "Fill", ["Fill/dims", "Fill/value"], F32)],
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
    "reshape_int64_and_minus_one": (
        lambda: tf.reshape([1, 2, 3, 4], [i64(2), -1]),
        [("Const", "Const", [], I64), ("Reshape/tensor", "Const", [], I32),
         ("Reshape/shape/1", "Const", [], I64),
         ("Reshape/shape", "Pack", ["Const", "Reshape/shape/1"], I64),
         ("Reshape", "Reshape", ["Reshape/tensor", "Reshape/shape"], I32)],
        [[1, 2], [3, 4]]),
    "zeros_casts_int64_list_to_int32": (
        lambda: tf.zeros([i64(2), i64(3)]),
        [("Const", "Const", [], I64), ("Const_1", "Const", [], I64),
         ("zeros/Cast", "Cast", ["Const"], I32), ("zeros/Cast_1", "Cast", ["Const_1"], I32),
         ("zeros/packed", "Pack", ["zeros/Cast", "zeros/Cast_1"], I32),
         ("zeros/Const", "Const", [], F32),
         ("zeros", "Fill", ["zeros/packed", "zeros/Const"], F32)],
        [[0.0] * 3] * 2),
    "tile_int64_in_list": (
        lambda: tf.tile([[1]], [i64(2), 1]),
        [("Const", "Const", [], I64), ("Tile/input", "Const", [], I32),
         ("Tile/multiples/1", "Const", [], I64),
         ("Tile/multiples", "Pack", ["Const", "Tile/multiples/1"], I64),
         ("Tile", "Tile", ["Tile/input", "Tile/multiples"], I32)],
        [[1], [1]]),
    "nested_list_takes_the_tensor_type": (
        lambda: tf.convert_to_tensor([[i64(2)], [3]]),
        [("Const", "Const", [], I64), ("packed/0", "Pack", ["Const"], I64),
         ("packed/1_1", "Const", [], I64), ("packed", "Pack", ["packed/0", "packed/1_1"], I64)],
        [[2], [3]]),
    "dtype_hint_casts": (
        lambda: tf.convert_to_tensor([i64(2), 3], dtype_hint=tf.int32),
        [("Const", "Const", [], I64), ("Cast", "Cast", ["Const"], I32),
         ("packed/1", "Const", [], I32), ("packed", "Pack", ["Cast", "packed/1"], I32)],
        [2, 3]),
    "zeros_of_int64_scalar": (
        lambda: tf.zeros(i64(3)),
        [("Const", "Const", [], I64), ("zeros/Reshape/shape", "Const", [], I32),
         ("zeros/Reshape", "Reshape", ["Const", "zeros/Reshape/shape"], I64),
         ("zeros/Const", "Const", [], F32),
         ("zeros", "Fill", ["zeros/Reshape", "zeros/Const"], F32)],
        [0.0, 0.0, 0.0]),
    "ones_of_int64_vector": (
        lambda: tf.ones(i64([2, 1])),
        [("Const", "Const", [], I64), ("ones/Const", "Const", [], F32),
         ("ones", "Fill", ["Const", "ones/Const"], F32)],
        [[1.0], [1.0]]),
}
# name -> (fetch, TensorFlow 2.21's value)
VALUE_CASES = {
    "fill_int64_vector": (lambda: tf.fill(i64([2, 3]), 1.0), [[1.0] * 3] * 2),
    "fill_two_int64_scalars": (lambda: tf.fill([i64(2), i64(3)], 1.0), [[1.0] * 3] * 2),
    "fill_numpy_int64": (lambda: tf.fill(np.array([2, 3], np.int64), 1.0), [[1.0] * 3] * 2),
    "ones_int64_vector_int32": (lambda: tf.ones(i64([2]), tf.int32), [1, 1]),
    "ones_int64_list": (lambda: tf.ones([i64(2)]), [1.0, 1.0]),
    "zeros_of_int64_shape": (
        lambda: tf.zeros(tf.shape(tf.ones([2, 2]), out_type=tf.int64)), [[0.0, 0.0]] * 2),
    "reshape_int64_list": (lambda: tf.reshape([1, 2, 3, 4], [i64(2), i64(2)]), [[1, 2], [3, 4]]),
    "reshape_int64_vector": (lambda: tf.reshape([1, 2, 3, 4], i64([2, -1])), [[1, 2], [3, 4]]),
    "tile_int64_vector": (lambda: tf.tile([[1, 2]], i64([2, 1])), [[1, 2], [1, 2]]),
    "tile_numpy_int64": (lambda: tf.tile([[1, 2]], np.array([1, 2], np.int64)), [[1, 2, 1, 2]]),
    "broadcast_to_int64": (lambda: tf.broadcast_to(1.0, i64([2, 2])), [[1.0, 1.0]] * 2),
    "add_packs_as_int64": (lambda: tf.add([i64(1), 2], 1), [2, 3]),
}
# fmt: on


@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
def test_graph_and_value_are_tensorflows(name):
    build, graph, expected = GRAPH_CASES[name]
    result = build()
    assert nodes() == graph
    assert value(result) == expected


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_value_is_tensorflows(name):
    build, expected = VALUE_CASES[name]
    assert value(build()) == expected


def test_int64_placeholders_feed_fill_zeros_and_ones():
    dims = tf.placeholder(tf.int64, [2])
    n = tf.placeholder(tf.int64, [])
    fetches = [tf.fill(dims, 7), tf.fill([n, 2], 1.5), tf.zeros([n, 3], tf.int32), tf.ones(dims)]
    assert [f.shape.as_list() for f in fetches] == [[None, None], [None, 2], [None, 3],
                                                    [None, None]]
    with tf.Session() as sess:
        got = sess.run(fetches, {dims: [2, 1], n: 3})
        assert [g.tolist() for g in got] == [
            [[7], [7]], [[1.5, 1.5]] * 3, [[0, 0, 0]] * 3, [[1.0], [1.0]]]
        with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
            sess.run(fetches[0], {dims: [-1, 2]})


def test_errors_are_tensorflows():
    # TensorFlow 2.21: a list whose tensors differ in type is a TypeError naming both types
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype "
                                        "tfx.int64 to tfx.int32"):
        tf.fill([tf.constant(2), i64(3)], 1.0)
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        tf.zeros([tf.constant(2), i64(3)])
    with pytest.raises(TypeError):
        tf.convert_to_tensor([i64(2), 3.5])  # TF: Expected int64, but got 3.5
    # a scalar is not a shape for Fill itself (tf.zeros/ones reshape it first), as in TF
    with pytest.raises(ValueError, match="rank 1"):
        tf.fill(i64(3), 1.0)
    with pytest.raises(ValueError, match="rank 1"):
        tf.fill(tf.constant([[2]], tf.int64), 1.0)
    with pytest.raises(TypeError):
        tf.fill(tf.constant([2.0]), 1.0)

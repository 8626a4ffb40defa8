"""tf.einsum builds Einsum nodes (as TensorFlow 2.21's tf.compat.v1.einsum does) and its
gradient (TensorFlow's _EinsumGrad) matches central finite differences of
sum(einsum(...) * W), for diagonals, reductions, broadcasting and output diagonals."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf
from tfx.core.api.ops_api import apply_op

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("i->ii", [(3,)]),
    ("abc->ca", [(2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (7, 3, 4)]),
    ("...i,i->...", [(2, 3), (3,)]),
    ("bij,bjk->b", [(2, 2, 3), (2, 3, 2)]),
    ("ij,kl->ijkl", [(2, 2), (2, 3)]),
    ("aij,jk->k", [(2, 2, 3), (3, 2)]),
]


def _grads(equation, values, weights):
    with tf.Graph().as_default():
        xs = [tf.constant(v) for v in values]
        # The raw op: tf.einsum (as TensorFlow's) refuses i->ii, which only gradients build.
        y = apply_op("Einsum", inputs=xs, equation=equation)
        loss = tf.reduce_sum(y * tf.constant(weights))
        with tf.Session() as sess:
            return sess.run(tf.gradients(loss, xs))


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(equation, shapes):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s) for s in shapes]
    out = _numpy_einsum(equation, values)
    weights = rng.standard_normal(out.shape)
    got = _grads(equation, values, weights)
    for k, value in enumerate(values):
        expected = np.zeros(value.shape)
        for index in np.ndindex(value.shape):
            plus = [v.copy() for v in values]
            minus = [v.copy() for v in values]
            plus[k][index] += 1e-6
            minus[k][index] -= 1e-6
            change = _numpy_einsum(equation, plus) - _numpy_einsum(equation, minus)
            expected[index] = np.sum(change * weights) / 2e-6
        np.testing.assert_allclose(got[k], expected, rtol=1e-5, atol=1e-6)


def _numpy_einsum(equation, values):
    """np.einsum, with i->ii (which numpy lacks) as a diagonal matrix."""
    if equation == "i->ii":
        return np.diag(values[0])
    return np.einsum(equation, *values)


def test_einsum_builds_einsum_nodes():
    with tf.Graph().as_default() as graph:
        a, b = tf.ones([2, 3]), tf.ones([3, 4])
        c = tf.einsum("i j,jk", a, b)
        d = tf.linalg.einsum("ij->ji", a, name="foo")
        assert (c.op.name, c.op.type, c.op.get_attr("equation")) == ("einsum/Einsum", "Einsum",
                                                                   "ij,jk->ik")
        assert d.op.name == "foo/Einsum" and d.shape.as_list() == [3, 2]
        e = tf.einsum("ij,jk,kl->il", a, b, tf.ones([4, 5]))
        assert e.shape.as_list() == [2, 5]
        assert [op.type for op in graph.get_operations()].count("Einsum") == 4
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(e), np.full((2, 5), 12.0))


@pytest.mark.parametrize("equation,message", [
    ("ij,jk->iik", "Output subscripts contain a label appearing more than once"),
    ("ij,jk->il", "Output subscripts contain the label l not present"),
    ("i1,jk->ik", "Subscripts have incorrect format: i1,jk->ik"),
    ("ij->ij", 'Got 2 inputs for equation "ij->ij", expecting 1'),
])
def test_einsum_rejects_what_tensorflow_rejects(equation, message):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        tf.einsum(equation, tf.ones([2, 3]), tf.ones([3, 4]))


def test_einsum_rejects_unknown_keywords():
    with tf.Graph().as_default(), pytest.raises(TypeError, match="Invalid keyword arguments"):
        tf.einsum("ij->ji", tf.ones([2, 3]), foo=1)


def _arange(shape, scale=1.0, shift=0.0):
    return np.arange(float(np.prod(shape))).reshape(shape) * scale + shift


def _upstream(shape):
    return np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) * 0.5 - 1.0


# Gradients TensorFlow 2.21 computes with tf.compat.v1.gradients(einsum(eq, *xs), xs,
# grad_ys=_upstream(output shape)), for these inputs.
TF_GRADIENTS = [
    ("ij,jk->ik", [_arange((2, 3), shift=-2), _arange((3, 4), 0.5, -1)], (2, 4), [
        [[1, 3, 5], [-1, 17, 35]],
        [[2.5, 2, 1.5, 1], [3.5, 4, 4.5, 5], [4.5, 6, 7.5, 9]],
    ]),
    ("...ij,...jk->...ik", [_arange((2, 1, 2, 3), 0.25, -1), _arange((3, 3, 2), shift=-4)],
     (2, 3, 2, 2), [
        [[[[75, 96, 117], [90, 123, 156]]], [[[165, 258, 351], [180, 285, 390]]]],
        [[[11.25, 11.5], [14.25, 15], [17.25, 18.5]],
         [[12.25, 12.5], [17.25, 18], [22.25, 23.5]],
         [[13.25, 13.5], [20.25, 21], [27.25, 28.5]]],
    ]),
    ("ij->", [_arange((2, 3))], (), [np.full((2, 3), -0.5)]),
    ("ii->i", [_arange((3, 3))], (3,), [[[-0.5, 0, 0], [0, 0, 0], [0, 0, 0.5]]]),
    ("ij->ji", [_arange((2, 3))], (3, 2), [[[-0.5, 0.5, 1.5], [0, 1, 2]]]),
    ("i,j->ij", [np.array([1.0, 2, 3]), np.array([-1.0, 0.5])], (3, 2),
     [[0.5, 0, -0.5], [5, 8]]),
]


@pytest.mark.parametrize("equation,values,out_shape,expected", TF_GRADIENTS,
                         ids=[c[0] for c in TF_GRADIENTS])
def test_gradient_values_match_tensorflow(equation, values, out_shape, expected):
    with tf.Graph().as_default():
        xs = [tf.constant(v) for v in values]
        y = tf.einsum(equation, *xs)
        grads = tf.gradients(y, xs, grad_ys=tf.constant(_upstream(out_shape)))
        with tf.Session() as sess:
            got = sess.run(grads)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, np.asarray(e, np.float64))


def test_complex_gradient_conjugates_the_other_operand_as_tensorflow():
    a = np.array([[1 + 2j, 3 - 1j, 0.5j], [2, -1 + 1j, 1]], np.complex64)
    b = np.array([[1 - 1j, 2], [0.5 + 0.5j, -1j], [3, 1 + 1j]], np.complex64)
    upstream = np.array([[1 + 1j, 2], [-1j, 0.5]], np.complex64)
    with tf.Graph().as_default():
        xs = [tf.constant(a), tf.constant(b)]
        grads = tf.gradients(tf.einsum("ij,jk->ik", *xs), xs, grad_ys=tf.constant(upstream))
        with tf.Session() as sess:
            da, db = sess.run(grads)
    # TensorFlow 2.21's values.
    np.testing.assert_array_equal(da, np.array([[4 + 2j, 1 + 2j, 5 + 1j],
                                                [2 - 1j, -0.5, 0.5 - 3.5j]], np.complex64))
    np.testing.assert_array_equal(db, np.array([[3 - 3j, 3 - 4j], [1 + 5j, 5.5 + 1.5j],
                                                [0.5 - 1.5j, 0.5 - 1j]], np.complex64))
    assert da.dtype == np.complex64 and db.dtype == np.complex64

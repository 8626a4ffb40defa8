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

"""The Einsum kernel against np.einsum on random equations, TensorFlow 2.21's values for
the forms numpy lacks or treats differently (repeated output labels, non-letter labels),
its error messages, and the Einsum shape function.

The TF_* values and messages were recorded with tf.raw_ops.Einsum (CPU) and graph-mode
shape inference in TensorFlow 2.21 on the same inputs.
"""

from __future__ import annotations

import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_checks import run1

import tfx as tf
from tfx.core.errors import InvalidArgumentError

FAST = settings(max_examples=60, deadline=None)


def arange(*shape, dtype=np.float32) -> np.ndarray:
    return (np.arange(np.prod(shape)).reshape(shape) + 1).astype(dtype)


@st.composite
def equations(draw):
    """One or two operands over labels a-e (diagonals included), an optional shared
    ellipsis, and an output of distinct labels drawn from the inputs'."""
    sizes = {c: draw(st.integers(1, 3)) for c in "abcde"}
    count = draw(st.integers(1, 2))
    ellipsis = draw(st.booleans())
    bcast = draw(st.lists(st.integers(1, 3), max_size=2))
    subs, arrays = [], []
    for _ in range(count):
        labels = draw(st.lists(st.sampled_from("abcde"), max_size=4))
        own = [d if draw(st.booleans()) else 1 for d in bcast] if ellipsis else []
        own = own[draw(st.integers(0, len(own))):]
        at = draw(st.integers(0, len(labels)))
        shape = [sizes[c] for c in labels[:at]] + own + [sizes[c] for c in labels[at:]]
        subs.append("".join(labels[:at]) + ("..." if ellipsis else "") + "".join(labels[at:]))
        rng = np.random.default_rng(draw(st.integers(0, 2**31)))
        arrays.append(rng.standard_normal(shape))
    seen = sorted(set("".join(subs).replace(".", "")))
    out = draw(st.permutations(seen))[:draw(st.integers(0, len(seen)))]
    if ellipsis:
        out.insert(draw(st.integers(0, len(out))), "...")
    return ",".join(subs) + "->" + "".join(out), arrays


@FAST
@given(equations())
def test_matches_numpy_einsum(case):
    equation, arrays = case
    got = run1("Einsum", *arrays, equation=equation)
    np.testing.assert_allclose(got, np.einsum(equation, *arrays), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64,
                                   np.complex64, np.complex128])
def test_types_keep_their_dtype(dtype):
    got = run1("Einsum", *[arange(2, 3, dtype=dtype), arange(3, 4, dtype=dtype)],
               equation="ij,jk->ik")
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, [[38, 44, 50, 56], [83, 98, 113, 128]])


# fmt: off
TF_VALUES = [
    # A label repeated in the output puts the values on the diagonal (numpy refuses it).
    ("i->ii", [arange(3)], [[1, 0, 0], [0, 2, 0], [0, 0, 3]]),
    ("ij,jk->iik", [arange(2, 3), arange(3, 4)],
     [[[38, 44, 50, 56], [0, 0, 0, 0]], [[0, 0, 0, 0], [83, 98, 113, 128]]]),
    # Any character is a label.
    ("i1->1", [arange(2, 3)], [5, 7, 9]),
    ("iij->ji", [arange(3, 3, 2)], [[1, 9, 17], [2, 10, 18]]),
    ("ii->", [arange(3, 3)], 15),
    ("ii->i", [arange(3, 3)], [1, 5, 9]),
    ("ij->", [arange(2, 3)], 21),
    ("ba->ab", [arange(2, 3)], [[1, 4], [2, 5], [3, 6]]),
    ("a...a->a...", [arange(2, 3, 2)], [[1, 3, 5], [8, 10, 12]]),
    ("i...->...", [arange(2, 3, 4)],
     [[14, 16, 18, 20], [22, 24, 26, 28], [30, 32, 34, 36]]),
    ("...i,...i->...", [arange(2, 1, 3), arange(4, 3)], [[14, 32, 50, 68], [32, 77, 122, 167]]),
    ("...ij,...jk->...ik", [arange(2, 3), arange(3, 4)], [[38, 44, 50, 56], [83, 98, 113, 128]]),
    ("ij,jk->ik", [np.zeros((2, 0), np.float32), np.zeros((0, 4), np.float32)], np.zeros((2, 4))),
    ("i,i->", [np.zeros(0, np.float32), np.zeros(0, np.float32)], 0),
]
# fmt: on


@pytest.mark.parametrize("equation,inputs,expected", TF_VALUES, ids=[c[0] for c in TF_VALUES])
def test_tensorflow_values(equation, inputs, expected):
    got = run1("Einsum", *inputs, equation=equation)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def test_batch_matmul_broadcasts_the_ellipsis():
    x, y = arange(5, 1, 2, 3), arange(7, 3, 4)
    got = run1("Einsum", *[x, y], equation="...ij,...jk->...ik")
    assert got.shape == (5, 7, 2, 4)
    np.testing.assert_allclose(got, np.matmul(x, y))


TF_ERRORS = [
    ("ij,jk->ik", [arange(2, 3), arange(5, 4)],
     "Expected dimension 3 at axis 0 of the input shaped [5,4] but got dimension 5"),
    ("ij,jk->ik", [arange(2, 3, 1), arange(3, 4)], "Expected input 0 to have rank 2 but got: 3"),
    ("...ij,...jk->...ik", [arange(5, 2, 2, 3), arange(7, 3, 4)],
     "In[0] and In[1] must have compatible batch dimensions: [5,2,2,3] vs. [7,3,4]"),
    ("...ij->ji", [arange(1, 2, 3)],
     "Output contains 1 broadcasting dimension(s) but no ellipsis (...) was found in the "
     "output subscripts."),
    ("ii->i", [arange(3, 4)],
     "Expected dimension 3 at axis 1 of the input shaped [3,4] but got dimension 4"),
    ("ij->ij", [arange(2, 3), arange(2, 3)], "Expected 1 inputs but got: 2"),
    ("ij,jk->ik", [arange(2, 3)], "Expected 2 inputs but got: 1"),
    ("ij,jk", [arange(2, 3), arange(3, 4)], "Expecting exactly one '->' in einsum equation"),
    ("ij,jk,kl->il", [arange(2, 3)] * 3, "Expecting 1 or 2 input subscripts"),
    ("i.j->", [arange(2, 3)], "Expected at most one ellipsis (...), but found 1 periods"),
]


@pytest.mark.parametrize("equation,inputs,message", TF_ERRORS, ids=[c[0] for c in TF_ERRORS])
def test_tensorflow_errors(equation, inputs, message):
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(
            ")", r"\)").replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        run1("Einsum", *inputs, equation=equation)


def test_unsupported_type_has_no_kernel():
    with pytest.raises(Exception, match="Einsum"):
        run1("Einsum", *[np.ones((2, 2), bool)], equation="ij->ji")


def _apply(inputs, equation):
    from tfx.core.api.ops_api import apply_op

    return apply_op("Einsum", inputs=inputs, equation=equation)


def _shape(equation, shapes):
    with tf.Graph().as_default():
        out = _apply([tf.placeholder(tf.float32, s) for s in shapes], equation)
        return None if out.shape.ndims is None else out.shape.as_list()


# (equation, input shapes, TensorFlow's static output shape)
TF_SHAPES = [
    ("ij,jk->ik", [[2, 3], [3, 4]], [2, 4]),
    ("ij,jk->ik", [[2, None], [None, 4]], [2, 4]),
    ("ij,jk->ik", [None, [3, 4]], [None, 4]),
    ("...ij,...jk->...ik", [[5, 1, 2, 3], [7, 3, 4]], [5, 7, 2, 4]),
    ("...ij,...jk->...ik", [None, [7, 3, 4]], None),
    ("...ij,...jk->...ik", [[None, 2, 3], [7, 3, 4]], [7, 2, 4]),
    ("...ij,...jk->...ik", [[1, 2, 3], [None, 3, 4]], [None, 2, 4]),
    ("ij->", [[2, 3]], []),
    ("ii->i", [[3, 3]], [3]),
    ("ij,jk->iik", [[2, 3], [3, 4]], [2, 2, 4]),
    ("...i->...", [[2]], []),
    ("i...->...", [[2, 3, 4]], [3, 4]),
    ("...ij->...", [[5, 2, 3]], [5]),
    ("ij->...ij", [[2, 3]], [2, 3]),
    ("i1->i", [[2, 3]], [2]),
    ("ij,->ij", [[2, 3], []], [2, 3]),
    ("a...a->a...", [[2, 3, 2]], [2, 3]),
    ("...i,...i->...", [[2, 1, 3], [4, 3]], [2, 4]),
]


@pytest.mark.parametrize("equation,shapes,expected", TF_SHAPES, ids=[c[0] for c in TF_SHAPES])
def test_shape_inference(equation, shapes, expected):
    assert _shape(equation, shapes) == expected


SHAPE_ERRORS = [
    ("ij,jk->ik", [[2, 3], [5, 4]], "Dimensions must be equal, but are 3 and 5"),
    ("...ij,...jk->...ik", [[5, 2, 2, 3], [7, 3, 4]], "Dimensions must be equal, but are 2 and 7"),
    ("ii->i", [[3, 4]], "Dimensions must be equal, but are 3 and 4"),
    ("ij,jk->ik", [[2, 3, 4], [3, 4]], "Shape must be rank 2 but is rank 3"),
    ("i j->j", [[2, 3]], "Shape must be rank 3 but is rank 2"),
    ("...ij->ji", [[5, 2, 3]], "Shape must be at most rank 0 but is rank 1"),
    ("ij,jk->ikl", [[2, 3], [3, 4]],
     "Einsum output subscripts for equation 'ij,jk->ikl' has label 'l' which is not present"),
    ("ij->ij", [[2, 3], [3, 4]], "Expected 1 inputs for equation ij->ij but got: 2"),
    ("ij->i->j", [[2, 3]], "Expecting exactly one '->' in einsum equation: ij->i->j"),
    ("ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]],
     "Expecting 1 or 2 input subscripts in equation 'ij,jk,kl->il' but got: 3"),
]


@pytest.mark.parametrize("equation,shapes,message", SHAPE_ERRORS,
                         ids=[c[0] for c in SHAPE_ERRORS])
def test_shape_errors(equation, shapes, message):
    with pytest.raises(InvalidArgumentError) as info:
        _shape(equation, shapes)
    assert message in str(info.value)


def test_labels_beyond_letters_are_renamed():
    labels = string.digits[:4]
    x = arange(2, 3, 4, 5)
    got = run1("Einsum", *[x], equation=f"{labels}->{labels[::-1]}")
    np.testing.assert_array_equal(got, x.transpose(3, 2, 1, 0))

"""The math, nn and linalg legacy ops (core/ops/{math,nn,linalg}_legacy_ops.py) against
TensorFlow 2.21's values recorded by tests/data/legacy_ops/generate.py, their gradients,
numpy references and the ops TensorFlow has no CPU kernel for."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core import eager
from tfx.core.errors import InvalidArgumentError
from tfx.protos import summary_pb2

DATA = Path(__file__).resolve().parents[2] / "data" / "legacy_ops"
EXPECTED = json.loads((DATA / "expected.json").read_text())
R = tf.raw_ops


def _value(recorded):
    if isinstance(recorded, dict):
        return np.array(recorded["real"]) + 1j * np.array(recorded["imag"])
    return np.array(recorded)


def _cases() -> dict:
    """The generator's op cases (tests/data/legacy_ops/cases.py), built with tfx; Eig's
    vectors are compared up to phase below."""
    built = _case_module().op_cases(tf)
    del built["Eig"]
    return built


def _case_module():
    """tests/data/legacy_ops/cases.py, which the generator builds its cases with too."""
    spec = importlib.util.spec_from_file_location("legacy_op_cases", DATA / "cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    return cases


def test_ops_match_tensorflow():
    with tf.Graph().as_default():
        cases = _cases()
        with tf.Session() as sess:
            out = sess.run(cases)
    for name, got in out.items():
        values = got if isinstance(got, (list, tuple)) else [got]
        want = EXPECTED["ops"][name]
        assert len(values) == len(want), name
        for g, w in zip(values, want):
            if np.asarray(g).dtype.kind in "OS":
                assert list(np.asarray(g, dtype=object).reshape(-1)) == [
                    s.encode("latin-1") for s in w], name
                continue
            np.testing.assert_allclose(g, _value(w), rtol=1e-5, atol=1e-6, err_msg=name)
    assert len(out) == len(EXPECTED["ops"]) - 1  # all but Eig (below)


def test_eig_matches_tensorflow_up_to_phase():
    e_want, v_want = (_value(w) for w in EXPECTED["ops"]["Eig"])
    with tf.Graph().as_default():
        a = tf.constant([[1., 2., 0.], [0., 3., 1.], [1., 0., 2.]])
        e, v = R.Eig(input=a, Tout=tf.complex64)
        assert e.dtype == tf.complex64 and v.shape.as_list() == [3, 3]
        values = R.Eig(input=a, Tout=tf.complex64, compute_v=False)[0]
        with tf.Session() as sess:
            e, v, values = sess.run([e, v, values])
    order = [int(np.argmin(np.abs(e_want - x))) for x in e]
    np.testing.assert_allclose(e, e_want[order], rtol=1e-5)
    np.testing.assert_allclose(values, e, rtol=1e-6)
    for j, k in enumerate(order):  # unit vectors equal up to a phase
        phase = np.vdot(v[:, j], v_want[:, k])
        np.testing.assert_allclose(abs(phase), 1, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, rtol=1e-5)


def test_tensor_summary_is_node_name_and_tensor():
    with tf.Graph().as_default():
        summary = R.TensorSummary(tensor=tf.constant([[1, 2]]), name="s")
        with tf.Session() as sess:
            proto = summary_pb2.Summary.FromString(sess.run(summary))
    assert proto.value[0].node_name == "s" and not proto.value[0].HasField("metadata")


def test_gradients_match_tensorflow():
    recorded = EXPECTED["gradients"]
    with tf.Graph().as_default():
        x = tf.constant([[1., 5., 3.], [4., 2., 6.]])
        updates = tf.constant([10., 1., -6.])
        w = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        y = R.ScatterNdNonAliasingAdd(input=x, indices=[[0, 1], [0, 1], [1, 2]],
                                      updates=updates)
        gx, gu = tf.gradients(y * w, [x, updates])
        rows = tf.constant([[3., 1., 2., 2., 5.], [1., 2., 3., 4., 5.]])
        iso = R.IsotonicRegression(input=rows)[0]
        (giso,) = tf.gradients(
            iso * tf.constant([[1., 2., 3., 4., 5.], [5., 4., 3., 2., 1.]]), [rows])
        acc = R.AccumulateNV2(inputs=[x, w], shape=[2, 3])
        ga = tf.gradients(acc * w, [x, w])
        with tf.Session() as sess:
            out = sess.run({"scatter_x": gx, "scatter_updates": gu, "isotonic": giso,
                            "accumulate": ga})
    for key, got in out.items():
        np.testing.assert_allclose(got, recorded[key], rtol=1e-5, err_msg=key)


def test_batch_norm_global_grad_matches_tensorflow():
    graph_def = tf.Graph().as_graph_def()
    graph_def.versions.producer = 1
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")  # an old graph: the op is still there
        t = tf.constant(np.arange(8.).reshape(1, 2, 2, 2).astype(np.float32))
        bn = R.BatchNormWithGlobalNormalizationGrad(
            t=t, m=[0.5, 1.], v=[1., 4.], gamma=[2., 3.], backprop=t * 0.5 + 1.,
            variance_epsilon=0.001, scale_after_normalization=True)
        with tf.Session() as sess:
            got = sess.run(list(bn))
    for g, w in zip(got, EXPECTED["gradients"]["bn_grad_scaled"]):
        np.testing.assert_allclose(g, w, rtol=1e-5)


@pytest.mark.parametrize("op, inputs, attrs", [
    ("SegmentSumV2", [np.ones((2, 3), np.float32), np.array([0, 1], np.int32),
                      np.array(3, np.int32)], {}),
    ("KthOrderStatistic", [np.ones((2, 3), np.float32)], {"k": 1}),
    ("TopKUnique", [np.ones((2, 3), np.float32)], {"k": 1}),
    ("CTCLossV2", [np.zeros((2, 1, 3), np.float32), np.array([[0, 0]], np.int64),
                   np.array([1], np.int32), np.array([2], np.int32)], {}),
    ("BatchFFT", [np.ones((2, 2), np.complex64)], {}),
])
def test_ops_without_a_cpu_kernel_fail_as_tensorflow(op, inputs, attrs):
    with pytest.raises(InvalidArgumentError,
                       match=f"No OpKernel was registered to support Op '{op}'"):
        eager.run_op(op, inputs, **attrs)


_F = np.float32


@pytest.mark.parametrize("op, inputs, attrs, message", [  # TensorFlow 2.21's messages
    ("DecodePaddedRaw", [np.array([b"ab"], object), np.array(3, np.int32)],
     {"out_type": tf.int16}, r"fixed_length \(3\) must be a multiple of the size of out_type "
                             r"\(2\)"),
    ("DecodePaddedRaw", [np.array([b"ab"], object), np.array(0, np.int32)],
     {"out_type": tf.int16}, r"fixed_length \(0\) must be greater than zero\."),
    ("RefSelect", [np.array(2, np.int32), np.ones(2, _F)], {"N": 1},
     r"Index must be in the range \[0, 1\) but got 2"),
    ("RefSelect", [np.array([0], np.int32), np.ones(2, _F)], {"N": 1},
     r"Index must be a scalar, but it has shape \[1\]"),
    ("BandedTriangularSolve", [np.ones((2, 3), _F), np.ones((2, 1), _F)],
     {"lower": False, "adjoint": True},
     r"In\[0\] mismatch In\[1\] shape: 3 vs\. 2: \[2,3\] \[2,1\] 0 1"),
    ("BandedTriangularSolve", [np.ones(3, _F), np.ones((3, 1), _F)], {},
     r"In\[0\] ndims must be >= 2: 1"),
    ("BandedTriangularSolve", [np.ones((2, 2, 3), _F), np.ones((3, 3, 1), _F)], {},
     r"In\[0\] and In\[1\] must have compatible batch dimensions: \[2,2,3\] vs\. "
     r"\[3,3,1\]"),
    ("SparseBincount", [np.zeros((1, 1), np.int64), np.array([-1], np.int32),
                        np.array([3], np.int64), np.array(2, np.int32), np.zeros(0, _F)], {},
     "Input arr must be non-negative!"),
    ("SparseBincount", [np.zeros((1, 1), np.int64), np.array([1], np.int32),
                        np.array([3], np.int64), np.array(-2, np.int32), np.zeros(0, _F)], {},
     r"size \(-2\) must be non-negative"),
    ("SparseBincount", [np.zeros((1, 1), np.int64), np.array([1], np.int32),
                        np.array([3], np.int64), np.array(2, np.int32), np.ones(2, _F)], {},
     "Input indices and weights must have the same size."),
    ("SparseBincount", [np.array([[5, 0]], np.int64), np.array([1], np.int32),
                        np.array([3, 3], np.int64), np.array(2, np.int32), np.zeros(0, _F)], {},
     r"Sparse index tuple indices\[0, :\] = \[5, 0\] is out of bounds"),
    ("SparseSliceGrad", [np.ones(1, _F), np.zeros((1, 2), np.int64), np.zeros(1, np.int64),
                         np.zeros((1, 2), np.int64)], {},
     "Expected input_start to be a vector of length 2 but got length 1"),
    ("SparseSliceGrad", [np.ones(2, _F), np.zeros((2, 2), np.int64), np.zeros(2, np.int64),
                         np.zeros((1, 2), np.int64)], {},
     r"# elements of backprop_val_grad and # rows of output_indices should match \(#nnz "
     r"of sum\): got 2 and 1"),
    ("SparseSliceGrad", [np.ones(2, _F), np.zeros((1, 2), np.int64), np.zeros(2, np.int64),
                         np.zeros((2, 2), np.int64)], {},
     "# rows of output_indices should be not greater than of input_indices, got 2 and 1"),
    ("SparseSliceGrad", [np.ones(1, _F), np.zeros(1, np.int64), np.zeros(1, np.int64),
                         np.zeros((1, 1), np.int64)], {},
     r"Input and output indices should be matrices but received shapes: \[1\] and "
     r"\[1,1\]"),
    ("Eig", [np.ones(3, _F)], {"Tout": tf.complex64}, "Input tensor 0 must have rank >= 2, "
                                                      "got 1"),
    ("Eig", [np.ones((2, 3), _F)], {"Tout": tf.complex64}, "Input matrix must be square."),
    ("CholeskyGrad", [np.ones((2, 2), _F), np.ones((3, 3), _F)], {},
     r"Inputs \(L and grad\) must have the same shape\."),
    ("CholeskyGrad", [np.ones((2, 3), _F), np.ones((2, 3), _F)], {},
     "Inputs must be a square matrices."),
])
def test_bad_inputs(op, inputs, attrs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        eager.run_op(op, inputs, **attrs)


def _isotonic_reference(row: np.ndarray) -> np.ndarray:
    """The non-increasing least-squares fit by brute-force pooling (numpy)."""
    blocks = [[float(v)] for v in row]
    merged = True
    while merged:
        merged = False
        for i in range(len(blocks) - 1):
            if np.mean(blocks[i]) < np.mean(blocks[i + 1]):
                blocks[i:i + 2] = [blocks[i] + blocks[i + 1]]
                merged = True
                break
    return np.concatenate([[np.mean(b)] * len(b) for b in blocks])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(-20, 20), min_size=4, max_size=4), min_size=1,
                max_size=3))
def test_isotonic_regression_is_the_pooled_fit(rows):
    x = np.array(rows, np.float64)
    out, segments = eager.run_op("IsotonicRegression", [x], output_dtype=tf.float64)
    for got, seg, row in zip(out, segments, x):
        np.testing.assert_allclose(got, _isotonic_reference(row), atol=1e-9)
        assert (np.diff(got) <= 1e-9).all() and (np.diff(seg) >= 0).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5).flatmap(lambda m: st.tuples(
    st.integers(1, m), st.just(m), st.booleans(), st.booleans(),
    st.lists(st.floats(0.5, 3), min_size=5 * m, max_size=5 * m))))
def test_banded_triangular_solve_is_a_triangular_solve(case):
    k, m, lower, adjoint, numbers = case
    bands = np.array(numbers[:k * m]).reshape(k, m)
    rhs = np.array(numbers[-m:]).reshape(m, 1)
    dense = np.zeros((m, m))
    for d in range(k):  # TensorFlow's 'LEFT_RIGHT' band storage
        for i in range(m):
            if lower and i - d >= 0:
                dense[i, i - d] = bands[d, i]
            if not lower and i + d < m:
                dense[i, i + d] = bands[k - 1 - d, i]
    a = dense.T if adjoint else dense
    (got,) = eager.run_op("BandedTriangularSolve", [bands, rhs], lower=lower, adjoint=adjoint)
    np.testing.assert_allclose(got, np.linalg.solve(a, rhs), rtol=1e-6, atol=1e-8)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(0, 1000))
def test_cholesky_grad_is_the_gradient_of_cholesky(n, seed):
    rng = np.random.default_rng(seed)
    b = rng.normal(size=(n, n))
    a = b @ b.T + n * np.eye(n)
    lower = np.linalg.cholesky(a)
    dl = np.tril(rng.normal(size=(n, n)))
    (grad,) = eager.run_op("CholeskyGrad", [lower, dl])
    # <dA_sym, E> == <dL, d chol(A)[E]> for a symmetric direction E (finite differences).
    e = rng.normal(size=(n, n))
    e = e + e.T
    eps = 1e-6
    dchol = (np.linalg.cholesky(a + eps * e) - np.linalg.cholesky(a - eps * e)) / (2 * eps)
    np.testing.assert_allclose(np.sum(grad * e), np.sum(dl * dchol), rtol=1e-4, atol=1e-6)


def test_banded_solve_and_eig_gradients_match_tensorflow():
    recorded = EXPECTED["gradients"]
    with tf.Graph().as_default():
        bands = tf.constant([[2., 3., 4.], [1., 2., 3.]])
        rhs3 = tf.constant([[1., 2.], [0., 1.], [3., -1.]])
        sol = R.BandedTriangularSolve(matrix=bands, rhs=rhs3)
        gb, gr = tf.gradients(sol * tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [bands, rhs3])
        a = tf.constant([[2., 1.], [0.5, 3.]])
        e, _ = R.Eig(input=a, Tout=tf.complex64)
        (geig,) = tf.gradients(
            tf.math.real(tf.reduce_sum(e * tf.constant([1., 2.], tf.complex64))), [a])
        with tf.Session() as sess:
            out = sess.run({"banded_matrix": gb, "banded_rhs": gr, "eig": geig})
    for key, got in out.items():
        np.testing.assert_allclose(got, recorded[key], rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("tin", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("tout", ["int8", "int16", "int32"])
def test_stochastic_cast_to_int_matches_tensorflow(tin, tout):
    recorded = EXPECTED["stochastic_cast"]
    with np.errstate(over="ignore"):  # 1e10 is inf in half
        x = np.array(recorded["x"], np.float32).astype(getattr(tf, tin).np)
    (got,) = eager.run_op("StochasticCastToInt", [x, np.array([7], np.uint64),
                                                  np.array([3, 0], np.uint64),
                                                  np.array(1, np.int32)],
                          Tout=getattr(tf, tout))
    np.testing.assert_array_equal(got, recorded[f"{tin}_{tout}"])


def test_stochastic_cast_rounds_to_a_neighbour():
    x = np.linspace(-5, 5, 101).astype(np.float32)
    (got,) = eager.run_op("StochasticCastToInt", [x, np.array([1], np.uint64),
                                                  np.array([9, 9], np.uint64),
                                                  np.array(1, np.int32)], Tout=tf.int32)
    assert ((got == np.floor(x)) | (got == np.ceil(x))).all()
    with pytest.raises(InvalidArgumentError, match="Unsupported algorithm id: 2"):  # TF's
        eager.run_op("StochasticCastToInt", [x, np.array([1], np.uint64),
                                             np.array([9, 9], np.uint64),
                                             np.array(2, np.int32)], Tout=tf.int32)


def test_stateful_standard_normal_v1_matches_tensorflow():
    recorded = EXPECTED["stateful_standard_normal"]
    graph_def = tf.Graph().as_graph_def()
    graph_def.versions.producer = 28  # the op was removed at version 29
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        state = tf.Variable(np.array([1, 5, 0, 7], np.int64), use_resource=True)
        sample = R.StatefulStandardNormal(resource=state.handle, shape=[2, 3])
        assert sample.shape.as_list() == [2, 3]
        with tf.Session() as sess:
            sess.run(state.initializer)
            first, second = sess.run(sample), sess.run(sample)
            after = sess.run(state.read_value())
    np.testing.assert_allclose(first, recorded["first"], rtol=1e-6)
    np.testing.assert_allclose(second, recorded["second"], rtol=1e-6)
    np.testing.assert_array_equal(after, recorded["state"])


def test_static_shapes_match_tensorflow():
    shapes = EXPECTED["static_shapes"]
    with tf.Graph().as_default():
        cases = _cases()
    cases["Eig"] = None  # built in test_eig_matches_tensorflow_up_to_phase
    for name, value in cases.items():
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        got = [t.shape.as_list() if t.shape.ndims is not None else None for t in values]
        assert got == shapes[name], name


def test_ref_select_and_ref_identity_forward_the_reference():
    recorded = EXPECTED["ref_ops"]
    with tf.Graph().as_default():
        a = tf.Variable([1., 2.], use_resource=False, name="a")
        b = tf.Variable([3., 4.], use_resource=False, name="b")
        selected = R.RefSelect(index=1, inputs=[a._ref(), b._ref()])
        same = R.RefIdentity(input=a._ref())
        assert selected.dtype == tf.float32.as_ref and selected.shape.as_list() == [2]
        add = tf.assign_add(selected, [10., 10.])
        put = tf.assign(same, [7., 8.])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(add), recorded["add"])
            np.testing.assert_array_equal(sess.run(put), recorded["put"])
            for got, want in zip(sess.run([a, b]), recorded["after"]):
                np.testing.assert_array_equal(got, want)


def test_tile_grad_fails_as_tensorflow_in_an_old_graph():
    from tfx.protos import graph_pb2

    kind, message = EXPECTED["ref_ops"]["tile_grad"]
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString((DATA / "tile_grad_graph.pb").read_bytes())
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess, pytest.raises(InvalidArgumentError) as info:
            sess.run("grad:0")
    assert kind == "InvalidArgumentError"
    assert message.split(", KernelDef")[0] in str(info.value)


def test_space_to_batch_and_batch_norm_global_gradients_match_tensorflow():
    recorded = EXPECTED["gradients"]
    graph_def = tf.Graph().as_graph_def()
    graph_def.versions.producer = 1
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")  # BatchNormWithGlobalNormalization's time
        image = tf.reshape(tf.range(8.), [1, 2, 4, 1])
        batched = R.SpaceToBatch(input=image, paddings=[[1, 1], [0, 0]], block_size=2)
        (gspace,) = tf.gradients(batched * tf.reshape(tf.range(16.), [4, 2, 2, 1]), [image])
        t = tf.constant(np.arange(8.).reshape(1, 2, 2, 2).astype(np.float32))
        bn_in = [t, tf.constant([0.5, 1.]), tf.constant([1., 4.]), tf.constant([0.1, 0.2]),
                 tf.constant([2., 3.])]
        bn_out = R.BatchNormWithGlobalNormalization(
            t=bn_in[0], m=bn_in[1], v=bn_in[2], beta=bn_in[3], gamma=bn_in[4],
            variance_epsilon=0.001, scale_after_normalization=True)
        gbn = tf.gradients(bn_out * (t + 1.), bn_in)
        with tf.Session() as sess:
            got_space, got_bn = sess.run([gspace, gbn])
    np.testing.assert_allclose(got_space, recorded["space_to_batch"])
    for g, w in zip(got_bn, recorded["batch_norm_global"]):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_static_shapes_of_ops_without_a_cpu_kernel_match_tensorflow():
    shapes = EXPECTED["no_kernel_shapes"]
    with tf.Graph().as_default():
        cases = _case_module().no_kernel_cases(tf)
        ones = tf.constant(np.ones((3, 5), np.float32))
        cases["KthOrderStatistic"] = R.KthOrderStatistic(input=ones, k=2)
        cases["MakeUnique"] = R.MakeUnique(input=ones)
        cases["TopKUnique"] = R.TopKUnique(input=ones, k=2)
        cases["TopKWithUnique"] = R.TopKWithUnique(input=ones, k=2)
    assert set(cases) == set(shapes)
    for name, value in cases.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        got = [t.shape.as_list() if t.shape.ndims is not None else None for t in values]
        assert got == shapes[name], name


def test_isotonic_regression_type_pairs_and_scalars_as_tensorflow():
    from tfx.core.errors import NotFoundError

    # TF 2.21 has kernels for (int32, double) but not (int32, float): NotFoundError there.
    (out, _) = eager.run_op("IsotonicRegression", [np.array([[1, 3, 2]], np.int32)],
                            output_dtype=tf.float64)
    np.testing.assert_array_equal(out, [[2., 2., 2.]])
    with pytest.raises(NotFoundError):
        eager.run_op("IsotonicRegression", [np.array([[1, 3, 2]], np.int32)],
                     output_dtype=tf.float32)
    out, segments = eager.run_op("IsotonicRegression", [np.array(1., np.float32)])
    assert out == 1. and segments == 0 and out.shape == ()  # TF: a scalar is its own fit


def test_banded_solve_with_more_bands_than_rows():
    # TF 2.21: 4 stored bands of a 3 x 3 lower matrix of ones solve [1, 1, 1] to [1, 0, 0].
    (got,) = eager.run_op("BandedTriangularSolve", [np.ones((4, 3), _F), np.ones((3, 1), _F)])
    np.testing.assert_array_equal(got, [[1.], [0.], [0.]])

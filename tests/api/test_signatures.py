"""The public functions take TensorFlow 1.x's parameters: names, order, defaults and the
deprecated aliases, with TensorFlow's errors for conflicting spellings.

The expected signatures are tf.compat.v1's (TensorFlow 2.21), written out literally.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tfx as tf


def _params(fn) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


_E = inspect.Parameter.empty


@pytest.mark.parametrize("fn, expected", [
    (tf.cond, [("pred", _E), ("true_fn", None), ("false_fn", None), ("strict", False),
               ("name", None), ("fn1", None), ("fn2", None)]),
    (tf.as_dtype, [("type_value", _E)]),
    (tf.device, [("device_name_or_function", _E)]),
    (tf.get_collection, [("key", _E), ("scope", None)]),
    (tf.shape, [("input", _E), ("name", None), ("out_type", None)]),
    (tf.size, [("input", _E), ("name", None), ("out_type", None)]),
    (tf.matmul, [("a", _E), ("b", _E), ("transpose_a", False), ("transpose_b", False),
                 ("adjoint_a", False), ("adjoint_b", False), ("a_is_sparse", False),
                 ("b_is_sparse", False), ("output_type", None), ("grad_a", False),
                 ("grad_b", False), ("name", None)]),
    (tf.nn.top_k, [("input", _E), ("k", 1), ("sorted", True), ("index_type", tf.int32),
                   ("name", None)]),
    (tf.math.top_k, [("input", _E), ("k", 1), ("sorted", True), ("index_type", tf.int32),
                     ("name", None)]),
    (tf.nn.l2_normalize, [("x", _E), ("axis", None), ("epsilon", 1e-12), ("name", None),
                          ("dim", None)]),
    (tf.math.l2_normalize, [("x", _E), ("axis", None), ("epsilon", 1e-12), ("name", None),
                            ("dim", None)]),
    (tf.linalg.l2_normalize, [("x", _E), ("axis", None), ("epsilon", 1e-12), ("name", None),
                              ("dim", None)]),
    (tf.reduce_logsumexp, [("input_tensor", _E), ("axis", None), ("keepdims", None),
                           ("name", None), ("reduction_indices", None), ("keep_dims", None)]),
    (tf.math.reduce_logsumexp, [("input_tensor", _E), ("axis", None), ("keepdims", None),
                                ("name", None), ("reduction_indices", None),
                                ("keep_dims", None)]),
    (tf.nn.moments, [("x", _E), ("axes", _E), ("shift", None), ("name", None),
                     ("keep_dims", None), ("keepdims", None)]),
    (tf.nn.depthwise_conv2d, [("input", _E), ("filter", _E), ("strides", _E), ("padding", _E),
                              ("rate", None), ("name", None), ("data_format", None),
                              ("dilations", None)]),
    (tf.nn.softmax_cross_entropy_with_logits_v2, [("labels", _E), ("logits", _E),
                                                   ("axis", None), ("name", None),
                                                   ("dim", None)]),
    (tf.convert_to_tensor, [("value", _E), ("dtype", None), ("name", None),
                            ("preferred_dtype", None), ("dtype_hint", None),
                            ("as_ref", False)]),
])
def test_signature_matches_tensorflow(fn, expected):
    assert _params(fn) == expected


def test_group_takes_only_name_as_keyword():
    params = list(inspect.signature(tf.group).parameters.values())
    assert [(p.name, p.kind) for p in params] == [
        ("inputs", inspect.Parameter.VAR_POSITIONAL), ("kwargs", inspect.Parameter.VAR_KEYWORD)]
    with tf.Graph().as_default():
        a = tf.no_op()
        assert tf.group(a, name="g").name == "g"
        assert tf.group([a]).name == "group_deps"
        with pytest.raises(ValueError, match="Unknown keyword arguments: foo, bar"):
            tf.group(a, foo=1, bar=2)


# --- cond ---------------------------------------------------------------------------------


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def test_cond_fn1_fn2_are_true_fn_false_fn():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        r = tf.cond(p, fn1=lambda: tf.constant(1), fn2=lambda: tf.constant(2))
        with tf.Session() as sess:
            assert sess.run(r, {p: True}) == 1
            assert sess.run(r, {p: False}) == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"true_fn": lambda: 1, "false_fn": lambda: 2, "fn1": lambda: 1},
     "cond(): 'true_fn' and 'fn1' may not be set simultaneously."),
    ({"true_fn": lambda: 1, "false_fn": lambda: 2, "fn2": lambda: 1},
     "cond(): 'false_fn' and 'fn2' may not be set simultaneously."),
    ({"false_fn": lambda: 2}, "cond(): 'true_fn' argument required"),
    ({"true_fn": lambda: 1}, "cond(): 'false_fn' argument required"),
    ({"true_fn": 1, "false_fn": lambda: 2}, "'true_fn' must be callable."),
])
def test_cond_argument_errors(kwargs, message):
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
            tf.cond(tf.constant(True), **kwargs)


def test_cond_strict_false_unpacks_singletons_as_tensorflow_1():
    with tf.Graph().as_default():
        p = tf.constant(True)
        c = tf.constant
        assert isinstance(tf.cond(p, lambda: [c(1)], lambda: [c(2)]), tf.Tensor)
        assert isinstance(tf.cond(p, lambda: [[c(1)]], lambda: (c(2),)), tf.Tensor)
        # Unpacked before the structures are compared, so [x] and x match.
        assert isinstance(tf.cond(p, lambda: [c(1)], lambda: c(2)), tf.Tensor)
        pair = tf.cond(p, lambda: [c(1), c(3)], lambda: [c(2), c(4)])
        assert isinstance(pair, list) and len(pair) == 2
        d = tf.cond(p, lambda: {"a": c(1)}, lambda: {"a": c(2)})
        assert isinstance(d, dict)
        strict = tf.cond(p, lambda: [c(1)], lambda: [c(2)], True, "nm")
        assert isinstance(strict, list) and strict[0].name == "nm/Merge:0"
        with pytest.raises(ValueError):
            tf.cond(p, lambda: [c(1)], lambda: c(2), strict=True)
        assert _run(tf.cond(p, lambda: [c(1)], lambda: [c(2)])) == 1


# --- shapes, matmul, top_k ----------------------------------------------------------------


def test_shape_and_size_out_type_none_is_int32():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        assert tf.shape(x).dtype == tf.int32
        assert tf.shape(x, out_type=None).dtype == tf.int32
        assert tf.size(x, out_type=None).dtype == tf.int32
        assert tf.shape(x, out_type=tf.int64).dtype == tf.int64
        assert tf.size(x, None, tf.int64).dtype == tf.int64


def test_matmul_output_type_builds_batch_matmul_v3():
    with tf.Graph().as_default():
        i8 = tf.constant([[1, 2], [3, 4]], tf.int8)
        r = tf.matmul(i8, i8, output_type=tf.int32)
        assert r.op.type == "BatchMatMulV3" and r.dtype == tf.int32
        assert r.op.get_attr("Ta") == tf.int8 and r.op.get_attr("Tout") == tf.int32
        f = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        same = tf.matmul(f, f, output_type=tf.float32)  # the inputs' type: plain MatMul
        assert same.op.type == "MatMul"
        grad = tf.matmul(f, f, grad_a=True)
        assert grad.op.get_attr("grad_a") is True and grad.op.get_attr("grad_b") is False
        np.testing.assert_array_equal(_run(r), [[7, 10], [15, 22]])


def test_matmul_transpose_and_adjoint_together_is_an_error():
    with tf.Graph().as_default():
        f = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with pytest.raises(ValueError, match="Only one of `transpose_a` and `adjoint_a`"):
            tf.matmul(f, f, transpose_a=True, adjoint_a=True)
        with pytest.raises(ValueError, match="Only one of `transpose_b` and `adjoint_b`"):
            tf.matmul(f, f, transpose_b=True, adjoint_b=True)


@pytest.mark.parametrize("index_type", ["int16", "int32", "int64"])
def test_top_k_index_type(index_type):
    with tf.Graph().as_default():
        values, indices = tf.nn.top_k([1.0, 3.0, 2.0], 2, index_type=tf.as_dtype(index_type))
        assert indices.dtype == tf.as_dtype(index_type)
        assert indices.op.get_attr("index_type") == tf.as_dtype(index_type)
        v, i = _run([values, indices])
        np.testing.assert_array_equal(v, [3.0, 2.0])
        assert i.dtype == np.dtype(index_type) and list(i) == [1, 2]


def test_top_k_index_type_must_be_an_integer_type():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="'index_type' has DataType float32 not in list"):
            tf.math.top_k([1.0, 3.0], 1, index_type=tf.float32)


# --- deprecated aliases -------------------------------------------------------------------


def test_l2_normalize_dim_is_axis():
    x = [[1.0, 2.0], [3.0, 4.0]]
    with tf.Graph().as_default():
        by_dim = tf.nn.l2_normalize(x, dim=1)
        by_axis = tf.linalg.l2_normalize(x, axis=1)
        a, b = _run([by_dim, by_axis])
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(a, [[0.4472136, 0.8944272], [0.6, 0.8]], rtol=1e-6)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'."):
            tf.math.l2_normalize(x, axis=1, dim=1)


def test_reduce_logsumexp_deprecated_spellings():
    x = [[1.0, 2.0], [3.0, 4.0]]
    with tf.Graph().as_default():
        old = tf.reduce_logsumexp(x, reduction_indices=1, keep_dims=True)
        new = tf.math.reduce_logsumexp(x, axis=1, keepdims=True)
        assert old.shape.as_list() == [2, 1]
        a, b = _run([old, new])
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(a, [[2.3132617], [4.3132615]], rtol=1e-6)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
            tf.reduce_logsumexp(x, axis=1, reduction_indices=1)
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            tf.reduce_logsumexp(x, keepdims=False, keep_dims=False)


def test_reduce_sum_rejects_both_spellings_as_tensorflow():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
            tf.reduce_sum([1.0, 2.0], axis=0, reduction_indices=0)
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            tf.reduce_mean([1.0, 2.0], keepdims=True, keep_dims=True)


def test_moments_keepdims_spellings():
    x = [[1.0, 2.0], [3.0, 4.0]]
    with tf.Graph().as_default():
        assert [t.shape.as_list() for t in tf.nn.moments(x, [1])] == [[2], [2]]
        assert [t.shape.as_list() for t in tf.nn.moments(x, [1], keepdims=True)] == [[2, 1]] * 2
        assert [t.shape.as_list() for t in tf.nn.moments(x, [1], keep_dims=True)] == [[2, 1]] * 2
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            tf.nn.moments(x, [1], keepdims=True, keep_dims=False)
        mean, var = _run(tf.nn.moments(x, [1], keepdims=True))
    np.testing.assert_allclose(mean, [[1.5], [3.5]])
    np.testing.assert_allclose(var, [[0.25], [0.25]])


def test_depthwise_conv2d_rate_and_data_format_none():
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 4, 2])
        w = tf.zeros([2, 2, 2, 1])
        y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", data_format=None)
        assert y.op.get_attr("data_format") in ("NHWC", b"NHWC")
        with pytest.raises(ValueError, match="Cannot specify both 'rate' and 'dilations'."):
            tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[1, 1], dilations=[1, 1])


def test_convert_to_tensor_dtype_hint():
    with tf.Graph().as_default():
        assert tf.convert_to_tensor(1, dtype_hint=tf.int64).dtype == tf.int64
        with pytest.raises(ValueError,
                           match="Cannot specify both 'preferred_dtype' and 'dtype_hint'."):
            tf.convert_to_tensor(1, preferred_dtype=tf.int64, dtype_hint=tf.int64)


def test_renamed_parameters_by_keyword():
    assert tf.as_dtype(type_value="float32") is tf.float32
    with tf.Graph().as_default() as g:
        with tf.device(device_name_or_function="/cpu:0"):
            c = tf.constant(1.0, name="c")
        assert "CPU:0" in c.device.upper()
        g.add_to_collection("things", c)
        assert tf.get_collection(key="things") == [c]
        assert tf.get_collection("things", scope="nothere") == []


def test_matmul_conjugates_for_adjoint_and_for_a_batched_transpose():
    # TensorFlow 2.21: MatMul transposes, so adjoint_* conjugates first; BatchMatMulV2 takes
    # adjoints, so a batched transpose_* conjugates first; an unknown rank is batched.
    a = np.array([[1 + 2j, 3 - 1j], [0 + 1j, 2 + 0j]], np.complex64)
    b = np.array([[1, 1j], [2, 0]], np.complex64)
    graph = tf.Graph()
    with graph.as_default():
        x, y = tf.constant(a), tf.constant(b)
        outputs = [tf.matmul(x, y, transpose_a=True), tf.matmul(x, y, adjoint_a=True),
                   tf.matmul(x, y, adjoint_b=True),
                   tf.matmul(x[None], y[None], transpose_a=True)[0],
                   tf.matmul(x[None], y[None], adjoint_b=True)[0]]
        unknown = tf.placeholder(tf.float32, None)
        tf.matmul(unknown, unknown)
    ops = [n.op for n in graph.as_graph_def().node if "Mat" in n.op or n.op == "Conj"]
    assert ops == ["MatMul", "Conj", "MatMul", "Conj", "MatMul", "Conj", "BatchMatMulV2",
                   "BatchMatMulV2", "BatchMatMulV2"]
    with tf.Session(graph=graph) as sess:
        got = sess.run(outputs)
    want = [[[1 + 4j, -2 + 1j], [7 - 1j, 1 + 3j]], [[1 - 4j, 2 + 1j], [7 + 1j, -1 + 3j]],
            [[-1j, 2 + 4j], [-1j, 2j]], [[1 + 4j, -2 + 1j], [7 - 1j, 1 + 3j]],
            [[-1j, 2 + 4j], [-1j, 2j]]]
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, np.array(expected, np.complex64), rtol=1e-6)


def test_a_disallowed_dtype_is_a_type_error_as_in_tensorflow():
    # TensorFlow 2.21 raises TypeError ("Value passed to parameter 'a' has DataType int8 not
    # in list of allowed values: ...") building these; tfx's error is also an
    # InvalidArgumentError, so the CLI still exits 2.
    from tfx.core.errors import InvalidArgumentError

    graph = tf.Graph()
    with graph.as_default():
        with pytest.raises(TypeError, match=r"attr 'T': value int8 is not allowed") as info:
            tf.matmul(tf.constant(np.int8([[1]])), tf.constant(np.int8([[1]])))
        assert isinstance(info.value, InvalidArgumentError)
        with pytest.raises(TypeError, match=r"value string is not allowed"):
            tf.nn.relu(tf.constant(["a"]))
    with pytest.raises(TypeError, match=r"cannot convert 'foo' to a DType"):
        tf.as_dtype("foo")

"""UniformQuantize, UniformDequantize, UniformRequantize, UniformQuantizedAdd,
UniformQuantizedClipByValue, UniformQuantizedDot and UniformQuantizedDotHybrid
(core/ops/uniform_quantized_ops.py, kernels/cpu/uniform_quantized.py) against TensorFlow
2.21's outputs recorded in tests/data/uniform_quantized/values.npz (generate.py beside
it), bit for bit, per tensor and per axis; a GraphDef TensorFlow wrote (graph.pb,
generate_graph.py) run in a tfx Session; TensorFlow's errors for bad parameters; and
properties against numpy's float arithmetic. These tests need no TensorFlow.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tfx.core import dtypes
from tfx.core.eager import run_op
from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.session import Session

HERE = Path(__file__).parents[2] / "data" / "uniform_quantized"
DATA = np.load(HERE / "values.npz")
F = np.float32
QINT8, QUINT8, QINT32 = (dtypes.as_dtype(n) for n in ("qint8", "quint8", "qint32"))
I8 = {"quantization_min_val": -128, "quantization_max_val": 127}
I32 = {"quantization_min_val": -2**31, "quantization_max_val": 2**31 - 1}
U8 = {"quantization_min_val": 0, "quantization_max_val": 255}
NARROW = {"quantization_min_val": -7, "quantization_max_val": 7}


def prefixed(prefix: str, attrs: dict) -> dict:
    return {f"{prefix}_{k}": v for k, v in attrs.items()}


def assert_tf(key: str, result) -> None:
    (value,) = result
    np.testing.assert_array_equal(np.asarray(value), DATA[key])


@pytest.mark.parametrize("tout,limits", [(QINT8, I8), (QUINT8, U8), (QINT32, I32),
                                         (QINT8, NARROW)])
def test_quantize(tout, limits):
    x, scales, zps = DATA["x"], DATA["scales"], DATA["zps"]
    shift = 100 if tout == QUINT8 else 0
    tag = f"{tout.name}_{limits['quantization_max_val']}"
    common = dict(Tin=dtypes.float32, Tout=tout, **limits)
    assert_tf(f"q_tensor_{tag}", run_op("UniformQuantize", [x, F(0.15), np.int32(
        120 if tout == QUINT8 else -3)], **common))
    assert_tf(f"q_axis1_{tag}", run_op("UniformQuantize", [x, scales, zps + shift],
                                       quantization_axis=1, **common))
    assert_tf(f"q_axis0_{tag}", run_op("UniformQuantize", [x, scales[:3], zps[:3] + shift],
                                       quantization_axis=0, **common))


def test_dequantize():
    q8, q32, scales, zps = DATA["q8"], DATA["q32"], DATA["scales"], DATA["zps"]
    common = dict(Tin=QINT8, Tout=dtypes.float32, **I8)
    assert_tf("dq_tensor", run_op("UniformDequantize", [q8, F(0.3), np.int32(-5)], **common))
    assert_tf("dq_axis1", run_op("UniformDequantize", [q8, scales, zps], quantization_axis=1,
                                 **common))
    assert_tf("dq32_axis0", run_op("UniformDequantize", [q32, scales[:3], zps[:3]], Tin=QINT32,
                                   Tout=dtypes.float32, quantization_axis=0, **I32))


def _requantize(data, tin, in_limits, scales_in, zps_in, scales_out, zps_out, **attrs):
    return run_op("UniformRequantize", [data, F(scales_in), np.int32(zps_in), F(scales_out),
                                        np.int32(zps_out)], Tin=tin, Tout=QINT8,
                  **prefixed("input", in_limits), **prefixed("output", I8), **attrs)


@pytest.mark.parametrize("k,params", list(enumerate([(0.5, 3, 0.3, -2), (0.01, 0, 2.5, 7),
                                                     (1.7, -4, 0.0123, 1)])))
def test_requantize(k, params):
    s_in, z_in, s_out, z_out = params
    assert_tf(f"rq_8_8_{k}", _requantize(DATA["q8"], QINT8, I8, s_in, z_in, s_out, z_out))
    assert_tf(f"rq_32_8_{k}", _requantize(DATA["q32"], QINT32, I32, s_in, z_in,
                                          s_out * 1000, z_out))


def test_requantize_per_axis():
    q8, q32, scales, zps = DATA["q8"], DATA["q32"], DATA["scales"], DATA["zps"]
    assert_tf("rq_axis_axis", _requantize(q8, QINT8, I8, scales, zps, scales[::-1] * 3,
                                          zps[::-1], input_quantization_axis=1,
                                          output_quantization_axis=1))
    assert_tf("rq_tensor_axis", _requantize(q8, QINT8, I8, 0.2, 1, scales, zps,
                                            output_quantization_axis=1))
    assert_tf("rq_axis_tensor", _requantize(q32, QINT32, I32, scales[:3], zps[:3], 900.0, -3,
                                            input_quantization_axis=0))


ADD_LIMITS = {**prefixed("lhs", I32), **prefixed("rhs", I32), **prefixed("output", I32)}


@pytest.mark.parametrize("k,params", list(enumerate([(0.5, 0, 0.5, 0, 0.5, 0),
                                                     (0.5, 1, 0.25, 2, 0.3, 3),
                                                     (0.013, -7, 2.1, 5, 0.77, 0)])))
def test_add(k, params):
    values = [F(v) if i % 2 == 0 else np.int32(v) for i, v in enumerate(params)]
    assert_tf(f"add_{k}", run_op("UniformQuantizedAdd", [DATA["a32"], DATA["b32"]] + values,
                                 T=QINT32, **ADD_LIMITS))


def test_add_per_axis_and_narrow_output():
    a32, b32, scales, zps = DATA["a32"], DATA["b32"], DATA["scales"], DATA["zps"]
    assert_tf("add_axis", run_op(
        "UniformQuantizedAdd", [a32, b32, scales, zps, scales * 2, zps, scales * 3, zps],
        T=QINT32, lhs_quantization_axis=2, rhs_quantization_axis=0, output_quantization_axis=2,
        **ADD_LIMITS))
    half = [F(0.5), np.int32(0)] * 3
    assert_tf("add_narrow", run_op(
        "UniformQuantizedAdd", [a32, b32] + half, T=QINT32, **prefixed("lhs", I32),
        **prefixed("rhs", I32), output_quantization_min_val=-1000,
        output_quantization_max_val=1000))


def test_clip_by_value():
    a32, scales, zps = DATA["a32"], DATA["scales"], DATA["zps"]
    assert_tf("clip_tensor", run_op("UniformQuantizedClipByValue", [
        a32, np.int32(-3000), np.int32(40000), F(0.5), np.int32(0)], T=QINT32, **I32))
    assert_tf("clip_axis", run_op("UniformQuantizedClipByValue", [
        a32, DATA["clip_lo"], DATA["clip_hi"], scales, zps], T=QINT32, quantization_axis=2,
        **I32))


DOT_LIMITS = {**prefixed("lhs", I8), **prefixed("rhs", I8), **prefixed("output", I32)}
DOTS = [(0.5, 1, 0.25, 0, 0.125, 0), (0.5, 1, 0.25, 0, 0.3, 2),
        (0.037, -3, 0.011, 0, 0.0021, -17)]


@pytest.mark.parametrize("k,params", list(enumerate(DOTS)))
def test_dot_and_hybrid(k, params):
    values = [F(v) if i % 2 == 0 else np.int32(v) for i, v in enumerate(params)]
    assert_tf(f"dot_{k}", run_op("UniformQuantizedDot", [DATA["lhs"], DATA["rhs"]] + values,
                                 Tin=QINT8, Tout=QINT32, **DOT_LIMITS))
    assert_tf(f"doth_{k}", run_op(
        "UniformQuantizedDotHybrid", [DATA["lhs_f"], DATA["rhs"]] + values[2:4],
        Tlhs=dtypes.float32, Trhs=QINT8, Tout=dtypes.float32, **prefixed("rhs", I8)))


def test_dot_per_channel():
    lhs, rhs, scales, zps = DATA["lhs"], DATA["rhs"], DATA["scales"], DATA["zps"]
    zeros = np.zeros(4, np.int32)
    common = dict(Tin=QINT8, Tout=QINT32, rhs_quantization_axis=1, output_quantization_axis=1)
    assert_tf("dot_axis", run_op("UniformQuantizedDot", [
        lhs, rhs, F(0.05), np.int32(2), scales, zeros, scales * F(0.05), zeros], **common,
        **DOT_LIMITS))
    assert_tf("dot_axis_out", run_op("UniformQuantizedDot", [
        lhs, rhs, F(0.05), np.int32(2), scales, zeros, scales * F(0.07), zps], **common,
        **prefixed("lhs", I8), **prefixed("rhs", I8), output_quantization_min_val=-300,
        output_quantization_max_val=300))
    assert_tf("doth_axis", run_op(
        "UniformQuantizedDotHybrid", [DATA["lhs_f"], rhs, scales, zeros], Tlhs=dtypes.float32,
        Trhs=QINT8, Tout=dtypes.float32, rhs_quantization_axis=1, **prefixed("rhs", I8)))


def test_graph_from_tensorflow_runs_in_a_session():
    """A GraphDef written by TensorFlow (generate_graph.py): quantize, per-channel dot,
    requantize, clip, dequantize and the hybrid dot give TensorFlow's six fetches."""
    recorded = np.load(HERE / "graph.npz")
    names = [n for n in recorded.files if n != "input"]
    with Session(str(HERE / "graph.pb")) as sess:
        values = sess.run(names, {"input:0": recorded["input"]})
    assert len(names) == 6
    for name, value in zip(names, values):
        np.testing.assert_array_equal(np.asarray(value), recorded[name], err_msg=name)
        assert np.asarray(value).dtype == recorded[name].dtype, name


# --- bad input: TensorFlow's messages --------------------------------------------------------

def test_parameter_shapes_are_checked():
    x = DATA["x"][:2, :3]
    common = dict(Tin=dtypes.float32, Tout=QINT8, **I8)
    with pytest.raises(InvalidArgumentError, match=r"If quantization_axis is not -1, scales "
                       r"and zero_points must be a tensor of rank 1 .* given quantization_axis "
                       r"1, scales shape \[2\] and zero_points shape \[2\]"):
        run_op("UniformQuantize", [x, F([0.5, 0.25]), np.int32([3, 0])], quantization_axis=1,
               **common)
    with pytest.raises(InvalidArgumentError, match=r"quantization_axis must be -1 or in range "
                       r"\[0, input.rank\), but given 2"):
        run_op("UniformQuantize", [x, F(0.5), np.int32(3)], quantization_axis=2, **common)
    with pytest.raises(InvalidArgumentError, match=r"scales and zero_points shape must be "
                       r"same, but given scales shape \[3\] and zero_points shape \[\]"):
        run_op("UniformQuantize", [x, F([0.5] * 3), np.int32(3)], quantization_axis=1,
               **common)
    with pytest.raises(InvalidArgumentError, match=r"If quantization_axis is -1, scales and "
                       r"zero_points must be scalar tensors, but given scales shape \[1\]"):
        run_op("UniformQuantize", [x, F([0.5]), np.int32([3])], **common)


def test_quantize_clamps_as_tensorflow():
    x = DATA["x"][:2, :3]
    # TensorFlow takes min with the max first: an inverted range gives its min everywhere.
    (q,) = run_op("UniformQuantize", [x, F(0.5), np.int32(3)], Tin=dtypes.float32, Tout=QINT8,
                  quantization_min_val=5, quantization_max_val=-5)
    assert (q == 5).all()


def test_requantize_refusals():
    q8 = DATA["q8"][:2, :3]
    with pytest.raises(InvalidArgumentError, match="input/output scales elements must be all "
                       "positive."):
        _requantize(q8, QINT8, I8, 0.5, 3, -0.3, -2)
    with pytest.raises(InvalidArgumentError, match="If input and output is both per-axis "
                       "quantized, the quantization axis must be same."):
        _requantize(q8, QINT8, I8, [0.5, 1.0], [3, 0], [0.3, 0.2, 3.0], [-2, 0, 0],
                    input_quantization_axis=0, output_quantization_axis=1)
    with pytest.raises(NotFoundError, match="no CPU kernel"):
        run_op("UniformRequantize", [q8, F(1), np.int32(0), F(1), np.int32(0)], Tin=QINT8,
               Tout=QINT32, **prefixed("input", I8), **prefixed("output", I32))


def test_add_clip_and_dot_refusals():
    ones = np.ones((2, 3), np.int32)
    half = [F(0.5), np.int32(0)] * 3
    with pytest.raises(InvalidArgumentError, match=r"Cannot Add tensors of shapes: "
                       r"\[2,3\]\[4\]"):
        run_op("UniformQuantizedAdd", [ones, np.ones(4, np.int32)] + half, T=QINT32,
               **ADD_LIMITS)
    with pytest.raises(InvalidArgumentError, match=r"Input min shape must be same as "
                       r"scales/zero_points. Given min of shape \[1\]"):
        run_op("UniformQuantizedClipByValue", [ones, np.int32([-5]), np.int32(50), F(0.5),
                                               np.int32(0)], T=QINT32, **I32)
    lhs = DATA["lhs"]
    dot = [F(0.5), np.int32(1), F(0.25), np.int32(0), F(0.125), np.int32(0)]
    with pytest.raises(InvalidArgumentError, match=r"lhs.dim_size\(1\) and rhs.dim_size\(0\) "
                       r"must be equal, but given lhs shape \[5,6\] and rhs shape \[5,6\]"):
        run_op("UniformQuantizedDot", [lhs, lhs] + dot, Tin=QINT8, Tout=QINT32, **DOT_LIMITS)
    with pytest.raises(InvalidArgumentError, match=r"lhs rank must be 2, but given lhs shape "
                       r"\[1,5,6\]"):
        run_op("UniformQuantizedDot", [lhs[None], DATA["rhs"]] + dot, Tin=QINT8, Tout=QINT32,
               **DOT_LIMITS)
    with pytest.raises(InvalidArgumentError, match=r"lhs_quantization_axis Attr must be -1 "
                       r"\(per-tensor\)."):
        run_op("UniformQuantizedDot", [lhs, DATA["rhs"], F([0.5] * 5), np.int32([1] * 5)]
               + dot[2:], Tin=QINT8, Tout=QINT32, lhs_quantization_axis=0, **DOT_LIMITS)
    with pytest.raises(InvalidArgumentError, match=r"If rhs is per-tensor quantized, output "
                       r"must be also per-tensor quantized. Given rhs scales and zero_points "
                       r"of shape \[\] but given output scales and zero_points of shape \[4\]"):
        run_op("UniformQuantizedDot", [lhs, DATA["rhs"]] + dot[:4] +
               [F([0.1] * 4), np.int32([0] * 4)], Tin=QINT8, Tout=QINT32,
               output_quantization_axis=1, **DOT_LIMITS)


def test_shape_functions():
    import tfx as tf

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        q = tf.raw_ops.UniformQuantize(input=x, scales=[0.5] * 4, zero_points=[0] * 4,
                                       Tout=QINT8, quantization_axis=1, **I8)
        assert q.shape.as_list() == [None, 4]
        lhs = tf.placeholder(QINT8, [3, 4])
        rhs = tf.placeholder(QINT8, [4, 5])
        dot = tf.raw_ops.UniformQuantizedDot(
            lhs=lhs, rhs=rhs, lhs_scales=1.0, lhs_zero_points=0, rhs_scales=1.0,
            rhs_zero_points=0, output_scales=1.0, output_zero_points=0, Tout=QINT32,
            **DOT_LIMITS)
        assert dot.shape.as_list() == [3, 5]
        with pytest.raises(InvalidArgumentError, match="Shape must be rank 1 but is rank 0"):
            tf.raw_ops.UniformQuantize(input=x, scales=0.5, zero_points=0, Tout=QINT8,
                                       quantization_axis=1, **I8)


# --- properties against numpy's float arithmetic ------------------------------------------

@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=5),
                  elements=st.floats(-100, 100, width=32)),
       st.floats(0.125, 4.0, width=32), st.integers(-20, 20))
def test_quantize_then_dequantize_is_within_half_a_step(x, scale, zero_point):
    common = dict(quantization_min_val=-2**31, quantization_max_val=2**31 - 1)
    (q,) = run_op("UniformQuantize", [x, F(scale), np.int32(zero_point)], Tin=dtypes.float32,
                  Tout=QINT32, **common)
    (back,) = run_op("UniformDequantize", [q, F(scale), np.int32(zero_point)], Tin=QINT32,
                     Tout=dtypes.float32, **common)
    np.testing.assert_allclose(back, x, atol=float(scale) * 0.5 * (1 + 1e-5) + 1e-4)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int8, hnp.array_shapes(max_dims=2, max_side=6)),
       st.floats(0.125, 3.0, width=32), st.floats(0.125, 3.0, width=32),
       st.integers(-5, 5), st.integers(-5, 5))
def test_requantize_is_the_rounded_float_rescaling(q, s_in, s_out, z_in, z_out):
    (out,) = _requantize(q, QINT8, I8, s_in, z_in, s_out, z_out)
    reference = np.clip(np.floor((q.astype(np.float64) - z_in) * float(s_in) / float(s_out)
                                 + 0.5) + z_out, -128, 127)
    assert np.abs(out.astype(np.int64) - reference).max(initial=0) <= 1


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 4), st.data())
def test_dot_is_the_rescaled_integer_product(rows, depth, cols, data):
    lhs = data.draw(hnp.arrays(np.int8, (rows, depth)))
    rhs = data.draw(hnp.arrays(np.int8, (depth, cols)))
    values = [F(0.02), np.int32(3), F(0.05), np.int32(-1), F(0.01), np.int32(2)]
    (out,) = run_op("UniformQuantizedDot", [lhs, rhs] + values, Tin=QINT8, Tout=QINT32,
                    **DOT_LIMITS)
    exact = (lhs.astype(np.int64) - 3) @ (rhs.astype(np.int64) + 1)
    reference = np.floor(exact * (0.02 * 0.05 / 0.01) + 0.5) + 2
    assert np.abs(out.astype(np.int64) - reference).max(initial=0) <= 1

"""UniformQuantizedConvolution and UniformQuantizedConvolutionHybrid
(core/ops/uniform_quantized_ops.py, kernels/cpu/uniform_quantized_conv.py) against
TensorFlow 2.21's outputs recorded in tests/data/uniform_quantized/conv.npz
(generate_conv.py beside it, loaded by path for its case list), bit for bit: default and
NHWC/HWIO dimension numbers, VALID/SAME/EXPLICIT padding, strides, lhs and rhs dilation,
feature and batch groups, per-tensor and per-channel parameters; TensorFlow's errors for
bad attrs; a property against a float reference. These tests need no TensorFlow.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfx.core import dtypes
from tfx.core.eager import run_op
from tfx.core.errors import InvalidArgumentError
from tfx.core.ops.uniform_quantized_ops import parse_dimension_numbers

HERE = Path(__file__).parents[2] / "data" / "uniform_quantized"
DATA = np.load(HERE / "conv.npz")
_spec = importlib.util.spec_from_file_location("generate_conv", HERE / "generate_conv.py")
GENERATOR = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GENERATOR)
F = np.float32
QINT8, QINT32 = dtypes.as_dtype("qint8"), dtypes.as_dtype("qint32")
LIMITS = dict(lhs_quantization_min_val=-128, lhs_quantization_max_val=127,
              rhs_quantization_min_val=-128, rhs_quantization_max_val=127,
              output_quantization_min_val=-2**31, output_quantization_max_val=2**31 - 1)


def _attrs(name: str) -> tuple[dict, dict]:
    _, _, attrs, numbers, per_channel = GENERATOR.CASES[name]
    attrs = dict(attrs)
    if numbers is not None:
        attrs["dimension_numbers"] = DATA[f"{name}_dimension_numbers"].tobytes()
    axes = {}
    if per_channel:
        axes = dict(rhs_quantization_axis=(numbers or {}).get(
            "kernel_output_feature_dimension", 0), output_quantization_axis=(numbers or {}).get(
            "output_feature_dimension", 1))
    return attrs, axes


@pytest.mark.parametrize("name", sorted(GENERATOR.CASES))
def test_matches_tensorflow(name):
    attrs, axes = _attrs(name)
    (out,) = run_op("UniformQuantizedConvolution", [
        DATA[f"{name}_lhs"], DATA[f"{name}_rhs"], F(0.02), np.int32(4),
        DATA[f"{name}_rhs_scales"], DATA[f"{name}_rhs_zps"], DATA[f"{name}_out_scales"],
        DATA[f"{name}_out_zps"]], Tin=QINT8, Tout=QINT32, **LIMITS, **axes, **attrs)
    np.testing.assert_array_equal(out, DATA[name])
    (hybrid,) = run_op("UniformQuantizedConvolutionHybrid", [
        DATA[f"{name}_lhs_f"], DATA[f"{name}_rhs"], DATA[f"{name}_rhs_scales"],
        DATA[f"{name}_rhs_zps"]], Tlhs=dtypes.float32, Trhs=QINT8, Tout=dtypes.float32,
        rhs_quantization_min_val=-128, rhs_quantization_max_val=127,
        **{k: v for k, v in axes.items() if k.startswith("rhs")}, **attrs)
    np.testing.assert_array_equal(hybrid, DATA[f"{name}_hybrid"])


def test_dimension_numbers_are_decoded():
    numbers = parse_dimension_numbers(DATA["nhwc_feature_groups_dimension_numbers"].tobytes())
    assert numbers == GENERATOR.NHWC
    with pytest.raises(InvalidArgumentError, match="Error parsing convolution dimension"):
        parse_dimension_numbers(b"\x1a\x05\x01")


def test_dimension_numbers_read_the_wire_as_protobuf_does():
    # Field 3 (input_spatial_dimensions) packed and unpacked, field 1 negative; a fixed32
    # field 20 and a group 21 that the message does not know are skipped, as protobuf does.
    data = (b"\x1a\x02\x01\x02" + b"\x18\x03" + b"\x08" + b"\xff" * 9 + b"\x01"
            + b"\xa5\x01" + bytes(4) + b"\xab\x01\x08\x07\xac\x01")
    numbers = parse_dimension_numbers(data)
    assert numbers["input_spatial_dimensions"] == [1, 2, 3]
    assert numbers["input_batch_dimension"] == -1
    for bad in (b"\x08" + b"\xff" * 10 + b"\x01",  # an eleven-byte varint
                b"\xab\x01\x08\x07",  # a group left open
                b"\x1a\x02\x01\x80"):  # a packed varint running past its field
        with pytest.raises(InvalidArgumentError, match="Error parsing convolution dimension"):
            parse_dimension_numbers(bad)


def _conv(lhs_shape=(1, 2, 4, 4), rhs_shape=(3, 2, 2, 2), **attrs):
    lhs = np.zeros(lhs_shape, np.int8)
    rhs = np.zeros(rhs_shape, np.int8)
    attrs.setdefault("padding", "VALID")
    return run_op("UniformQuantizedConvolution", [
        lhs, rhs, F(1), np.int32(0), F(1), np.int32(0), F(1), np.int32(0)], Tin=QINT8,
        Tout=QINT32, **LIMITS, **attrs)


@pytest.mark.parametrize("attrs,message", [
    ({"padding": "FULL"}, r"padding Attr must be one of \[EXPLICIT \| SAME \| VALID\], but "
                          r"given: FULL"),
    ({"padding": "SAME", "explicit_padding": [1, 1, 1, 1]},
     "If padding Attr is not 'EXPLICIT', explicit_padding Attr must be empty. Given padding "
     "SAME and explicit_padding of size 4"),
    ({"padding": "EXPLICIT", "explicit_padding": [1, 1]},
     r"Size of explicit_padding Attr must be 2 \* \(rank - 2\). Given rank 4 and "
     "explicit_padding of size 2"),
    ({"window_strides": [1]}, "Size of window_strides Attr must be dims - 2."),
    ({"lhs_dilation": [0, 1]}, "All elements of lhs_dilation must be >= 1. Given 0, 1"),
    ({"feature_group_count": 2}, "lhs feature dimension size divided by feature_group_count "
                                 "must equal the rhs input feature dimension size, but 2 / 2 "
                                 "!= 2"),
    ({"batch_group_count": 2}, "batch_group_count must divide lhs batch dimension size, but "
                               "2 does not divide 1"),
    ({"lhs_quantization_axis": 0}, r"lhs_quantization_axis Attr must be -1 \(per-tensor\)."),
    ({"rhs_quantization_axis": 1}, r"rhs_quantization_axis Attr must be -1 \(per-tensor\) or "
                                   r"dimension_numbers.kernel_output_feature_dimension"),
])
def test_bad_attrs(attrs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        _conv(**attrs)


def test_bad_shapes():
    with pytest.raises(InvalidArgumentError, match=r"lhs and rhs must have same dims. Given "
                       r"lhs and rhs of shapes: \[1,2,4,4\]\[3,2,2\]"):
        _conv(rhs_shape=(3, 2, 2))
    with pytest.raises(InvalidArgumentError, match="lhs and rhs shape dims must be at least 3"):
        _conv(lhs_shape=(1, 2), rhs_shape=(3, 2))


def test_shape_function():
    import tfx as tf

    with tf.Graph().as_default():
        lhs = tf.placeholder(QINT8, [2, 3, 9, 8])
        rhs = tf.placeholder(QINT8, [4, 3, 3, 2])
        out = tf.raw_ops.UniformQuantizedConvolution(
            lhs=lhs, rhs=rhs, lhs_scales=1.0, lhs_zero_points=0, rhs_scales=1.0,
            rhs_zero_points=0, output_scales=1.0, output_zero_points=0, Tout=QINT32,
            padding="SAME", window_strides=[2, 3], **LIMITS)
        assert out.shape.as_list() == [2, 4, 5, 3]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 2), st.integers(1, 3), st.integers(3, 6), st.integers(1, 3),
       st.integers(1, 3), st.sampled_from(["VALID", "SAME"]), st.data())
def test_hybrid_is_close_to_a_float_convolution(batch, features, size, window, outputs,
                                                padding, data):
    rs = np.random.RandomState(data.draw(st.integers(0, 1000)))
    lhs = rs.uniform(-2, 2, size=(batch, features, size, size)).astype(F)
    rhs = rs.randint(-127, 128, size=(outputs, features, window, window)).astype(np.int8)
    (out,) = run_op("UniformQuantizedConvolutionHybrid", [lhs, rhs, F(0.01), np.int32(0)],
                    Tlhs=dtypes.float32, Trhs=QINT8, Tout=dtypes.float32,
                    rhs_quantization_min_val=-128, rhs_quantization_max_val=127,
                    padding=padding)
    weights = rhs.astype(np.float64) * 0.01
    pad = (window - 1) // 2 if padding == "SAME" else 0
    pad_after = window - 1 - pad if padding == "SAME" else 0
    padded = np.pad(lhs.astype(np.float64), ((0, 0), (0, 0), (pad, pad_after),
                                             (pad, pad_after)))
    rows = padded.shape[2] - window + 1
    reference = np.zeros((batch, outputs, rows, rows))
    for i in range(window):
        for j in range(window):
            reference += np.einsum("bfhw,of->bohw", padded[:, :, i:i + rows, j:j + rows],
                                   weights[:, :, i, j])
    step = 4.0 / 255  # one int8 step of the widest lhs range
    bound = step * np.abs(weights).sum(axis=(1, 2, 3)).max() + 1e-5
    np.testing.assert_allclose(out, reference, atol=bound)

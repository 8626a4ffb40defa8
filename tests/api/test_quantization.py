# ruff: noqa: E501 - the recorded TensorFlow values are kept one per line
"""tf.quantize/quantize_v2/dequantize/quantized_concat, the fake_quant_* functions, the
tf.quantization namespace's quantize_and_dequantize(_v2), their gradients and
QUANTIZED_DTYPES.

Expected values were recorded with TensorFlow 2.21 (tensorflow-cpu, reference kernels:
TF_ENABLE_ONEDNN_OPTS=0) through tf.compat.v1 and tf.gradients of sum(w * y).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf
from tfx.core.api.quantization_api import (
    QUANTIZED_DTYPES,
    dequantize,
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
    quantize_v2,
    quantized_concat,
)

X = [-7.0, -1.2, -0.55, 0.0, 0.26, 0.9, 1.0, 2.5]
W = np.arange(1, 9, dtype=np.float32)

ARGS_Y = [-1.040000081062317, -1.040000081062317, -0.5200000405311584, 0.0, 0.2600000202655792, 0.9100000858306885, 0.9100000858306885, 0.9100000858306885]
ARGS_GRAD = [0.0, 0.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
VARS_GRADS = [[0.0, 0.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0], 3.0, 15.0]
CHANNEL_GRADS = [[[0.0, 0.0], [3.0, 4.0], [5.0, 6.0], [0.0, 0.0]], [1.0, 2.0], [7.0, 8.0]]
QDQ_Y = [-1.0, -1.0, -0.546875, 0.0, 0.2578125, 0.8984375, 0.9921875, 0.9921875]
QDQ_GRAD = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
QDQ_V2_Y = [-1.0, -1.0, -0.546875, 0.0, 0.2578125, 0.8984375, 0.9921875, 0.9921875]
QDQ_V2_GRAD = [0.0, 0.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
QUANTIZE_QUINT8 = [[0, 0, 59, 131, 165, 248, 255, 255], -1.0, 0.949999988079071]
DEQUANTIZE_BACK = [-1.0, -1.0, -0.5488235354423523, 0.0017647743225097656, 0.2617647647857666, 0.8964706659317017, 0.9500000476837158, 0.9500000476837158]
QUANTIZE_AXIS = [[[-128, -128], [-70, 0], [33, 104], [127, 127]], [-1.0, -1.108661413192749], [0.9921875, 1.100000023841858]]
DEQUANTIZE_AXIS = [[-1.0, -1.108661413192749], [-0.546875, 0.0], [0.2578125, 0.9007874131202698], [0.9921875, 1.100000023841858]]
DEQUANTIZE_BF16 = [-1.0, -1.0, -0.546875, 0.00176239013671875, 0.26171875, 0.89453125, 0.94921875, 0.94921875]
QUANTIZE_EMR = [[-128, -128, -128, -127, -127, -127, -127, -126], -0.0010000000474974513, 0.49900001287460327]


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_quantized_dtypes_is_tensorflows_set():
    names = {d.name for d in QUANTIZED_DTYPES}
    assert isinstance(QUANTIZED_DTYPES, frozenset)
    assert names == {"qint8", "quint8", "qint16", "quint16", "qint32", "qint8_ref",
                     "quint8_ref", "qint16_ref", "quint16_ref", "qint32_ref"}
    assert tf.qint8 in QUANTIZED_DTYPES and tf.int8 not in QUANTIZED_DTYPES


def test_quantize_dequantize_round_trip_values():
    q = quantize(X, -1.0, 0.95, tf.quint8)
    assert q.output.dtype == tf.quint8
    back = dequantize(q.output, q.output_min, q.output_max)
    bf16 = tf.cast(dequantize(q.output, q.output_min, q.output_max, dtype=tf.bfloat16),
                   tf.float32)
    (out, low, high), got_back, got_bf16 = _run([q, back, bf16])
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, QUANTIZE_QUINT8[0])
    assert (float(low), float(high)) == (QUANTIZE_QUINT8[1], QUANTIZE_QUINT8[2])
    np.testing.assert_array_equal(got_back, np.array(DEQUANTIZE_BACK, np.float32))
    np.testing.assert_array_equal(got_bf16, np.array(DEQUANTIZE_BF16, np.float32))


def test_quantize_per_axis_and_negative_axis():
    x = tf.reshape(tf.constant(X), [4, 2])
    q = quantize(x, [-1.0, -0.5], [0.95, 1.1], tf.qint8, mode="SCALED", axis=-1)
    back = dequantize(q.output, q.output_min, q.output_max, mode="SCALED", axis=-1)
    (out, low, high), got_back = _run([q, back])
    np.testing.assert_array_equal(out, QUANTIZE_AXIS[0])
    np.testing.assert_array_equal(low, np.array(QUANTIZE_AXIS[1], np.float32))
    np.testing.assert_array_equal(high, np.array(QUANTIZE_AXIS[2], np.float32))
    np.testing.assert_array_equal(got_back, np.array(DEQUANTIZE_AXIS, np.float32))
    with pytest.raises(ValueError, match="known rank to use negative axis"):
        quantize(tf.placeholder(tf.float32), [-1.0], [1.0], tf.qint8, axis=-1)


def test_quantize_v2_ensure_minimum_range():
    x = tf.constant(X) * 0.001
    out, low, high = _run(quantize_v2(x, -0.001, 0.001, tf.qint8, ensure_minimum_range=0.5))
    np.testing.assert_array_equal(out, QUANTIZE_EMR[0])
    assert (float(low), float(high)) == (np.float32(QUANTIZE_EMR[1]), np.float32(QUANTIZE_EMR[2]))


def test_quantized_tensors_feed_and_fetch():
    feed = tf.placeholder(tf.qint8, shape=[3])
    out = dequantize(feed, -1.0, 1.0, mode="SCALED")
    got, echoed = _run([out, tf.identity(feed)], {feed: np.array([-127, 0, 127], np.int8)})
    np.testing.assert_allclose(got, [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(echoed, [-127, 0, 127])


def test_quantized_concat_requantizes_into_the_union_range():
    a = quantize([0.0, 0.5, 1.0], 0.0, 1.0, tf.quint8)
    b = quantize([-1.0, 2.0], -1.0, 2.0, tf.quint8)
    out = quantized_concat(0, [a.output, b.output], [a.output_min, b.output_min],
                           [a.output_max, b.output_max])
    values, low, high = _run(out)
    assert (float(low), float(high)) == (-1.0, 2.0)
    np.testing.assert_array_equal(values, [85, 128, 170, 0, 255])


def test_fake_quant_gradients_match_tensorflow():
    x = tf.constant(X)
    low, high = tf.constant(-1.0), tf.constant(0.95)
    y_args = fake_quant_with_min_max_args(x, -1.0, 0.95, num_bits=4)
    y_vars = fake_quant_with_min_max_vars(x, low, high, num_bits=4)
    x2 = tf.reshape(x, [4, 2])
    low2, high2 = tf.constant([-1.0, -0.5]), tf.constant([0.95, 1.1])
    y_channel = fake_quant_with_min_max_vars_per_channel(x2, low2, high2, num_bits=4)
    got = _run([y_args, tf.gradients(y_args * W, x)[0],
                tf.gradients(y_vars * W, [x, low, high]),
                tf.gradients(y_channel * W.reshape(4, 2), [x2, low2, high2])])
    np.testing.assert_array_equal(got[0], np.array(ARGS_Y, np.float32))
    np.testing.assert_array_equal(got[1], ARGS_GRAD)
    np.testing.assert_array_equal(got[2][0], VARS_GRADS[0])
    assert (float(got[2][1]), float(got[2][2])) == (VARS_GRADS[1], VARS_GRADS[2])
    for value, expected in zip(got[3], CHANNEL_GRADS):
        np.testing.assert_array_equal(value, expected)


def test_fake_quant_gradient_functions():
    x = tf.constant(X)
    g = tf.constant(W)
    args = fake_quant_with_min_max_args_gradient(g, x, min=-1.0, max=0.95, num_bits=4)
    var = fake_quant_with_min_max_vars_gradient(g, x, -1.0, 0.95, num_bits=4)
    chan = fake_quant_with_min_max_vars_per_channel_gradient(
        tf.reshape(g, [4, 2]), tf.reshape(x, [4, 2]), [-1.0, -0.5], [0.95, 1.1], num_bits=4)
    got_args, got_var, got_chan = _run([args, var, chan])
    np.testing.assert_array_equal(got_args, ARGS_GRAD)
    np.testing.assert_array_equal(got_var.backprops_wrt_input, VARS_GRADS[0])
    assert float(got_var.backprop_wrt_min) == 3.0 and float(got_var.backprop_wrt_max) == 15.0
    np.testing.assert_array_equal(got_chan.backprop_wrt_max, CHANNEL_GRADS[2])


def test_quantize_and_dequantize_values_and_gradients():
    x = tf.constant(X)
    y = quantize_and_dequantize(x, -1.0, 0.95, range_given=True)
    y2 = quantize_and_dequantize_v2(x, -1.0, 0.95, range_given=True)
    got = _run([y, tf.gradients(y * W, x)[0], y2, tf.gradients(y2 * W, x)[0]])
    np.testing.assert_array_equal(got[0], np.array(QDQ_Y, np.float32))
    np.testing.assert_array_equal(got[1], QDQ_GRAD)
    np.testing.assert_array_equal(got[2], np.array(QDQ_V2_Y, np.float32))
    np.testing.assert_array_equal(got[3], QDQ_V2_GRAD)


def test_static_shape_checks():
    with pytest.raises(tf.errors.InvalidArgumentError):
        fake_quant_with_min_max_vars_per_channel(tf.zeros([2, 3]), [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        quantize(tf.zeros([2, 3]), [0.0, 0.0], [1.0, 1.0], tf.qint8, axis=1)
    assert quantize(tf.zeros([2, 3]), [0.0] * 3, [1.0] * 3, tf.qint8,
                    axis=1).output_min.shape.as_list() == [3]

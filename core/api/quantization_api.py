"""Quantization (TensorFlow 1.x's tf.quantize, tf.dequantize, tf.quantized_concat, the
tf.fake_quant_* family and tf.quantization.quantize_and_dequantize(_v2)).

Each function builds one op of core/ops/quantization_ops.py; core/api/quantization_grad.py
registers the gradients (straight-through for fake quantization and
quantize-and-dequantize). The quantized types are 8-, 16- and 32-bit integers that
carry a float range beside them: `quantize` returns the tensor with the range it used.

Example:
    >>> q, low, high = quantize(x, -1.0, 1.0, qint8)            # MIN_COMBINED
    >>> y = dequantize(q, low, high)                              # back to float32
    >>> z = fake_quant_with_min_max_args(x, min=-1.0, max=1.0)    # float32 on 256 levels
"""

from __future__ import annotations

import collections
from typing import Any

from tfx.core import dtypes
from tfx.core.api.graph_builder import Tensor
from tfx.core.api.ops_api import apply_op, convert_to_tensor

__all__ = [
    "QUANTIZED_DTYPES",
    "dequantize",
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize",
    "quantize_and_dequantize",
    "quantize_and_dequantize_v2",
    "quantize_v2",
    "quantized_concat",
]

_QUANTIZED_NAMES = ("qint8", "quint8", "qint16", "quint16", "qint32")
QUANTIZED_DTYPES = frozenset(
    [dtypes.as_dtype(n) for n in _QUANTIZED_NAMES]
    + [dtypes.as_dtype(n).as_ref for n in _QUANTIZED_NAMES])

QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat",
                                         ["output", "output_min", "output_max"])
FakeQuantWithMinMaxVarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
FakeQuantWithMinMaxVarsPerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])

def _axis_attr(x: Tensor, axis: int | None) -> int:
    """The op's axis attr: -1 for none; a negative axis counts from the end (known rank)."""
    if axis is None:
        return -1
    axis = int(axis)
    if axis < 0:
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= rank
    return axis


def quantize_v2(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002, N803
                mode: str = "MIN_COMBINED", name: str | None = None,
                round_mode: str = "HALF_AWAY_FROM_ZERO", narrow_range: bool = False,
                axis: int | None = None, ensure_minimum_range: float = 0.01) -> QuantizeV2:
    """Quantize float32 `input` to the quantized type `T` over [min_range, max_range].

    The range is first widened to contain 0 and to be at least `ensure_minimum_range`
    times max(1, |min_range|, |max_range|) wide.

    Args:
        input: float32 tensor.
        min_range, max_range: float32 scalars, or vectors along `axis`.
        T: qint8, quint8, qint16, quint16 or qint32.
        mode: 'MIN_COMBINED' (range onto T's range), 'MIN_FIRST' (range rounded to steps
            from its minimum) or 'SCALED' (0 stays 0; symmetric scale).
        round_mode: 'HALF_AWAY_FROM_ZERO', or 'HALF_TO_EVEN' (SCALED only).
        narrow_range: SCALED leaves out T's lowest value (-127..127 for qint8).
        axis: the dimension with one range per slice (None: one range).
        ensure_minimum_range: the smallest relative width of the range.

    Returns:
        A (output, output_min, output_max) namedtuple: the T tensor and the range used.

    Example:
        >>> quantize_v2([-1.0, 0.0, 1.0], -1.0, 1.0, qint8, mode="SCALED")
    """
    input = convert_to_tensor(input, dtype=dtypes.float32, name="input")  # noqa: A001
    outputs = apply_op("QuantizeV2", input=input, min_range=min_range, max_range=max_range,
                       T=dtypes.as_dtype(T), mode=mode, round_mode=round_mode,
                       narrow_range=narrow_range, axis=_axis_attr(input, axis),
                       ensure_minimum_range=ensure_minimum_range, name=name)
    return QuantizeV2(*outputs)


def quantize(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002, N803
             mode: str = "MIN_COMBINED", round_mode: str = "HALF_AWAY_FROM_ZERO",
             name: str | None = None, narrow_range: bool = False, axis: int | None = None,
             ensure_minimum_range: float = 0.01) -> QuantizeV2:
    """Quantize float32 `input` to `T` (tf.quantize; `quantize_v2` with its argument order).

    Args and Returns: as `quantize_v2`.

    Example:
        >>> q = quantize([0.5], 0.0, 1.0, quint8)     # q.output == [128]
    """
    return quantize_v2(input, min_range, max_range, T, mode=mode, name=name,
                       round_mode=round_mode, narrow_range=narrow_range, axis=axis,
                       ensure_minimum_range=ensure_minimum_range)


def dequantize(input: Any, min_range: Any, max_range: Any,  # noqa: A002
               mode: str = "MIN_COMBINED", name: str | None = None, axis: int | None = None,
               narrow_range: bool = False, dtype: Any = dtypes.float32) -> Tensor:
    """Map a quantized tensor back to floats over [min_range, max_range].

    Args:
        input: a qint8, quint8, qint16, quint16 or qint32 tensor.
        min_range, max_range: float32 scalars, or vectors along `axis`.
        mode: the mode it was quantized with.
        axis: the dimension with one range per slice (None: one range).
        narrow_range: whether SCALED quantization left out T's lowest value.
        dtype: float32 or bfloat16.

    Returns:
        A `dtype` tensor of the input's shape.

    Example:
        >>> q, low, high = quantize(x, -1.0, 1.0, qint8)
        >>> dequantize(q, low, high)
    """
    input = convert_to_tensor(input, name="input")  # noqa: A001
    return apply_op("Dequantize", input=input, min_range=min_range, max_range=max_range,
                    mode=mode, narrow_range=narrow_range, axis=_axis_attr(input, axis),
                    dtype=dtypes.as_dtype(dtype), name=name)


def quantized_concat(concat_dim: Any, values: list, input_mins: list, input_maxes: list,
                     name: str | None = None) -> QuantizedConcat:
    """Concatenate quantized tensors, requantizing each into one range covering them all.

    The output range is the union of the input ranges with 0 (made symmetric about 0
    for signed types); inputs whose range differs are dequantized and requantized in
    MIN_FIRST mode.

    Args:
        concat_dim: int32 scalar in [0, rank).
        values: two or more tensors of one quantized type.
        input_mins, input_maxes: one float32 scalar per value.

    Returns:
        An (output, output_min, output_max) namedtuple.

    Example:
        >>> quantized_concat(0, [a, b], [a_min, b_min], [a_max, b_max])
    """
    outputs = apply_op("QuantizedConcat", concat_dim=concat_dim, values=list(values),
                       input_mins=list(input_mins), input_maxes=list(input_maxes), name=name)
    return QuantizedConcat(*outputs)


def fake_quant_with_min_max_args(inputs: Any, min: float = -6, max: float = 6,  # noqa: A002
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: str | None = None) -> Tensor:
    """Quantize and dequantize float32 `inputs` over a fixed [min, max] in one step.

    The range is nudged so that 0 is one of the 2^num_bits levels (2^num_bits - 1 with
    `narrow_range`); values are clamped to it and rounded to the nearest level.

    Args:
        inputs: float32 tensor.
        min, max: the range, min < max.
        num_bits: 2 to 16.
        narrow_range: leave out the lowest level.

    Returns:
        A float32 tensor of the inputs' shape.

    Example:
        >>> fake_quant_with_min_max_args([0.3, 7.0], min=-6.0, max=6.0)
    """
    return apply_op("FakeQuantWithMinMaxArgs", inputs=inputs, min=float(min), max=float(max),
                    num_bits=num_bits, narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any,
                                          min: float = -6, max: float = 6,  # noqa: A002
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: str | None = None) -> Tensor:
    """The gradient of `fake_quant_with_min_max_args`: `gradients` where `inputs` lies in
    the nudged range, 0 elsewhere.

    Example:
        >>> fake_quant_with_min_max_args_gradient(tf.ones([2]), [0.0, 9.0])   # [1, 0]
    """
    return apply_op("FakeQuantWithMinMaxArgsGradient", gradients=gradients, inputs=inputs,
                    min=float(min), max=float(max), num_bits=num_bits,
                    narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any,  # noqa: A002
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: str | None = None) -> Tensor:
    """`fake_quant_with_min_max_args` with the range in float32 scalar tensors (trainable).

    Both ends 0 give zeros. Gradients flow to `min` and `max` from the inputs below and
    above the nudged range.

    Example:
        >>> fake_quant_with_min_max_vars(x, tf.Variable(-1.0), tf.Variable(1.0))
    """
    return apply_op("FakeQuantWithMinMaxVars", inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any,  # noqa: A002
                                          max: Any, num_bits: int = 8,  # noqa: A002
                                          narrow_range: bool = False,
                                          name: str | None = None
                                          ) -> FakeQuantWithMinMaxVarsGradient:
    """The gradients of `fake_quant_with_min_max_vars`.

    Returns:
        A (backprops_wrt_input, backprop_wrt_min, backprop_wrt_max) namedtuple: `gradients`
        inside the nudged range, and the sums of `gradients` below and above it.

    Example:
        >>> fake_quant_with_min_max_vars_gradient(g, x, -1.0, 1.0)
    """
    outputs = apply_op("FakeQuantWithMinMaxVarsGradient", gradients=gradients, inputs=inputs,
                       min=min, max=max, num_bits=num_bits, narrow_range=narrow_range,
                       name=name)
    return FakeQuantWithMinMaxVarsGradient(*outputs)


def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any,  # noqa: A002
                                             num_bits: int = 8, narrow_range: bool = False,
                                             name: str | None = None) -> Tensor:
    """`fake_quant_with_min_max_vars` with one range per channel (the last dimension).

    Args:
        inputs: float32 tensor [..., d].
        min, max: float32 vectors [d].

    Example:
        >>> fake_quant_with_min_max_vars_per_channel(x, [-1.0, -2.0], [1.0, 2.0])
    """
    return apply_op("FakeQuantWithMinMaxVarsPerChannel", inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name)


def fake_quant_with_min_max_vars_per_channel_gradient(
        gradients: Any, inputs: Any, min: Any, max: Any,  # noqa: A002
        num_bits: int = 8, narrow_range: bool = False, name: str | None = None
) -> FakeQuantWithMinMaxVarsPerChannelGradient:
    """The gradients of `fake_quant_with_min_max_vars_per_channel` (sums per channel).

    Example:
        >>> fake_quant_with_min_max_vars_per_channel_gradient(g, x, [-1.0], [1.0])
    """
    outputs = apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", gradients=gradients,
                       inputs=inputs, min=min, max=max, num_bits=num_bits,
                       narrow_range=narrow_range, name=name)
    return FakeQuantWithMinMaxVarsPerChannelGradient(*outputs)


def _quantize_and_dequantize(op_type: str, input: Any, input_min: Any,  # noqa: A002
                             input_max: Any, signed_input: bool, num_bits: int,
                             range_given: bool, round_mode: str, name: str | None,
                             narrow_range: bool, axis: int | None) -> Tensor:
    input = convert_to_tensor(input, name="input")  # noqa: A001
    return apply_op(op_type, input=input, input_min=input_min, input_max=input_max,
                    signed_input=signed_input, num_bits=num_bits, range_given=range_given,
                    round_mode=round_mode, narrow_range=narrow_range,
                    axis=_axis_attr(input, axis), name=name)


def quantize_and_dequantize(input: Any, input_min: Any, input_max: Any,  # noqa: A002
                            signed_input: bool = True, num_bits: int = 8,
                            range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                            name: str | None = None, narrow_range: bool = False,
                            axis: int | None = None) -> Tensor:
    """Round floats to a simulated `num_bits` integer grid (0 exact) and back.

    The scale maps the tighter side of [input_min, input_max] (the data's own min and
    max unless `range_given`) onto the integer range, e.g. [-128, 127] for signed 8 bits
    ([-127, 127] with `narrow_range`), [0, 255] unsigned. Its gradient is the identity.

    Args:
        input: bfloat16, float16, float32 or float64 tensor.
        input_min, input_max: the range (scalars, or vectors along `axis`).
        signed_input: a signed integer grid.
        num_bits: the integer's width.
        range_given: use input_min/input_max (and clamp to them) rather than the data's.
        round_mode: 'HALF_TO_EVEN' or 'HALF_UP'.
        narrow_range: leave out the signed grid's lowest value.
        axis: the dimension with one range per slice (None: one range).

    Returns:
        A tensor of the input's type and shape.

    Example:
        >>> quantize_and_dequantize([0.1, 0.5], -1.0, 1.0, range_given=True)
    """
    return _quantize_and_dequantize("QuantizeAndDequantizeV2", input, input_min, input_max,
                                    signed_input, num_bits, range_given, round_mode, name,
                                    narrow_range, axis)


def quantize_and_dequantize_v2(input: Any, input_min: Any, input_max: Any,  # noqa: A002
                               signed_input: bool = True, num_bits: int = 8,
                               range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                               name: str | None = None, narrow_range: bool = False,
                               axis: int | None = None) -> Tensor:
    """`quantize_and_dequantize` whose gradient is 0 outside [input_min, input_max].

    Example:
        >>> quantize_and_dequantize_v2(x, -1.0, 1.0, range_given=True)
    """
    return _quantize_and_dequantize("QuantizeAndDequantizeV4", input, input_min, input_max,
                                    signed_input, num_bits, range_given, round_mode, name,
                                    narrow_range, axis)

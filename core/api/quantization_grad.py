"""Gradients of the quantization ops (TensorFlow's array_grad.py entries for them).

Fake quantization is differentiated straight through: the incoming gradient passes where
the input lies in the nudged range, and what falls outside flows to min or max (the Vars
forms). QuantizeAndDequantizeV2 passes its gradient unchanged; V4 zeroes it outside
[input_min, input_max]. The range inputs of QuantizeAndDequantizeV2 get none.
"""

from __future__ import annotations

from tfx.core.api.gradients import RegisterGradient
from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op


def _fake_quant_attrs(op: Operation) -> dict:
    return {"num_bits": op.get_attr("num_bits"), "narrow_range": op.get_attr("narrow_range")}


@RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("FakeQuantWithMinMaxArgsGradient", gradients=grad, inputs=op.inputs[0],
                    min=op.get_attr("min"), max=op.get_attr("max"), **_fake_quant_attrs(op))


@RegisterGradient("FakeQuantWithMinMaxVars")
def _fake_quant_vars_grad(op: Operation, grad: Tensor) -> list:
    return apply_op("FakeQuantWithMinMaxVarsGradient", gradients=grad, inputs=op.inputs[0],
                    min=op.inputs[1], max=op.inputs[2], **_fake_quant_attrs(op))


@RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")
def _fake_quant_per_channel_grad(op: Operation, grad: Tensor) -> list:
    return apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", gradients=grad,
                    inputs=op.inputs[0], min=op.inputs[1], max=op.inputs[2],
                    **_fake_quant_attrs(op))


@RegisterGradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_v2_grad(op: Operation, grad: Tensor) -> tuple:
    return grad, None, None


@RegisterGradient("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v4_grad(op: Operation, grad: Tensor) -> list:
    return apply_op("QuantizeAndDequantizeV4Grad", gradients=grad, input=op.inputs[0],
                    input_min=op.inputs[1], input_max=op.inputs[2], axis=op.get_attr("axis"))

"""Gradient functions of the neural-network ops (TensorFlow's nn_grad.py).

Most emit TensorFlow's dedicated gradient ops (`ReluGrad`, `BiasAddGrad`,
`Conv2DBackpropInput`/`Filter`, `MaxPoolGrad`, `AvgPoolGrad`), so the gradient
graph is the one TensorFlow would build and runs on its kernels.
"""

from __future__ import annotations

from typing import Any

from tfx.core.api import array_api as A
from tfx.core.api import math_api as M
from tfx.core.api.gradients import NotDifferentiable, RegisterGradient
from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op


@RegisterGradient("Relu")
def _relu_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("ReluGrad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Relu6")
def _relu6_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("Relu6Grad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Elu")
def _elu_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("EluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("Selu")
def _selu_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("SeluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("LeakyReluGrad", gradients=grad, features=op.inputs[0],
                    alpha=op.get_attr("alpha"))


@RegisterGradient("Softplus")
def _softplus_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("SoftplusGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("Softsign")
def _softsign_grad(op: Operation, grad: Tensor) -> Tensor:
    return apply_op("SoftsignGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("Softmax")
def _softmax_grad(op: Operation, grad: Tensor) -> Tensor:
    softmax = op.outputs[0]
    sum_channels = M.reduce_sum(M.mul(grad, softmax), -1, keepdims=True)
    return M.mul(M.sub(grad, sum_channels), softmax)


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: Operation, grad: Tensor) -> Tensor:
    softmax = M.exp(op.outputs[0])
    return M.sub(grad, M.mul(M.reduce_sum(grad, -1, keepdims=True), softmax))


@RegisterGradient("BiasAdd")
def _bias_add_grad(op: Operation, grad: Tensor) -> tuple:
    data_format = op.get_attr("data_format")
    return grad, apply_op("BiasAddGrad", out_backprop=grad, data_format=data_format)


@RegisterGradient("BiasAddV1")
def _bias_add_v1_grad(op: Operation, grad: Tensor) -> tuple:
    rank = grad.shape.ndims
    axes = list(range(rank - 1)) if rank is not None else A.range(A.rank(grad) - 1)
    return grad, M.reduce_sum(grad, axes)


def _broadcast_mul(vec: Tensor, mat: Tensor) -> Tensor:
    """vec[:, None] * mat."""
    return M.mul(A.expand_dims(vec, -1), mat)


def _is_zeros(t: Any) -> bool:
    return t is None or t.op.type in ("ZerosLike",) or (
        t.op.type == "Fill" and t.op.name.endswith("zeros"))


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op: Operation, grad_loss: Tensor, grad_grad: Tensor) -> tuple:
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if not _is_zeros(grad_grad):
        softmax = apply_op("Softmax", logits=logits)
        inner = M.matmul(A.expand_dims(grad_grad, 1), A.expand_dims(softmax, 2))
        grad = M.add(grad, M.mul(M.sub(grad_grad, A.squeeze(inner, axis=[1])), softmax))
    log_softmax = apply_op("LogSoftmax", logits=logits)
    return grad, _broadcast_mul(grad_loss, M.neg(log_softmax))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op: Operation, grad_loss: Tensor, grad_grad: Tensor) -> tuple:
    backprop = apply_op(
        "PreventGradient", input=op.outputs[1],
        message="second derivative of sparse_softmax_cross_entropy_with_logits is not defined")
    return _broadcast_mul(grad_loss, backprop), None


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: Operation, grad: Tensor) -> Tensor:
    return M.mul(op.inputs[0], grad)


def _conv_attrs(op: Operation, *names: str) -> dict[str, Any]:
    return {n: op.get_attr(n) for n in names}


@RegisterGradient("Conv2D")
def _conv2d_grad(op: Operation, grad: Tensor) -> list:
    x, w = op.inputs
    attrs = _conv_attrs(op, "strides", "padding", "explicit_paddings", "use_cudnn_on_gpu",
                        "data_format", "dilations")
    shape_x, shape_w = A.shape_n([x, w])
    return [
        apply_op("Conv2DBackpropInput", input_sizes=shape_x, filter=w, out_backprop=grad,
                 **attrs),
        apply_op("Conv2DBackpropFilter", input=x, filter_sizes=shape_w, out_backprop=grad,
                 **attrs),
    ]


@RegisterGradient("DepthwiseConv2dNative")
def _depthwise_conv2d_grad(op: Operation, grad: Tensor) -> list:
    x, w = op.inputs
    attrs = _conv_attrs(op, "strides", "padding", "explicit_paddings", "data_format",
                        "dilations")
    return [
        apply_op("DepthwiseConv2dNativeBackpropInput", input_sizes=A.shape(x), filter=w,
                 out_backprop=grad, **attrs),
        apply_op("DepthwiseConv2dNativeBackpropFilter", input=x, filter_sizes=A.shape(w),
                 out_backprop=grad, **attrs),
    ]


@RegisterGradient("MaxPool")
def _max_pool_grad(op: Operation, grad: Tensor) -> Tensor:
    attrs = _conv_attrs(op, "ksize", "strides", "padding", "data_format")
    return apply_op("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0],
                    grad=grad, **attrs)


@RegisterGradient("AvgPool")
def _avg_pool_grad(op: Operation, grad: Tensor) -> Tensor:
    attrs = _conv_attrs(op, "ksize", "strides", "padding", "data_format")
    return apply_op("AvgPoolGrad", orig_input_shape=A.shape(op.inputs[0]), grad=grad, **attrs)


@RegisterGradient("TopKV2")
@RegisterGradient("TopK")
def _top_k_grad(op: Operation, grad: Tensor, _indices_grad: Any) -> list:
    """Scatter the gradient of the k values back to the positions they came from."""
    x = op.inputs[0]
    indices = op.outputs[1]
    in_shape = A.shape(x)
    ind_shape = A.shape(indices)
    ind_lastdim = A.gather(ind_shape, A.size(ind_shape) - 1)
    ind_2d = A.reshape(indices, A.stack([-1, ind_lastdim]))
    in_lastdim = A.gather(in_shape, A.size(in_shape) - 1)
    outerdim = A.shape(ind_2d)[0]
    offsets = A.expand_dims(A.range(0, outerdim * in_lastdim, in_lastdim), -1)
    flat = A.reshape(ind_2d + offsets, [-1])
    dense = A.scatter_nd(A.expand_dims(flat, -1), A.reshape(grad, [-1]),
                         A.expand_dims(M.reduce_prod(in_shape), 0))
    return [A.reshape(dense, in_shape)] + [None] * (len(op.inputs) - 1)


for _name in ("InTopK", "InTopKV2", "ReluGrad", "BiasAddGrad", "Conv2DBackpropInput",
              "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad"):
    NotDifferentiable(_name)

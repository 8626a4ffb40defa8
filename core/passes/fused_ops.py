"""TensorFlow's fused ops, `_FusedConv2D`, `_FusedDepthwiseConv2dNative` and `_FusedMatMul`:
schemas (TensorFlow's own signatures, so optimized graphs load in TensorFlow) and
CPU kernels.

A fused kernel runs the linear op's own CPU kernel, then adds the bias and
applies the activation in place on its result, so the intermediate tensors
of the unfused graph are never allocated and the elementwise work is done
while the output is still in cache. `fused_ops` is `[BiasAdd]` optionally
followed by one of Relu, Relu6, Elu or LeakyRelu, as TensorFlow's CPU kernels
accept.

The fusion pass is what creates these nodes. Schemas and kernels are
registered when this module is imported (by `tfx.core.passes`); an op that is
already registered elsewhere is left as it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.errors import InvalidArgumentError, UnimplementedError
from tfx.core.kernel_registry import find_kernel, kernels_for
from tfx.core.op_registry import get_op, has_op, register_op
from tfx.core.shapes import ShapeContext
from tfx.kernels.base import OpKernel, register_kernel

FUSED_OPS = {
    "_FusedConv2D": "Conv2D",
    "_FusedDepthwiseConv2dNative": "DepthwiseConv2dNative",
    "_FusedMatMul": "MatMul",
}
ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")
# The types TensorFlow's schemas allow, and of those the ones our kernels compute.
_SCHEMA_TYPES = {
    "_FusedConv2D": "{half, float, double, int8, qint8}",
    "_FusedDepthwiseConv2dNative": "{half, bfloat16, float, double}",
    "_FusedMatMul": "{bfloat16, half, float}",
}
KERNEL_TYPES = {
    "_FusedConv2D": (dtypes.float16, dtypes.float32, dtypes.float64),
    "_FusedDepthwiseConv2dNative": (dtypes.float16, dtypes.bfloat16, dtypes.float32,
                                    dtypes.float64),
    "_FusedMatMul": (dtypes.bfloat16, dtypes.float16, dtypes.float32),
}
_FUSED_ATTRS = ("fused_ops: list(string) = []", "epsilon: float = 0.0001",
                "leakyrelu_alpha: float = 0.2")


def _delegate_shape(base: str):
    def shape_fn(ctx: ShapeContext) -> list:
        fn = get_op(base).shape_fn
        if fn is None:
            return [None]
        inner = ShapeContext(ctx.node_name, ctx.op, ctx.attrs, ctx.input_shapes[:2],
                             ctx.input_values[:2], 1)
        return fn(inner)

    return shape_fn


def _register_schemas() -> None:
    if not has_op("_FusedConv2D"):
        schema = (register_op("_FusedConv2D").input("input: T").input("filter: T")
                  .input("args: TArgs").input("host_args: num_host_args * float")
                  .output("output: T").attr(f"T: {_SCHEMA_TYPES['_FusedConv2D']}")
                  .attr("TArgs: list(type) >= 1").attr("num_args: int >= 0")
                  .attr("num_host_args: int >= 0 = 0").attr("strides: list(int)")
                  .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .attr("explicit_paddings: list(int) = []")
                  .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
                  .attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
                  .attr("dilations: list(int) = [1, 1, 1, 1]")
                  .attr("use_cudnn_on_gpu: bool = true"))
        for spec in _FUSED_ATTRS:
            schema.attr(spec)
        schema.shape(_delegate_shape("Conv2D")).doc("Conv2D, then fused_ops on its output.")
    if not has_op("_FusedDepthwiseConv2dNative"):
        schema = (register_op("_FusedDepthwiseConv2dNative").input("input: T")
                  .input("filter: T").input("args: num_args * T").output("output: T")
                  .attr(f"T: {_SCHEMA_TYPES['_FusedDepthwiseConv2dNative']}")
                  .attr("num_args: int >= 0").attr("strides: list(int)")
                  .attr("padding: {'SAME', 'VALID'}")
                  .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                  .attr("dilations: list(int) = [1, 1, 1, 1]"))
        for spec in _FUSED_ATTRS:
            schema.attr(spec)
        schema.shape(_delegate_shape("DepthwiseConv2dNative")).doc(
            "DepthwiseConv2dNative, then fused_ops on its output.")
    if not has_op("_FusedMatMul"):
        schema = (register_op("_FusedMatMul").input("a: T").input("b: T")
                  .input("args: num_args * T").output("product: T")
                  .attr("transpose_a: bool = false").attr("transpose_b: bool = false")
                  .attr(f"T: {_SCHEMA_TYPES['_FusedMatMul']}").attr("num_args: int >= 0"))
        for spec in _FUSED_ATTRS:
            schema.attr(spec)
        schema.shape(_delegate_shape("MatMul")).doc("MatMul, then fused_ops on its output.")


class _FusedLinear(OpKernel):
    """The linear op's kernel, then bias and activation in place on its output."""

    expensive = True

    def setup(self, fused_ops: list[str] = (), leakyrelu_alpha: float = 0.2,
              data_format: str = "NHWC", **attrs: Any) -> None:
        base_op = FUSED_OPS[self.op]
        base_schema = get_op(base_op)
        base_attrs = {k: v for k, v in self.attrs.items() if k in base_schema.attrs}
        kernel_class = find_kernel(base_op, "CPU", base_attrs)
        dtype = self.output_types[0]
        self._base = kernel_class(self.name, base_op, base_attrs, [dtype, dtype], [dtype],
                                  self.device)
        ops = list(fused_ops)
        if not ops or ops[0] != "BiasAdd" or len(ops) > 2 or (
            len(ops) == 2 and ops[1] not in ACTIVATIONS
        ):
            raise UnimplementedError(
                f"{self.op}: fused_ops {ops} is not supported on CPU; supported: [BiasAdd] "
                f"optionally followed by one of {', '.join(ACTIVATIONS)}"
            )
        self._activation = ops[1] if len(ops) == 2 else None
        self._alpha = float(leakyrelu_alpha)
        self._nchw = data_format == "NCHW"
        self._np = dtype.np

    def compute(self, x: np.ndarray, w: np.ndarray, *args: np.ndarray) -> tuple:
        if len(args) < 1:
            raise InvalidArgumentError(f"{self.op}: BiasAdd needs a bias argument")
        bias = args[0]
        y = self._base.compute(x, w)[0]
        channels = y.shape[1] if self._nchw else y.shape[-1]
        if bias.ndim != 1 or bias.shape[0] != channels:
            raise InvalidArgumentError(
                f"Must provide as many biases as the last dimension of the input tensor: "
                f"{list(bias.shape)} vs. {list(y.shape)}"
            )
        if not y.flags.writeable or np.may_share_memory(y, x) or np.may_share_memory(y, w):
            y = np.array(y, dtype=self._np)
        np.add(y, bias.reshape(-1, 1, 1) if self._nchw else bias, out=y)
        activation = self._activation
        if activation == "Relu":
            np.maximum(y, 0, out=y)
        elif activation == "Relu6":
            np.clip(y, 0, 6, out=y)
        elif activation == "Elu":
            negative = y < 0
            with np.errstate(all="ignore"):
                y[negative] = np.expm1(y[negative])
        elif activation == "LeakyRelu":
            negative = y < 0
            y[negative] *= y.dtype.type(self._alpha)
        return (y,)


class FusedConv2D(_FusedLinear):
    """_FusedConv2D: Conv2D + BiasAdd (+ activation)."""


class FusedDepthwiseConv2dNative(_FusedLinear):
    """_FusedDepthwiseConv2dNative: DepthwiseConv2dNative + BiasAdd (+ activation)."""


class FusedMatMul(_FusedLinear):
    """_FusedMatMul: MatMul + BiasAdd (+ activation)."""


def _register_kernels() -> None:
    classes = {"_FusedConv2D": FusedConv2D, "_FusedDepthwiseConv2dNative":
               FusedDepthwiseConv2dNative, "_FusedMatMul": FusedMatMul}
    for op, kernel_class in classes.items():
        if not kernels_for(op):
            register_kernel(op, "CPU", T=KERNEL_TYPES[op])(kernel_class)


_register_schemas()
_register_kernels()

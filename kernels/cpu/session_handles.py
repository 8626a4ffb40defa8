"""CPU kernels: session tensor handles, kept in the session's SessionTensorStore."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.errors import InternalError
from tfx.core.session_tensors import TensorHandle, handle_text, store_of
from tfx.kernels.base import OpContext, OpKernel, register_kernel


@register_kernel("GetSessionHandle", "CPU")
class GetSessionHandle(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, value: Any) -> tuple:
        store = store_of(ctx.resources)
        handle = store.put(self.name, self.device, value)
        out = np.empty((), dtype=object)
        out[()] = TensorHandle(handle, store)
        return (out,)


@register_kernel("GetSessionTensor", "CPU")
class GetSessionTensor(OpKernel):
    needs_context = True

    def setup(self, dtype: dtypes.DType, **attrs: Any) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def compute(self, ctx: OpContext, handle: Any) -> tuple:
        value = store_of(ctx.resources).get(handle_text(handle))
        got = dtypes.as_dtype(value.dtype)
        if got != self.dtype:
            raise InternalError(f"Output 0 of type {got.name} does not match declared output "
                                f"type {self.dtype.name}")
        return (value,)


@register_kernel("DeleteSessionTensor", "CPU")
class DeleteSessionTensor(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, handle: Any) -> tuple:
        store_of(ctx.resources).delete(handle_text(handle))
        return ()

"""GPU kernels that cross between host and GPU memory: Const, Send and Recv.

A GPU Const copies its value to the GPU at its first step and keeps the
copy. A GPU `_Send` hands the rendezvous a host copy, so every tensor in the
rendezvous is in host memory whoever receives it (the rendezvous key names
both devices, as TensorFlow's does; a later transport may send device memory
directly). A GPU `_Recv` copies what it receives to the GPU unless its type
lives on the host. `_HostSend` and `_HostRecv` keep everything on the host.
"""

from __future__ import annotations

from typing import Any

from tfx.core.kernel_registry import register_kernel
from tfx.kernels.cpu.array import Const
from tfx.kernels.cpu.sendrecv import Recv, Send
from tfx.kernels.gpu.memory import OnGPU


@register_kernel("Const", "GPU")
class GPUConst(OnGPU, Const):
    """Const on a GPU: the value is copied to the device once."""

    def setup(self, **attrs: Any) -> None:
        super().setup(**attrs)
        self._on_device: tuple | None = None

    def compute(self) -> tuple:
        if self._on_device is None:
            self._on_device = super().compute()
        return self._on_device


@register_kernel("_Send", "GPU")
class GPUSend(OnGPU, Send):
    """_Send from a GPU: the rendezvous gets the tensor in host memory."""

    inputs_on_host = True


@register_kernel("_Recv", "GPU")
class GPURecv(OnGPU, Recv):
    """_Recv on a GPU: the received tensor goes to GPU memory unless its type is host's."""

    def received(self, value: Any) -> tuple:
        return self.placed_outputs((value,))


@register_kernel("_HostSend", "GPU")
class GPUHostSend(OnGPU, Send):
    """_HostSend on a GPU: the tensor is in host memory already."""

    inputs_on_host = True


@register_kernel("_HostRecv", "GPU")
class GPUHostRecv(OnGPU, Recv):
    """_HostRecv on a GPU: the tensor stays in host memory."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._output_on_host = (True,) * len(self.output_types)


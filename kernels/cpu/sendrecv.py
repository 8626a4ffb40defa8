"""CPU kernels: `_Send` and `_Recv` (and their host-memory twins) through the rendezvous.

A Send's key is fixed by its attrs except the `frame_id:iter_id` suffix, taken
from the loop frame and iteration the node runs in (the frame numbered as
TensorFlow numbers it, so a loop split across a TensorFlow task and a tfx task
meets in the keys). Both run on dead inputs, as TensorFlow's transfers do: Send
never blocks and passes a dead value through; Recv asks the rendezvous for its
key and calls back when it arrives (`compute_async`: no thread waits, and the
step's cancellation ends the wait), and may produce a dead value.
Between host-memory devices a tensor is handed over, not copied.
"""

from __future__ import annotations

from typing import Any

from tfx.core.errors import FailedPreconditionError
from tfx.core.rendezvous import create_key
from tfx.kernels.base import OpContext, OpKernel, register_kernel


class _Transfer(OpKernel):
    needs_context = True
    runs_when_dead = True  # the executor runs it on dead inputs (a Send sends DEAD)

    def setup(self, tensor_name, send_device, send_device_incarnation, recv_device, **_):
        self._root_key = create_key(send_device, send_device_incarnation, recv_device,
                                    tensor_name)
        self._prefix = self._root_key.rsplit(";", 1)[0] + ";"

    def key(self, ctx: OpContext) -> str:
        """The rendezvous key for the frame and iteration `ctx` runs in."""
        if not ctx.frame:
            return self._root_key
        return f"{self._prefix}{ctx.frame_id}:{ctx.iteration}"

    def _rendezvous(self, ctx: OpContext) -> Any:
        rendezvous = ctx.rendezvous
        if rendezvous is None:
            raise FailedPreconditionError(
                "no rendezvous in this step: a partition graph runs through "
                "tfx.core.multi_device, not a plain Session"
            )
        return rendezvous


@register_kernel(["_Send", "_HostSend"], "CPU")
class Send(_Transfer):
    def compute(self, ctx, tensor):
        self._rendezvous(ctx).send(self.key(ctx), tensor)
        return ()


@register_kernel(["_Recv", "_HostRecv"], "CPU")
class Recv(_Transfer):
    blocking = True  # `compute` waits; the executor calls `compute_async`, which does not

    def compute_async(self, ctx, done):
        """Ask the rendezvous for the tensor and return: `done(outputs, error)` runs when
        it arrives, or when the step is cancelled first."""

        def received(value, error):
            if error is not None:
                done(None, error)
                return
            try:
                outputs = self.received(value)
            except Exception as exc:  # noqa: BLE001 - reported as the kernel's error
                done(None, exc)
            else:
                done(outputs, None)

        self._rendezvous(ctx).recv_async(self.key(ctx), received, ctx.step)

    def compute(self, ctx):
        """The same, waiting on this thread."""
        return (self._rendezvous(ctx).recv(self.key(ctx), ctx.step),)

    def received(self, value):
        """The outputs of `compute_async` for a received value (a GPU's Recv moves it to
        the GPU; its `compute` is wrapped for that instead)."""
        return (value,)


"""The kernel contract.

A kernel is a small class named after the op type it implements, built from
the node's converted attrs; it never sees the graph. A stateless node's kernel
is built for each step plan that runs the node. A stateful node's (its op
schema says so: random ops, samplers, queues, variables...) is built once per
session, the first time one of the session's plans needs it, and kept in the
session's `OpSegment` (core/plan_builder.py), so every step of the session that
runs the node runs that one kernel and its state (a random stream) carries on.
`compute(*inputs)` takes numpy arrays and returns a tuple with one value per
output:

    @register_kernel("Relu", "CPU", T=REALS)
    class Relu(OpKernel):
        def compute(self, x):
            return (np.maximum(x, 0, dtype=x.dtype),)

Kernels that need the step (variables and other resources, queues,
rendezvous, cancellation, the loop iteration) set `needs_context = True`; they
then get an `OpContext` as the first argument. `expensive = True` marks
kernels worth running on a pool thread when other work is ready at the same
time (MatMul, Conv2D); everything else runs inline, which is cheaper. Such a
kernel may define `work(*inputs)`, its cost in elements of elementwise numpy
work, when that is not its input size (a MatMul's is its multiply-adds / 8).
Errors are raised as tfx errors without naming the node: the executor adds the
node, op and device to the message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tfx.core import dtypes
from tfx.core.kernel_registry import register_kernel

__all__ = ["OpKernel", "OpContext", "register_kernel", "DEAD"]


class _Dead:
    """The dead value that flows down an untaken Switch branch."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead>"

    def __bool__(self) -> bool:
        return False


DEAD = _Dead()


class OpKernel:
    """Base class of all kernels."""

    expensive: ClassVar[bool] = False
    needs_context: ClassVar[bool] = False

    __slots__ = ("name", "op", "attrs", "input_types", "output_types", "device")

    def __init__(
        self,
        name: str,
        op: str,
        attrs: dict[str, Any],
        input_types: list[dtypes.DType],
        output_types: list[dtypes.DType],
        device: str = "",
    ) -> None:
        self.name = name
        self.op = op
        self.attrs = attrs
        self.input_types = input_types
        self.output_types = output_types
        self.device = device
        self.setup(**attrs)

    def setup(self, **attrs: Any) -> None:
        """Bind attributes once (override to precompute); attrs are also in self.attrs."""

    def compute(self, *inputs: Any) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError


class OpContext:
    """What a `needs_context` kernel sees of the running step.

    Attributes:
        step: the executor's step state (resource manager, rendezvous, cancellation).
        frame: the control-flow frame the node runs in ("" for the root frame).
        iteration: the loop iteration within that frame.
        frame_id: that frame instance's id as TensorFlow numbers it (0 for the root frame;
            `tfx.core.rendezvous.child_frame_id`), the frame part of rendezvous keys.
    """

    __slots__ = ("step", "frame", "iteration", "frame_id")

    def __init__(self, step: Any, frame: str = "", iteration: int = 0, frame_id: int = 0) -> None:
        self.step = step
        self.frame = frame
        self.iteration = iteration
        self.frame_id = frame_id

    @property
    def resources(self) -> Any:
        return self.step.resources

    @property
    def rendezvous(self) -> Any:
        return self.step.rendezvous

    def check_cancelled(self) -> None:
        self.step.check_cancelled()

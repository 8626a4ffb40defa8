"""CPU kernels: control flow.

Switch and _SwitchN are the only kernels that produce a dead value themselves. Merge, Enter,
Exit and NextIteration are routed by the executor (which picks the live
input, the frame and the iteration); their kernels just forward a value, which
is also what they mean outside a graph.
"""

from __future__ import annotations

import numpy as np

from tfx.core.errors import AbortedError, InvalidArgumentError
from tfx.kernels.base import DEAD, OpKernel, register_kernel


@register_kernel(["Switch", "RefSwitch"], "CPU")
class Switch(OpKernel):
    def compute(self, data, pred):
        if np.ndim(pred) != 0:
            raise InvalidArgumentError(f"pred must be a scalar, got shape {list(np.shape(pred))}")
        return (DEAD, data) if pred else (data, DEAD)


@register_kernel("_SwitchN", "CPU")
class SwitchN(OpKernel):
    """Forwards data to outputs[output_index]; an index out of range picks the last one
    (a Case's default branch), as TensorFlow's kernel does."""

    def compute(self, data, output_index):
        if np.ndim(output_index) != 0:
            raise InvalidArgumentError(
                f"output_index must be a scalar, got shape {list(np.shape(output_index))}")
        count = len(self.output_types)
        index = int(output_index)
        if not 0 <= index < count:
            index = count - 1
        outputs = [DEAD] * count
        outputs[index] = data
        return tuple(outputs)


@register_kernel(["Merge", "RefMerge"], "CPU")
class Merge(OpKernel):
    def compute(self, *inputs):
        for index, value in enumerate(inputs):
            if value is not DEAD:
                return value, np.int32(index)
        return DEAD, DEAD


@register_kernel(
    ["Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"],
    "CPU",
)
class Forward(OpKernel):
    """Enter/Exit/NextIteration/LoopCond: the value passes unchanged."""

    def compute(self, data):
        return (data,)


@register_kernel("ControlTrigger", "CPU")
class ControlTrigger(OpKernel):
    def compute(self):
        return ()


@register_kernel("Abort", "CPU")
class Abort(OpKernel):
    def compute(self):
        raise AbortedError(f"Abort op: {self.attrs['error_msg'] or 'aborted'}")

"""TensorFlow 2.21's tf.debugging switches: numerics checking and traceback filtering.

`enable_check_numerics` instruments, in this thread, every op built afterwards as
TensorFlow does in a graph: each floating-point output (but those of a few ops that only
move values around, and TensorFlow's ignored FusedBatchNorm outputs) goes through a
CheckNumericsV2 op whose message names the op, the output, its dtype and shape, the op's
inputs and the stack where it was built (frames outside tfx marked "->"), and code built
afterwards receives the checked tensor, so a run producing an Inf or NaN fails with
InvalidArgumentError there. A placeholder's check runs before every op consuming it
(a control input), as TensorFlow's. Reference outputs (ref variables) are left as they
are: a checked value could not be assigned to. `disable_check_numerics` stops it for
the ops built afterwards.

`enable_traceback_filtering`, `disable_traceback_filtering` and
`is_traceback_filtering_enabled` keep TensorFlow's per-thread switch (on unless a thread
turns it off). TensorFlow consults it to drop its own frames from the tracebacks of the
errors it raises; tfx's errors already name the node, op and device they come from and keep
their whole traceback, so the switch is state that code written for TensorFlow can set and
read, and nothing else changes.

    tf.debugging.enable_check_numerics()
    y = tf.math.log(x)   # running y with x = 0 raises InvalidArgumentError (-Inf)
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from collections.abc import Sequence
from typing import Any

from tfx.core.api import op_callbacks
from tfx.core.api.graph_builder import Tensor
from tfx.core.api.ops_api import apply_op

__all__ = ["disable_check_numerics", "disable_traceback_filtering", "enable_check_numerics",
           "enable_traceback_filtering", "is_traceback_filtering_enabled"]

# Ops that TensorFlow's op callbacks never see (control flow, calls, identities), and the
# ones check-numerics leaves alone because they only move values around (SAFE_OPS).
_SKIPPED = frozenset({
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf",
    "StatefulPartitionedCall", "Switch", "While", "RemoteCall", "TPUReplicatedInput",
    "TPUReplicateMetadata", "TPUCompilationResult", "TPUReplicatedOutput",
    "ConfigureDistributedTPU", "DestroyResourceOp",
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape",
    "Slice", "Squeeze", "Stack", "StridedSlice", "StridedSliceGrad", "TensorListConcatV2",
    "TensorListGather", "TensorListGetItem", "TensorListPopBack", "TensorListStack",
    "Transpose", "Unpack"})
# Outputs that may hold NaN legitimately (batch statistics of an empty batch).
_IGNORED_OUTPUTS = frozenset(
    [(op, slot) for op in ("FusedBatchNorm", "FusedBatchNormV2") for slot in range(1, 5)]
    + [("FusedBatchNormV3", slot) for slot in range(1, 6)])
_TFX_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_check_state = threading.local()


class _CheckNumerics:
    """The op callback of `enable_check_numerics` (one per thread)."""

    def __init__(self, stack_height_limit: int, path_length_limit: int) -> None:
        self._stack_height_limit = stack_height_limit
        self._path_length_limit = path_length_limit
        self._placeholder_checks: dict[tuple[int, str], Tensor] = {}
        self._originals: dict[tuple[int, str], Tensor] = {}

    def __call__(self, op_type: str, inputs: Sequence[Tensor], attrs: Any,
                 outputs: Sequence[Tensor], op_name: str | None = None,
                 graph: Any = None) -> list[Tensor] | None:
        if op_type in _SKIPPED:
            return None
        for t in inputs:
            check = self._placeholder_checks.get((id(t.graph), t.name))
            if check is not None and outputs:
                outputs[0].op._add_control_input(check.op)
        stack = self._creation_stack()
        result = []
        for slot, output in enumerate(outputs):
            if (not output.dtype.is_floating or output.dtype.is_ref
                    or (op_type, slot) in _IGNORED_OUTPUTS):
                result.append(output)
                continue
            checked = apply_op("CheckNumericsV2", tensor=output, message=self._message(
                slot, len(outputs), op_type, output, inputs, graph, stack))
            self._originals[(id(graph), checked.name)] = output
            if op_type == "Placeholder":  # fed by name: the placeholder itself stays
                self._placeholder_checks[(id(graph), output.name)] = checked
                result.append(output)
            else:
                result.append(checked)
        return result

    @staticmethod
    def _creation_stack() -> list[traceback.FrameSummary]:
        frames = traceback.extract_stack()
        here = os.path.abspath(__file__)
        callbacks = os.path.abspath(op_callbacks.__file__)
        return [f for f in frames if os.path.abspath(f.filename) not in (here, callbacks)]

    def _message(self, slot: int, num_outputs: int, op_type: str, output: Tensor,
                 inputs: Sequence[Tensor], graph: Any,
                 stack: list[traceback.FrameSummary]) -> str:
        # TensorFlow's layout, with tfx's reprs of dtypes, shapes and tensors.
        lines = [f'\n\n!!! Detected Infinity or NaN in output {slot} of graph op "{op_type}" '
                 f"(# of outputs: {num_outputs}) !!!",
                 f"  dtype: {output.dtype!r}", f"  shape: {output.shape}"]
        originals = [self._originals.get((id(graph), t.name), t) for t in inputs]
        if len(originals) > 1:
            lines.append(f"\n  Input tensors ({len(originals)}):")
            lines += [f"         {i}: {t!r}" for i, t in enumerate(originals)]
        elif originals:
            lines.append(f"\n  Input tensor: {originals[0]!r}")
        name = getattr(graph, "name", None)
        if isinstance(name, str) and name:
            lines.append(f'  Graph name: "{name}"')
        if stack:
            lines.append("\n  Stack trace of op's creation (\"->\": inferred user code):")
            limit = self._stack_height_limit
            if limit is not None and len(stack) > limit:
                lines.append(f"    + ... (Omitted {len(stack) - limit} frames)")
                stack = stack[len(stack) - limit:] if limit else []
            for frame in stack:
                path = frame.filename
                if self._path_length_limit is not None and len(path) > self._path_length_limit:
                    path = "..." + path[len(path) - self._path_length_limit:]
                user = not os.path.abspath(frame.filename).startswith(_TFX_ROOT + os.sep)
                lines.append(f"    + {path} (L{frame.lineno}) {frame.name}")
                if frame.line is not None:
                    lines.append(f"{' -> ' if user else '    '}|   {frame.line}")
        return "\n".join(lines) + "\n\n"


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Check every floating-point output of the ops built from now on in this thread for
    Inf and NaN (InvalidArgumentError when a run meets one). Calling it again changes
    nothing, as in TensorFlow.

    Args:
        stack_height_limit: the most frames of the op's creation stack a message shows.
        path_length_limit: the longest file path a message shows (longer: its end).
    """
    if not hasattr(_check_state, "callback"):
        _check_state.callback = _CheckNumerics(stack_height_limit, path_length_limit)
    op_callbacks.add_op_callback(_check_state.callback)
    logging.getLogger("tfx").info("Enabled check-numerics callback in thread %s",
                                  threading.current_thread().name)


def disable_check_numerics() -> None:
    """Stop checking the ops built from now on in this thread (no-op if not enabled)."""
    callback = getattr(_check_state, "callback", None)
    if callback is None:
        return
    op_callbacks.remove_op_callback(callback)
    del _check_state.callback
    logging.getLogger("tfx").info("Disabled check-numerics callback in thread %s",
                                  threading.current_thread().name)

_traceback_filtering = threading.local()


def is_traceback_filtering_enabled() -> bool:
    """Whether traceback filtering is on in this thread (True unless disabled here).

    Returns:
        The thread's switch, as `enable_traceback_filtering` and
        `disable_traceback_filtering` last set it.
    """
    return getattr(_traceback_filtering, "value", True)


def enable_traceback_filtering() -> None:
    """Turn traceback filtering back on in this thread."""
    _traceback_filtering.value = True


def disable_traceback_filtering() -> None:
    """Turn traceback filtering off in this thread (other threads keep theirs)."""
    _traceback_filtering.value = False

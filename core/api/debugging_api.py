"""TensorFlow 2.21's tf.debugging switches: numerics checking, tfdbg v2 dumps
(tf.debugging.experimental) and traceback filtering.

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

`experimental.enable_dump_debug_info(dump_root, tensor_debug_mode)` records, in this
thread, each op built afterwards (its creation, stack and source files) in tfdbg v2's
event files under `dump_root` (core/debug_events.py), and instruments its outputs as
TensorFlow's dumping callback does in a graph: a DebugIdentityV2 op per output records a
GraphExecutionTrace when it runs (nothing of the value for NO_TENSOR, a
DebugNumericSummaryV2 summary for the HEALTH and SHAPE modes, the value for FULL_TENSOR),
with the same names, wiring and control inputs as TensorFlow's; its DebugDataReader and
TensorBoard's Debugger V2 read the files. `disable_dump_debug_info` stops it and writes
and closes the files.

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
import re
import socket
import threading
import traceback
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from tfx import __version__
from tfx.core import debug_events, dtypes
from tfx.core.api import op_callbacks
from tfx.core.api.graph_builder import Tensor
from tfx.core.api.ops_api import apply_op, constant
from tfx.protos import debug_event_pb2

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


# --- tfdbg v2 dumps ---------------------------------------------------------------------

_MODES = debug_event_pb2.TensorDebugMode
_HEALTH_MODES = frozenset({"CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH"})
_dump_state = threading.local()


class _Dumping:
    """The op callback of `enable_dump_debug_info`: records each op's creation (with its
    stack and source files) and instruments its outputs with DebugIdentityV2 ops, as
    TensorFlow's dumping callback does in a TF1 graph."""

    def __init__(self, writer: debug_events.DebugEventsWriter, mode: str,
                 circular_buffer_size: int, op_regex: str | None,
                 tensor_dtypes: Any) -> None:
        self.writer = writer
        self.mode = mode
        self.circular_buffer_size = circular_buffer_size
        self._op_regex = re.compile(op_regex) if op_regex is not None else None
        self._dtype_ok = _dtype_filter(tensor_dtypes)
        self._host = socket.gethostname()
        self._graph_ids: dict[int, str] = {}
        self._files: dict[str, int] = {}
        self._frames: dict[tuple[str, int, str], str] = {}
        self._placeholder_checks: dict[tuple[int, str], Tensor] = {}
        self._originals: dict[tuple[int, str], str] = {}  # instrumented -> original name
        self._tensor_count = 0

    def __call__(self, op_type: str, inputs: Sequence[Tensor], attrs: Any,
                 outputs: Sequence[Tensor], op_name: str | None = None,
                 graph: Any = None) -> list[Tensor] | None:
        if op_type in _SKIPPED:
            return None
        context_id = self._graph_id(graph)
        first = self._tensor_count + 1
        self._tensor_count += len(outputs)
        self.writer.WriteGraphOpCreation(debug_event_pb2.GraphOpCreation(
            op_type=op_type, op_name=op_name, graph_id=context_id,
            input_names=[self._originals.get((id(t.graph), t.name), t.name) for t in inputs],
            num_outputs=len(outputs),
            code_location=self._code_location(),
            output_tensor_ids=list(range(first, first + len(outputs)))))
        for t in inputs:
            check = self._placeholder_checks.get((id(t.graph), t.name))
            if check is not None and outputs:
                outputs[0].op._add_control_input(check.op)
        if self._op_regex is not None and not self._op_regex.match(op_type):
            return None
        last = self._tensor_count
        result = []
        for slot, output in enumerate(outputs):
            instrumented = self._instrument(op_type, op_name, slot, output, first + slot,
                                            last, context_id)
            self._originals[(id(instrumented.graph), instrumented.name)] = output.name
            result.append(instrumented)
        return result

    def _instrument(self, op_type: str, op_name: str | None, slot: int, output: Tensor,
                    tensor_id: int, last_id: int, context_id: str) -> Tensor:
        dtype = output.dtype
        if (dtype.is_ref or dtype.base in (dtypes.resource, dtypes.variant)
                or not self._dtype_ok(dtype.base)
                or (self.mode in _HEALTH_MODES and not dtype.is_floating)
                or (self.mode == "SHAPE" and dtype.base is dtypes.string)):
            return output
        mode = _MODES.Value(self.mode)
        if self.mode == "NO_TENSOR":
            recorded = constant([], dtypes.float32, name="Const")
        elif self.mode == "FULL_TENSOR":
            recorded = output
        else:
            recorded = apply_op("DebugNumericSummaryV2", input=output, output_dtype=dtypes.float64,
                                tensor_debug_mode=mode, tensor_id=tensor_id,
                                name="DebugNumericSummaryV2")
        debug = apply_op("DebugIdentityV2", input=recorded, tfdbg_context_id=context_id,
                         op_name=op_name, output_slot=slot, tensor_debug_mode=mode,
                         debug_urls=[f"file://{self.writer.dump_root}"],
                         circular_buffer_size=self.circular_buffer_size,
                         tfdbg_run_id=self.writer.tfdbg_run_id,
                         name=f"DebugIdentityV2_{last_id}")
        if op_type == "Placeholder":  # fed by name: the placeholder itself stays
            self._placeholder_checks[(id(output.graph), output.name)] = debug
            return output
        if self.mode == "FULL_TENSOR" and op_type != "Const":
            return debug
        return _identity_after(output, debug, f"tfdbg_identity_{last_id}")

    def _graph_id(self, graph: Any) -> str:
        found = self._graph_ids.get(id(graph))
        if found is None:
            found = self._graph_ids[id(graph)] = str(uuid.uuid4())
            name = getattr(graph, "name", None)
            self.writer.WriteDebuggedGraph(debug_event_pb2.DebuggedGraph(
                graph_id=found, graph_name=name if isinstance(name, str) else ""))
        return found

    def _code_location(self) -> debug_event_pb2.CodeLocation:
        location = debug_event_pb2.CodeLocation(host_name=self._host)
        for frame in _CheckNumerics._creation_stack():
            key = (frame.filename, frame.lineno or 0, frame.name)
            frame_id = self._frames.get(key)
            if frame_id is None:
                frame_id = self._frames[key] = str(uuid.uuid4())
                self.writer.WriteStackFrameWithId(debug_event_pb2.StackFrameWithId(
                    id=frame_id, file_line_col=debug_event_pb2.FileLineCol(
                        file_index=self._file_index(frame.filename), line=key[1],
                        func=frame.name)))
            location.stack_frame_ids.append(frame_id)
        return location

    def _file_index(self, path: str) -> int:
        found = self._files.get(path)
        if found is None:
            found = self._files[path] = len(self._files)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().splitlines()
            except OSError:
                lines = []
            self.writer.WriteSourceFile(debug_event_pb2.SourceFile(
                file_path=path, host_name=self._host, lines=lines))
        return found


def _identity_after(output: Tensor, debug: Tensor, name: str) -> Tensor:
    """`output` through an Identity that runs after `debug` (so the dump happens)."""
    identity = apply_op("Identity", input=output, name=name)
    identity.op._add_control_input(debug.op)
    return identity


def _dtype_filter(tensor_dtypes: Any) -> Callable[[dtypes.DType], bool]:
    if tensor_dtypes is None:
        return lambda dtype: True
    if callable(tensor_dtypes):
        return tensor_dtypes
    if isinstance(tensor_dtypes, (list, tuple)):
        allowed = {dtypes.as_dtype(d).base for d in tensor_dtypes}
        return lambda dtype: dtype in allowed
    raise ValueError("If specified, tensor_dtypes is expected to be a list, a tuple, or a "
                     "callable that takes a DType argument and returns a boolean, but "
                     f"received {tensor_dtypes}")


def enable_dump_debug_info(dump_root: str, tensor_debug_mode: str = "NO_TENSOR",
                           circular_buffer_size: int = 1000, op_regex: str | None = None,
                           tensor_dtypes: Any = None) -> debug_events.DebugEventsWriter:
    """Dump what the ops built from now on in this thread are and do to `dump_root`, in
    tfdbg v2's event files (TensorFlow's DebugDataReader and TensorBoard read them).

    Args:
        dump_root: the directory of the event files.
        tensor_debug_mode: how much of each output a run records: "NO_TENSOR" (that it
            ran), "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH" (Inf/NaN counts of
            floating outputs), "SHAPE" or "FULL_TENSOR" (the values).
        circular_buffer_size: how many of the last execution events are kept and
            written (0 or less: all of them).
        op_regex: instrument only the op types it matches (all ops' creations are
            recorded).
        tensor_dtypes: instrument only outputs of these dtypes (a list, or a callable
            taking a DType).

    Returns:
        The writer of the event files (TensorFlow's DebugEventsWriter methods).
    """
    names = list(_MODES.keys())
    if tensor_debug_mode not in names:
        raise ValueError(f"Invalid value in tensor_debug_mode ('{tensor_debug_mode}'). "
                         f"Valid options are: {names}")
    if tensor_debug_mode in ("UNSPECIFIED", "FULL_NUMERICS", "REDUCE_INF_NAN_THREE_SLOTS"):
        raise NotImplementedError(f"tfdbg dumping: support for tensor debug mode "
                                  f"{tensor_debug_mode} is not implemented yet")
    if not isinstance(circular_buffer_size, int) or isinstance(circular_buffer_size, bool):
        raise TypeError(f"circular_buffer_size must be an integer, got "
                        f"{circular_buffer_size!r}")
    _dtype_filter(tensor_dtypes)  # refused now, as TensorFlow refuses it
    current = getattr(_dump_state, "callback", None)
    if current is not None:
        if current.mode != tensor_debug_mode:
            raise ValueError(
                f"There is already a dumping callback configured for dump root "
                f"{current.writer.dump_root} with a different tensor-debug mode "
                f"({current.mode}). Therefore the newly request tensor-debug mode "
                f"({tensor_debug_mode}) size will not be honored.")
        if current.circular_buffer_size != circular_buffer_size:
            raise ValueError(
                f"There is already a dumping callback configured with a different "
                f"circular-buffer size ({current.circular_buffer_size}). Therefore the newly "
                f"request circular-buffer size ({circular_buffer_size}) will not be honored.")
        if current.writer.dump_root == os.path.abspath(dump_root):
            return current.writer
        disable_dump_debug_info()
    writer = debug_events.open_writer(dump_root, uuid.uuid4().hex[:8], __version__,
                                      circular_buffer_size)
    _dump_state.callback = _Dumping(writer, tensor_debug_mode, circular_buffer_size,
                                    op_regex, tensor_dtypes)
    op_callbacks.add_op_callback(_dump_state.callback)
    logging.getLogger("tfx").info("Enabled dumping callback in thread %s (dump root: %s, "
                                  "tensor debug mode: %s)", threading.current_thread().name,
                                  writer.dump_root, tensor_debug_mode)
    return writer


def disable_dump_debug_info() -> None:
    """Stop dumping the ops built from now on in this thread, and write and close the
    event files (no-op when not enabled)."""
    callback = getattr(_dump_state, "callback", None)
    if callback is None:
        return
    op_callbacks.remove_op_callback(callback)
    del _dump_state.callback
    callback.writer.Close()
    logging.getLogger("tfx").info("Disabled dumping callback in thread %s (dump root: %s)",
                                  threading.current_thread().name, callback.writer.dump_root)


EXPERIMENTAL = {"enable_dump_debug_info": enable_dump_debug_info,
                "disable_dump_debug_info": disable_dump_debug_info}

"""tfdbg v2's event files (`tf.debugging.experimental.enable_dump_debug_info`), written as
TensorFlow writes them, so TensorFlow's DebugDataReader and TensorBoard read them.

A dump root holds one set of files, `tfdbg_events.<unix seconds>.<host>.<kind>`, each a
TFRecord file of `DebugEvent` protos (protos/debug_event.proto):

* `metadata`: one event with the DebugMetadata (version strings, the run id);
* `source_files`, `stack_frames`, `graphs`: the source of the Python files ops were built
  in, their frames (by id) and the ops' creations and graphs, written as they come;
* `execution` and `graph_execution_traces`: what ran. Kept in a circular buffer of the
  last `circular_buffer_size` events (all of them when it is 0 or less) and written when
  the files are flushed or closed, as TensorFlow's writer does.

One writer per dump root, shared by the Python side and the DebugIdentityV2 kernels that
record graph execution traces (`writer_for(dump_root)` finds it).
"""

from __future__ import annotations

import collections
import os
import socket
import threading
import time

from tfx.core.errors import FailedPreconditionError
from tfx.core.record_io import RecordWriter
from tfx.protos import debug_event_pb2

FILE_VERSION = "debug.Event:1"  # TensorFlow's DebugEventsWriter version string
_KINDS = ("metadata", "source_files", "stack_frames", "graphs", "execution",
          "graph_execution_traces")

_writers: dict[str, DebugEventsWriter] = {}
_writers_lock = threading.Lock()


class DebugEventsWriter:
    """The event files of one dump root (TensorFlow's DebugEventsWriter, with its method
    names)."""

    def __init__(self, dump_root: str, tfdbg_run_id: str, version: str,
                 circular_buffer_size: int = 1000) -> None:
        self.dump_root = dump_root
        self.tfdbg_run_id = tfdbg_run_id
        self._lock = threading.Lock()
        os.makedirs(dump_root, exist_ok=True)
        prefix = os.path.join(dump_root,
                              f"tfdbg_events.{int(time.time())}.{socket.gethostname()}")
        self._files = {kind: RecordWriter(f"{prefix}.{kind}") for kind in _KINDS}
        size = circular_buffer_size if circular_buffer_size > 0 else None
        self._buffers = {kind: collections.deque(maxlen=size)
                         for kind in ("execution", "graph_execution_traces")}
        self._devices: dict[str, int] = {}
        self._closed = False
        self._write("metadata", debug_event_pb2.DebugEvent(
            debug_metadata=debug_event_pb2.DebugMetadata(
                tensorflow_version=version, file_version=FILE_VERSION,
                tfdbg_run_id=tfdbg_run_id)))

    def _write(self, kind: str, event: debug_event_pb2.DebugEvent) -> None:
        if not event.wall_time:
            event.wall_time = time.time()
        with self._lock:
            if self._closed:
                raise FailedPreconditionError(
                    f"the debug events writer of {self.dump_root!r} is closed")
            if kind in self._buffers:
                self._buffers[kind].append(event.SerializeToString())
            else:
                self._files[kind].write(event.SerializeToString())

    def WriteSourceFile(self, source_file: debug_event_pb2.SourceFile) -> None:  # noqa: N802
        self._write("source_files", debug_event_pb2.DebugEvent(source_file=source_file))

    def WriteStackFrameWithId(  # noqa: N802
            self, stack_frame: debug_event_pb2.StackFrameWithId) -> None:
        self._write("stack_frames",
                    debug_event_pb2.DebugEvent(stack_frame_with_id=stack_frame))

    def WriteGraphOpCreation(  # noqa: N802
            self, creation: debug_event_pb2.GraphOpCreation) -> None:
        self._write("graphs", debug_event_pb2.DebugEvent(graph_op_creation=creation))

    def WriteDebuggedGraph(self, graph: debug_event_pb2.DebuggedGraph) -> None:  # noqa: N802
        self._write("graphs", debug_event_pb2.DebugEvent(debugged_graph=graph))

    def WriteExecution(self, execution: debug_event_pb2.Execution) -> None:  # noqa: N802
        self._write("execution", debug_event_pb2.DebugEvent(execution=execution))

    def WriteGraphExecutionTrace(  # noqa: N802
            self, trace: debug_event_pb2.GraphExecutionTrace) -> None:
        self._write("graph_execution_traces",
                    debug_event_pb2.DebugEvent(graph_execution_trace=trace))

    def RegisterDeviceAndGetId(self, device_name: str) -> int:  # noqa: N802
        """The id of `device_name`, recorded (a DebuggedDevice event) the first time."""
        with self._lock:
            found = self._devices.get(device_name)
            if found is not None:
                return found
            self._devices[device_name] = device_id = len(self._devices)
        self._write("graphs", debug_event_pb2.DebugEvent(
            debugged_device=debug_event_pb2.DebuggedDevice(device_name=device_name,
                                                           device_id=device_id)))
        return device_id

    def FlushNonExecutionFiles(self) -> None:  # noqa: N802
        with self._lock:
            if self._closed:
                return
            for kind in ("metadata", "source_files", "stack_frames", "graphs"):
                self._files[kind].flush()

    def FlushExecutionFiles(self) -> None:  # noqa: N802
        with self._lock:
            if self._closed:
                return
            for kind, buffer in self._buffers.items():
                for record in buffer:
                    self._files[kind].write(record)
                buffer.clear()
                self._files[kind].flush()

    def Close(self) -> None:  # noqa: N802
        """Flush everything and close the files; later writes are refused."""
        if self._closed:
            return
        self.FlushNonExecutionFiles()
        self.FlushExecutionFiles()
        with self._lock:
            self._closed = True
            for file in self._files.values():
                file.close()
        with _writers_lock:
            if _writers.get(self.dump_root) is self:
                del _writers[self.dump_root]


def open_writer(dump_root: str, tfdbg_run_id: str, version: str,
                circular_buffer_size: int) -> DebugEventsWriter:
    """The writer of `dump_root`, made when there is none."""
    dump_root = os.path.abspath(dump_root)
    with _writers_lock:
        found = _writers.get(dump_root)
        if found is None:
            found = _writers[dump_root] = DebugEventsWriter(dump_root, tfdbg_run_id, version,
                                                            circular_buffer_size)
        return found


def writer_for(dump_root: str) -> DebugEventsWriter | None:
    """The open writer of `dump_root`, if any."""
    with _writers_lock:
        return _writers.get(os.path.abspath(dump_root))

"""tf.debugging.experimental.enable_dump_debug_info / disable_dump_debug_info in a graph:
the instrumented graph per tensor debug mode, the tfdbg v2 event files and what they
record, and the DebugNumericSummaryV2 summaries, as TensorFlow 2.21 builds and writes
them (recorded with tf.compat.v1 in graph mode on the same program; TensorFlow's
DebugDataReader also read tfx's dumps back in a scratch check: same op digests and
trace values)."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import tfx as tf
from tfx.core.errors import UnimplementedError
from tfx.core.record_io import read_records
from tfx.protos import debug_event_pb2


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield
    tf.debugging.experimental.disable_dump_debug_info()


def _nodes():
    return [(n.name, n.op, list(n.input)) for n in tf.get_default_graph().as_graph_def().node]


def _program():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.math.log(x, name="y")
    z = tf.add(y, 1.0, name="z")
    u = tf.unique(z, name="u")
    return x, u


def _events(root, kind):
    (path,) = [os.path.join(root, f) for f in os.listdir(root) if f.endswith("." + kind)]
    return [debug_event_pb2.DebugEvent.FromString(r) for r in read_records(path)]


def _traces(root):
    out = []
    for event in _events(root, "graph_execution_traces"):
        trace = event.graph_execution_trace
        value = tf.make_ndarray(trace.tensor_proto)
        out.append((trace.op_name, trace.output_slot, value.tolist()))
    return out


# TensorFlow 2.21's instrumented graphs of _program().
TF_GRAPHS = {
    "NO_TENSOR": [
        ("x", "Placeholder", []), ("x/Const", "Const", []),
        ("x/DebugIdentityV2_1", "DebugIdentityV2", ["x/Const"]),
        ("y", "Log", ["x", "^x/DebugIdentityV2_1"]), ("y/Const", "Const", []),
        ("y/DebugIdentityV2_2", "DebugIdentityV2", ["y/Const"]),
        ("y/tfdbg_identity_2", "Identity", ["y", "^y/DebugIdentityV2_2"]),
        ("z/y", "Const", []), ("z/Const", "Const", []),
        ("z/DebugIdentityV2_3", "DebugIdentityV2", ["z/Const"]),
        ("z/tfdbg_identity_3", "Identity", ["z/y", "^z/DebugIdentityV2_3"]),
        ("z", "AddV2", ["y/tfdbg_identity_2", "z/tfdbg_identity_3"]),
        ("z/Const_1", "Const", []), ("z/DebugIdentityV2_4", "DebugIdentityV2", ["z/Const_1"]),
        ("z/tfdbg_identity_4", "Identity", ["z", "^z/DebugIdentityV2_4"]),
        ("u", "Unique", ["z/tfdbg_identity_4"]), ("u/Const", "Const", []),
        ("u/DebugIdentityV2_6", "DebugIdentityV2", ["u/Const"]),
        ("u/tfdbg_identity_6", "Identity", ["u", "^u/DebugIdentityV2_6"]),
        ("u/Const_1", "Const", []), ("u/DebugIdentityV2_6_1", "DebugIdentityV2", ["u/Const_1"]),
        ("u/tfdbg_identity_6_1", "Identity", ["u:1", "^u/DebugIdentityV2_6_1"])],
    "FULL_TENSOR": [
        ("x", "Placeholder", []), ("x/DebugIdentityV2_1", "DebugIdentityV2", ["x"]),
        ("y", "Log", ["x", "^x/DebugIdentityV2_1"]),
        ("y/DebugIdentityV2_2", "DebugIdentityV2", ["y"]), ("z/y", "Const", []),
        ("z/DebugIdentityV2_3", "DebugIdentityV2", ["z/y"]),
        ("z/tfdbg_identity_3", "Identity", ["z/y", "^z/DebugIdentityV2_3"]),
        ("z", "AddV2", ["y/DebugIdentityV2_2", "z/tfdbg_identity_3"]),
        ("z/DebugIdentityV2_4", "DebugIdentityV2", ["z"]),
        ("u", "Unique", ["z/DebugIdentityV2_4"]),
        ("u/DebugIdentityV2_6", "DebugIdentityV2", ["u"]),
        ("u/DebugIdentityV2_6_1", "DebugIdentityV2", ["u:1"])],
    "CURT_HEALTH": [
        ("x", "Placeholder", []),
        ("x/DebugNumericSummaryV2", "DebugNumericSummaryV2", ["x"]),
        ("x/DebugIdentityV2_1", "DebugIdentityV2", ["x/DebugNumericSummaryV2"]),
        ("y", "Log", ["x", "^x/DebugIdentityV2_1"]),
        ("y/DebugNumericSummaryV2", "DebugNumericSummaryV2", ["y"]),
        ("y/DebugIdentityV2_2", "DebugIdentityV2", ["y/DebugNumericSummaryV2"]),
        ("y/tfdbg_identity_2", "Identity", ["y", "^y/DebugIdentityV2_2"]),
        ("z/y", "Const", []), ("z/DebugNumericSummaryV2", "DebugNumericSummaryV2", ["z/y"]),
        ("z/DebugIdentityV2_3", "DebugIdentityV2", ["z/DebugNumericSummaryV2"]),
        ("z/tfdbg_identity_3", "Identity", ["z/y", "^z/DebugIdentityV2_3"]),
        ("z", "AddV2", ["y/tfdbg_identity_2", "z/tfdbg_identity_3"]),
        ("z/DebugNumericSummaryV2_1", "DebugNumericSummaryV2", ["z"]),
        ("z/DebugIdentityV2_4", "DebugIdentityV2", ["z/DebugNumericSummaryV2_1"]),
        ("z/tfdbg_identity_4", "Identity", ["z", "^z/DebugIdentityV2_4"]),
        ("u", "Unique", ["z/tfdbg_identity_4"]),
        ("u/DebugNumericSummaryV2", "DebugNumericSummaryV2", ["u"]),
        ("u/DebugIdentityV2_6", "DebugIdentityV2", ["u/DebugNumericSummaryV2"]),
        ("u/tfdbg_identity_6", "Identity", ["u", "^u/DebugIdentityV2_6"])],
}
# What TensorFlow 2.21's dumps of a run with x = [1, 1] held (order aside).
TF_TRACES = {
    "FULL_TENSOR": [("x", 0, [1.0, 1.0]), ("y", 0, [0.0, 0.0]), ("z/y", 0, 1.0),
                    ("z", 0, [1.0, 1.0]), ("u", 1, [0, 0]), ("u", 0, [1.0])],
    "CONCISE_HEALTH": [("x", 0, [1.0, 2.0, 0.0, 0.0, 0.0]), ("y", 0, [2.0, 2.0, 0.0, 0.0, 0.0]),
                       ("z/y", 0, [3.0, 1.0, 0.0, 0.0, 0.0]),
                       ("z", 0, [4.0, 2.0, 0.0, 0.0, 0.0]), ("u", 0, [5.0, 1.0, 0.0, 0.0, 0.0])],
    "NO_TENSOR": [("x", 0, []), ("y", 0, []), ("z/y", 0, []), ("z", 0, []), ("u", 0, []),
                  ("u", 1, [])],
}


@pytest.mark.parametrize("mode", sorted(TF_GRAPHS))
def test_instrumented_graph_is_tensorflows(mode, tmp_path):
    tf.debugging.experimental.enable_dump_debug_info(str(tmp_path), tensor_debug_mode=mode)
    _program()
    assert _nodes() == TF_GRAPHS[mode]


@pytest.mark.parametrize("mode", sorted(TF_TRACES))
def test_event_files_record_what_tensorflow_records(mode, tmp_path):
    writer = tf.debugging.experimental.enable_dump_debug_info(str(tmp_path),
                                                              tensor_debug_mode=mode)
    x, u = _program()
    with tf.Session() as sess:
        values, index = sess.run([u[0], u[1]], {x: [1.0, 1.0]})
    assert values.tolist() == [1.0] and index.tolist() == [0, 0]
    assert writer.dump_root == str(tmp_path)
    tf.debugging.experimental.disable_dump_debug_info()
    names = sorted(os.listdir(tmp_path))
    host = re.escape(os.uname().nodename)
    assert all(re.fullmatch(rf"tfdbg_events\.\d+\.{host}\.\w+", n) for n in names)
    assert sorted(n.rsplit(".", 1)[1] for n in names) == [
        "execution", "graph_execution_traces", "graphs", "metadata", "source_files",
        "stack_frames"]
    (metadata,) = _events(tmp_path, "metadata")
    assert metadata.debug_metadata.file_version == "debug.Event:1"
    assert re.fullmatch(r"[0-9a-f]{8}", metadata.debug_metadata.tfdbg_run_id)
    graphs = _events(tmp_path, "graphs")
    graph_id = graphs[0].debugged_graph.graph_id
    creations = [e.graph_op_creation for e in graphs[1:]]
    assert [(c.op_type, c.op_name, list(c.input_names), c.num_outputs,
             list(c.output_tensor_ids), c.graph_id) for c in creations] == [
        ("Placeholder", "x", [], 1, [1], graph_id), ("Log", "y", ["x:0"], 1, [2], graph_id),
        ("Const", "z/y", [], 1, [3], graph_id),
        ("AddV2", "z", ["y:0", "z/y:0"], 1, [4], graph_id),
        ("Unique", "u", ["z:0"], 2, [5, 6], graph_id)]
    # each creation's stack resolves to frames and source files; this file's line is there
    frames = {e.stack_frame_with_id.id: e.stack_frame_with_id.file_line_col
              for e in _events(tmp_path, "stack_frames")}
    files = [e.source_file for e in _events(tmp_path, "source_files")]
    log_stack = [frames[i] for i in creations[1].code_location.stack_frame_ids]
    here = [f for f in log_stack if files[f.file_index].file_path == __file__]
    assert [f.func for f in here][-1] == "_program"
    assert files[here[-1].file_index].lines[here[-1].line - 1].strip() == (
        'y = tf.math.log(x, name="y")')
    traces = _events(tmp_path, "graph_execution_traces")
    assert {t.graph_execution_trace.tfdbg_context_id for t in traces} == {graph_id}
    assert {t.graph_execution_trace.device_name for t in traces} == {
        "/job:localhost/replica:0/task:0/device:CPU:0"}
    assert sorted(map(repr, _traces(tmp_path))) == sorted(map(repr, TF_TRACES[mode]))


def test_circular_buffer_keeps_the_last_traces(tmp_path):
    tf.debugging.experimental.enable_dump_debug_info(
        str(tmp_path), tensor_debug_mode="FULL_TENSOR", circular_buffer_size=2)
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(tf.square(x, name="sq"), name="out")  # Identity is not instrumented
    with tf.Session() as sess:
        for value in (1.0, 2.0, 3.0):
            sess.run(y, {x: value})
    tf.debugging.experimental.disable_dump_debug_info()
    assert _traces(tmp_path) == [("x", 0, 3.0), ("sq", 0, 9.0)]


def test_filters_and_tensorflows_errors(tmp_path):
    enable = tf.debugging.experimental.enable_dump_debug_info
    with pytest.raises(ValueError) as caught:
        enable(str(tmp_path), tensor_debug_mode="FOO")
    assert str(caught.value) == (
        "Invalid value in tensor_debug_mode ('FOO'). Valid options are: ['UNSPECIFIED', "
        "'NO_TENSOR', 'CURT_HEALTH', 'CONCISE_HEALTH', 'FULL_HEALTH', 'SHAPE', "
        "'FULL_NUMERICS', 'FULL_TENSOR', 'REDUCE_INF_NAN_THREE_SLOTS']")
    with pytest.raises(NotImplementedError, match="tfdbg dumping: support for tensor debug "
                                                  "mode FULL_NUMERICS is not implemented yet"):
        enable(str(tmp_path), tensor_debug_mode="FULL_NUMERICS")
    with pytest.raises(ValueError, match="If specified, tensor_dtypes is expected to be a "
                                         "list, a tuple, or a callable"):
        enable(str(tmp_path), tensor_dtypes=5)
    writer = enable(str(tmp_path), tensor_debug_mode="FULL_TENSOR", op_regex="Log",
                    tensor_dtypes=[tf.float32])
    assert enable(str(tmp_path), tensor_debug_mode="FULL_TENSOR", op_regex="Log") is writer
    with pytest.raises(ValueError) as caught:
        enable(str(tmp_path), tensor_debug_mode="NO_TENSOR")
    assert str(caught.value) == (
        f"There is already a dumping callback configured for dump root {tmp_path} with a "
        "different tensor-debug mode (FULL_TENSOR). Therefore the newly request "
        "tensor-debug mode (NO_TENSOR) size will not be honored.")
    with pytest.raises(ValueError, match=r"different circular-buffer size \(1000\)\. "
                                         r"Therefore the newly request circular-buffer "
                                         r"size \(5\) will not be honored\."):
        enable(str(tmp_path), tensor_debug_mode="FULL_TENSOR", circular_buffer_size=5)
    _program()
    debugged = [n[0] for n in _nodes() if n[1] == "DebugIdentityV2"]
    assert debugged == ["y/DebugIdentityV2_2"]  # only Log ops match op_regex
    tf.debugging.experimental.disable_dump_debug_info()
    tf.debugging.experimental.disable_dump_debug_info()  # idempotent
    writer.FlushExecutionFiles()  # after closing: nothing to do, as TensorFlow's


def test_numeric_summaries_are_tensorflows():
    t = tf.constant([[-np.inf, 1.0, 0.0], [np.nan, -2.0, np.inf]], tf.float32)

    def summary(x, mode, tensor_id, dtype=tf.float64):
        return tf.raw_ops.DebugNumericSummaryV2(input=x, tensor_debug_mode=mode,
                                                tensor_id=tensor_id, output_dtype=dtype)

    fetches = [summary(t, m, 7) for m in (2, 3, 4, 5, 8)] + [
        summary(tf.zeros([1, 2, 3, 4, 5, 6, 7], tf.int32), 5, 3),
        summary(tf.constant([True]), 5, 3), summary(tf.constant([1]), 2, 7, tf.float32)]
    with tf.Session() as sess:
        got = [v.tolist() for v in sess.run(fetches)]
        with pytest.raises(UnimplementedError, match="Unimplemented tensor debug mode: 7"):
            sess.run(summary(t, 7, 7))
    assert got[:4] == [[7.0, 1.0], [7.0, 6.0, 1.0, 1.0, 1.0],
                       [7.0, -1.0, 1.0, 2.0, 6.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                       [7.0, 1.0, 2.0, 6.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]]
    assert got[4][:2] == [-np.inf, np.inf] and np.isnan(got[4][2])
    assert got[5:] == [[3.0, 3.0, 7.0, 5040.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                       [3.0, 10.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [7.0, 0.0]]

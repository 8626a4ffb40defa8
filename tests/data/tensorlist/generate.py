"""Regenerate the TensorList GraphDefs and TensorFlow's outputs for them.

Not a test: it needs TensorFlow (recorded with TensorFlow 2.21). Each case writes
`NAME.pb` (a GraphDef, v2 control flow and TensorList ops) and `NAME.npz` holding
`feed:<tensor>` inputs and `fetch:<tensor>` outputs as TensorFlow computed them.
The tests only read these files.

    python tests/data/tensorlist/generate.py
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
R = tf.raw_ops


def _save(name: str, graph_def, feeds: dict, fetches: list[str],
          targets: tuple[str, ...] = ()) -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as sess:
        for target in targets:
            sess.run(target, dict(feeds))
        values = sess.run(fetches, dict(feeds))
    with open(os.path.join(HERE, f"{name}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    arrays = {f"feed:{k}": _storable(v) for k, v in feeds.items()}
    arrays.update({f"fetch:{k}": _storable(v) for k, v in zip(fetches, values)})
    arrays.update({f"target:{t}": np.zeros(0) for t in targets})
    np.savez(os.path.join(HERE, f"{name}.npz"), **arrays)
    ops = {n.op for n in graph_def.node}
    for function in graph_def.library.function:
        ops |= {n.op for n in function.node_def}
    print(name, sorted(op for op in ops if "List" in op or "Map" in op or "While" in op))


def _storable(value) -> np.ndarray:
    """Strings as fixed-width bytes: npz files hold object arrays only by pickling."""
    array = np.asarray(value)
    return array.astype(bytes) if array.dtype == object else array


def _function(fn, *specs) -> tuple:
    concrete = fn.get_concrete_function(*specs)
    return (concrete.graph.as_graph_def(), [t.name for t in concrete.inputs],
            [t.name for t in concrete.outputs])


def v1_graph_while_gradient() -> None:
    """A TF1 graph with control flow v2: a TensorArray written in a while_loop, stacked,
    and the gradient of the stack's sum (while_v2 accumulates through TensorLists)."""
    tf.compat.v1.enable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, ta, acc):
            v = x * tf.cast(i, tf.float32) + acc
            return i + 1, ta.write(i, v), tf.reduce_sum(v * v) * 0.1

        _, ta, acc = tf.while_loop(lambda i, ta, acc: i < 4, body, [0, ta, 0.0])
        out = tf.identity(ta.stack(), name="out")
        loss = tf.reduce_sum(out) + acc
        grad = tf.identity(tf.gradients(loss, x)[0], name="grad")
    _save("v1_while_gradient", graph.as_graph_def(),
          {"x:0": np.array([1.0, -2.0, 0.5], np.float32)}, [out.name, grad.name])


def function_tensor_array() -> None:
    """A tf.function using TensorArrays in a loop: unstack, read, write, gather, concat."""
    @tf.function
    def f(x, n):
        inputs = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
        squares = tf.TensorArray(tf.float32, size=n, element_shape=[2])
        rows = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
        for i in tf.range(n):
            v = inputs.read(i)
            squares = squares.write(i, v * v)
            rows = rows.write(i, tf.tile(v[:1], [i + 1]))
        return (squares.stack(), squares.gather([2, 0]), rows.concat(), squares.size(),
                tf.reduce_sum(squares.stack(), axis=0))

    graph_def, ins, outs = _function(f, tf.TensorSpec([4, 2], tf.float32),
                                     tf.TensorSpec([], tf.int32))
    x = np.arange(8, dtype=np.float32).reshape(4, 2) - 3.0
    _save("function_tensor_array", graph_def, {ins[0]: x, ins[1]: np.array(3, np.int32)},
          outs)


def function_while_gradient() -> None:
    """Gradients of a While inside a function: the forward values the backward loop
    needs are pushed on TensorList accumulators and popped in reverse."""
    @tf.function
    def f(x, w):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            h = x
            for _ in tf.range(3):
                h = tf.tanh(tf.linalg.matvec(w, h)) + x
            loss = tf.reduce_sum(h * h)
        gx, gw = tape.gradient(loss, [x, w])
        return loss, gx, gw

    graph_def, ins, outs = _function(f, tf.TensorSpec([3], tf.float32),
                                     tf.TensorSpec([3, 3], tf.float32))
    x = np.array([0.5, -1.0, 2.0], np.float32)
    w = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0) / 8.0
    _save("function_while_gradient", graph_def, {ins[0]: x, ins[1]: w}, outs)


def function_map_fn_scan() -> None:
    """tf.map_fn, tf.scan and tf.foldl in a function, with their gradients: while_v2
    loops over TensorLists (unstacked inputs, accumulated outputs), nested one deep."""
    @tf.function
    def f(x, w):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            mapped = tf.map_fn(lambda row: tf.reduce_sum(tf.tanh(row * w)), x)
            scanned = tf.scan(lambda acc, row: acc * 0.5 + row * w, x)
            nested = tf.map_fn(lambda row: tf.map_fn(lambda v: v * v * w[0], row), x)
            folded = tf.foldl(lambda acc, row: acc + tf.reduce_prod(row), x,
                              initializer=tf.constant(1.0))
            loss = (tf.reduce_sum(mapped) + tf.reduce_sum(scanned * scanned)
                    + tf.reduce_sum(nested) + folded)
        gx, gw = tape.gradient(loss, [x, w])
        return mapped, scanned, nested, folded, gx, gw

    graph_def, ins, outs = _function(f, tf.TensorSpec([4, 3], tf.float32),
                                     tf.TensorSpec([3], tf.float32))
    x = (np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0) / 4.0
    w = np.array([0.5, -1.0, 2.0], np.float32)
    _save("function_map_fn_scan", graph_def, {ins[0]: x, ins[1]: w}, outs)


def raw_list_ops() -> None:
    """Every TensorList op once, through tf.raw_ops in a function."""
    @tf.function
    def f(x, y):
        f32 = tf.float32
        empty = R.EmptyTensorList(element_shape=[-1], max_num_elements=-1, element_dtype=f32)
        pushed = R.TensorListPushBack(input_handle=empty, tensor=x[0])
        pushed = R.TensorListPushBack(input_handle=pushed, tensor=x[1])
        popped, last = R.TensorListPopBack(input_handle=pushed, element_shape=[-1],
                                           element_dtype=f32)
        reserved = R.TensorListReserve(element_shape=[2], num_elements=4, element_dtype=f32)
        reserved = R.TensorListSetItem(input_handle=reserved, index=1, item=x[2])
        grown = R.TensorListSetItem(input_handle=reserved, index=6, item=x[3],
                                    resize_if_index_out_of_bounds=True)
        item = R.TensorListGetItem(input_handle=reserved, index=0, element_shape=[-1],
                                   element_dtype=f32)
        stacked = R.TensorListStack(input_handle=grown, element_shape=[-1],
                                    element_dtype=f32)
        from_x = R.TensorListFromTensor(tensor=x, element_shape=[-1])
        gathered = R.TensorListGather(input_handle=from_x, indices=[3, 0, 3],
                                      element_shape=[-1], element_dtype=f32)
        scattered = R.TensorListScatter(tensor=x[:2], indices=[3, 1], element_shape=[2])
        scattered_v2 = R.TensorListScatterV2(tensor=x[:2], indices=[0, 2], element_shape=[-1],
                                             num_elements=5)
        into = R.TensorListScatterIntoExistingList(input_handle=from_x, tensor=x[2:] * 3.0,
                                                   indices=[1, 0])
        split = R.TensorListSplit(tensor=y, element_shape=[-1, 3],
                                  lengths=tf.constant([1, 0, 3], tf.int64))
        concat, lengths = R.TensorListConcatV2(input_handle=split, element_shape=[-1, 3],
                                               leading_dims=tf.zeros([0], tf.int64),
                                               element_dtype=f32)
        concat_v1, lengths_v1 = R.TensorListConcat(input_handle=from_x, element_dtype=f32)
        resized = R.TensorListResize(input_handle=from_x, size=6)
        shrunk = R.TensorListResize(input_handle=from_x, size=2)
        both = R.TensorListConcatLists(input_a=from_x, input_b=into, element_dtype=f32)
        batch = R.TensorListPushBackBatch(input_handles=tf.stack([from_x, into]),
                                          tensor=x[:2] * 10.0)
        return {
            "last": last,
            "popped_length": R.TensorListLength(input_handle=popped),
            "item": item,
            "stacked": stacked,
            "gathered": gathered,
            "scattered": R.TensorListStack(input_handle=scattered, element_shape=[-1],
                                           element_dtype=f32),
            "scattered_v2": R.TensorListStack(input_handle=scattered_v2, element_shape=[2],
                                              element_dtype=f32),
            "into": R.TensorListStack(input_handle=into, element_shape=[-1],
                                      element_dtype=f32),
            "concat": concat, "lengths": lengths,
            "concat_v1": concat_v1, "lengths_v1": lengths_v1,
            "resized": R.TensorListStack(input_handle=resized, element_shape=[-1],
                                         element_dtype=f32, num_elements=6),
            "shrunk": R.TensorListStack(input_handle=shrunk, element_shape=[-1],
                                        element_dtype=f32),
            "both": R.TensorListStack(input_handle=both, element_shape=[-1],
                                      element_dtype=f32),
            "batch1": R.TensorListStack(input_handle=batch[1], element_shape=[-1],
                                        element_dtype=f32),
            "element_shape": R.TensorListElementShape(input_handle=split,
                                                      shape_type=tf.int64),
            "unknown_shape": R.TensorListElementShape(input_handle=from_x,
                                                      shape_type=tf.int32),
        }

    concrete = f.get_concrete_function(tf.TensorSpec([4, 2], tf.float32),
                                       tf.TensorSpec([4, 3], tf.float32))
    graph_def = concrete.graph.as_graph_def()
    ins = [t.name for t in concrete.inputs]
    outs = [t.name for t in concrete.outputs]
    x = np.arange(8, dtype=np.float32).reshape(4, 2) * 0.5 - 1.0
    y = np.arange(12, dtype=np.float32).reshape(4, 3) + 1.0
    _save("raw_list_ops", graph_def, {ins[0]: x, ins[1]: y}, outs)


def raw_map_ops() -> None:
    """Every TensorMap op through tf.raw_ops in a function (keys sorted before they are
    compared: TensorFlow's StackKeys order is its hash map's)."""
    @tf.function
    def f(x, k):
        m = R.EmptyTensorMap()
        m = R.TensorMapInsert(input_handle=m, key=k, value=x)
        m = R.TensorMapInsert(input_handle=m, key=k + 1, value=x * 2.0)
        m = R.TensorMapInsert(input_handle=m, key=k + 5, value=x[:1])
        m = R.TensorMapInsert(input_handle=m, key=k, value=x * 3.0)  # replaces
        erased = R.TensorMapErase(input_handle=m, key=k + 1, value_dtype=tf.float32)
        return {
            "size": R.TensorMapSize(input_handle=m),
            "erased_size": R.TensorMapSize(input_handle=erased),
            "value": R.TensorMapLookup(input_handle=m, key=k, value_dtype=tf.float32),
            "short": R.TensorMapLookup(input_handle=erased, key=k + 5,
                                       value_dtype=tf.float32),
            "has": R.TensorMapHasKey(input_handle=m, key=k + 1),
            "has_erased": R.TensorMapHasKey(input_handle=erased, key=k + 1),
            "keys": tf.sort(R.TensorMapStackKeys(input_handle=m, key_dtype=tf.int64)),
        }

    concrete = f.get_concrete_function(tf.TensorSpec([3], tf.float32),
                                       tf.TensorSpec([], tf.int64))
    graph_def = concrete.graph.as_graph_def()
    ins = [t.name for t in concrete.inputs]
    outs = [t.name for t in concrete.outputs]
    _save("raw_map_ops", graph_def, {ins[0]: np.array([1.0, -2.0, 4.0], np.float32),
                                     ins[1]: np.array(10, np.int64)}, outs)


# --- old op names: GraphDefs written as text with an old producer version ------------------
# TensorFlow 2.21 no longer builds the TensorArray V1/V2 ops but runs them in a GraphDef
# whose producer predates their removal (versions 16 and 26), as old graphs have.

def _const(name: str, dtype: str, field: str, values: list, shape: tuple = ()) -> str:
    dims = " ".join(f"dim {{ size: {d} }}" for d in shape)
    items = " ".join(f"{field}: {v!r}".replace("'", '"') for v in values)
    return (f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} '
            f'}} attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ {dims} '
            f'}} {items} }} }} }} }}')


def _node(name: str, op: str, inputs: list[str], **attrs: str) -> str:
    ins = " ".join(f'input: "{i}"' for i in inputs)
    ats = " ".join(f'attr {{ key: "{k}" value {{ {v} }} }}' for k, v in attrs.items())
    return f'node {{ name: "{name}" op: "{op}" {ins} {ats} }}'


def _old_graph(*nodes: str):
    from google.protobuf import text_format

    text = "\n".join(nodes) + "\nversions { producer: 10 }"
    return text_format.Parse(text, tf.compat.v1.GraphDef())


F = "type: DT_FLOAT"
I32 = "type: DT_INT32"


def legacy_tensor_arrays() -> None:
    """TensorArray (V1), TensorArrayV2 and Stack with their old handles."""
    nodes = [
        _const("size", "DT_INT32", "int_val", [3]),
        _const("i0", "DT_INT32", "int_val", [0]), _const("i1", "DT_INT32", "int_val", [1]),
        _const("i2", "DT_INT32", "int_val", [2]),
        _const("flow", "DT_FLOAT", "float_val", [0.0]),
        _const("idx", "DT_INT32", "int_val", [2, 0], (2,)),
        _const("lengths", "DT_INT64", "int64_val", [1, 2, 1], (3,)),
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } }',
        _node("ta", "TensorArray", ["size"], dtype=F, clear_after_read="b: false"),
        _node("unpack", "TensorArrayUnpack", ["ta", "x_rows", "flow"], T=F),
        _node("x_rows", "StridedSlice", ["x", "b0", "b3", "b1"], T=F, Index=I32,
              begin_mask="i: 0", end_mask="i: 0", ellipsis_mask="i: 0",
              new_axis_mask="i: 0", shrink_axis_mask="i: 0"),
        _const("b0", "DT_INT32", "int_val", [0], (1,)),
        _const("b3", "DT_INT32", "int_val", [3], (1,)),
        _const("b1", "DT_INT32", "int_val", [1], (1,)),
        _node("read", "TensorArrayRead", ["ta", "i1", "unpack"], dtype=F),
        _node("pack", "TensorArrayPack", ["ta", "unpack"], dtype=F),
        _node("gather", "TensorArrayGather", ["ta", "idx", "unpack"], dtype=F),
        _node("size_out", "TensorArraySize", ["ta", "unpack"]),
        _node("concat", "TensorArrayConcat", ["ta", "unpack"], dtype=F),
        _node("grad", "TensorArrayGrad", ["ta", "unpack"], source='s: "g"'),
        _node("grad_write", "TensorArrayWrite", ["grad", "i2", "row", "unpack"], T=F),
        _node("row", "Const", [], dtype=F, value='tensor { dtype: DT_FLOAT tensor_shape { '
              'dim { size: 2 } } float_val: 5 float_val: 6 }'),
        _node("grad_pack", "TensorArrayPack", ["grad", "grad_write"], dtype=F,
              element_shape="shape { dim { size: 2 } }"),
        _node("ta2", "TensorArrayV2", ["size"], dtype=F),
        _node("split2", "TensorArraySplitV2", ["ta2", "x", "lengths", "flow"], T=F),
        _node("read2", "TensorArrayReadV2", ["ta2", "i1", "split2"], dtype=F),
        _node("scatter2_ta", "TensorArrayV2", ["size"], dtype=F),
        _node("scatter2", "TensorArrayScatterV2", ["scatter2_ta", "idx", "x_pair", "flow"],
              T=F),
        _node("x_pair", "StridedSlice", ["x", "b0", "b2", "b1"], T=F, Index=I32,
              begin_mask="i: 0", end_mask="i: 0", ellipsis_mask="i: 0",
              new_axis_mask="i: 0", shrink_axis_mask="i: 0"),
        _const("b2", "DT_INT32", "int_val", [2], (1,)),
        _node("gather2", "TensorArrayGatherV2", ["scatter2_ta", "idx", "scatter2"], dtype=F),
        _node("size2", "TensorArraySizeV2", ["ta2", "split2"]),
        _node("stack", "Stack", [], elem_type=F),
        _node("push1", "StackPush", ["stack", "read"], T=F),
        _node("push2", "StackPush", ["stack", "read2", "^push1"], T=F),
        _node("pop1", "StackPop", ["stack", "^push2"], elem_type=F),
        _node("pop2", "StackPop", ["stack", "^pop1"], elem_type=F),
    ]
    x = np.arange(8, dtype=np.float32).reshape(4, 2) - 2.5
    _save("legacy_tensor_arrays", _old_graph(*nodes), {"x:0": x},
          ["read:0", "pack:0", "gather:0", "size_out:0", "concat:0", "concat:1",
           "grad_pack:0", "read2:0", "gather2:0", "size2:0", "pop1:0", "pop2:0"])


def legacy_tables_and_readers() -> None:
    """V1 lookup tables, an anonymous table and V1 readers on a V1 queue."""
    S = "type: DT_STRING"
    I64 = "type: DT_INT64"
    nodes = [
        _const("keys", "DT_STRING", "string_val", ["a", "b", "c"], (3,)),
        _const("vals", "DT_INT64", "int64_val", [10, 20, 30], (3,)),
        _const("query", "DT_STRING", "string_val", ["c", "z", "a"], (3,)),
        _const("default", "DT_INT64", "int64_val", [-1]),
        _node("table", "HashTable", [], key_dtype=S, value_dtype=I64),
        _node("init", "InitializeTable", ["table", "keys", "vals"], Tkey=S, Tval=I64),
        _node("find", "LookupTableFind", ["table", "query", "default"], Tin=S, Tout=I64),
        _node("size", "LookupTableSize", ["table"]),
        _node("mutable", "MutableHashTable", [], key_dtype=S, value_dtype=I64),
        _node("insert", "LookupTableInsert", ["mutable", "keys", "vals"], Tin=S, Tout=I64),
        _node("mfind", "LookupTableFind", ["mutable", "query", "default", "^insert"], Tin=S,
              Tout=I64),
        _node("msize", "LookupTableSize", ["mutable", "^insert"]),
        _node("anon", "AnonymousHashTable", [], key_dtype=S, value_dtype=I64),
        _node("anon_init", "InitializeTableV2", ["anon", "keys", "vals"], Tkey=S, Tval=I64),
        _node("anon_find", "LookupTableFindV2", ["anon", "query", "default", "^anon_init"],
              Tin=S, Tout=I64),
        'node { name: "filename" op: "Placeholder" attr { key: "dtype" value { type: '
        'DT_STRING } } attr { key: "shape" value { shape { } } } }',
        _node("queue", "FIFOQueue", [], component_types="list { type: DT_STRING }",
              capacity="i: 10"),
        _node("enqueue", "QueueEnqueue", ["queue", "filename"],
              Tcomponents="list { type: DT_STRING }"),
        _node("close", "QueueClose", ["queue", "^enqueue"]),
        _node("lines", "TextLineReader", [], skip_header_lines="i: 1"),
        _node("read", "ReaderRead", ["lines", "queue", "^close"]),
        _node("more", "ReaderReadUpTo", ["lines", "queue", "two", "^read"]),
        _const("two", "DT_INT64", "int64_val", [2]),
        _node("produced", "ReaderNumRecordsProduced", ["lines", "^more"]),
        _node("completed", "ReaderNumWorkUnitsCompleted", ["lines", "^more"]),
    ]
    _save("legacy_tables_and_readers", _old_graph(*nodes),
          {"filename:0": np.array(b"lines.txt", dtype=object)},
          ["find:0", "size:0", "mfind:0", "msize:0", "anon_find:0", "read:0", "read:1",
           "more:0", "more:1", "produced:0", "completed:0"], targets=("init",))


def staging_areas() -> None:
    """StagingArea and MapStagingArea (ordered and not): puts run as targets, then one run
    whose reads are chained by control dependencies so their order is fixed."""
    from tensorflow.python.ops import data_flow_ops

    graph = tf.Graph()
    with graph.as_default():
        # A constant, not a placeholder: `tfx run --init` runs the puts without feeds.
        x = tf.constant([1.5, -2.0], name="x")
        fifo = data_flow_ops.StagingArea([tf.float32, tf.int32], shapes=[[2], []],
                                         shared_name="fifo", capacity=5)
        chain = fifo.put([x * 0.0, tf.constant(0)])
        for i in (1, 2):  # each put made after the last, so their order is fixed
            with tf.control_dependencies([chain]):
                chain = fifo.put([x * float(i), tf.constant(i)])
        ordered = data_flow_ops.MapStagingArea([tf.float32, tf.int32], ordered=True,
                                               names=["v", "n"], shared_name="ordered")
        unordered = data_flow_ops.MapStagingArea([tf.float32, tf.int32], shared_name="map")
        map_puts = [ordered.put(tf.constant(k, tf.int64), {"v": x + float(k), "n": tf.constant(k)})
                    for k in (7, 3, 5)]
        map_puts.append(ordered.put(tf.constant(9, tf.int64), {"v": x}))  # incomplete
        map_puts.append(unordered.put(tf.constant(4, tf.int64), [x * 4.0, tf.constant(4)],
                                      indices=[0, 1]))
        tf.group(chain, *map_puts, name="fill")
        outs = []

        def after(make):
            deps = [outs[-1]] if outs else []
            with tf.control_dependencies([t for t in tf.nest.flatten(deps)]):
                value = make()
            outs.append(value)
            return value

        after(lambda: tf.identity(fifo.size(), name="fifo_size"))
        after(lambda: tf.identity(fifo.peek(1)[0], name="fifo_peek"))
        after(lambda: [tf.identity(t, name=f"fifo_get{i}")
                       for i, t in enumerate(fifo.get())])
        after(lambda: tf.identity(fifo.size(), name="fifo_size_after"))
        after(lambda: tf.identity(ordered.size(), name="ordered_size"))
        after(lambda: tf.identity(ordered.incomplete_size(), name="ordered_incomplete"))
        def first_of_ordered():  # one get: its key and values come from the same entry
            key, values = ordered.get()
            return [tf.identity(t, name=f"ordered_first{i}")
                    for i, t in enumerate([key, *values.values()])]

        after(first_of_ordered)
        after(lambda: tf.identity(ordered.peek(tf.constant(7, tf.int64))["v"],
                                  name="ordered_peek"))
        after(lambda: tf.identity(
            ordered.get(tf.constant(7, tf.int64), indices=["v"])[1]["v"], name="ordered_v7"))
        after(lambda: tf.identity(ordered.size(), name="ordered_size_after"))
        after(lambda: [tf.identity(t, name=f"map_get{i}")
                       for i, t in enumerate(unordered.get(tf.constant(4, tf.int64))[1])])
        after(lambda: tf.identity(unordered.size(), name="map_size_after"))
        fetches = [t.name for t in tf.nest.flatten(outs)]
    _save("staging_areas", graph.as_graph_def(), {}, fetches, targets=("fill",))


def barrier() -> None:
    """A Barrier from TensorFlow's own class: inserts (chained, so their insertion indices
    are fixed) run as a target, then one run of chained reads, takes and a close."""
    from tensorflow.python.ops import data_flow_ops

    graph = tf.Graph()
    with graph.as_default():
        b = data_flow_ops.Barrier([tf.float32, tf.int32], shapes=[[2], []],
                                  shared_name="b", name="bar")
        inserts = [(0, ["a", "b"], [[1.0, 2.0], [3.0, 4.0]]), (1, ["b"], [20]),
                   (0, ["c"], [[5.0, 6.0]]), (1, ["c", "a"], [30, 10]),
                   (0, ["d", "e"], [[7.0, 8.0], [9.0, 0.0]]), (1, ["e"], [50])]
        chain = None
        for component, keys, values in inserts:
            with tf.control_dependencies([chain] if chain is not None else []):
                chain = b.insert_many(component, keys, values)
        tf.group(chain, name="fill")
        outs: list = []

        def after(make):
            with tf.control_dependencies(tf.nest.flatten(outs[-1:])):
                value = make()
            outs.append(value)

        after(lambda: tf.identity(b.ready_size(), name="ready"))
        after(lambda: tf.identity(b.incomplete_size(), name="incomplete"))
        after(lambda: [tf.identity(t, name=f"take{i}") for i, t in enumerate(
            tf.nest.flatten(b.take_many(3)))])
        after(b.close)
        after(lambda: [tf.identity(t, name=f"small{i}") for i, t in enumerate(
            tf.nest.flatten(b.take_many(5, allow_small_batch=True)))])
        after(lambda: tf.identity(b.incomplete_size(), name="incomplete_after"))
        fetches = [t.name for t in tf.nest.flatten(outs) if isinstance(t, tf.Tensor)]
    _save("barrier", graph.as_graph_def(), {}, fetches, targets=("fill",))


if __name__ == "__main__":
    v1_graph_while_gradient()
    function_tensor_array()
    function_while_gradient()
    function_map_fn_scan()
    raw_list_ops()
    raw_map_ops()
    os.chdir(HERE)  # the reader graph names lines.txt relative to here
    legacy_tensor_arrays()
    legacy_tables_and_readers()
    staging_areas()
    barrier()

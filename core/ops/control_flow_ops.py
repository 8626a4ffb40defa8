"""Op schemas: control flow inside the dataflow graph (TensorFlow's v1 primitives).

Switch routes its input to one of two outputs by a boolean; the other output
carries a dead value (`_SwitchN`, TensorFlow's lowering of Case, to one of N
by an index). Merge forwards whichever input is live. Enter, Exit and
NextIteration move values into, out of and around a loop frame; LoopCond marks
a loop's predicate. Their routing is the executor's job (`tfx.core.executor`);
the kernels only pass values through.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op


def _switch_shape(ctx: shapes.ShapeContext) -> list:
    return [ctx.input_shapes[0], ctx.input_shapes[0]]


def _merge_shape(ctx: shapes.ShapeContext) -> list:
    known = [s for s in ctx.input_shapes if s is not None]
    shape = known[0] if known and all(s == known[0] for s in known) else None
    if len(known) != len(ctx.input_shapes):
        shape = None
    return [shape, ()]


for _name, _ref in (("Switch", False), ("RefSwitch", True)):
    _t = "Ref(T)" if _ref else "T"
    (register_op(_name)
        .input(f"data: {_t}").input("pred: bool")
        .output(f"output_false: {_t}").output(f"output_true: {_t}")
        .attr("T: type").shape(_switch_shape)
        .doc("Forwards data to output_true if pred, else to output_false."))

def _switch_n_shape(ctx: shapes.ShapeContext) -> list:
    return [ctx.input_shapes[0]] * int(ctx.attrs["num_outs"])


(register_op("_SwitchN")
    .input("data: T").input("output_index: int32").output("outputs: num_outs * T")
    .attr("num_outs: int >= 1").attr("T: type").shape(_switch_n_shape)
    .doc("Forwards data to outputs[output_index] (the last output if the index is out of "
         "range); the others are dead. What TensorFlow lowers a Case to."))

for _name, _ref in (("Merge", False), ("RefMerge", True)):
    _t = "Ref(T)" if _ref else "T"
    (register_op(_name)
        .input(f"inputs: N * {_t}").output(f"output: {_t}").output("value_index: int32")
        .attr("T: type").attr("N: int >= 1").shape(_merge_shape)
        .doc("Forwards the first live input and its index."))

for _name, _ref in (("Enter", False), ("RefEnter", True)):
    _t = "Ref(T)" if _ref else "T"
    (register_op(_name)
        .input(f"data: {_t}").output(f"output: {_t}")
        .attr("T: type").attr("frame_name: string").attr("is_constant: bool = false")
        .attr("parallel_iterations: int = 10").shape(shapes.unchanged)
        .doc("Makes its input available to the child frame frame_name."))

for _name, _ref in (("Exit", False), ("RefExit", True)):
    _t = "Ref(T)" if _ref else "T"
    (register_op(_name)
        .input(f"data: {_t}").output(f"output: {_t}").attr("T: type").shape(shapes.unchanged)
        .doc("Leaves the current frame for its parent."))

for _name, _ref in (("NextIteration", False), ("RefNextIteration", True)):
    _t = "Ref(T)" if _ref else "T"
    (register_op(_name)
        .input(f"data: {_t}").output(f"output: {_t}").attr("T: type").shape(shapes.unchanged)
        .doc("Makes its input available to the next iteration."))

(register_op("LoopCond")
    .input("input: bool").output("output: bool").shape(shapes.unchanged)
    .doc("Forwards the loop predicate; marks it for the executor and tools."))

(register_op("ControlTrigger")
    .doc("Does nothing: a join point for control edges."))

(register_op("Abort")
    .attr("error_msg: string = ''").attr("exit_without_error: bool = false")
    .doc("Fails the step with error_msg."))

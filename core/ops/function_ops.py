"""Op schemas: calls of graph functions (the GraphDef's FunctionDefLibrary).

PartitionedCall and StatefulPartitionedCall call the function `f` on their
inputs; If/StatelessIf call `then_branch` or `else_branch` by the truth of
`cond`; While/StatelessWhile call `cond` and `body` on the loop variables until
`cond` is false; Case/StatelessCase call `branches[branch_index]` (the last
branch when the index is out of range). Schemas match TensorFlow's argument for
argument; the kernels are in `tfx.kernels.cpu.functional`, the instantiation in
`tfx.core.functions`. A node whose op type is itself a library function (TF1
Defun) binds against the function's signature, not here.

Output shapes come from the `output_shapes` attr where the op has one and it
is filled in, else they are unknown, as TensorFlow's shape functions do
without the function bodies at hand.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext


def _declared_shapes(ctx: ShapeContext) -> list[Shape]:
    declared = ctx.attrs.get("output_shapes") or []
    if len(declared) != ctx.num_outputs:
        return shapes.unknown(ctx)
    return [None if s is None else tuple(s) for s in declared]


_CALL_ATTRS = ("Tin: list(type) >= 0", "Tout: list(type) >= 0", "f: func",
               "config: string = ''", "config_proto: string = ''",
               "executor_type: string = ''")


def _call(name: str, stateful: bool, summary: str) -> None:
    schema = register_op(name).input("args: Tin").output("output: Tout")
    for attr in _CALL_ATTRS:
        schema.attr(attr)
    if stateful:
        schema.stateful()
    schema.shape(shapes.unknown).doc(summary)


_call("PartitionedCall", False, "Calls function `f` on `args`; its outputs are the results.")
_call("StatefulPartitionedCall", True,
      "PartitionedCall of a function with side effects (never folded, pruned or merged).")


def _if(name: str, stateful: bool) -> None:
    schema = (register_op(name)
              .input("cond: Tcond").input("input: Tin").output("output: Tout")
              .attr("Tcond: type").attr("Tin: list(type) >= 0").attr("Tout: list(type) >= 0")
              .attr("then_branch: func").attr("else_branch: func")
              .attr("output_shapes: list(shape) = []"))
    if stateful:
        schema.stateful()
    schema.shape(_declared_shapes).doc(
        "Calls then_branch(input) if cond is true (a nonzero number, a non-empty string, "
        "a non-empty tensor) else else_branch(input).")


_if("If", True)
_if("StatelessIf", False)


def _while(name: str, stateful: bool) -> None:
    schema = (register_op(name)
              .input("input: T").output("output: T")
              .attr("T: list(type) >= 0").attr("cond: func").attr("body: func")
              .attr("output_shapes: list(shape) = []").attr("parallel_iterations: int = 10"))
    if stateful:
        schema.stateful()
    schema.shape(_declared_shapes).doc(
        "Loop variables start as `input`; while cond(vars) is true, vars = body(vars).")


_while("While", True)
_while("StatelessWhile", False)


def _case(name: str, stateful: bool) -> None:
    schema = (register_op(name)
              .input("branch_index: int32").input("input: Tin").output("output: Tout")
              .attr("Tin: list(type) >= 0").attr("Tout: list(type) >= 0")
              .attr("branches: list(func) >= 1").attr("output_shapes: list(shape) = []"))
    if stateful:
        schema.stateful()
    schema.shape(_declared_shapes).doc(
        "Calls branches[branch_index](input); an index out of range calls the last branch.")


_case("Case", True)
_case("StatelessCase", False)

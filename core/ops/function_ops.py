"""Op schemas: calls of graph functions (the GraphDef's FunctionDefLibrary).

PartitionedCall and StatefulPartitionedCall call the function `f` on their
inputs. Schemas match TensorFlow's argument for argument; the kernels are in
`tfx.kernels.cpu.functional`, the instantiation in `tfx.core.functions`. A node
whose op type is itself a library function (TF1 Defun) binds against the
function's signature, not here. Output shapes are unknown, as TensorFlow's shape
functions leave them without the function bodies at hand.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op

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



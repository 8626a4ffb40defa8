"""CPU kernels: function calls and v2 control flow (PartitionedCall, If, While, Case).

Each kernel instantiates the functions it calls once, when it is built (so an
unknown, recursive or ill-matched function fails when the step is prepared,
naming the node), and compiles each into an executor plan. A call runs that
plan on the caller's step: the same resource manager (variables read inside a
function are the caller's), deadline and cancellation. The whole call runs on
the CPU, as one node of the caller's graph.

The plan builder hands these kernels the caller graph's function library as
the extra attr `_library` (a kernel sees no graph); a node whose op type is a
library function runs as a PartitionedCall of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.core.functions import CompiledFunction, FunctionLibrary, compile_function
from tfx.kernels.base import OpContext, OpKernel, register_kernel


class _FunctionKernel(OpKernel):
    """The shared part: compile a named function for this node, check its signature."""

    needs_context = True
    needs_library = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._compiled: dict[tuple, CompiledFunction] = {}  # filled by setup, via _compile
        super().__init__(*args, **kwargs)

    def _compile(self, library: FunctionLibrary | None, func: Any, inputs: list,
                 outputs: list | None) -> CompiledFunction:
        where = f"node {self.name!r} (op {self.op})"
        if library is None:
            raise InvalidArgumentError(
                f"{where}: calls function {func.name!r} but no function library was given")
        # One compilation per distinct function and attrs: a Case listing one branch
        # 100,000 times (a few bytes each in the GraphDef) compiles it once.
        key = (func.name, tuple(sorted((k, v.SerializeToString(deterministic=True))
                                       for k, v in func.attr.items())))
        fn = self._compiled.get(key)
        if fn is None:
            fn = self._compiled[key] = compile_function(library, func.name, dict(func.attr), where)
        fn.check_signature(inputs, outputs, where)
        return fn


@register_kernel(("PartitionedCall", "StatefulPartitionedCall"), "CPU")
class PartitionedCall(_FunctionKernel):
    def setup(self, f: Any, Tin: list, Tout: list, _library: Any = None,  # noqa: N803
              **_: Any) -> None:
        self.fn = self._compile(_library, f, Tin, Tout)

    def compute(self, ctx: OpContext, *args: Any) -> tuple:
        return tuple(self.fn(ctx.step, args))


def to_bool(value: Any) -> bool:
    """TensorFlow's truth of a predicate tensor: a scalar is true when nonzero (a string
    when non-empty); any other tensor when it holds at least one element."""
    array = np.asarray(value)
    if array.ndim:
        return array.size > 0
    item = array.item()
    if isinstance(item, bytes | str):
        return len(item) > 0
    return bool(item)


@register_kernel(("If", "StatelessIf"), "CPU")
class If(_FunctionKernel):
    def setup(self, then_branch: Any, else_branch: Any, Tin: list, Tout: list,  # noqa: N803
              _library: Any = None, **_: Any) -> None:
        self.then_fn = self._compile(_library, then_branch, Tin, Tout)
        self.else_fn = self._compile(_library, else_branch, Tin, Tout)

    def compute(self, ctx: OpContext, cond: Any, *args: Any) -> tuple:
        return tuple((self.then_fn if to_bool(cond) else self.else_fn)(ctx.step, args))


@register_kernel(("While", "StatelessWhile"), "CPU")
class While(_FunctionKernel):
    """Runs `body` while `cond` holds. There is no iteration cap: a loop that never ends
    is stopped by the step's deadline or cancellation, as in TensorFlow."""

    def setup(self, cond: Any, body: Any, T: list, _library: Any = None,  # noqa: N803
              **_: Any) -> None:
        self.cond_fn = self._compile(_library, cond, T, None)
        if len(self.cond_fn.output_types) != 1:
            raise InvalidArgumentError(
                f"node {self.name!r} (op {self.op}): the cond function {cond.name!r} must "
                f"return one tensor, it returns {len(self.cond_fn.output_types)}")
        self.body_fn = self._compile(_library, body, T, T)

    def compute(self, ctx: OpContext, *args: Any) -> tuple:
        values = list(args)
        step = ctx.step
        while True:
            step.check_cancelled()
            if not to_bool(self.cond_fn(step, values)[0]):
                return tuple(values)
            values = self.body_fn(step, values)


@register_kernel(("Case", "StatelessCase"), "CPU")
class Case(_FunctionKernel):
    def setup(self, branches: list, Tin: list, Tout: list, _library: Any = None,  # noqa: N803
              **_: Any) -> None:
        self.fns = [self._compile(_library, b, Tin, Tout) for b in branches]

    def compute(self, ctx: OpContext, branch_index: Any, *args: Any) -> tuple:
        index = np.asarray(branch_index)
        if index.ndim:
            raise InvalidArgumentError(
                f"branch_index must be a scalar, got shape {list(index.shape)}")
        k = int(index)
        fn = self.fns[k] if 0 <= k < len(self.fns) else self.fns[-1]
        return tuple(fn(ctx.step, args))

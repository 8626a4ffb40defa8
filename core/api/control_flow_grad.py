"""Gradients of the control-flow primitives `cond` builds (`Switch`, `Merge`).

A cond's gradient replays its decision in reverse: the gradient reaching a
`Merge` is switched by the same predicate back into the branch that ran, and
the gradients leaving a branch through its `Switch` are merged again outside
it, so only the taken branch's gradient ops run.

Gradients through `while_loop` are not built yet: `LoopGradients.maybe_create`
raises a LookupError naming the loop when one lies between the xs and the ys.
The `gradients` builder calls the hooks of a `LoopGradients` only when one exists.
"""

from __future__ import annotations

from typing import Any

from tfx.core.api.control_flow_api import CondContext, WhileContext, merge, switch
from tfx.core.api.gradients import NotDifferentiable, RegisterGradient
from tfx.core.api.graph_builder import Operation, Tensor

__all__ = ["LoopGradients"]


def _cond_context(op: Operation) -> CondContext | None:
    ctx = op._control_flow_context
    while ctx is not None and not isinstance(ctx, CondContext):
        ctx = ctx.outer
    return ctx


@RegisterGradient("Switch")
@RegisterGradient("RefSwitch")
def _switch_grad(op: Operation, grad_false: Tensor, grad_true: Tensor) -> tuple:
    """Both branches' gradients meet again where the value entered the cond."""
    if _cond_context(op) is None:
        raise LookupError(f"the gradient of {op.name!r} ({op.type}) outside a cond "
                          "(a while loop) is not supported")
    return merge([grad_false, grad_true], name="cond_grad")[0], None


@RegisterGradient("Merge")
@RegisterGradient("RefMerge")
def _merge_grad(op: Operation, grad: Tensor, _: Any = None) -> tuple:
    """Send the gradient back into the branch that produced the merged value."""
    ctx = None
    for t in op.inputs:
        ctx = _cond_context(t.op)
        if ctx is not None:
            break
    if ctx is None:
        raise LookupError(f"the gradient of {op.name!r} ({op.type}) outside a cond "
                          "(a while loop) is not supported")
    grad_false, grad_true = switch(grad, ctx.pred, name="cond_grad")
    return grad_false, grad_true


NotDifferentiable("LoopCond")


class LoopGradients:
    """Reverse loops for the while loops between the xs and the ys (not built yet)."""

    @staticmethod
    def maybe_create(builder: Any) -> LoopGradients | None:
        for op in builder.between.values():
            ctx = op._control_flow_context
            while ctx is not None:
                if isinstance(ctx, WhileContext):
                    raise LookupError(
                        f"gradients through while_loop {ctx.frame_name!r} (op {op.name!r}) "
                        "are not supported yet")
                ctx = ctx.outer
        return None

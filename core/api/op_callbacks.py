"""Op callbacks: functions called with every op built through `apply_op` (and each Const and
Placeholder) while they are registered, per thread, as TensorFlow's op callbacks are.

A callback is called as `callback(op_type, inputs, attrs, outputs, op_name=..., graph=...)`
right after the op is built; it may return replacement tensors for
the op's outputs, which the code building the op then receives (tf.debugging's
check-numerics instrumentation returns checked outputs this way). Ops that callbacks build
are not shown to callbacks.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["add_op_callback", "instrument", "remove_op_callback"]

_state = threading.local()


def add_op_callback(callback: Callable[..., Any]) -> None:
    """Register `callback` in this thread (again: no change)."""
    found = getattr(_state, "callbacks", ())
    if callback not in found:
        _state.callbacks = (*found, callback)


def remove_op_callback(callback: Callable[..., Any]) -> None:
    """Unregister `callback` in this thread; KeyError when it is not registered."""
    found = getattr(_state, "callbacks", ())
    if callback not in found:
        raise KeyError(f"the op callback {callback!r} is not registered")
    _state.callbacks = tuple(c for c in found if c != callback)


def instrument(op: Any, outputs: Sequence[Any], in_own_scope: bool = True
               ) -> Sequence[Any]:
    """`outputs` of the new `op` as the registered callbacks leave them, which run in the
    op's own name scope (as under TensorFlow's op helper) or, for a Const, in the scope it
    was made in (as TensorFlow's constant)."""
    callbacks = getattr(_state, "callbacks", ())
    if not callbacks or getattr(_state, "busy", False):
        return outputs
    result = list(outputs)
    _state.busy = True
    try:
        scope = (op.graph.name_scope(f"{op.name}/") if in_own_scope
                 else contextlib.nullcontext())
        with scope:
            for callback in callbacks:
                replaced = callback(op.type, list(op.inputs), dict(op.node_def.attr),
                                    result, op_name=op.name, graph=op.graph)
                if replaced is not None:
                    result = list(replaced)
    finally:
        _state.busy = False
    return result

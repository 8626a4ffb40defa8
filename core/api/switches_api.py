"""TensorFlow 1.x's process-wide behavior switches, answered for tfx, and
`assert_variables_initialized`.

tfx builds graphs with TensorFlow 1.x semantics and runs them in a Session. A switch
towards what tfx does is accepted; a switch towards what tfx cannot do raises a
ValueError that says so, rather than being accepted and ignored:

- `enable_eager_execution`, `enable_v2_behavior`: tfx has no eager mode (ValueError).
- `enable_resource_variables` / `disable_resource_variables` /
  `resource_variables_enabled`: a real switch, off by default as after TensorFlow's
  `disable_v2_behavior()`. When on, `Variable(...)` and `get_variable(...)` without a
  `use_resource` argument should make resource variables (VarHandleOp), as TensorFlow's
  do; the variable constructors read it through `resource_variables_enabled()`.
- `enable_control_flow_v2`: tfx builds v1 control flow only (Switch, Merge, Enter,
  Exit), so it raises; `disable_control_flow_v2` is accepted and
  `control_flow_v2_enabled()` is False.
- `enable_v2_tensorshape`: accepted, as tfx's `TensorShape` already behaves that way
  (indexing gives ints or None); `disable_v2_tensorshape` raises, since tfx has no
  `Dimension` objects to return instead.
- `enable_tensor_equality` / `disable_tensor_equality`: recorded. In TensorFlow the
  setting only changes eager tensors (graph tensors compare and hash by identity
  either way, checked with TensorFlow 2.21), and tfx has no eager tensors.

`assert_variables_initialized(var_list)` returns an op that fails with
FailedPreconditionError when run while one of the variables is uninitialized.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from tfx.core.api.array_api import stack
from tfx.core.api.graph_builder import (
    Tensor,
    colocate_with,
    control_dependencies,
    get_default_graph,
)
from tfx.core.api.ops_api import apply_op, no_op

# TensorFlow's names (tensor_equality_enabled is tfx's own query).
__all__ = [
    "assert_variables_initialized",
    "control_flow_v2_enabled",
    "disable_control_flow_v2",
    "disable_resource_variables",
    "disable_tensor_equality",
    "disable_v2_tensorshape",
    "enable_control_flow_v2",
    "enable_eager_execution",
    "enable_resource_variables",
    "enable_tensor_equality",
    "enable_v2_behavior",
    "enable_v2_tensorshape",
    "resource_variables_enabled",
]

_lock = threading.Lock()
_state = {"resource_variables": False, "tensor_equality": False}


def enable_eager_execution(config: Any = None, device_policy: Any = None,
                           execution_mode: Any = None) -> None:
    """Not available: tfx builds graphs and runs them in a Session (ValueError)."""
    raise ValueError("tf.enable_eager_execution: tfx runs graphs only and has no eager "
                     "execution; build the graph and run it with tf.Session")


def enable_v2_behavior() -> None:
    """Not available: tfx has TensorFlow 1.x's graph-mode behavior only (ValueError)."""
    raise ValueError("tf.enable_v2_behavior: tfx has TensorFlow 1.x graph-mode behavior only "
                     "(no eager execution, v1 control flow)")


def enable_resource_variables() -> None:
    """Make variables created without `use_resource` resource variables from now on.

    Example:
        >>> enable_resource_variables()
        >>> resource_variables_enabled()
        True
    """
    with _lock:
        _state["resource_variables"] = True


def disable_resource_variables() -> None:
    """Make variables created without `use_resource` reference variables (the default)."""
    with _lock:
        _state["resource_variables"] = False


def resource_variables_enabled() -> bool:
    """Whether variables created without `use_resource` are resource variables."""
    return _state["resource_variables"]


def enable_control_flow_v2() -> None:
    """Not available: tfx's `cond` and `while_loop` build v1 control flow (ValueError)."""
    raise ValueError("tf.enable_control_flow_v2: tfx builds v1 control flow only (Switch, "
                     "Merge, Enter, Exit)")


def disable_control_flow_v2() -> None:
    """Nothing to do: tfx's control flow is v1."""


def control_flow_v2_enabled() -> bool:
    """False: `cond` and `while_loop` build v1 control flow."""
    return False


def enable_v2_tensorshape() -> None:
    """Nothing to do: tfx's TensorShape indexes to ints or None, as v2's does."""


def disable_v2_tensorshape() -> None:
    """Not available: tfx's TensorShape has no v1 `Dimension` objects (ValueError)."""
    raise ValueError("tf.disable_v2_tensorshape: tfx's TensorShape always indexes to ints or "
                     "None (v2 behavior) and has no Dimension objects; use "
                     "tf.dimension_value(shape[i]) in code written for both")


def enable_tensor_equality() -> None:
    """Record that tensor equality is on (TensorFlow applies it to eager tensors only)."""
    with _lock:
        _state["tensor_equality"] = True


def disable_tensor_equality() -> None:
    """Record that tensor equality is off (the default after `disable_v2_behavior`)."""
    with _lock:
        _state["tensor_equality"] = False


def tensor_equality_enabled() -> bool:
    """Whether `enable_tensor_equality` was called last (tfx's own query, not TF's name)."""
    return _state["tensor_equality"]


# --- assert_variables_initialized ---------------------------------------------------

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable")


def assert_variables_initialized(var_list: Sequence[Any] | None = None) -> Tensor | None:
    """An op that fails with FailedPreconditionError while a variable is uninitialized.

    Running it reads each variable; when all are initialized it yields their ranks
    (one int32 scalar for one variable, else a vector, as TensorFlow's).

    Args:
        var_list: the variables to check; default all global and local variables (or,
            when there are none, every `VariableV2` op of the default graph).

    Returns:
        The check, or None when there is nothing to check.

    Example:
        >>> check = assert_variables_initialized()
        >>> sess.run(check)      # FailedPreconditionError before initialization
    """
    # Imported here: state_api reads resource_variables_enabled() from this module.
    from tfx.core.api.state_api import global_variables, local_variables

    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [op.outputs[0] for op in get_default_graph().get_operations()
                        if op.type in _VARIABLE_OPS]
    var_list = list(var_list)
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        value = var.value() if hasattr(var, "value") else var
        # Constant folding replaces the Rank of a statically shaped value by a constant
        # and drops its data edge; the control edge through `anchor` keeps the read,
        # which is what fails for an uninitialized variable.
        with colocate_with(var.op):
            with control_dependencies([value.op]):
                anchor = no_op(name="read")
            with control_dependencies([anchor]):
                ranks.append(apply_op("Rank", input=value))
    return ranks[0] if len(ranks) == 1 else stack(ranks)

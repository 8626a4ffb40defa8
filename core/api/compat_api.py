"""TensorFlow 1.x's switches between graph and eager execution and between v1 and v2
behavior, answered for tfx, which always builds graphs with v1 semantics: ops are not run
when created (`executing_eagerly()` is False), `while_loop`/`cond` build v1 control flow
(Switch/Merge/Enter/Exit), and `Variable` makes reference variables unless asked for
`use_resource=True`.

The functions that switch to what tfx already does (`disable_eager_execution`,
`disable_v2_behavior`, ...) do nothing; the ones that would switch away from it are not
offered. `GRAPH_DEF_VERSION` is the GraphDef producer version tfx writes.
"""

from __future__ import annotations

from tfx.core.graph import Graph as _IrGraph

__all__ = [
    "GRAPH_DEF_VERSION",
    "control_flow_v2_enabled",
    "disable_control_flow_v2",
    "disable_eager_execution",
    "disable_resource_variables",
    "disable_v2_behavior",
    "executing_eagerly",
    "executing_eagerly_outside_functions",
    "resource_variables_enabled",
]

# The `versions.producer` of every GraphDef tfx builds (`tf.Graph().as_graph_def()`).
GRAPH_DEF_VERSION: int = _IrGraph().versions.producer


def executing_eagerly() -> bool:
    """False: tfx builds graphs and runs them in a Session, as TensorFlow 1.x graph mode."""
    return False


def executing_eagerly_outside_functions() -> bool:
    """False, as `executing_eagerly()`."""
    return False


def disable_eager_execution() -> None:
    """Nothing to do: tfx never executes eagerly."""


def disable_v2_behavior() -> None:
    """Nothing to do: tfx has TensorFlow 1.x's graph-mode behavior."""


def control_flow_v2_enabled() -> bool:
    """False: `cond` and `while_loop` build v1 control flow (Switch, Merge, Enter, Exit)."""
    return False


def disable_control_flow_v2() -> None:
    """Nothing to do: tfx's control flow is v1."""


def resource_variables_enabled() -> bool:
    """False: `Variable` makes a reference variable unless given `use_resource=True`."""
    return False


def disable_resource_variables() -> None:
    """Nothing to do: `Variable` makes reference variables by default."""

"""Graph optimization passes: a graph in, a graph out, the same results.

Each pass is one module with a function `(graph, ctx) -> (graph, changed)`
that edits the graph through the IR's methods (`tfx.core.passes.base` holds
the contract and the shared safety rules); `pipeline` runs them by level or
by name and reports what they did:

    from tfx.core.passes import optimize
    result = optimize(graph, outputs=["probs:0"], level="all")
    result.graph, result.report.after.nodes

Passes: pruning, identity_removal, constant_folding, arithmetic, cse,
weight_folding, fusion, dependency (see `PASSES` and each module's contract).
"""

from __future__ import annotations

from tfx.core.passes.base import Pass, PassContext
from tfx.core.passes.pipeline import (
    DEFAULT_MAX_CONSTANT_BYTES,
    LEVELS,
    PASSES,
    GraphStats,
    OptimizeReport,
    OptimizeResult,
    PassRecord,
    copy_graph,
    optimize,
    optimize_step,
    pass_names,
    resolve_passes,
)

__all__ = [
    "DEFAULT_MAX_CONSTANT_BYTES",
    "LEVELS",
    "PASSES",
    "GraphStats",
    "OptimizeReport",
    "OptimizeResult",
    "Pass",
    "PassContext",
    "PassRecord",
    "copy_graph",
    "optimize",
    "optimize_step",
    "pass_names",
    "resolve_passes",
]

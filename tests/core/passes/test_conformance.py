"""Every pass, alone and in every level, keeps TensorFlow's results on the conformance corpus.

Each case runs its manifest's steps in order in one session (so stateful
cases still behave step by step) on the optimized graph, and the fetched
values must match what TensorFlow fetched within the manifest's tolerance.
Fed, fetched and target nodes must keep their names.
"""

from __future__ import annotations

import pytest

from tfx.core.passes import optimize, pass_names
from tfx.core.passes.base import has_side_effects

CASES = [
    "math_elementwise", "array_manipulation", "reductions", "mlp_frozen", "lenet_frozen",
    "mobilenet_v2_frozen", "cond_v1", "while_v1", "variables_state", "embedding_sharded",
    "fifo_queue", "mlp_train_adagrad",
]
PLANS = [("level", "basic"), ("level", "all")] + [("passes", name) for name in pass_names()]


@pytest.mark.parametrize("plan", PLANS, ids=[value for _, value in PLANS])
@pytest.mark.parametrize("name", CASES)
def test_optimized_case_matches_tensorflow(kit, name, plan) -> None:
    graph, inputs, outputs = kit.case(name)
    kind, value = plan
    options = {"level": value} if kind == "level" else {"passes": [value]}
    effects = {n.name for n in graph if has_side_effects(n)}
    result = optimize(graph, inputs=inputs, outputs=outputs, validate_each=True, **options)
    optimized = result.graph
    for tensor in inputs + outputs:
        assert tensor.partition(":")[0] in optimized, f"{tensor} lost"
    assert effects <= {n.name for n in optimized}, "a stateful node was removed"
    kit.run_case(name, optimized)


def test_mobilenet_shrinks_to_the_target(kit) -> None:
    graph, inputs, outputs = kit.case("mobilenet_v2_frozen")
    result = optimize(graph, inputs=inputs, outputs=outputs, level="all")
    assert result.report.before.nodes == 1053 and result.report.after.nodes <= 250
    assert result.report.after.flops < result.report.before.flops

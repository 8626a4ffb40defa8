"""Property: for random small graphs, optimize(g) computes what g computes.

The graphs mix what the passes look for: duplicate nodes and constants (CSE),
neutral constants (arithmetic), identities with control inputs, constant
subtrees and shapes (folding), reshapes and transposes, MatMul/BiasAdd/
activation chains and per-channel scales (weight folding, fusion), dead nodes
(pruning), redundant control edges (dependency) and v1 conds whose untaken
branch must stay dead. Every tensor is float32 of
a shape with six elements. The exact passes must give the same bits, the
others the same values up to rounding.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfx.core.passes import optimize, pass_names

SHAPES = [(2, 3), (3, 2), (6,), (1, 6)]
UNARY = ["Neg", "Relu", "Abs", "Tanh", "Identity", "StopGradient"]
BINARY = ["AddV2", "Sub", "Mul", "Maximum"]
CONST_VALUES = [0.0, 1.0, -1.0, 0.5, 2.0]
FEEDS = {
    "x:0": np.linspace(-1.5, 1.5, 6, dtype=np.float32).reshape(2, 3),
    "y:0": np.array([[0.25, -2.0, 1.0], [3.0, -0.5, 0.0]], np.float32),
    "pred:0": np.array(False),
}


@st.composite
def graphs(draw, builder_type):
    """(builder, fetched tensor names) for a random graph over placeholders x and y."""
    b = builder_type()
    b.placeholder("x", shape=(2, 3))
    b.placeholder("y", shape=(2, 3))
    b.placeholder("pred", dtype="bool", shape=())
    pool: list[tuple[str, tuple]] = [("x", (2, 3)), ("y", (2, 3))]
    nodes: list[str] = []
    count = draw(st.integers(3, 14))
    for i in range(count):
        name = f"n{i}"
        kind = draw(st.sampled_from(
            ["unary", "binary", "const_binary", "reshape", "transpose", "linear", "repeat",
             "const_tree", "shape_reshape", "cond"]))
        src, shape = pool[draw(st.integers(0, len(pool) - 1))]
        controls = [draw(st.sampled_from(nodes))] if nodes and draw(st.booleans()) else []
        if kind == "unary":
            b.op(draw(st.sampled_from(UNARY)), name, [src], controls=controls)
        elif kind == "binary":
            same = [n for n, s in pool if s == shape]
            other = draw(st.sampled_from(same))
            b.op(draw(st.sampled_from(BINARY)), name, [src, other], controls=controls)
        elif kind == "const_binary":
            value = draw(st.sampled_from(CONST_VALUES))
            cshape = draw(st.sampled_from([(), shape[-1:], shape]))
            const = b.const(f"{name}/c", np.full(cshape, value, np.float32))
            operands = [src, const] if draw(st.booleans()) else [const, src]
            b.op(draw(st.sampled_from(BINARY)), name, operands, controls=controls)
        elif kind == "reshape":
            shape = draw(st.sampled_from(SHAPES))
            b.op("Reshape", name, [src, b.const(f"{name}/shape", shape, "int32")], Tshape="int32")
        elif kind == "transpose":
            if len(shape) != 2:
                b.op("Neg", name, [src])
            else:
                b.op("Transpose", name, [src, b.const(f"{name}/perm", [1, 0], "int32")],
                     Tperm="int32")
                shape = shape[::-1]
        elif kind == "linear":
            if len(shape) != 2:
                b.op("Relu", name, [src])
            else:
                inner = cols = shape[1]  # a square weight keeps six elements
                w = np.linspace(-1, 1, inner * cols, dtype=np.float32).reshape(inner, cols)
                if draw(st.booleans()):  # a per-column scale before the MatMul
                    src = b.op("Mul", f"{name}/pre", [src, b.const(f"{name}/s", np.linspace(
                        0.5, 1.5, inner, dtype=np.float32))])
                out = b.op("MatMul", f"{name}/mm", [src, b.const(f"{name}/w", w)])
                if draw(st.booleans()):
                    out = b.op("BiasAdd", f"{name}/bias", [out, b.const(
                        f"{name}/b", np.arange(cols, dtype=np.float32) / 4)])
                if draw(st.booleans()):
                    out = b.op("Mul", f"{name}/scale", [out, b.const(f"{name}/k", 1.5)])
                b.op(draw(st.sampled_from(["Relu", "Relu6", "Elu", "Identity"])), name, [out])
        elif kind == "repeat" and nodes:
            original = b.graph_def.node[-1]
            copy = b.graph_def.node.add()
            copy.CopyFrom(original)
            copy.name = name
            shape = next((s for n, s in pool if n == original.name), None)
            if shape is None:  # a constant or helper node: give it a reader in the pool
                b.graph_def.node.pop()
                b.op("Identity", name, [src])
                shape = dict(pool)[src]
        elif kind == "const_tree":
            c1 = b.const(f"{name}/a", np.full(shape, draw(st.sampled_from(CONST_VALUES)),
                                              np.float32))
            c2 = b.op("Neg", f"{name}/neg", [c1])
            b.op("AddV2", name, [src, c2])
        elif kind == "cond":  # a v1 cond on `pred`; the true branch may read x from outside
            switch = b.op("Switch", f"{name}/switch", [src, "pred"])
            pivot_t = b.op("Identity", f"{name}/pivot_t", [f"{switch}:1"])
            pivot_f = b.op("Identity", f"{name}/pivot_f", [f"{switch}:0"])
            const = b.const(f"{name}/c", draw(st.sampled_from(CONST_VALUES)),
                            controls=[pivot_t])
            operand = pivot_t if draw(st.booleans()) else src
            taken = b.op(draw(st.sampled_from(BINARY)), f"{name}/t", [operand, const])
            other = b.op(draw(st.sampled_from(UNARY)), f"{name}/f", [pivot_f])
            branches = [taken, other] if draw(st.booleans()) else [other, taken]
            b.op("Merge", f"{name}/merge", branches, N=2)
            b.op("Identity", name, [f"{name}/merge"])
        else:  # Reshape(x, Shape(y)) where y has the shape wanted: shape folding
            target, tshape = pool[draw(st.integers(0, len(pool) - 1))]
            shape_of = b.op("Shape", f"{name}/shape", [target], out_type="int32")
            b.op("Reshape", name, [src, shape_of], Tshape="int32")
            shape = tshape
        pool.append((name, shape))
        nodes.append(name)
    fetched = sorted({nodes[-1], *draw(st.lists(st.sampled_from(nodes), max_size=3))})
    return b, [f"{n}:0" for n in fetched]


def _check(kit, builder, fetches, **options) -> None:
    graph = builder.graph()
    want = kit.run(graph, fetches, FEEDS)
    result = optimize(graph, inputs=["x", "y", "pred"], outputs=fetches, validate_each=True,
                      **options)
    got = kit.run(result.graph, fetches, FEEDS)
    exact = options.get("level") == "basic"
    kit.assert_same(want, got, exact=exact)


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@_settings(60)
@given(data=st.data())
def test_basic_level_keeps_every_bit(builder, kit, data) -> None:
    b, fetches = data.draw(graphs(type(builder)))
    _check(kit, b, fetches, level="basic")


@_settings(60)
@given(data=st.data())
def test_all_level_keeps_the_values(builder, kit, data) -> None:
    b, fetches = data.draw(graphs(type(builder)))
    _check(kit, b, fetches, level="all")


@_settings(60)
@given(data=st.data(), order=st.permutations(pass_names()))
def test_any_pass_order_keeps_the_values(builder, kit, data, order) -> None:
    b, fetches = data.draw(graphs(type(builder)))
    _check(kit, b, fetches, passes=list(order) * 2)

"""`_UnaryOpsComposition`, grappler's fusion of a chain of unary ops: the same values as
the chain of separate ops, NaN included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError
from tfx.core.ops.fused_ops import UNARY_COMPOSABLE
from tfx.protos import graph_pb2

X = np.array([-3.5, -1.0, -0.25, 0.0, 0.5, 0.99, 2.0, 7.0], np.float64)


def _run(dtype: str, op_names: list[str], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the fused node's value, the separate ops' value)."""
    graph_def = graph_pb2.GraphDef()
    graph_def.node.append(make_node_def("Placeholder", "x", [], {"dtype": dtype}))
    graph_def.node.append(make_node_def("_UnaryOpsComposition", "fused", ["x"],
                                        {"T": dtype, "op_names": op_names}))
    previous = "x"
    for i, op in enumerate(op_names):
        graph_def.node.append(make_node_def(op, f"op_{i}", [previous], {"T": dtype}))
        previous = f"op_{i}"
    with tfx.Session(graph_def) as sess, np.errstate(all="ignore"):
        return tuple(sess.run(["fused:0", f"{previous}:0"], {"x:0": x}))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(UNARY_COMPOSABLE), min_size=1, max_size=4),
       st.sampled_from(["float32", "float64", "float16"]))
def test_the_composition_is_the_chain(op_names: list[str], dtype: str) -> None:
    fused, chain = _run(dtype, op_names, X.astype(dtype))
    assert fused.dtype == chain.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(fused, chain)


def test_a_known_chain() -> None:
    fused, _ = _run("float64", ["Neg", "Exp", "Log1p", "Relu6"], X)
    np.testing.assert_allclose(fused, np.minimum(np.log1p(np.exp(-X)), 6.0), rtol=1e-15)


def test_an_op_it_does_not_compose_is_refused() -> None:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.append(make_node_def("Placeholder", "x", [], {"dtype": "float32"}))
    graph_def.node.append(make_node_def("_UnaryOpsComposition", "fused", ["x"],
                                        {"T": "float32", "op_names": ["Neg", "MatMul"]}))
    with tfx.Session(graph_def) as sess, \
            pytest.raises(InvalidArgumentError, match="no implementation of 'MatMul'"):
        sess.run("fused:0", {"x:0": X.astype(np.float32)})

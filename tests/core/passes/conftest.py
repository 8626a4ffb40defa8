"""Helpers for the pass tests: a small graph builder, running graphs, conformance cases."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfx.core.eager import make_node_def
from tfx.core.graph import Graph, parse_tensor_name
from tfx.core.graph_io import load_graph
from tfx.core.kernel_registry import has_kernel
from tfx.core.op_registry import get_op
from tfx.core.passes import PassContext
from tfx.core.session import Session
from tfx.protos import graph_pb2

CONFORMANCE = Path(__file__).resolve().parents[2] / "data" / "conformance"
CASES = [
    "math_elementwise", "array_manipulation", "reductions", "mlp_frozen", "lenet_frozen",
    "mobilenet_v2_frozen", "cond_v1", "while_v1", "variables_state", "embedding_sharded",
    "fifo_queue", "mlp_train_adagrad",
]


class Builder:
    """Builds a GraphDef node by node; `T` defaults to float32 where the op has it."""

    def __init__(self) -> None:
        self.graph_def = graph_pb2.GraphDef()
        self.graph_def.versions.producer = 1994

    def op(self, op: str, name: str, inputs: Sequence[str] = (), controls: Iterable[str] = (),
           device: str = "", **attrs: Any) -> str:
        if "T" in get_op(op).attrs:
            attrs.setdefault("T", "float32")
        node = make_node_def(op, name, list(inputs) + [f"^{c}" for c in controls], attrs)
        node.device = device
        self.graph_def.node.append(node)
        return name

    def const(self, name: str, value: Any, dtype: str | None = None,
              controls: Iterable[str] = ()) -> str:
        array = np.asarray(value, dtype=dtype or np.float32)
        return self.op("Const", name, controls=controls, dtype=str(array.dtype),
                       value=array)

    def placeholder(self, name: str, dtype: str = "float32", shape: Any = None) -> str:
        attrs: dict[str, Any] = {"dtype": dtype}
        if shape is not None:
            attrs["shape"] = tuple(shape)
        return self.op("Placeholder", name, **attrs)

    def graph(self) -> Graph:
        graph = Graph.from_graph_def(self.graph_def)
        graph.validate()
        return graph


@pytest.fixture
def builder() -> Builder:
    return Builder()


def context(inputs: Iterable[str] = (), outputs: Iterable[str] = (), **kwargs: Any) -> PassContext:
    """A PassContext from node or tensor names."""
    def nodes(names: Iterable[str]) -> frozenset[str]:
        return frozenset(parse_tensor_name(n)[0] for n in names)

    return PassContext(nodes(inputs), nodes(outputs), **kwargs)


def run(graph: Graph | graph_pb2.GraphDef, fetches: Sequence[str],
        feeds: dict[str, Any] | None = None) -> list[np.ndarray]:
    """Fetch tensors from a fresh session on a copy of the graph, run as it is."""
    graph_def = graph.to_graph_def() if isinstance(graph, Graph) else graph
    with Session(graph_def, optimize="none") as sess:
        return [np.asarray(v) for v in sess.run(list(fetches), feeds or {})]


def assert_same(before: list[np.ndarray], after: list[np.ndarray], exact: bool = True) -> None:
    for want, got in zip(before, after):
        assert got.dtype == want.dtype and got.shape == want.shape
        if exact or want.dtype.kind not in "fc":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def ops_of(graph: Graph) -> list[str]:
    return sorted(n.op for n in graph)


def skip_without_kernels(graph: Graph) -> None:
    missing = sorted({n.op for n in graph if not has_kernel(n.op, "CPU")})
    if missing:
        pytest.skip(f"no CPU kernel yet for {', '.join(missing)}")


def case(name: str) -> tuple[Graph, list[str], list[str]]:
    """A conformance case's graph, fed tensors and fetched tensors plus targets."""
    manifest = json.loads((CONFORMANCE / f"{name}.json").read_text())
    steps = manifest["steps"]
    inputs = sorted({t for s in steps for t in s.get("feeds", {})})
    outputs = sorted({t for s in steps for t in s.get("fetches", []) + s.get("targets", [])})
    return Graph.from_graph_def(load_graph(CONFORMANCE / f"{name}.pb")), inputs, outputs


def run_case(name: str, graph: Graph) -> None:
    """Run a conformance case's steps on `graph`; compare with TensorFlow's values."""
    manifest = json.loads((CONFORMANCE / f"{name}.json").read_text())
    inputs_path = CONFORMANCE / f"{name}.inputs.npz"
    inputs = np.load(inputs_path) if inputs_path.exists() else {}
    expected = np.load(CONFORMANCE / f"{name}.expected.npz")
    rtol, atol = manifest["rtol"], manifest["atol"]
    with Session(graph.to_graph_def(), optimize="none") as sess:
        for i, step in enumerate(manifest["steps"]):
            feeds = {tensor: inputs[key] for tensor, key in step.get("feeds", {}).items()}
            fetches = list(step.get("fetches", []))
            values = sess.run(fetches + list(step.get("targets", [])), feeds)
            for tensor, got in zip(fetches, values):
                want = expected[f"step{i}/{tensor}"]
                got = np.asarray(got)
                assert got.shape == want.shape, f"step {i} {tensor}: shape"
                assert got.dtype.kind == want.dtype.kind, f"step {i} {tensor}: dtype"
                if want.dtype.kind in "fc":
                    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                               err_msg=f"step {i} {tensor}")
                else:
                    np.testing.assert_array_equal(got, want, err_msg=f"step {i} {tensor}")


class Kit:
    """The helpers above, handed to tests as the `kit` fixture."""

    context = staticmethod(context)
    run = staticmethod(run)
    assert_same = staticmethod(assert_same)
    ops_of = staticmethod(ops_of)
    skip_without_kernels = staticmethod(skip_without_kernels)
    case = staticmethod(case)
    run_case = staticmethod(run_case)
    cases = CASES


@pytest.fixture
def kit() -> type[Kit]:
    return Kit

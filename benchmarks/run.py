"""tfx against TensorFlow, side by side, in one process.

    python benchmarks/run.py [--repeat N] [--only NAME ...] [--json]

Each benchmark runs the same graph with the same feeds in tfx and, when
`tensorflow` is importable (the optional extra `tfx-dataflow[tensorflow]`), in
TensorFlow's `tf.compat.v1.Session`, after warm-up runs, and reports the median
step time of each and the ratio tfx/TF. Targets (from the issues) are printed
beside the ratio; they are goals to read, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "tests" / "data" / "conformance"


def _null_graph_def() -> bytes:
    """y = x + 1 with x a fed float scalar, as a serialized GraphDef."""
    from tfx.core.eager import make_node_def
    from tfx.protos import graph_pb2

    graph = graph_pb2.GraphDef()
    graph.versions.producer = 1994
    graph.node.append(make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": ()}))
    graph.node.append(
        make_node_def("Const", "one", [], {"dtype": "float32", "value": np.float32(1.0)})
    )
    graph.node.append(make_node_def("AddV2", "y", ["x", "one"], {"T": "float32"}))
    return graph.SerializeToString()


def _loop_graph_def() -> bytes:
    """A while loop whose body only counts: i = 0; while i < n: i += 1 (TF1 frame ops)."""
    from tfx.core.eager import make_node_def
    from tfx.protos import graph_pb2

    def node(op: str, name: str, inputs=(), **attrs) -> None:
        graph.node.append(make_node_def(op, name, list(inputs), attrs))

    graph = graph_pb2.GraphDef()
    graph.versions.producer = 1994
    node("Placeholder", "n", dtype="int32", shape=())
    node("Const", "zero", dtype="int32", value=np.int32(0))
    node("Enter", "i_enter", ["zero"], T="int32", frame_name="loop")
    node("Enter", "n_enter", ["n"], T="int32", frame_name="loop", is_constant=True)
    node("Merge", "i_merge", ["i_enter", "i_next"], T="int32", N=2)
    node("Less", "less", ["i_merge", "n_enter"], T="int32")
    node("LoopCond", "cond", ["less"])
    node("Switch", "i_switch", ["i_merge", "cond"], T="int32")
    node("Identity", "i_body", ["i_switch:1"], T="int32")
    node("Const", "one", ["^i_body"], dtype="int32", value=np.int32(1))
    node("AddV2", "i_add", ["i_body", "one"], T="int32")
    node("NextIteration", "i_next", ["i_add"], T="int32")
    node("Exit", "i_exit", ["i_switch"], T="int32")
    return graph.SerializeToString()


def _case(name: str, step_index: int = 0) -> tuple[bytes, dict, list[str], list[str]]:
    """A conformance case's graph and one of its steps; earlier target-only steps are setup."""
    manifest = json.loads((CONFORMANCE / f"{name}.json").read_text())
    inputs = np.load(CONFORMANCE / f"{name}.inputs.npz")
    step = manifest["steps"][step_index]
    feeds = {tensor: inputs[key] for tensor, key in step.get("feeds", {}).items()}
    setup = [t for s in manifest["steps"][:step_index] for t in s.get("targets", [])]
    fetches = list(step.get("fetches", [])) + list(step.get("targets", []))
    return (CONFORMANCE / f"{name}.pb").read_bytes(), feeds, fetches, setup


BENCHMARKS: dict[str, tuple[Callable, float]] = {
    # name: (graph, feeds, fetches) factory, target ratio tfx/TF (lower is better)
    "null_step": (lambda: (_null_graph_def(), {"x:0": np.float32(2.0)}, ["y:0"], []), 1 / 3),
    "mlp_frozen": (lambda: _case("mlp_frozen"), 1.5),
    "lenet_frozen": (lambda: _case("lenet_frozen"), 2.0),
    "mobilenet_v2_frozen": (lambda: _case("mobilenet_v2_frozen"), 2.0),
    "mlp_train_adagrad": (lambda: _case("mlp_train_adagrad", 1), 1.5),
    "while_1000": (lambda: (_loop_graph_def(), {"n:0": np.int32(1000)}, ["i_exit:0"], []), 2.0),
}


def _time(step: Callable[[], object], repeat: int, budget: float) -> float:
    for _ in range(3):
        step()
    times = []
    start = time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return statistics.median(times)


def _tfx_runner(graph: bytes, feeds: dict, fetches: list[str], setup: list[str],
                optimize: str) -> Callable[[], object]:
    from tfx.core.session import Session

    sess = Session(graph, optimize=optimize)
    for target in setup:
        sess.run(target)
    return lambda: sess.run(fetches, feeds)


def _tf_runner(graph: bytes, feeds: dict, fetches: list[str],
               setup: list[str]) -> Callable[[], object] | None:
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    except ImportError:
        return None
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(graph)
    tf_graph = tf.Graph()
    with tf_graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    sess = tf.compat.v1.Session(graph=tf_graph)
    for target in setup:
        sess.run(target)
    return lambda: sess.run(fetches, feeds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per measurement")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--optimize", default="none", choices=["none", "basic", "all"],
                        help="tfx's per-step graph optimization (the targets are set for none, "
                             "TensorFlow's graph as it is; TF runs its own grappler either way)")
    args = parser.parse_args(argv)
    rows = []
    for name, (factory, target) in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        graph, feeds, fetches, setup = factory()
        tfx_time = _time(_tfx_runner(graph, feeds, fetches, setup, args.optimize), args.repeat,
                         args.budget)
        tf_run = _tf_runner(graph, feeds, fetches, setup)
        tf_time = _time(tf_run, args.repeat, args.budget) if tf_run else None
        ratio = tfx_time / tf_time if tf_time else None
        rows.append({"benchmark": name, "tfx_ms": tfx_time * 1e3,
                     "tf_ms": tf_time * 1e3 if tf_time else None,
                     "ratio": ratio, "target_ratio": target,
                     "met": None if ratio is None else ratio <= target})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'benchmark':<22}{'tfx ms':>10}{'TF ms':>10}{'tfx/TF':>9}{'target':>9}  met")
    for row in rows:
        tf_ms = f"{row['tf_ms']:.3f}" if row["tf_ms"] is not None else "-"
        ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "-"
        met = "-" if row["met"] is None else ("yes" if row["met"] else "NO")
        print(f"{row['benchmark']:<22}{row['tfx_ms']:>10.3f}{tf_ms:>10}{ratio:>9}"
              f"{row['target_ratio']:>9.2f}  {met}")
    if not any(row["tf_ms"] for row in rows):
        print("(TensorFlow not installed: pip install '.[tensorflow]' for the comparison)",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

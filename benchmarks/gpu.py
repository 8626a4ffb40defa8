"""tfx on a GPU against tfx on the CPU (and TensorFlow when importable), side by side.

    python benchmarks/gpu.py [--repeat N] [--only NAME ...] [--json]

Needs CuPy and a CUDA GPU (`pip install 'tfx-dataflow[gpu]'`); without them it
says so and exits 2. Each benchmark runs one graph with the same feeds in a
plain `tfx.Session` (the CPU) and in a `MultiDeviceSession` over
`cpu:0,gpu:0` with every node asking for the GPU (soft placement keeps on the
CPU what has no GPU kernel, and int32 shapes stay in host memory, as in
TensorFlow), checks that both give the same values, and reports the median step
time of each, the GPU's speed-up and how many nodes ran on the GPU. A step's
time includes copying its feeds to the GPU and its fetches back.

When `tensorflow` imports, its `tf.compat.v1.Session` runs the same graph too
(on its GPU if it has one). There are no targets here: the figures are for
reading (the issue asks for GPU execution to work and be measured, not for a
ratio).

On an H100 (CuPy 14.2, 2026-11-24; no TensorFlow there), medians in ms:

    benchmark               nodes  on GPU    CPU ms    GPU ms  speed-up  max |diff|
    mlp_frozen                 15      15     0.104     0.484     0.22x    2.24e-07
    lenet_frozen               18      18     0.638     1.130     0.56x    4.47e-08
    mobilenet_v2_frozen      1053    1053     6.998    11.828     0.59x    0.00e+00
    mlp_train_adagrad         131     131     0.742     2.079     0.36x    0.00e+00
    matmul_2048_x4             14      14    73.854     4.881    15.13x    3.01e-06
    conv_3x3_batch16           12      12    29.328     2.824    10.39x    0.00e+00

The corpus models are a handful of examples: each GPU kernel is a CuPy launch
driven from Python (a profile of mobilenet's step shows no kernel over 10% of
it), so the host's per-op work decides, and the CPU wins; large matrix products
and convolutions are 10-15x faster on the GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import _case, _tf_runner, _time  # noqa: E402  (run.py's cases and timing)

GPU = "/device:GPU:0"


def _matmul_chain(size: int, depth: int) -> tuple[bytes, dict, list[str], list[str]]:
    """x @ w1 @ w2 ... with tanh between: `depth` float32 size x size matrix products."""
    import tfx as tf

    graph = tf.Graph()
    rng = np.random.default_rng(0)
    with graph.as_default():
        x = tf.placeholder(tf.float32, [size, size], name="x")
        h = x
        for i in range(depth):
            w = tf.constant((rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32),
                            name=f"w{i}")
            h = tf.tanh(tf.matmul(h, w))
        tf.identity(h, name="y")
    feeds = {"x:0": rng.standard_normal((size, size)).astype(np.float32)}
    return graph.as_graph_def().SerializeToString(), feeds, ["y:0"], []


def _conv_stack(batch: int) -> tuple[bytes, dict, list[str], list[str]]:
    """Three 3x3 convolutions with ReLU and a pool over a batch of 64x64x32 images."""
    import tfx as tf

    graph = tf.Graph()
    rng = np.random.default_rng(1)
    with graph.as_default():
        x = tf.placeholder(tf.float32, [batch, 64, 64, 32], name="x")
        h = x
        for i in range(3):
            w = tf.constant((rng.standard_normal((3, 3, 32, 32)) * 0.05).astype(np.float32),
                            name=f"k{i}")
            h = tf.nn.relu(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"))
        tf.identity(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), name="y")
    feeds = {"x:0": rng.standard_normal((batch, 64, 64, 32)).astype(np.float32)}
    return graph.as_graph_def().SerializeToString(), feeds, ["y:0"], []


BENCHMARKS: dict[str, Callable[[], tuple[bytes, dict, list[str], list[str]]]] = {
    "mlp_frozen": lambda: _case("mlp_frozen"),
    "lenet_frozen": lambda: _case("lenet_frozen"),
    "mobilenet_v2_frozen": lambda: _case("mobilenet_v2_frozen"),
    "mlp_train_adagrad": lambda: _case("mlp_train_adagrad", 1),
    "matmul_2048_x4": lambda: _matmul_chain(2048, 4),
    "conv_3x3_batch16": lambda: _conv_stack(16),
}


def _gpu_graph(graph: bytes) -> bytes:
    from tfx.protos import graph_pb2

    graph_def = graph_pb2.GraphDef.FromString(graph)
    for node in graph_def.node:
        node.device = GPU
    return graph_def.SerializeToString()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from tfx.core.devices import gpu_count
    from tfx.core.multi_device import MultiDeviceSession
    from tfx.core.session import Session

    if gpu_count() < 1:
        print("no CUDA GPU (this needs CuPy and a GPU: pip install 'tfx-dataflow[gpu]')",
              file=sys.stderr)
        return 2
    rows = []
    for name, factory in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        graph, feeds, fetches, setup = factory()
        cpu_sess = Session(graph, optimize="none")
        gpu_sess = MultiDeviceSession(_gpu_graph(graph), devices="cpu:0,gpu:0",
                                      soft_placement=True)
        for sess in (cpu_sess, gpu_sess):
            for target in setup:
                sess.run(target)
        want = cpu_sess.run(fetches, feeds)
        got = gpu_sess.run(fetches, feeds)
        max_err = max((float(np.max(np.abs(np.asarray(w, np.float64) - np.asarray(g))))
                       if np.size(w) else 0.0) for w, g in zip(want, got) if w is not None)
        on_gpu = sum(1 for device in gpu_sess.placement.assignment.values()
                     if device.endswith("GPU:0"))
        cpu_time = _time(lambda s=cpu_sess, f=fetches, d=feeds: s.run(f, d), args.repeat,
                         args.budget)
        gpu_time = _time(lambda s=gpu_sess, f=fetches, d=feeds: s.run(f, d), args.repeat,
                         args.budget)
        tf_run = _tf_runner(graph, feeds, fetches, setup)
        tf_time = _time(tf_run, args.repeat, args.budget) if tf_run else None
        rows.append({"benchmark": name, "nodes": len(gpu_sess.graph), "on_gpu": on_gpu,
                     "cpu_ms": cpu_time * 1e3, "gpu_ms": gpu_time * 1e3,
                     "speedup": cpu_time / gpu_time, "max_abs_diff": max_err,
                     "tf_ms": tf_time * 1e3 if tf_time else None})
        cpu_sess.close()
        gpu_sess.close()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'benchmark':<22}{'nodes':>7}{'on GPU':>8}{'CPU ms':>10}{'GPU ms':>10}"
          f"{'speed-up':>10}{'max |diff|':>12}{'TF ms':>10}")
    for row in rows:
        tf_ms = f"{row['tf_ms']:.3f}" if row["tf_ms"] is not None else "-"
        print(f"{row['benchmark']:<22}{row['nodes']:>7}{row['on_gpu']:>8}{row['cpu_ms']:>10.3f}"
              f"{row['gpu_ms']:>10.3f}{row['speedup']:>9.2f}x{row['max_abs_diff']:>12.2e}"
              f"{tf_ms:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

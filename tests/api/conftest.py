"""Fixtures for the API tests: a fresh default graph per test, and TensorFlow in a child process.

TensorFlow is never imported into pytest's process: `tensorflow_run` writes the
GraphDef to a file and runs it with TensorFlow in a subprocess.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tfx as tf

HAS_TENSORFLOW = importlib.util.find_spec("tensorflow") is not None

_SCRIPT = """
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
spec = json.loads(sys.stdin.read())
gd = tf.GraphDef()
gd.ParseFromString(open(spec["graph"], "rb").read())
with tf.Graph().as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as s:
        feeds = {k: np.array(v, dtype=spec["feed_dtypes"][k]) for k, v in spec["feeds"].items()}
        for t in spec["targets"]:
            s.run(t, feeds)
        out = s.run(spec["fetches"], feeds)
print("RESULT" + json.dumps([np.asarray(o).tolist() for o in out]))
"""


def run_in_tensorflow(graph_def: Any, fetches: list[str], feeds: dict[str, Any] | None = None,
                      targets: list[str] | None = None, tmp_path: Path | None = None) -> list:
    """Load `graph_def` in TensorFlow, run `targets`, then fetch `fetches` (as ndarrays)."""
    path = Path(tmp_path or ".") / "graph_for_tensorflow.pb"
    path.write_bytes(graph_def.SerializeToString())
    feeds = {k: np.asarray(v) for k, v in (feeds or {}).items()}
    spec = {
        "graph": str(path), "fetches": fetches, "targets": targets or [],
        "feeds": {k: v.tolist() for k, v in feeds.items()},
        "feed_dtypes": {k: str(v.dtype) for k, v in feeds.items()},
    }
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], input=json.dumps(spec),
                          capture_output=True, text=True, timeout=300,
                          env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    if proc.returncode != 0:
        raise AssertionError(f"TensorFlow failed:\n{proc.stderr[-3000:]}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT"))
    return [np.asarray(v) for v in json.loads(line[len("RESULT"):])]


@pytest.fixture(autouse=True)
def graph() -> Iterator[tf.Graph]:
    g = tf.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def tensorflow_run(tmp_path: Path) -> Callable[..., list]:
    if not HAS_TENSORFLOW:
        pytest.skip("tensorflow is not installed")

    def run(graph_def: Any, fetches: list[str], feeds: dict[str, Any] | None = None,
            targets: list[str] | None = None) -> list:
        return run_in_tensorflow(graph_def, fetches, feeds, targets, tmp_path)

    return run

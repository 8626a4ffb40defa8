"""Run the graphs TensorFlow wrote and compare with the values TensorFlow fetched.

Each case in tests/data/conformance runs its steps in order in one session;
fetched values must match with the manifest's rtol/atol, with the same dtype
kind and shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx

DATA = Path(__file__).resolve().parent.parent / "data" / "conformance"

CASES = [
    "math_elementwise",
    "array_manipulation",
    "reductions",
    "mlp_frozen",
    "lenet_frozen",
    "mobilenet_v2_frozen",
    "cond_v1",
    "while_v1",
    "variables_state",
    "embedding_sharded",
    "fifo_queue",
    "mlp_train_adagrad",
]


def run_case(name: str) -> None:
    manifest = json.loads((DATA / f"{name}.json").read_text())
    inputs_path = DATA / f"{name}.inputs.npz"
    inputs = np.load(inputs_path) if inputs_path.exists() else {}
    expected = np.load(DATA / f"{name}.expected.npz")
    rtol, atol = manifest["rtol"], manifest["atol"]
    with tfx.Session(str(DATA / f"{name}.pb")) as sess:
        for i, step in enumerate(manifest["steps"]):
            feeds = {tensor: inputs[key] for tensor, key in step.get("feeds", {}).items()}
            fetches = list(step.get("fetches", []))
            values = sess.run(fetches + list(step.get("targets", [])), feeds)
            for tensor, got in zip(fetches, values):
                want = expected[f"step{i}/{tensor}"]
                got = np.asarray(got)
                assert got.shape == want.shape, f"step {i} {tensor}: shape"
                assert got.dtype.kind == want.dtype.kind, f"step {i} {tensor}: dtype {got.dtype}"
                if want.dtype.kind in "fc":
                    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                               err_msg=f"step {i} {tensor}")
                else:
                    np.testing.assert_array_equal(got, want, err_msg=f"step {i} {tensor}")


@pytest.mark.parametrize("name", CASES)
def test_case_matches_tensorflow(name: str) -> None:
    run_case(name)

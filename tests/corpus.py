"""The TensorFlow conformance corpus (tests/data/conformance), for tests that replay its steps.

Each case is `NAME.pb` with `NAME.json` (its steps: feeds, fetches, targets) and
optionally `NAME.inputs.npz`; see the folder's README.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "conformance"
# The cases with steps to replay, by name.
STEP_CASES = sorted(p.stem for p in DATA.glob("*.json") if "steps" in json.loads(p.read_text()))


def manifest(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def run_steps(sess: Any, name: str) -> list[list[Any]]:
    """Run case `name`'s steps in order in `sess`; per step, the fetched values as returned."""
    inputs_path = DATA / f"{name}.inputs.npz"
    inputs = np.load(inputs_path) if inputs_path.exists() else {}
    out = []
    for step in manifest(name)["steps"]:
        feeds = {tensor: inputs[key] for tensor, key in step.get("feeds", {}).items()}
        fetches = list(step.get("fetches", []))
        values = sess.run(fetches + list(step.get("targets", [])), feeds)
        out.append(values[:len(fetches)])
    return out

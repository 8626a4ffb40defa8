"""Writes op_defs.json: TensorFlow 2.21's OpDefs of the ops its master writes into the
graph pieces it registers with workers, which no client builds: `_SwitchN` (a lowered
Case) and `_UnaryOpsComposition` (grappler's fusion of unary chains), in the plain form
tests/core/ops/test_recorded_op_defs.py compares tfx's schemas with.

Run by hand with TensorFlow installed (pytest never collects it):

    python tests/data/master_rewritten_ops/generate.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

OPS = ["_SwitchN", "_UnaryOpsComposition"]


def main() -> None:
    # The shared recorder (tests/data/op_def_record.py), loaded by path.
    spec = importlib.util.spec_from_file_location(
        "op_def_record", Path(__file__).resolve().parents[1] / "op_def_record.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    recorder.write_op_defs(OPS, Path(__file__).resolve().parent / "op_defs.json")


if __name__ == "__main__":
    main()

"""Write expected.json: scenario.py's results under absl.flags (TensorFlow 2.21's tf.flags).

Run with `COLUMNS=80 python tests/data/flags_absl/generate.py` where absl-py is installed
(TensorFlow 2.21 installs 2.5.1); the sibling modules load by path, under the names the
test gives them, so the help texts name the same modules.
"""

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    from absl import flags

    scenario = load("flags_absl_scenario", "scenario.py")
    helper = load("flags_absl_helper", "helper_flags.py")
    results = scenario.everything(flags, helper)
    (HERE / "expected.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

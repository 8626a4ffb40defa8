"""Write shards.json: scenario.py run with TensorFlow 2.21's MaxShardSizePolicy,
ShardByTaskPolicy and ShardableTensor (graph mode, values read in a session).

Run with TensorFlow 2.21 installed: `python tests/data/train_experimental/generate.py`.
"""

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    import tensorflow.compat.v1 as tf
    from tensorflow.python.checkpoint.sharding import sharding_policies, sharding_util
    from tensorflow.python.framework import device as device_lib

    tf.disable_eager_execution()
    spec = importlib.util.spec_from_file_location("sharding_scenario", HERE / "scenario.py")
    scenario = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scenario)
    out = scenario.run(tf, sharding_util.ShardableTensor, sharding_policies.MaxShardSizePolicy,
                       sharding_policies.ShardByTaskPolicy, device_lib.DeviceSpec.from_string)
    (HERE / "shards.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

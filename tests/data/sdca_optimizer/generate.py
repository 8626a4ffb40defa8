"""Write expected.json: TensorFlow 2.21's tf.raw_ops.SdcaOptimizer on cases.py's calls
(each output as nested lists) and the errors it raises ([type, message]).

Run with TensorFlow 2.21 installed: `python tests/data/sdca_optimizer/generate.py`.
"""

import importlib.util
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    import tensorflow as tf

    spec = importlib.util.spec_from_file_location("sdca_cases", HERE / "cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    out = {"values": {}, "errors": {}}
    for name, kwargs in cases.CASES.items():
        result = tf.raw_ops.SdcaOptimizer(**kwargs)
        out["values"][name] = [np.asarray(result.out_example_state_data).tolist(),
                               [np.asarray(t).tolist() for t in result.out_delta_sparse_weights],
                               [np.asarray(t).tolist() for t in result.out_delta_dense_weights]]
    for name, kwargs in cases.ERRORS.items():
        try:
            tf.raw_ops.SdcaOptimizer(**kwargs)
        except tf.errors.OpError as exc:
            # the kernel's own message, without eager mode's function and op wrapping
            message = exc.message.split("}} ", 1)[-1].split(" [Op:", 1)[0]
            out["errors"][name] = [type(exc).__name__, message]
    (HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

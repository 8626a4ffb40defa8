"""Train a `tfx build` model on scikit-learn's 8x8 digits and report held-out accuracy.

    python benchmarks/train_digits.py [--model mlp] [--epochs 30] [--batch-size 32]
                                      [--tensorflow] [--json]

The model is built exactly as `tfx build MODEL -o model.pb` writes it, then
run from the GraphDef by a plain `tfx.Session`: init, shuffled mini-batches
through `train`, then `accuracy` on the held-out quarter of the digits (the
split is fixed by a seed). Needs scikit-learn (the dataset ships inside it).
With --tensorflow the same GraphDef is trained the same way in TensorFlow's
`tf.compat.v1.Session` (same batches; its own random initial values).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def load_digits_split(seed: int = 0) -> tuple[np.ndarray, ...]:
    """(train_x, train_y, test_x, test_y): 8x8 digits scaled to [0, 1], a 75/25 split."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = len(x) * 3 // 4
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def train(model: str = "mlp", epochs: int = 30, batch_size: int = 32, seed: int = 0,
          params: dict | None = None, engine: str = "tfx") -> dict:
    """Train `model` on the digits with tfx (or "tensorflow"); return losses, accuracy, time."""
    from tfx.core.api.model_builder import build_model

    train_x, train_y, test_x, test_y = load_digits_split(seed)
    if model == "lenet":
        train_x, test_x = train_x.reshape(-1, 8, 8, 1), test_x.reshape(-1, 8, 8, 1)
    graph, _ = build_model(model, params or {})
    graph_def = graph.as_graph_def()
    rng = np.random.default_rng(seed)
    losses = []
    start = time.perf_counter()
    with _session(graph_def, engine) as sess:
        sess.run("init")
        for _ in range(epochs):
            order = rng.permutation(len(train_x))
            epoch_losses = []
            for i in range(0, len(order), batch_size):
                batch = order[i:i + batch_size]
                loss, _ = sess.run(["loss:0", "train"],
                                   {"x:0": train_x[batch], "y:0": train_y[batch]})
                epoch_losses.append(float(loss))
            losses.append(float(np.mean(epoch_losses)))
        seconds = time.perf_counter() - start
        accuracy = float(sess.run("accuracy:0", {"x:0": test_x, "y:0": test_y}))
    steps = epochs * -(-len(train_x) // batch_size)
    return {"engine": engine, "model": model, "epochs": epochs, "batch_size": batch_size,
            "steps": steps,
            "first_epoch_loss": losses[0], "last_epoch_loss": losses[-1],
            "test_accuracy": accuracy, "test_examples": len(test_x), "seconds": seconds,
            "ms_per_step": 1000 * seconds / steps}


def _session(graph_def, engine: str):  # noqa: ANN202 - a tfx or a TensorFlow session
    if engine == "tfx":
        import tfx

        return tfx.Session(graph_def)
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    theirs = tf.GraphDef()
    theirs.ParseFromString(graph_def.SerializeToString())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(theirs, name="")
    return tf.Session(graph=graph, config=tf.ConfigProto(
        intra_op_parallelism_threads=1, inter_op_parallelism_threads=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--tensorflow", action="store_true",
                        help="also train the same graph in TensorFlow")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [train(args.model, args.epochs, args.batch_size)]
    if args.tensorflow:
        results.append(train(args.model, args.epochs, args.batch_size, engine="tensorflow"))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for result in results:
        print(f"{result['engine']:>10} {result['model']}: {result['steps']} steps in "
              f"{result['seconds']:.1f} s ({result['ms_per_step']:.2f} ms/step); loss "
              f"{result['first_epoch_loss']:.3f} -> {result['last_epoch_loss']:.3f}; held-out "
              f"accuracy {result['test_accuracy']:.4f} on {result['test_examples']} digits")


if __name__ == "__main__":
    main()

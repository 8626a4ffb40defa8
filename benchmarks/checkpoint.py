"""Checkpoint save and restore speed against plain file I/O on the same disk.

Writes a set of float32 variables (1 GiB by default) as a tensor bundle with
tfx (`tfx.core.checkpoint.save_tensors`: temporary files, CRC32C per tensor,
fsync, rename) and reads it back with CRC checks (`load_tensors`); beside it,
in the same run, a plain write of the same bytes to one file with one fsync,
and a plain read of that file. The issue's target: save and restore each at no
less than 50% of the plain bandwidth. With `tensorflow-cpu` installed,
TensorFlow's SaveV2/RestoreV2 run on the same tensors too.

Reads come from the page cache for both (dropping it needs privileges a
benchmark should not ask for), so the restore figure measures our parsing and
CRC work against a plain read, not the disk.

    python benchmarks/checkpoint.py [--gib 1.0] [--dir /tmp] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable

import numpy as np

TENSOR_MIB = 64


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _plain_write(path: str, tensors: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as f:
        for array in tensors.values():
            f.write(memoryview(array).cast("B"))
        f.flush()
        os.fsync(f.fileno())


def _plain_read(path: str, size: int) -> bytearray:
    buffer = bytearray(size)
    with open(path, "rb", buffering=0) as f:
        f.readinto(buffer)
    return buffer


def _tensorflow(prefix: str, tensors: dict[str, np.ndarray]) -> tuple[float, float] | None:
    try:
        import tensorflow as tf
    except ImportError:
        return None
    names = list(tensors)
    values = [tf.constant(tensors[n]) for n in names]
    save = _timed(lambda: tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                                            shape_and_slices=[""] * len(names),
                                            tensors=values))
    dtypes = [tf.float32] * len(names)
    restore = _timed(lambda: [t.numpy() for t in tf.raw_ops.RestoreV2(
        prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
        dtypes=dtypes)])
    return save, restore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="total size of the variables")
    parser.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from tfx.core.checkpoint import load_tensors, save_tensors

    count = max(1, round(args.gib * 1024 / TENSOR_MIB))
    rng = np.random.default_rng(0)
    elements = TENSOR_MIB * 1024 * 1024 // 4
    tensors = {f"layer_{i:02d}/kernel": rng.standard_normal(elements, np.float32)
               for i in range(count)}
    size = sum(a.nbytes for a in tensors.values())
    workdir = tempfile.mkdtemp(prefix="tfx-ckpt-bench-", dir=args.dir)
    try:
        plain = os.path.join(workdir, "plain.bin")
        prefix = os.path.join(workdir, "model.ckpt")
        results = {
            "bytes": size,
            "plain_write_s": _timed(lambda: _plain_write(plain, tensors)),
            "tfx_save_s": _timed(lambda: save_tensors(prefix, tensors)),
            "plain_read_s": _timed(lambda: _plain_read(plain, size)),
        }
        restored: dict = {}
        results["tfx_restore_s"] = _timed(lambda: restored.update(load_tensors(prefix)))
        if any(not np.array_equal(restored[n], a) for n, a in tensors.items()):
            raise SystemExit("restored values differ from the saved ones")
        restored.clear()
        tf_times = _tensorflow(os.path.join(workdir, "tf.ckpt"), tensors)
        if tf_times is not None:
            results["tf_save_s"], results["tf_restore_s"] = tf_times
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    results["save_vs_plain"] = results["plain_write_s"] / results["tfx_save_s"]
    results["restore_vs_plain"] = results["plain_read_s"] / results["tfx_restore_s"]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    mib = size / 2**20
    print(f"{mib:.0f} MiB in {count} tensors")
    print(f"{'':16}{'seconds':>9}{'MiB/s':>9}")
    for label, key in (("plain write", "plain_write_s"), ("tfx save", "tfx_save_s"),
                       ("tf save", "tf_save_s"), ("plain read", "plain_read_s"),
                       ("tfx restore", "tfx_restore_s"), ("tf restore", "tf_restore_s")):
        if key in results:
            print(f"{label:16}{results[key]:9.3f}{mib / results[key]:9.0f}")
    for label, key in (("save", "save_vs_plain"), ("restore", "restore_vs_plain")):
        ratio = results[key]
        print(f"tfx {label} at {ratio:.0%} of plain bandwidth (target >= 50%: "
              f"{'met' if ratio >= 0.5 else 'NOT met'})")


if __name__ == "__main__":
    main()

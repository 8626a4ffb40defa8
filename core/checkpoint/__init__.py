"""Checkpoints in TensorFlow's V2 format (tensor bundles) and their state file.

- `table`: the LevelDB-style sorted table of a checkpoint's `.index` file.
- `bundle`: `BundleWriter` / `BundleReader` for `PREFIX.index` + `PREFIX.data-*`,
  and `merge_bundles` for sharded saves.
- `slices`: the slices of partitioned tensors (SaveV2 specs, their keys in a bundle).
- `state`: the `checkpoint` state file (latest and kept checkpoints) and retention.

Example:
    >>> from tfx.core import checkpoint
    >>> checkpoint.save_tensors("/tmp/run/model.ckpt-1", {"w": np.zeros(3, np.float32)})
    >>> checkpoint.record_checkpoint("/tmp/run", "/tmp/run/model.ckpt-1")
    []
    >>> checkpoint.load_tensors(checkpoint.latest_checkpoint("/tmp/run"))["w"]
    array([0., 0., 0.], dtype=float32)
"""

from tfx.core.checkpoint.bundle import (
    BundleReader,
    BundleWriter,
    data_filename,
    index_filename,
    load_tensors,
    merge_bundles,
    save_tensors,
)
from tfx.core.checkpoint.slices import parse_shape_and_slice, parse_slice_spec
from tfx.core.checkpoint.state import (
    STATE_FILENAME,
    checkpoint_exists,
    checkpoint_files,
    latest_checkpoint,
    read_state,
    record_checkpoint,
    remove_checkpoint,
    write_state,
)

__all__ = [
    "BundleReader",
    "BundleWriter",
    "STATE_FILENAME",
    "checkpoint_exists",
    "checkpoint_files",
    "data_filename",
    "index_filename",
    "latest_checkpoint",
    "load_tensors",
    "merge_bundles",
    "parse_shape_and_slice",
    "parse_slice_spec",
    "read_state",
    "record_checkpoint",
    "remove_checkpoint",
    "save_tensors",
    "write_state",
]

"""`tf.resource_loader`: find data files that ship next to code.

As in TensorFlow 1.x, paths are found relative to the file of the code that asks:

- `get_data_files_path()`: the directory of the calling module.
- `get_path_to_datafile(path)`: `path` joined to that directory (TensorFlow's fallback
  when it is not run from a Bazel runfiles tree, the case tfx programs are in).
- `get_root_dir_with_all_resources()`: the top of the caller's Bazel runfiles tree
  (the folder just below `*.runfiles`) when there is one, else the caller's directory.
- `load_resource(path)`: the bytes of `path` relative to the `tfx` package (TensorFlow
  reads it relative to `tensorflow/`); FileNotFoundError when it is not there.
- `readahead_file_path(path)`: `path` unchanged (TensorFlow does no readahead either).

    schema = load_resource("protos/graph.proto")
"""

from __future__ import annotations

import os
import sys

__all__ = [
    "get_data_files_path",
    "get_path_to_datafile",
    "get_root_dir_with_all_resources",
    "load_resource",
    "readahead_file_path",
]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _caller_dir(depth: int) -> str:
    """The directory of the file `depth` frames above the function calling this one."""
    return os.path.dirname(sys._getframe(depth + 1).f_code.co_filename)


def get_data_files_path() -> str:
    """The directory of the module that calls this function.

    Example:
        >>> get_data_files_path()      # in /srv/app/train.py
        '/srv/app'
    """
    return _caller_dir(1)


def get_path_to_datafile(path: str) -> str:
    """`path` relative to the directory of the calling module (not checked to exist)."""
    return os.path.join(_caller_dir(1), path)


def get_root_dir_with_all_resources() -> str:
    """The root of the caller's Bazel runfiles tree, else the caller's directory.

    The data files of a Bazel target sit under `<target>.runfiles/<workspace>/`; that
    workspace folder is returned when the caller lives inside one.
    """
    script_dir = _caller_dir(1)
    below = script_dir
    current = script_dir
    while True:
        if ".runfiles" in os.path.basename(current):
            return below if below != current else script_dir
        parent = os.path.dirname(current)
        if parent == current:
            return script_dir
        below, current = current, parent


def load_resource(path: str) -> bytes:
    """The contents of `path`, relative to the `tfx` package directory.

    Raises:
        FileNotFoundError (an OSError, TensorFlow's IOError) if there is no such file.
    """
    with open(os.path.join(_PACKAGE_DIR, path), "rb") as f:
        return f.read()


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """`path` itself: no readahead is done (as in TensorFlow)."""
    del readahead  # accepted for TensorFlow's signature
    return path

"""What every command shares: consoles, graph loading, feeds, output files, JSON.

Commands parse their arguments, call the library and print through these
helpers; they never print errors themselves. A bad argument raises a
`TfxError` (usually `InvalidArgumentError`, exit code 2) and `tfx.cli.main`
turns it into one `error: ...` line. numpy and the graph IR are imported
inside the functions that need them, so `tfx --help` stays fast.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console

from tfx.core.errors import InvalidArgumentError, NotFoundError

if TYPE_CHECKING:
    import numpy as np

    from tfx.core.graph import Graph

# Rich consoles bound to whatever sys.stdout/sys.stderr are when they print.
console = Console()
err_console = Console(stderr=True)


def fresh_consoles() -> None:
    """Make `console` and `err_console` anew, reading COLUMNS and the terminal now.

    Rich fixes a console's width from COLUMNS when the console is made, so consoles
    made at import would keep the width of that moment in a process that runs several
    commands (`main` in a test or a notebook); `main` calls this at each command.
    """
    global console, err_console
    console = Console()
    err_console = Console(stderr=True)


class State:
    """Global options, set by the app callback."""

    debug = False


def graph_label(path: str) -> str:
    return "<stdin>" if path == "-" else path


def load_graph_ir(path: str) -> Graph:
    """Read a `.pb`/`.pbtxt` file (or `-` for stdin) into the graph IR, unvalidated."""
    from tfx.core.graph import Graph
    from tfx.core.graph_io import load_graph

    graph_def = load_graph(path, name=graph_label(path))
    try:
        return Graph.from_graph_def(graph_def)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{graph_label(path)}: {exc}") from None


def tensor_name(name: str) -> str:
    """'node' -> 'node:0'; 'node:1' stays."""
    node, sep, index = name.rpartition(":")
    return name if sep and index.isdigit() else f"{name}:0"


# --- feeds ------------------------------------------------------------------------------


def parse_feeds(specs: Sequence[str]) -> dict[str, Any]:
    """Parse `NAME=VALUE` feed arguments into {tensor name: value}.

    VALUE is a `.npy` file, `FILE.npz:key` (or `FILE.npz` holding one array or one
    keyed by the tensor name), `-` for a `.npy` read from stdin, or a JSON literal.
    """
    feeds: dict[str, Any] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name or not value:
            raise InvalidArgumentError(
                f"--feed {spec!r}: expected NAME=VALUE, e.g. x:0=input.npy or x:0=[1,2]"
            )
        name = tensor_name(name.strip())
        if name in feeds:
            raise InvalidArgumentError(f"--feed: {name!r} is fed twice")
        feeds[name] = _feed_value(name, value)
    return feeds


def _feed_value(name: str, value: str) -> Any:
    import numpy as np

    where = f"--feed {name}"
    if value == "-":
        return _load_npy_bytes(sys.stdin.buffer.read(), f"{where}: <stdin>")
    stem, colon, key = value.rpartition(":")
    if colon and stem.endswith(".npz"):
        return _npz_entry(stem, key, name, where)
    if value.endswith(".npz"):
        return _npz_entry(value, None, name, where)
    if value.endswith(".npy"):
        try:
            return np.load(value, allow_pickle=False)
        except FileNotFoundError:
            raise NotFoundError(f"{where}: no such file {value!r}") from None
        except ValueError as exc:
            raise InvalidArgumentError(
                f"{where}: {value}: not a readable .npy file: {exc}"
            ) from None
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        raise InvalidArgumentError(
            f"{where}: {value!r} is neither a .npy/.npz file nor a JSON literal "
            "(strings need JSON quotes: x:0='\"text\"')"
        ) from None


def _load_npy_bytes(data: bytes, label: str) -> Any:
    import numpy as np

    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InvalidArgumentError(f"{label}: not a readable .npy file: {exc}") from None


def _npz_entry(path: str, key: str | None, name: str, where: str) -> Any:
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            keys = list(archive.files)
            if key is None:
                if len(keys) == 1:
                    key = keys[0]
                elif name in keys or name.removesuffix(":0") in keys:
                    key = name if name in keys else name.removesuffix(":0")
                else:
                    raise InvalidArgumentError(
                        f"{where}: {path} holds {len(keys)} arrays; pick one with "
                        f"{path}:KEY (keys: {', '.join(keys[:10])})"
                    )
            if key not in keys:
                raise NotFoundError(
                    f"{where}: {path} has no array {key!r} (keys: {', '.join(keys[:10])})"
                )
            return archive[key]
    except FileNotFoundError:
        raise NotFoundError(f"{where}: no such file {path!r}") from None
    except (zipfile.BadZipFile, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {path}: not a readable .npz file: {exc}"
        ) from None


# --- values for people and for JSON ------------------------------------------------------


def preview(array: np.ndarray, max_elements: int = 12) -> str:
    """A few values of a tensor; a big one shows its flattened ends and min/max/mean."""
    import numpy as np

    array = _printable(array)
    big = array.size > max_elements
    edge = 3
    shown = array
    if big:
        # Only the ends are printed, so only they are gathered: flattening a broadcast view
        # (a splat constant) would copy every element. The filler is never shown, and numpy
        # formats only what it shows.
        head, tail = array.flat[:edge], array.flat[-edge:]
        shown = np.concatenate([head, np.repeat(head[:1], max_elements), tail])
    text = np.array2string(
        shown, threshold=max_elements, edgeitems=edge, precision=4, max_line_width=72,
        separator=" ",
    )
    if big and array.dtype.kind in "iuf":
        # Reduced in place (the mean accumulates in float64 without a float64 copy).
        low, high, mean = array.min(), array.max(), array.mean(dtype=np.float64)
        text += f"\nmin {float(low):.4g}  max {float(high):.4g}  mean {mean:.4g}"
    return text


def _printable(array: np.ndarray) -> np.ndarray:
    """Narrow float types (bfloat16...) as float32, so numpy formats them."""
    import numpy as np

    if array.dtype.kind == "V" or (array.dtype.kind == "f" and array.dtype.type not in (
        np.float16, np.float32, np.float64, np.longdouble
    )):
        return array.astype(np.float32)
    return array


def to_jsonable(array: Any) -> Any:
    """A tensor as nested lists: bytes as text, complex as [real, imag]."""
    import numpy as np

    array = _printable(np.asarray(array))
    if array.dtype.kind == "c":
        return np.stack([array.real, array.imag], axis=-1).tolist()
    if array.dtype.kind in "OSU":
        return _strings(array.tolist())
    return array.tolist()


def _strings(value: Any) -> Any:
    if isinstance(value, list):
        return [_strings(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def print_json(data: Any, indent: int | None = 2) -> None:
    """JSON to stdout, unwrapped and uncoloured (for pipes); `indent=None` for one line."""
    sys.stdout.write(json.dumps(data, indent=indent) + "\n")
    sys.stdout.flush()


# --- output files -----------------------------------------------------------------------


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write a file atomically (`-` for stdout); an OSError names `path`, not the temporary
    file beside it."""
    from tfx.core import fileio

    try:
        fileio.atomic_write_bytes(path, data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None


def write_arrays(path: str, arrays: dict[str, np.ndarray]) -> None:
    """Write tensors to `.npz` (keys = tensor names), `.npy` (one tensor) or `-` (npz, stdout).

    The file is written atomically: on any failure the target is left as it was.
    """
    import numpy as np

    prepared = {name: _savable(name, value) for name, value in arrays.items()}
    buffer = io.BytesIO()
    if path.endswith(".npy"):
        if len(prepared) != 1:
            raise InvalidArgumentError(
                f"-o {path}: a .npy file holds one tensor, but {len(prepared)} are fetched; "
                "use .npz"
            )
        np.save(buffer, next(iter(prepared.values())), allow_pickle=False)
    elif path == "-" or path.endswith(".npz"):
        np.savez(buffer, **prepared)
    else:
        raise InvalidArgumentError(f"-o {path}: unknown output format; use .npz, .npy or -")
    write_bytes(path, buffer.getvalue())


def _savable(name: str, value: np.ndarray) -> np.ndarray:
    import numpy as np

    value = np.asarray(value)
    if value.dtype.kind == "O":
        flat = value.reshape(-1)
        if all(isinstance(v, bytes) for v in flat):
            return np.array(flat.tolist(), dtype=bytes).reshape(value.shape)
        raise InvalidArgumentError(
            f"cannot save {name!r}: it holds {type(flat[0]).__name__} objects, not numbers "
            "or strings"
        )
    return value


def join(items: Iterable[str], empty: str = "-") -> str:
    text = ", ".join(items)
    return text or empty


def dims_text(shape: Sequence[int | None] | None) -> str:
    if shape is None:
        return "unknown"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"

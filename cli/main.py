"""The `tfx` command: the app, its global options, and the one error path.

Every command is registered here explicitly, from its own module. `main()`
runs the app and is the only place errors become output: a `TfxError` prints
one `error: <message>` line and exits with its `exit_code` (2 for bad input,
1 for a failure at run time); a usage error prints the usage and exits 2; an
OSError names the file and exits 2; Ctrl-C exits 130. `--debug` shows the
traceback instead.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import Annotated

import typer

from tfx.cli import build as build_cmd
from tfx.cli import checkpoint as checkpoint_cmd
from tfx.cli import cluster as cluster_cmd
from tfx.cli import common
from tfx.cli import inspect as inspect_cmd
from tfx.cli import ops as ops_cmd
from tfx.cli import optimize as optimize_cmd
from tfx.cli import partition as partition_cmd
from tfx.cli import place as place_cmd
from tfx.cli import run as run_cmd
from tfx.cli import serve as serve_cmd
from tfx.cli import viz as viz_cmd

try:  # typer < 0.29 raises click's exceptions; later versions ship their own click
    from click import ClickException as _ClickException
except ImportError:  # pragma: no cover
    _ClickException = None
# Usage errors: they know how to show themselves and carry their exit code (2).
_USAGE_ERRORS = tuple(
    cls for cls in (getattr(typer, "TyperException", None), _ClickException) if cls is not None
)

app = typer.Typer(
    name="tfx",
    help="Run, inspect and explore TensorFlow 1.x graphs (.pb / .pbtxt).\n\n"
    "Examples:\n\n"
    "```\n"
    "tfx run graphs/default.pbtxt\n"
    "tfx inspect model.pb\n"
    "tfx ops MatMul\n"
    "```\n",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)

app.command("run", help=run_cmd.HELP)(run_cmd.run)
app.command("inspect", help=inspect_cmd.HELP)(inspect_cmd.inspect)
app.command("build", help=build_cmd.HELP)(build_cmd.build)
app.command("ops", help=ops_cmd.HELP)(ops_cmd.ops)
app.command("optimize", help=optimize_cmd.HELP)(optimize_cmd.optimize)
app.command("place", help=place_cmd.HELP)(place_cmd.place)
app.command("partition", help=partition_cmd.HELP)(partition_cmd.partition)
app.command("viz", help=viz_cmd.HELP)(viz_cmd.viz)
app.command("serve-worker", help=serve_cmd.HELP)(serve_cmd.serve_worker)
app.add_typer(checkpoint_cmd.app, name="checkpoint", help=checkpoint_cmd.HELP)
app.add_typer(cluster_cmd.app, name="cluster", help=cluster_cmd.HELP)


def _version(value: bool) -> None:
    if value:
        from tfx import __version__

        common.console.print(f"tfx {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _global_options(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback when a command fails.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
    op_library: Annotated[
        list[str] | None,
        typer.Option("--op-library", metavar="FILE.py",
                     help="Load an op library (a Python file registering op schemas and "
                          "kernels, as tf.load_op_library does) before the command; "
                          "repeatable. Example: `tfx --op-library zero_out.py run g.pb`"),
    ] = None,
) -> None:
    common.State.debug = debug
    if op_library:
        from tfx.core import op_libraries

        for path in op_library:
            op_libraries.load(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tfx` command line; return the exit code.

    Args:
        argv: the arguments after the program name (default: `sys.argv[1:]`).

    Returns:
        0 on success, 2 for bad input or usage, 1 for a failure at run time,
        130 when interrupted.

    Example:
        >>> main(["run", "graphs/default.pbtxt", "--json"])
        0
    """
    common.State.debug = False
    common.fresh_consoles()
    command = typer.main.get_command(app)
    shown_before = warnings.showwarning
    warnings.showwarning = _one_line_warning
    try:
        result = command.main(
            args=list(sys.argv[1:] if argv is None else argv),
            prog_name="tfx",
            standalone_mode=False,
        )
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except _USAGE_ERRORS as exc:
        if hasattr(exc, "show"):
            exc.show(file=sys.stderr)
        else:  # pragma: no cover
            sys.stderr.write(f"error: {exc.format_message()}\n")
        return exc.exit_code
    except typer.Abort:
        return _fail("aborted", 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:
        # The reader went away (`tfx run ... | head`): stop quietly.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - swallow the final flush
        except OSError:
            pass
        return 1
    except Exception as exc:  # noqa: BLE001 - the one place errors become output
        return _report(exc)
    finally:
        warnings.showwarning = shown_before


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str,
                      lineno: int, file=None, line: str | None = None) -> None:
    """A warning as one `warning: ...` line, without the source line that raised it.

    A NaN in a kernel's numpy call would otherwise print the kernel's file, line and
    code, which reads like a crash. `--debug` keeps Python's format.
    """
    if common.State.debug:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))
        return
    text = " ".join(str(message).split())
    sys.stderr.write(f"warning: {text}\n")


def _report(exc: Exception) -> int:
    from tfx.core.errors import TfxError

    if isinstance(exc, TfxError):
        return _fail(str(exc), exc.exit_code)
    if isinstance(exc, OSError):
        where = exc.filename if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        return _fail(f"{where}: {reason}" if where else reason, 2)
    if isinstance(exc, MemoryError):
        return _fail("out of memory (try --max-tensor-bytes to refuse huge tensors)", 1)
    return _fail(
        f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", 1
    )


def _fail(message: str, code: int) -> int:
    if common.State.debug:
        traceback.print_exc(file=sys.stderr)
    # One line, written plainly: rich would wrap a long message to the terminal width.
    text = " ".join(message.split("\n")).strip()
    sys.stderr.write(f"error: {text}\n")
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())

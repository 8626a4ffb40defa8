"""`tf.app`: the program entry point, `run`, and `flags` (the `tf.flags` module).

    DEFINE_integer("steps", 100, "Training steps.")

    def main(argv):
        train(FLAGS.steps)

    if __name__ == "__main__":
        tf.app.run()

As TensorFlow 1.x's (absl's `app.run` with TensorFlow's flag parser), `run` parses the
command line into `flags.FLAGS` with unknown flags tolerated: they stay, in place, in
the arguments `main` receives, after the program name and with the positional
arguments, and `--` and what follows are passed on too. A bad flag value raises its
flags error. `--help`/`--helpshort` (`-?`) print the usage and the main program's
flags, `--helpfull` every flag, to stdout, and exit with status 1, as absl's. The
program then exits with `main`'s return value (`sys.exit(main(argv))`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from tfx.core.api import flags_api as flags
from tfx.core.api.flags_api import FLAGS, BooleanFlag, FlagValues

# TensorFlow's tf.app holds these two; `usage` is tfx's.
__all__ = ["flags", "run"]

_HELP_MODULE = "tfx.app"


def usage(flag_values: FlagValues | None = None, full: bool = False) -> str:
    """The text `--help` prints: the main module's docstring (or a USAGE line) and flags.

    Args:
        flag_values: the flags to describe (default `FLAGS`).
        full: every module's flags (`--helpfull`) instead of the main program's.
    """
    flag_values = FLAGS if flag_values is None else flag_values
    program = flag_values.program or (sys.argv[0] if sys.argv else "")
    doc = getattr(sys.modules.get("__main__"), "__doc__", None)
    if doc:
        # As absl: each '%s' of the docstring is the program, '%%' a '%'.
        specifiers = doc.count("%") - 2 * doc.count("%%")
        try:
            text = doc % ((program,) * specifiers)
        except (TypeError, ValueError, OverflowError):
            text = doc
    else:
        text = f"\n       USAGE: {program} [flags]"
    flags_text = flag_values.get_help() if full else flag_values.main_module_help()
    if flags_text:
        text += "\nflags:\n" + flags_text
    text += "\n"
    return text if full else text + "\nTry --helpfull to get a list of all flags.\n"


class _HelpFlag(BooleanFlag):
    """A boolean flag that, set, prints the usage and exits with status 1."""

    def __init__(self, name: str, help_text: str, flag_values: FlagValues, full: bool,
                 short_name: str | None = None) -> None:
        super().__init__(name, False, help_text, short_name=short_name,
                         module_name=_HELP_MODULE)
        self._flag_values = flag_values
        self._full = full

    def parse(self, argument: Any) -> None:
        super().parse(argument)
        if self.value:
            sys.stdout.write(usage(self._flag_values, self._full))
            sys.stdout.flush()
            sys.exit(1)


def _define_help_flags(flag_values: FlagValues) -> None:
    """Add --help (-?), --helpshort and --helpfull unless `flag_values` has them."""
    for name, text, full, short in (("help", "show this help", False, "?"),
                                    ("helpshort", "show this help", False, None),
                                    ("helpfull", "show full help", True, None)):
        if name not in flag_values:
            if short in flag_values:
                short = None
            flag_values.register(_HelpFlag(name, text, flag_values, full, short))


def run(main: Callable[[list[str]], Any] | None = None,
        argv: Sequence[str] | None = None) -> NoReturn:
    """Parse the command line into `FLAGS` and exit with `main(remaining_argv)`.

    Args:
        main: the program's main function (default: `main` of the `__main__` module).
        argv: the command line (default `sys.argv`), the program name first.

    Example:
        >>> tf.app.run(main, ["train.py", "--steps=5", "extra"])   # main(['train.py', 'extra'])
    """
    main = main or sys.modules["__main__"].main
    argv = list(sys.argv if argv is None else argv)
    _define_help_flags(FLAGS)
    args = FLAGS(argv, known_only=True)
    sys.exit(main(args))

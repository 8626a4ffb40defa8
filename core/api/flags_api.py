"""`tf.flags`: command-line flags, as TensorFlow 1.x's absl-based `tf.flags` (absl not needed).

Define flags at module level, read them from `FLAGS` once parsed:

    DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    DEFINE_integer("steps", 1000, "Training steps.", lower_bound=1)
    DEFINE_boolean("verbose", False, "Log more.")
    argv = FLAGS(["train.py", "--steps=50", "--verbose", "input.txt"])
    FLAGS.steps, argv          # 50, ['train.py', 'input.txt']

Command lines parse as absl's: `--name=value`, `--name value`, one dash as well as two,
`--flag`/`--noflag` (or `--flag=true|false|t|f|1|0`) for booleans, a repeated multi flag
appending (its first occurrence replacing the default), the last value winning for the
others, GNU-style positional arguments anywhere, and `--` ending the flags. String
defaults go through the flag's parser. Errors are absl's: UnrecognizedFlagError for an
unknown flag (with "Did you mean" suggestions; kept in the returned arguments instead
with `known_only=True`, as `tf.app.run` parses), IllegalFlagValueError "flag --n=abc:
..." for a bad value or a failed validator (`mark_flag_as_required`,
`register_validator`; "flags a=1, b=2: ..." for the validators of several flags,
`mark_flags_as_mutual_exclusive` and `register_multi_flags_validator`),
DuplicateFlagError for a second definition, and UnparsedFlagAccessError for reading a
flag of an unparsed FlagValues. As TensorFlow's wrapper, the global `FLAGS` instead
parses `sys.argv` on the first read of a flag.

`FLAGS.get_help()` and `main_module_help()` format help as absl's `--help` does (flags
grouped by the module that defined them, sorted, with defaults and types). Not
available: flag files (`--flagfile`), `--undefok`, enum-class, alias and XML-help flags.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = [
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi_float",
    "DEFINE_multi_integer",
    "DEFINE_multi_string",
    "DEFINE_spaceseplist",
    "DEFINE_string",
    "DuplicateFlagError",
    "Error",
    "FLAGS",
    "BooleanFlag",
    "Flag",
    "FlagValues",
    "IllegalFlagValueError",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
    "ValidationError",
    "flag_dict_to_args",
    "mark_bool_flags_as_mutual_exclusive",
    "mark_flag_as_required",
    "mark_flags_as_mutual_exclusive",
    "mark_flags_as_required",
    "multi_flags_validator",
    "register_multi_flags_validator",
    "register_validator",
    "validator",
]


class Error(Exception):
    """The base of the flag errors."""


class UnrecognizedFlagError(Error):
    """A command line names a flag that is not defined."""

    def __init__(self, flagname: str, flagvalue: str = "", suggestions: Sequence[str] = ()):
        self.flagname = flagname
        self.flagvalue = flagvalue
        tip = f". Did you mean: {', '.join(suggestions)} ?" if suggestions else ""
        super().__init__(f"Unknown command line flag '{flagname}'{tip}")


class IllegalFlagValueError(Error):
    """A flag's value cannot be parsed, is out of range or fails a validator."""


class DuplicateFlagError(Error):
    """A flag name is defined a second time."""


class UnparsedFlagAccessError(Error, AttributeError):
    """A flag is read before its FlagValues parsed a command line."""


class ValidationError(Error):
    """Raised by a validator's checker to reject a value (its message is used)."""


# --- parsers: text (or a Python default) -> value, and a type line for the help -------------

_TRUE = frozenset({"true", "t", "1"})
_FALSE = frozenset({"false", "f", "0"})


def _parse_bool(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    if isinstance(text, int) and text in (0, 1):
        return bool(text)
    if isinstance(text, str):
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    raise ValueError(f"('Non-boolean argument to boolean flag', {text!r})")


def _parse_int(text: Any) -> int:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        raise TypeError(f"Expect argument to be a string or int, found {type(text)}")
    body = text.lstrip("+-")
    base = 16 if body[:2] in ("0x", "0X") else 10
    return int(text, base)


def _parse_float(text: Any) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str):
        raise TypeError(f"Expect argument to be a string or int/float, found {type(text)}")
    return float(text)


def _number_help(kind: str, lower: float | None, upper: float | None) -> str:
    """absl's phrase for a bounded number: 'a non-negative integer', 'integer <= 5', ..."""
    article = "an" if kind == "integer" else "a"
    if lower is not None and upper is not None:
        return f"{article} {kind} in the range [{lower}, {upper}]"
    if lower == 0:
        return f"a non-negative {kind}"
    if lower == 1 and kind == "integer":
        return "a positive integer"
    if upper == 0:
        return f"a non-positive {kind}"
    if upper == -1 and kind == "integer":
        return "a negative integer"
    if lower is not None:
        return f"{kind} >= {lower}"
    if upper is not None:
        return f"{kind} <= {upper}"
    return f"{article} {kind}"


class Flag:
    """One flag: its name, default, current value, help, and how text becomes a value.

    Attributes:
        name, short_name, help, default, value: as given and as parsed.
        present: how many times the command line set it.
        using_default_value: whether `value` is still the default.
        boolean: whether `--name`/`--noname` set it without a value.
        module_name: the module that defined it (its help group).
    """

    def __init__(self, name: str, default: Any, help_text: str, parse: Callable[[Any], Any],
                 serialize: Callable[[Any], str] = str, *, boolean: bool = False,
                 multi: bool = False, type_help: str = "", label: str = "",
                 short_name: str | None = None, module_name: str = "") -> None:
        self.name = name
        self.short_name = short_name
        self.help = help_text or "(no help available)"
        self.boolean = boolean
        self.multi = multi
        self.type_help = type_help
        self.label = label
        self.module_name = module_name
        self.validators: list[tuple[Callable[[Any], bool], str]] = []
        self._parse_one = parse
        self._serialize = serialize
        self.default = self._convert(default)
        self.default_as_str = None if default is None else self._serialize(self.default)
        self.value = self.default
        self.present = 0
        self.using_default_value = True

    def _convert(self, argument: Any) -> Any:
        """`argument` as a value, or IllegalFlagValueError naming the flag."""
        if argument is None:
            return None
        try:
            if self.multi:
                items = argument if isinstance(argument, (list, tuple)) else [argument]
                return [self._parse_one(item) for item in items]
            return self._parse_one(argument)
        except (TypeError, ValueError) as exc:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {exc}") from None

    def parse(self, argument: Any) -> None:
        """Set the value from command-line text (a multi flag appends)."""
        value = self._convert(argument)
        if self.multi and self.present:
            self.value = [*self.value, *value]
        else:
            self.value = value
        self.present += 1
        self.using_default_value = False

    def unparse(self) -> None:
        self.value = self.default
        self.present = 0
        self.using_default_value = True

    def serialize(self) -> str:
        """The flag as a command-line argument (`--name=value`), '' when unset."""
        if self.value is None:
            return ""
        if self.boolean:
            return f"--{self.name}" if self.value else f"--no{self.name}"
        if self.multi:
            return "\n".join(f"--{self.name}={self._serialize(v)}" for v in self.value)
        return f"--{self.name}={self._serialize(self.value)}"

    def help_lines(self) -> list[str]:
        """The flag's entry in `--help`, as absl formats it (80 columns)."""
        names = f"-{self.short_name},--" if self.short_name else "--"
        names += f"[no]{self.name}" if self.boolean else self.name
        text = f"{names}: {self.label + ': ' if self.label else ''}{self.help}"
        if self.multi:
            text += ";"
        lines = textwrap.wrap(text, width=80, initial_indent="  ", subsequent_indent="    ",
                              break_on_hyphens=False)
        if self.multi:
            lines.append("    repeat this option to specify a list of values")
        if self.default_as_str is not None:
            lines.append(f"    (default: {self.default_as_str!r})")
        if self.type_help:
            lines.append(f"    ({self.type_help})")
        return lines


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


class BooleanFlag(Flag):
    """A flag set by `--name`/`--noname` (or `--name=true|false|t|f|1|0`)."""

    def __init__(self, name: str, default: Any, help_text: str, *,
                 short_name: str | None = None, module_name: str = "") -> None:
        super().__init__(name, default, help_text, _parse_bool, _bool_text, boolean=True,
                         short_name=short_name, module_name=module_name)


def _list_parse(text: Any) -> list[str]:
    if isinstance(text, (list, tuple)):
        return [str(item) for item in text]
    if not isinstance(text, str):
        raise TypeError(f"Expect argument to be a string or list, found {type(text)}")
    return [item.strip() for item in text.split(",")] if text else []


def _enum_parser(values: Sequence[str], case_sensitive: bool) -> Callable[[Any], str]:
    def parse(text: Any) -> str:
        if not isinstance(text, str):
            raise TypeError(f"Expect argument to be a string, found {type(text)}")
        if case_sensitive:
            if text in values:
                return text
        else:
            for value in values:
                if value.lower() == text.lower():
                    return value
        raise ValueError(f"value should be one of <{'|'.join(values)}>")

    return parse


# --- FlagValues -------------------------------------------------------------------------


class FlagValues:
    """A registry of flags and their values: `FLAGS(argv)` parses, `FLAGS.name` reads.

    Args:
        implicit_parse: parse `sys.argv` on the first read of an unparsed flag, as
            TensorFlow's `tf.flags.FLAGS` does (absl's own FlagValues raises instead).
    """

    def __init__(self, implicit_parse: bool = False) -> None:
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_implicit_parse", implicit_parse)
        object.__setattr__(self, "_program", "")
        # (flag names, checker of {name: value}, message)
        object.__setattr__(self, "_multi_validators", [])

    # -- registration --
    def register(self, flag: Flag) -> Flag:
        """Add `flag`; DuplicateFlagError when its name (or short name) is taken."""
        for name in filter(None, (flag.name, flag.short_name)):
            old = self._flags.get(name)
            if old is not None:
                raise DuplicateFlagError(
                    f"The flag '{name}' is defined twice. First from {old.module_name}, second "
                    f"from {flag.module_name}. Description from first occurrence: {old.help}")
            if name in _RESERVED:
                raise Error(f"flag name {name!r} conflicts with a FlagValues method")
        self._flags[flag.name] = flag
        if flag.short_name:
            self._flags[flag.short_name] = flag
        return flag

    def __delattr__(self, name: str) -> None:
        """Remove a flag (both of its names)."""
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(name)
        for key in [k for k, f in self._flags.items() if f is flag]:
            del self._flags[key]

    # -- reading and writing values --
    def __getattr__(self, name: str) -> Any:
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            if not self.__dict__["_implicit_parse"]:
                raise UnparsedFlagAccessError(
                    f"Trying to access flag --{name} before flags were parsed.")
            self(sys.argv)
        return flags[name].value

    def __setattr__(self, name: str, value: Any) -> None:
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(f"no flag named {name!r} to set")
        flag.value = value
        flag.using_default_value = False
        self._validate(flag)
        self._validate_groups(name)

    def __getitem__(self, name: str) -> Flag:
        return self._flags[name]

    def __contains__(self, name: object) -> bool:
        return name in self._flags

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._flags))

    def __len__(self) -> int:
        return len(self._flags)

    def __dir__(self) -> list[str]:
        return sorted(self._flags)

    def get_flag_value(self, name: str, default: Any) -> Any:
        """The value of flag `name`, or `default` if there is no such flag."""
        flag = self._flags.get(name)
        return default if flag is None else flag.value

    def set_default(self, name: str, value: Any) -> None:
        """Change a flag's default (and its value, while it still is the default)."""
        flag = self._flags.get(name)
        if flag is None:
            raise UnrecognizedFlagError(name, str(value))
        flag.default = flag._convert(value)
        flag.default_as_str = None if value is None else flag._serialize(flag.default)
        if flag.using_default_value:
            flag.value = flag.default
        self._validate(flag)

    def flag_values_dict(self) -> dict[str, Any]:
        """name -> value of every flag (by long name)."""
        return {f.name: f.value for f in self._unique()}

    def is_parsed(self) -> bool:
        return self._parsed

    def mark_as_parsed(self) -> None:
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self) -> None:
        """Reset every flag to its default and mark the values unparsed."""
        for flag in self._unique():
            flag.unparse()
        object.__setattr__(self, "_parsed", False)

    # -- parsing --
    def __call__(self, argv: Sequence[str], known_only: bool = False) -> list[str]:
        """Parse a command line; return [program] + the arguments that are not flags.

        Args:
            argv: the command line, the program name first (as `sys.argv`).
            known_only: keep unknown flags in the result (in their place) instead of
                raising UnrecognizedFlagError; `--` and what follows are kept too.

        Raises:
            UnrecognizedFlagError, IllegalFlagValueError, Error (a missing value).
        """
        if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence):
            raise TypeError("argv should be a tuple/list.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name "
                             "as the first element.")
        object.__setattr__(self, "_program", argv[0])
        rest: list[str] = []
        args = list(argv[1:])
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                rest.extend(args[i - 1:] if known_only else args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            name, has_value, value = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and not has_value and name.startswith("no"):
                negated = self._flags.get(name[2:])
                if negated is not None and negated.boolean:
                    flag, value, has_value = negated, "false", True
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise UnrecognizedFlagError(name, arg, self._suggestions(name))
            if not has_value:
                if flag.boolean:
                    value = "true"
                elif i < len(args):
                    value = args[i]
                    i += 1
                else:
                    raise Error(f"Missing value for flag {arg}")
            flag.parse(value)
        self.mark_as_parsed()
        for flag in self._unique():
            self._validate(flag)
        self._validate_groups()
        return [argv[0], *rest]

    def _suggestions(self, name: str) -> list[str]:
        """absl's "Did you mean": the flags whose first len(name) letters are fewest edits
        away, when that is under half of name's length (nothing for names of 1-2 letters)."""
        if len(name) <= 2 or not self._flags:
            return []
        scored = sorted((_edit_distance(name, other[:len(name)]), other)
                        for other in {f.name for f in self._unique()})
        best = scored[0][0]
        if best >= 0.5 * len(name):
            return []
        return [other for errors, other in scored if errors == best]

    def _validate(self, flag: Flag) -> None:
        for check, message in flag.validators:
            try:
                ok = check(flag.value)
            except ValidationError as exc:
                ok, message = False, str(exc)
            if not ok:
                raise IllegalFlagValueError(f"flag --{flag.name}={flag.value}: {message}")

    def add_multi_flags_validator(self, names: Sequence[str],
                                  checker: Callable[[dict[str, Any]], bool],
                                  message: str) -> None:
        """Check flags `names` together with `checker({name: value})` (see
        `register_multi_flags_validator`)."""
        for name in names:
            if name not in self._flags:
                raise KeyError(f"Flag --{name} does not exist.")
        self._multi_validators.append((list(names), checker, message))

    def _validate_groups(self, changed: str | None = None) -> None:
        for names, check, message in self._multi_validators:
            if changed is not None and changed not in names:
                continue
            values = {name: self._flags[name].value for name in names}
            try:
                ok = check(values)
            except ValidationError as exc:
                ok, message = False, str(exc)
            if not ok:
                shown = ", ".join(f"{name}={value}" for name, value in values.items())
                raise IllegalFlagValueError(f"flags {shown}: {message}")

    def _unique(self) -> list[Flag]:
        return list({id(f): f for f in self._flags.values()}.values())

    # -- help --
    def _modules(self) -> dict[str, list[Flag]]:
        modules: dict[str, list[Flag]] = {}
        for flag in sorted(self._unique(), key=lambda f: f.name):
            modules.setdefault(flag.module_name, []).append(flag)
        return modules

    def module_help(self, module_name: str) -> str:
        """The help of the flags `module_name` defined ('' if none)."""
        flags = self._modules().get(module_name)
        if not flags:
            return ""
        shown = module_name
        if module_name == "__main__":  # absl shows the program for the main module
            shown = self._program or (sys.argv[0] if sys.argv and sys.argv[0] else module_name)
        lines = [f"{shown}:"]
        for flag in flags:
            lines.extend(flag.help_lines())
        return "\n".join(lines)

    def main_module_help(self) -> str:
        """The help of the main program's flags (what `--help` lists)."""
        return self.module_help("__main__")

    def get_help(self) -> str:
        """The help of every flag, grouped by module, the main program's first."""
        modules = self._modules()
        names = sorted(modules, key=lambda m: (m != "__main__", m))
        return "\n\n".join(self.module_help(m) for m in names)

    @property
    def program(self) -> str:
        """The program name of the last parsed command line ('' before one)."""
        return self._program

    def __str__(self) -> str:
        return self.get_help()


def _edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


# FlagValues methods and attributes a flag may not shadow.
_RESERVED = frozenset(n for n in dir(FlagValues) if not n.startswith("__"))


FLAGS = FlagValues(implicit_parse=True)


# --- DEFINE_* -------------------------------------------------------------------------------

# TensorFlow's tf.flags took these older keyword names; it logs a warning and renames them.
_OLD_NAMES = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _renamed(kwargs: dict[str, Any]) -> dict[str, Any]:
    old = [k for k in _OLD_NAMES if k in kwargs]
    if old:
        warnings.warn("Use of the keyword argument names (flag_name, default_value, docstring) "
                      "is deprecated, please use (name, default, help) instead.",
                      DeprecationWarning, stacklevel=4)
    return {_OLD_NAMES.get(k, k): v for k, v in kwargs.items()}


def _caller_module() -> str:
    """The module of the code calling a DEFINE_* function (the flag's help group)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return "__main__" if frame is None else frame.f_globals.get("__name__", "__main__")


def _define(flag_values: FlagValues | None, name: str, default: Any, help_text: str,
            parse: Callable[[Any], Any] | None, required: bool = False, **options: Any) -> Flag:
    flag_values = FLAGS if flag_values is None else flag_values
    if parse is None:
        flag: Flag = BooleanFlag(name, default, help_text, module_name=_caller_module(),
                                 **options)
    else:
        flag = Flag(name, default, help_text, parse, module_name=_caller_module(), **options)
    flag_values.register(flag)
    if required:
        mark_flag_as_required(name, flag_values)
    return flag


def _bounded(parse: Callable[[Any], Any], kind: str, lower: Any, upper: Any
             ) -> tuple[Callable[[Any], Any], str]:
    phrase = _number_help(kind, lower, upper)

    def parse_bounded(text: Any) -> Any:
        value = parse(text)
        if (lower is not None and value < lower) or (upper is not None and value > upper):
            raise ValueError(f"{value} is not {phrase}")
        return value

    return parse_bounded, phrase


def _with_old_names(define: Callable[..., Flag]) -> Callable[..., Flag]:
    def wrapper(*args: Any, **kwargs: Any) -> Flag:
        return define(*args, **_renamed(kwargs))

    wrapper.__name__ = define.__name__
    wrapper.__qualname__ = define.__qualname__
    wrapper.__doc__ = define.__doc__
    wrapper.__wrapped__ = define  # type: ignore[attr-defined]
    return wrapper


@_with_old_names
def DEFINE_string(name: str, default: str | None, help: str,  # noqa: A002, N802
                  flag_values: FlagValues | None = None, required: bool = False,
                  short_name: str | None = None) -> Flag:
    """Define a string flag.

    Args:
        name: the flag's name (`--name`).
        default: its value when not given (None allowed).
        help: the help text.
        flag_values: the FlagValues to add it to (default `FLAGS`).
        required: as `mark_flag_as_required(name)`.
        short_name: a one-letter alias (`-n`).

    Example:
        >>> DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    """
    def parse(text: Any) -> str:
        if not isinstance(text, str):
            raise TypeError(f"Expect argument to be a string, found {type(text)}")
        return text

    return _define(flag_values, name, default, help, parse, required, short_name=short_name)


@_with_old_names
def DEFINE_boolean(name: str, default: bool | str | None, help: str,  # noqa: A002, N802
                   flag_values: FlagValues | None = None, required: bool = False,
                   short_name: str | None = None) -> Flag:
    """Define a boolean flag: `--name`, `--noname`, or `--name=true|false|t|f|1|0`."""
    return _define(flag_values, name, default, help, None, required, short_name=short_name)


DEFINE_bool = DEFINE_boolean


@_with_old_names
def DEFINE_integer(name: str, default: int | str | None, help: str,  # noqa: A002, N802
                   lower_bound: int | None = None, upper_bound: int | None = None,
                   flag_values: FlagValues | None = None, required: bool = False,
                   short_name: str | None = None) -> Flag:
    """Define an integer flag (decimal or 0x hex), optionally bounded (inclusive)."""
    parse, phrase = _bounded(_parse_int, "integer", lower_bound, upper_bound)
    return _define(flag_values, name, default, help, parse, required, type_help=phrase,
                   short_name=short_name)


@_with_old_names
def DEFINE_float(name: str, default: float | str | None, help: str,  # noqa: A002, N802
                 lower_bound: float | None = None, upper_bound: float | None = None,
                 flag_values: FlagValues | None = None, required: bool = False,
                 short_name: str | None = None) -> Flag:
    """Define a float flag, optionally bounded (inclusive)."""
    parse, phrase = _bounded(_parse_float, "number", lower_bound, upper_bound)
    return _define(flag_values, name, default, help, parse, required, type_help=phrase,
                   short_name=short_name)


@_with_old_names
def DEFINE_enum(name: str, default: str | None, enum_values: Sequence[str],  # noqa: N802
                help: str, flag_values: FlagValues | None = None,  # noqa: A002
                required: bool = False, case_sensitive: bool = True,
                short_name: str | None = None) -> Flag:
    """Define a flag whose value is one of `enum_values` (matched case-insensitively,
    giving the listed spelling, when `case_sensitive` is False)."""
    values = list(enum_values)
    if not values:
        raise ValueError(f"enum_values cannot be empty, found '{values}'")
    return _define(flag_values, name, default, help, _enum_parser(values, case_sensitive),
                   required, label=f"<{'|'.join(values)}>", short_name=short_name)


@_with_old_names
def DEFINE_list(name: str, default: Sequence[str] | str | None, help: str,  # noqa: A002, N802
                flag_values: FlagValues | None = None, required: bool = False,
                short_name: str | None = None) -> Flag:
    """Define a flag whose value is a list of strings, given comma-separated (`--l=a,b`)."""
    return _define(flag_values, name, default, help, _list_parse, required,
                   serialize=",".join, type_help="a comma separated list",
                   short_name=short_name)


@_with_old_names
def DEFINE_spaceseplist(name: str, default: Sequence[str] | str | None,  # noqa: N802
                        help: str, comma_compat: bool = False,  # noqa: A002
                        flag_values: FlagValues | None = None, required: bool = False,
                        short_name: str | None = None) -> Flag:
    """Define a list-of-strings flag given whitespace-separated (`--s="a b"`); with
    `comma_compat`, commas separate too."""
    def parse(text: Any) -> list[str]:
        if isinstance(text, (list, tuple)):
            return [str(item) for item in text]
        if not isinstance(text, str):
            raise TypeError(f"Expect argument to be a string or list, found {type(text)}")
        return (text.replace(",", " ") if comma_compat else text).split()

    kind = "a whitespace or comma separated list" if comma_compat else (
        "a whitespace separated list")
    return _define(flag_values, name, default, help, parse, required, serialize=" ".join,
                   type_help=kind, short_name=short_name)


def _define_multi(flag_values: FlagValues | None, name: str, default: Any, help_text: str,
                  parse: Callable[[Any], Any], type_help: str, required: bool,
                  short_name: str | None) -> Flag:
    return _define(flag_values, name, default, help_text, parse, required, multi=True,
                   serialize=str, type_help=type_help, short_name=short_name)


@_with_old_names
def DEFINE_multi_string(name: str, default: Sequence[str] | str | None,  # noqa: N802
                        help: str, flag_values: FlagValues | None = None,  # noqa: A002
                        required: bool = False, short_name: str | None = None) -> Flag:
    """Define a flag that may be repeated (`--tag a --tag b`): a list of strings."""
    def parse(text: Any) -> str:
        if not isinstance(text, str):
            raise TypeError(f"Expect argument to be a string, found {type(text)}")
        return text

    return _define_multi(flag_values, name, default, help, parse, "", required, short_name)


@_with_old_names
def DEFINE_multi_integer(name: str, default: Sequence[int] | int | str | None,  # noqa: N802
                         help: str, lower_bound: int | None = None,  # noqa: A002
                         upper_bound: int | None = None,
                         flag_values: FlagValues | None = None, required: bool = False,
                         short_name: str | None = None) -> Flag:
    """Define a repeatable integer flag: a list of ints."""
    parse, phrase = _bounded(_parse_int, "integer", lower_bound, upper_bound)
    return _define_multi(flag_values, name, default, help, parse, phrase, required, short_name)


@_with_old_names
def DEFINE_multi_float(name: str, default: Sequence[float] | float | str | None,  # noqa: N802
                       help: str, lower_bound: float | None = None,  # noqa: A002
                       upper_bound: float | None = None,
                       flag_values: FlagValues | None = None, required: bool = False,
                       short_name: str | None = None) -> Flag:
    """Define a repeatable float flag: a list of floats."""
    parse, phrase = _bounded(_parse_float, "number", lower_bound, upper_bound)
    return _define_multi(flag_values, name, default, help, parse, phrase, required, short_name)


# --- validators -----------------------------------------------------------------------------


def register_validator(flag_name: str, checker: Callable[[Any], bool],
                       message: str = "Flag validation failed",
                       flag_values: FlagValues | None = None) -> None:
    """Check flag `flag_name` with `checker(value)` after each parse and assignment.

    A False result (or a ValidationError from the checker) is an IllegalFlagValueError
    "flag --name=value: message".
    """
    flag_values = FLAGS if flag_values is None else flag_values
    if flag_name not in flag_values:
        raise KeyError(f"Flag --{flag_name} does not exist.")
    flag_values[flag_name].validators.append((checker, message))


def validator(flag_name: str, message: str = "Flag validation failed",
              flag_values: FlagValues | None = None) -> Callable:
    """`register_validator` as a decorator of the checker."""
    def decorate(checker: Callable[[Any], bool]) -> Callable[[Any], bool]:
        register_validator(flag_name, checker, message, flag_values)
        return checker

    return decorate


def register_multi_flags_validator(flag_names: Sequence[str],
                                   multi_flags_checker: Callable[[dict[str, Any]], bool],
                                   message: str = "Flags validation failed",
                                   flag_values: FlagValues | None = None) -> None:
    """Check several flags together: `multi_flags_checker({name: value})` after each parse.

    A False result (or a ValidationError) is an IllegalFlagValueError
    "flags a=1, b=2: message".
    """
    flag_values = FLAGS if flag_values is None else flag_values
    flag_values.add_multi_flags_validator(flag_names, multi_flags_checker, message)


def multi_flags_validator(flag_names: Sequence[str], message: str = "Flag validation failed",
                          flag_values: FlagValues | None = None) -> Callable:
    """`register_multi_flags_validator` as a decorator of the checker."""
    def decorate(checker: Callable[[dict[str, Any]], bool]) -> Callable:
        register_multi_flags_validator(flag_names, checker, message, flag_values)
        return checker

    return decorate


def mark_flags_as_mutual_exclusive(flag_names: Sequence[str], required: bool = False,
                                   flag_values: FlagValues | None = None) -> None:
    """At most one of `flag_names` (exactly one if `required`) may be other than None."""
    names = list(flag_names)
    wanted = "Exactly" if required else "At most"

    def check(values: dict[str, Any]) -> bool:
        count = sum(value is not None for value in values.values())
        return count == 1 if required else count <= 1

    register_multi_flags_validator(
        names, check, f"{wanted} one of ({', '.join(names)}) must have a value other than "
        "None.", flag_values)


def mark_bool_flags_as_mutual_exclusive(flag_names: Sequence[str], required: bool = False,
                                        flag_values: FlagValues | None = None) -> None:
    """At most one of the boolean flags `flag_names` (exactly one if `required`) is True."""
    flag_values = FLAGS if flag_values is None else flag_values
    names = list(flag_names)
    for name in names:
        if name in flag_values and not flag_values[name].boolean:
            raise ValidationError(f"Flag --{name} is not Boolean, which is required for flags "
                                  "used in mark_bool_flags_as_mutual_exclusive.")
    wanted = "Exactly" if required else "At most"

    def check(values: dict[str, Any]) -> bool:
        count = sum(bool(value) for value in values.values())
        return count == 1 if required else count <= 1

    register_multi_flags_validator(names, check,
                                   f"{wanted} one of ({', '.join(names)}) must be True.",
                                   flag_values)


def flag_dict_to_args(flag_map: dict[str, Any], multi_flags: Iterable[str] | None = None
                      ) -> Iterator[str]:
    """Command-line arguments for `{name: value}`: True `--name`, False `--noname`, None a
    bare `--name`, a list comma-joined (repeated `--name=v` for names in `multi_flags`).

    Example:
        >>> list(flag_dict_to_args({"steps": 5, "verbose": False}))
        ['--steps=5', '--noverbose']
    """
    multi = set(multi_flags or ())
    for name, value in flag_map.items():
        if value is None:
            yield f"--{name}"
        elif isinstance(value, bool):
            yield f"--{name}" if value else f"--no{name}"
        elif isinstance(value, (bytes, str)):
            yield f"--{name}={value.decode() if isinstance(value, bytes) else value}"
        elif isinstance(value, Iterable):
            if name in multi:
                for item in value:
                    yield f"--{name}={item}"
            else:
                yield f"--{name}={','.join(str(item) for item in value)}"
        else:
            yield f"--{name}={value}"


def mark_flag_as_required(flag_name: str, flag_values: FlagValues | None = None) -> None:
    """Make parsing fail unless flag `flag_name` ends with a value other than None.

    Example:
        >>> DEFINE_string("output", None, "Where to write.")
        >>> mark_flag_as_required("output")
    """
    flag_values = FLAGS if flag_values is None else flag_values
    if flag_name in flag_values and flag_values[flag_name].default is not None:
        warnings.warn(f"Flag --{flag_name} has a non-None default value; therefore, "
                      "mark_flag_as_required will pass even if flag is not specified in the "
                      "command line!", stacklevel=2)
    register_validator(flag_name, lambda value: value is not None,
                       f"Flag --{flag_name} must have a value other than None.", flag_values)


def mark_flags_as_required(flag_names: Iterable[str],
                           flag_values: FlagValues | None = None) -> None:
    """`mark_flag_as_required` for each of `flag_names`."""
    for name in flag_names:
        mark_flag_as_required(name, flag_values)

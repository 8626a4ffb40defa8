"""`tf.flags`: command-line flags, as TensorFlow 1.x's absl-based `tf.flags` (absl not needed).

Define flags at module level, read them from `FLAGS` once parsed:

    DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    STEPS = DEFINE_integer("steps", 1000, "Training steps.", lower_bound=1)
    DEFINE_boolean("verbose", False, "Log more.")
    argv = FLAGS(["train.py", "--steps=50", "--verbose", "input.txt"])
    FLAGS.steps, STEPS.value, argv          # 50, 50, ['train.py', 'input.txt']

Command lines parse as absl's: `--name=value`, `--name value`, one dash as well as two,
`--flag`/`--noflag` (or `--flag=true|false|t|f|1|0`) for booleans, a repeated multi flag
appending (its first occurrence replacing the default), the last value winning for the
others, GNU-style positional arguments anywhere (`FLAGS.set_gnu_getopt(False)`: the
first one ends the flags), `--` ending the flags,
`--flagfile=path` reading more arguments from a file (one a line, `#` and `//`
comments; CantOpenFlagFileError when it cannot be read) and `--undefok=a,b` letting
the unknown flags `a` and `b` pass. String defaults go through the flag's parser.
Errors are absl's: UnrecognizedFlagError for an unknown flag (with "Did you mean"
suggestions; kept in the returned arguments instead with `known_only=True`, as
`tf.app.run` parses), IllegalFlagValueError "flag --n=abc: ..." for a bad value or a
failed validator (`mark_flag_as_required`, `register_validator`; "flags a=1, b=2: ..."
for the validators of several flags), DuplicateFlagError for a second definition,
FlagNameConflictsWithMethodError for a name FlagValues uses itself, and
UnparsedFlagAccessError for reading a flag of an unparsed FlagValues. As TensorFlow's
wrapper, the global `FLAGS` instead parses `sys.argv` on the first read of a flag.

Every `DEFINE_*` returns a FlagHolder (`.value`, `.default`, `.present`); `DEFINE` and
`DEFINE_multi` take any parser and serializer (flags_parsers), `DEFINE_flag` a Flag
(flags_flag), `DEFINE_alias` a second name for a flag. `FLAGS.get_help()` and
`main_module_help()` format help as absl's `--help` does (flags grouped by the module
that defined them, sorted, with defaults and types); a module's key flags
(`declare_key_flag`, `adopt_module_key_flags`) join its own in `module_help`, and a
module that calls `disclaim_key_flags()` passes the flags it defines to its caller.
FlagValues, FLAGS, FlagHolder and the errors live in flags_values, re-exported here;
`FLAGS.write_help_in_xml_format()` writes absl's XML help.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from tfx.core.api import tf_decorator
from tfx.core.api.flags_flag import (
    BooleanFlag,
    EnumClassFlag,
    EnumFlag,
    Error,
    Flag,
    IllegalFlagValueError,
    MultiEnumClassFlag,
    MultiFlag,
)
from tfx.core.api.flags_parsers import (
    ArgumentParser,
    ArgumentSerializer,
    BaseListParser,
    BooleanParser,
    CsvListSerializer,
    EnumClassListSerializer,
    EnumClassParser,
    EnumClassSerializer,
    EnumParser,
    FloatParser,
    IntegerParser,
    ListParser,
    ListSerializer,
    WhitespaceSeparatedListParser,
)
from tfx.core.api.flags_text import doc_to_help, get_help_width, text_wrap
from tfx.core.api.flags_values import (
    _DISCLAIMED,
    FLAGS,
    CantOpenFlagFileError,
    DuplicateFlagError,
    FlagHolder,
    FlagNameConflictsWithMethodError,
    FlagValues,
    UnparsedFlagAccessError,
    UnrecognizedFlagError,
    ValidationError,
    _caller_module,
    _resolve,
    _resolve_many,
)

__all__ = [
    "DEFINE",
    "DEFINE_alias",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_enum_class",
    "DEFINE_flag",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi",
    "DEFINE_multi_enum",
    "DEFINE_multi_enum_class",
    "DEFINE_multi_float",
    "DEFINE_multi_integer",
    "DEFINE_multi_string",
    "DEFINE_spaceseplist",
    "DEFINE_string",
    "FLAGS",
    "ArgumentParser",
    "ArgumentSerializer",
    "BaseListParser",
    "BooleanFlag",
    "BooleanParser",
    "CantOpenFlagFileError",
    "CsvListSerializer",
    "DuplicateFlagError",
    "EnumClassFlag",
    "EnumClassListSerializer",
    "EnumClassParser",
    "EnumClassSerializer",
    "EnumFlag",
    "EnumParser",
    "Error",
    "Flag",
    "FlagHolder",
    "FlagNameConflictsWithMethodError",
    "FlagValues",
    "FloatParser",
    "IllegalFlagValueError",
    "IntegerParser",
    "ListParser",
    "ListSerializer",
    "MultiEnumClassFlag",
    "MultiFlag",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
    "ValidationError",
    "WhitespaceSeparatedListParser",
    "adopt_module_key_flags",
    "declare_key_flag",
    "disclaim_key_flags",
    "doc_to_help",
    "flag_dict_to_args",
    "get_help_width",
    "mark_bool_flags_as_mutual_exclusive",
    "mark_flag_as_required",
    "mark_flags_as_mutual_exclusive",
    "mark_flags_as_required",
    "multi_flags_validator",
    "override_value",
    "register_multi_flags_validator",
    "register_validator",
    "set_default",
    "text_wrap",
    "tf_decorator",
    "validator",
]


# --- DEFINE_* -------------------------------------------------------------------------------


def DEFINE_flag(flag: Flag, flag_values: FlagValues | None = None,  # noqa: N802
                module_name: str | None = None, required: bool = False) -> FlagHolder:
    """Register `flag` in `flag_values` (default FLAGS) for module `module_name` (default
    the caller's); `required` as `mark_flag_as_required`.

    Raises:
        ValueError: `required` with a default other than None.
        DuplicateFlagError, FlagNameConflictsWithMethodError.
    """
    flag_values = FLAGS if flag_values is None else flag_values
    if required and flag.default is not None:
        raise ValueError(f"Required flag --{flag.name} needs to have None as default")
    flag_values[flag.name] = flag
    flag_values.register_flag_by_module(module_name or _caller_module(), flag)
    if required:
        mark_flag_as_required(flag.name, flag_values)
    return FlagHolder(flag_values, flag,
                      ensure_non_none_value=flag.default is not None or required)


def DEFINE(parser: ArgumentParser, name: str, default: Any, help: str | None,  # noqa: A002, N802
           flag_values: FlagValues | None = None,
           serializer: ArgumentSerializer | None = None, module_name: str | None = None,
           required: bool = False, **args: Any) -> FlagHolder:
    """Define a flag of any type: `parser` reads its values, `serializer` writes them.

    Args:
        parser: an ArgumentParser (IntegerParser(), ListParser(), your own subclass).
        name, default, help: the flag's name, default (parsed) and help text.
        flag_values: the FlagValues to add it to (default FLAGS).
        serializer: an ArgumentSerializer (None: the flag cannot be serialized).
        module_name: the module whose help lists it (default the caller's).
        required: as `mark_flag_as_required`.
        **args: the Flag's other arguments (short_name, allow_override, ...).

    Example:
        >>> DEFINE(IntegerParser(0), "workers", 4, "Workers.", serializer=ArgumentSerializer())
    """
    return DEFINE_flag(Flag(parser, serializer, name, default, help, **args), flag_values,
                       module_name, required)


def DEFINE_multi(parser: ArgumentParser, serializer: ArgumentSerializer,  # noqa: N802
                 name: str, default: Any, help: str | None,  # noqa: A002
                 flag_values: FlagValues | None = None, module_name: str | None = None,
                 required: bool = False, **args: Any) -> FlagHolder:
    """Define a repeatable flag of any type (`--x a --x b`: a list of `parser`'s values)."""
    return DEFINE_flag(MultiFlag(parser, serializer, name, default, help, **args),
                       flag_values, module_name, required)


def _register_bounds_validator(parser: Any, name: str, flag_values: FlagValues | None) -> None:
    """A bounded number's bounds are checked on assignment too, as absl's."""
    if parser.lower_bound is None and parser.upper_bound is None:
        return

    def checker(value: Any) -> bool:
        if value is not None and parser.is_outside_bounds(value):
            raise ValidationError(f"{value} is not {parser.syntactic_help}")
        return True

    register_validator(name, checker, flag_values=flag_values)


# TensorFlow's tf.flags wraps these four to take older keyword names, which it renames with
# a warning.
_OLD_NAMES = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _with_old_names(define: Callable[..., FlagHolder]) -> Callable[..., FlagHolder]:
    def wrapper(*args: Any, **kwargs: Any) -> FlagHolder:
        if any(k in kwargs for k in _OLD_NAMES):
            warnings.warn("Use of the keyword argument names (flag_name, default_value, "
                          "docstring) is deprecated, please use (name, default, help) "
                          "instead.", DeprecationWarning, stacklevel=2)
            kwargs = {_OLD_NAMES.get(k, k): v for k, v in kwargs.items()}
        return define(*args, **kwargs)

    return tf_decorator.make_decorator(define, wrapper)


def DEFINE_string(name: str, default: str | None, help: str | None,  # noqa: A002, N802
                  flag_values: FlagValues | None = None, required: bool = False,
                  **args: Any) -> FlagHolder:
    """Define a string flag.

    Args:
        name: the flag's name (`--name`).
        default: its value when not given (None allowed).
        help: the help text.
        flag_values: the FlagValues to add it to (default `FLAGS`).
        required: as `mark_flag_as_required(name)`.
        **args: the Flag's other arguments (`short_name="n"` for `-n`, ...).

    Example:
        >>> DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    """
    return DEFINE(ArgumentParser(), name, default, help, flag_values, ArgumentSerializer(),
                  required=required, **args)


def DEFINE_boolean(name: str, default: bool | str | None, help: str | None,  # noqa: A002, N802
                   flag_values: FlagValues | None = None, module_name: str | None = None,
                   required: bool = False, **args: Any) -> FlagHolder:
    """Define a boolean flag: `--name`, `--noname`, or `--name=true|false|t|f|1|0`."""
    return DEFINE_flag(BooleanFlag(name, default, help, **args), flag_values, module_name,
                       required)


def DEFINE_integer(name: str, default: int | str | None, help: str | None,  # noqa: A002, N802
                   lower_bound: int | None = None, upper_bound: int | None = None,
                   flag_values: FlagValues | None = None, required: bool = False,
                   **args: Any) -> FlagHolder:
    """Define an integer flag (decimal, 0x hex or 0o octal), optionally bounded
    (inclusive; checked on parsing and assignment)."""
    parser = IntegerParser(lower_bound, upper_bound)
    holder = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(),
                    required=required, **args)
    _register_bounds_validator(parser, name, flag_values)
    return holder


def DEFINE_float(name: str, default: float | str | None, help: str | None,  # noqa: A002, N802
                 lower_bound: float | None = None, upper_bound: float | None = None,
                 flag_values: FlagValues | None = None, required: bool = False,
                 **args: Any) -> FlagHolder:
    """Define a float flag, optionally bounded (inclusive)."""
    parser = FloatParser(lower_bound, upper_bound)
    holder = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(),
                    required=required, **args)
    _register_bounds_validator(parser, name, flag_values)
    return holder


DEFINE_string = _with_old_names(DEFINE_string)
DEFINE_boolean = _with_old_names(DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_integer = _with_old_names(DEFINE_integer)
DEFINE_float = _with_old_names(DEFINE_float)


def DEFINE_enum(name: str, default: str | None, enum_values: Sequence[str],  # noqa: N802
                help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                module_name: str | None = None, required: bool = False,
                **args: Any) -> FlagHolder:
    """Define a flag whose value is one of `enum_values` (with `case_sensitive=False`
    matched case-insensitively, giving the listed spelling)."""
    return DEFINE_flag(EnumFlag(name, default, help, enum_values, **args), flag_values,
                       module_name, required)


def DEFINE_enum_class(name: str, default: Any, enum_class: type,  # noqa: N802
                      help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                      module_name: str | None = None, case_sensitive: bool = False,
                      required: bool = False, **args: Any) -> FlagHolder:
    """Define a flag whose value is a member of the Enum `enum_class`, named on the
    command line (case-insensitively unless `case_sensitive`).

    Example:
        >>> class Mode(enum.Enum): TRAIN = 1; EVAL = 2
        >>> DEFINE_enum_class("mode", Mode.TRAIN, Mode, "Mode.")   # --mode=eval
    """
    return DEFINE_flag(EnumClassFlag(name, default, help, enum_class,
                                     case_sensitive=case_sensitive, **args),
                       flag_values, module_name, required)


def DEFINE_list(name: str, default: Sequence[str] | str | None,  # noqa: N802
                help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                required: bool = False, **args: Any) -> FlagHolder:
    """Define a list-of-strings flag given comma-separated (`--l=a,b`, read as CSV so
    `--l='a,"b,c"'` gives ['a', 'b,c'])."""
    return DEFINE(ListParser(), name, default, help, flag_values, CsvListSerializer(","),
                  required=required, **args)


def DEFINE_spaceseplist(name: str, default: Sequence[str] | str | None,  # noqa: N802
                        help: str | None, comma_compat: bool = False,  # noqa: A002
                        flag_values: FlagValues | None = None, required: bool = False,
                        **args: Any) -> FlagHolder:
    """Define a list-of-strings flag given whitespace-separated (`--s="a b"`); with
    `comma_compat`, commas separate too."""
    return DEFINE(WhitespaceSeparatedListParser(comma_compat=comma_compat), name, default,
                  help, flag_values, ListSerializer(" "), required=required, **args)


def DEFINE_multi_string(name: str, default: Sequence[str] | str | None,  # noqa: N802
                        help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                        required: bool = False, **args: Any) -> FlagHolder:
    """Define a flag that may be repeated (`--tag a --tag b`): a list of strings."""
    return DEFINE_multi(ArgumentParser(), ArgumentSerializer(), name, default, help,
                        flag_values, required=required, **args)


def DEFINE_multi_integer(name: str, default: Any, help: str | None,  # noqa: A002, N802
                         lower_bound: int | None = None, upper_bound: int | None = None,
                         flag_values: FlagValues | None = None, required: bool = False,
                         **args: Any) -> FlagHolder:
    """Define a repeatable integer flag: a list of ints."""
    return DEFINE_multi(IntegerParser(lower_bound, upper_bound), ArgumentSerializer(), name,
                        default, help, flag_values, required=required, **args)


def DEFINE_multi_float(name: str, default: Any, help: str | None,  # noqa: A002, N802
                       lower_bound: float | None = None, upper_bound: float | None = None,
                       flag_values: FlagValues | None = None, required: bool = False,
                       **args: Any) -> FlagHolder:
    """Define a repeatable float flag: a list of floats."""
    return DEFINE_multi(FloatParser(lower_bound, upper_bound), ArgumentSerializer(), name,
                        default, help, flag_values, required=required, **args)


def DEFINE_multi_enum(name: str, default: Any, enum_values: Sequence[str],  # noqa: N802
                      help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                      case_sensitive: bool = True, required: bool = False,
                      **args: Any) -> FlagHolder:
    """Define a repeatable flag of values from `enum_values`: a list of strings."""
    return DEFINE_multi(EnumParser(enum_values, case_sensitive), ArgumentSerializer(), name,
                        default, f"<{'|'.join(enum_values)}>: {help}", flag_values,
                        required=required, **args)


def DEFINE_multi_enum_class(name: str, default: Any, enum_class: type,  # noqa: N802
                            help: str | None, flag_values: FlagValues | None = None,  # noqa: A002
                            module_name: str | None = None, case_sensitive: bool = False,
                            required: bool = False, **args: Any) -> FlagHolder:
    """Define a repeatable flag of `enum_class` members: a list of members."""
    return DEFINE_flag(MultiEnumClassFlag(name, default, help, enum_class,
                                          case_sensitive=case_sensitive, **args),
                       flag_values, module_name, required)


def DEFINE_alias(name: str, original_name: str,  # noqa: N802
                 flag_values: FlagValues | None = None,
                 module_name: str | None = None) -> FlagHolder:
    """Define `--name` as a second name of flag `original_name`: setting either sets
    both (help 'Alias for --original.').

    Raises:
        UnrecognizedFlagError: no flag `original_name`.
    """
    flag_values = FLAGS if flag_values is None else flag_values
    if original_name not in flag_values:
        raise UnrecognizedFlagError(original_name)
    alias = _FlagAlias(flag_values[original_name], name)
    return DEFINE_flag(alias, flag_values, module_name)


class _FlagAlias(Flag):
    """Another name of `original`: parsing it parses the original, its value is the
    original's value."""

    def __init__(self, original: Flag, name: str) -> None:
        self._original = original
        super().__init__(original.parser, original.serializer, name, original.default,
                         f"Alias for --{original.name}.", boolean=original.boolean)

    def parse(self, argument: Any) -> None:
        self._original.parse(argument)
        self.present += 1

    def _parse_from_default(self, value: Any) -> Any:
        return value  # the original parsed it already

    @property
    def value(self) -> Any:
        return self._original.value

    @value.setter
    def value(self, value: Any) -> None:
        # Flag.__init__ sets the original back to its default here too, as absl's alias.
        self._original.value = value


def set_default(flag_holder: FlagHolder, value: Any) -> None:
    """Change the default of the flag `flag_holder` holds (and its value, while it is
    the default)."""
    flag_holder._flagvalues.set_default(flag_holder.name, value)


def override_value(flag_holder: FlagHolder, value: Any) -> None:
    """Set the flag `flag_holder` holds to `value`, which must be a value its parser
    gives back unchanged (IllegalFlagValueError otherwise); validators run."""
    flag_values = flag_holder._flagvalues
    parsed = flag_values[flag_holder.name]._parse(value)
    if parsed != value:
        raise IllegalFlagValueError(f"flag {flag_holder.name}: parsed value {parsed!r} not "
                                    f"equal to original {value!r}")
    setattr(flag_values, flag_holder.name, value)


# --- key flags ------------------------------------------------------------------------------


def declare_key_flag(flag_name: str | FlagHolder,
                     flag_values: FlagValues | None = None) -> None:
    """Make a flag a key flag of the calling module: its `module_help` (and the main
    program's `--help`) lists it.

    Raises:
        ValueError: no such flag.
    """
    name, flag_values = _resolve(flag_name, flag_values)
    if name not in flag_values:
        raise ValueError(f"Flag --{name} is undefined. To set a flag as a key flag first "
                         "define it in Python.")
    flag_values.register_key_flag_for_module(_caller_module(), flag_values[name])


def adopt_module_key_flags(module: types.ModuleType,
                           flag_values: FlagValues | None = None) -> None:
    """Make the key flags of `module` key flags of the calling module too.

    Raises:
        Error: `module` is not a module.
    """
    flag_values = FLAGS if flag_values is None else flag_values
    if not isinstance(module, types.ModuleType):
        raise Error(f"Expected a module object, not {module!r}.")
    caller = _caller_module()
    for flag in flag_values.get_key_flags_for_module(module.__name__):
        flag_values.register_key_flag_for_module(caller, flag)


def disclaim_key_flags() -> None:
    """Credit the flags the calling module defines from now on to the module calling
    it (for a module of helpers that define flags on behalf of their caller)."""
    _DISCLAIMED.add(sys._getframe(1).f_globals.get("__name__", "__main__"))


# --- validators -----------------------------------------------------------------------------


def register_validator(flag_name: str | FlagHolder, checker: Callable[[Any], bool],
                       message: str = "Flag validation failed",
                       flag_values: FlagValues | None = None) -> None:
    """Check a flag with `checker(value)` after each parse and assignment.

    A False result (or a ValidationError from the checker) is an IllegalFlagValueError
    "flag --name=value: message".
    """
    name, flag_values = _resolve(flag_name, flag_values)
    if name not in flag_values:
        raise KeyError(f"Flag --{name} does not exist.")
    flag_values[name].validators.append((checker, message))


def validator(flag_name: str | FlagHolder, message: str = "Flag validation failed",
              flag_values: FlagValues | None = None) -> Callable:
    """`register_validator` as a decorator of the checker."""
    def decorate(checker: Callable[[Any], bool]) -> Callable[[Any], bool]:
        register_validator(flag_name, checker, message, flag_values)
        return checker

    return decorate


def register_multi_flags_validator(flag_names: Sequence[str | FlagHolder],
                                   multi_flags_checker: Callable[[dict[str, Any]], bool],
                                   message: str = "Flags validation failed",
                                   flag_values: FlagValues | None = None) -> None:
    """Check several flags together: `multi_flags_checker({name: value})` after each parse.

    A False result (or a ValidationError) is an IllegalFlagValueError
    "flags a=1, b=2: message".
    """
    names, flag_values = _resolve_many(flag_names, flag_values)
    flag_values.add_multi_flags_validator(names, multi_flags_checker, message)


def multi_flags_validator(flag_names: Sequence[str | FlagHolder],
                          message: str = "Flag validation failed",
                          flag_values: FlagValues | None = None) -> Callable:
    """`register_multi_flags_validator` as a decorator of the checker."""
    def decorate(checker: Callable[[dict[str, Any]], bool]) -> Callable:
        register_multi_flags_validator(flag_names, checker, message, flag_values)
        return checker

    return decorate


def mark_flags_as_mutual_exclusive(flag_names: Sequence[str | FlagHolder],
                                   required: bool = False,
                                   flag_values: FlagValues | None = None) -> None:
    """At most one of `flag_names` (exactly one if `required`) may be other than None."""
    names, flag_values = _resolve_many(flag_names, flag_values)
    wanted = "Exactly" if required else "At most"

    def check(values: dict[str, Any]) -> bool:
        count = sum(value is not None for value in values.values())
        return count == 1 if required else count <= 1

    register_multi_flags_validator(
        names, check, f"{wanted} one of ({', '.join(names)}) must have a value other than "
        "None.", flag_values)


def mark_bool_flags_as_mutual_exclusive(flag_names: Sequence[str | FlagHolder],
                                        required: bool = False,
                                        flag_values: FlagValues | None = None) -> None:
    """At most one of the boolean flags `flag_names` (exactly one if `required`) is True."""
    names, flag_values = _resolve_many(flag_names, flag_values)
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


def mark_flag_as_required(flag_name: str | FlagHolder,
                          flag_values: FlagValues | None = None) -> None:
    """Make parsing fail unless the flag ends with a value other than None.

    Example:
        >>> DEFINE_string("output", None, "Where to write.")
        >>> mark_flag_as_required("output")
    """
    name, flag_values = _resolve(flag_name, flag_values)
    if flag_values[name].default is not None:
        warnings.warn(f"Flag --{name} has a non-None default value; therefore, "
                      "mark_flag_as_required will pass even if flag is not specified in the "
                      "command line!", stacklevel=2)
    register_validator(name, lambda value: value is not None,
                       f"Flag --{name} must have a value other than None.", flag_values)


def mark_flags_as_required(flag_names: Iterable[str | FlagHolder],
                           flag_values: FlagValues | None = None) -> None:
    """`mark_flag_as_required` for each of `flag_names`."""
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


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
            yield f"--{name}={value}"
        elif isinstance(value, Iterable):
            if name in multi:
                for item in value:
                    yield f"--{name}={item}"
            else:
                yield f"--{name}={','.join(str(item) for item in value)}"
        else:
            yield f"--{name}={value}"

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
others, GNU-style positional arguments anywhere, `--` ending the flags,
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
"""

from __future__ import annotations

import os
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


class UnrecognizedFlagError(Error):
    """A command line names a flag that is not defined."""

    def __init__(self, flagname: str, flagvalue: Any = "", suggestions: Sequence[str] = ()):
        self.flagname = flagname
        self.flagvalue = flagvalue
        tip = f". Did you mean: {', '.join(suggestions)} ?" if suggestions else ""
        super().__init__(f"Unknown command line flag '{flagname}'{tip}")


class DuplicateFlagError(Error):
    """A flag name is defined a second time."""

    @classmethod
    def from_flag(cls, flagname: str, flag_values: FlagValues,
                  other_flag_values: FlagValues | None = None) -> DuplicateFlagError:
        """The error for defining `flagname` again: the module of the first definition
        (in `flag_values`) and of the second (in `other_flag_values`, or the caller)."""
        first = flag_values.find_module_defining_flag(flagname, default="<unknown>")
        if other_flag_values is None:
            second = _caller_module()
        else:
            second = other_flag_values.find_module_defining_flag(flagname,
                                                                 default="<unknown>")
        return cls(f"The flag '{flagname}' is defined twice. First from {first}, second "
                   f"from {second}. Description from first occurrence: "
                   f"{flag_values[flagname].help}")


class CantOpenFlagFileError(Error):
    """A `--flagfile` cannot be read."""


class UnparsedFlagAccessError(Error, AttributeError):
    """A flag is read before its FlagValues parsed a command line."""


class ValidationError(Error):
    """Raised by a validator's checker to reject a value (its message is used)."""


class FlagNameConflictsWithMethodError(Error):
    """A flag's name is the name of a FlagValues method or attribute."""


# Modules whose DEFINE_* calls are credited to their caller (disclaim_key_flags).
_DISCLAIMED = {__name__, "tfx.core.api.flags_flag", "tfx.core.api.tf_decorator"}


def _caller_module() -> str:
    """The module of the code calling into tf.flags (a flag's help group), skipping
    the modules that disclaimed their flags."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in _DISCLAIMED:
        frame = frame.f_back
    return "__main__" if frame is None else frame.f_globals.get("__name__", "__main__")


# --- FlagValues -------------------------------------------------------------------------


class FlagValues:
    """A registry of flags and their values: `FLAGS(argv)` parses, `FLAGS.name` reads.

    Args:
        implicit_parse: parse `sys.argv` on the first read of an unparsed flag, as
            TensorFlow's `tf.flags.FLAGS` does (absl's own FlagValues raises instead).
    """

    def __init__(self, implicit_parse: bool = False) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "_flags", {})
        setattr_(self, "_flags_by_module", {})
        setattr_(self, "_key_flags_by_module", {})
        setattr_(self, "_parsed", False)
        setattr_(self, "_implicit_parse", implicit_parse)
        setattr_(self, "_program", "")
        # (flag names, checker of {name: value}, message)
        setattr_(self, "_multi_validators", [])

    # -- registration --
    def __setitem__(self, name: str, flag: Flag) -> None:
        """Register `flag` under `name` (and its short name), as absl's FlagValues.

        Raises:
            IllegalFlagValueError: `flag` is not a Flag.
            Error: `name` is empty, not a string or has a space.
            FlagNameConflictsWithMethodError, DuplicateFlagError.
        """
        if not isinstance(flag, Flag):
            raise IllegalFlagValueError(
                f"Expect Flag instances, found type {type(flag)}. Maybe you didn't mean to "
                "use FlagValue.__setitem__?")
        if not isinstance(name, str):
            raise Error("Flag name must be a string")
        if not name:
            raise Error("Flag name cannot be empty")
        if " " in name:
            raise Error("Flag name cannot contain a space")
        self._check_method_name_conflicts(name, flag)
        flags = self._flags
        if name in flags and not flag.allow_override and not flags[name].allow_override:
            raise DuplicateFlagError.from_flag(name, self)
        replaced = []
        short = flag.short_name
        if short is not None:
            if short in flags and not flag.allow_override and not flags[short].allow_override:
                raise DuplicateFlagError.from_flag(short, self)
            if short in flags and flags[short] is not flag:
                replaced.append(flags[short])
            flags[short] = flag
        if (name not in flags or flags[name].using_default_value
                or not flag.using_default_value):
            if name in flags and flags[name] is not flag:
                replaced.append(flags[name])
            flags[name] = flag
        for old in replaced:
            self._forget_if_unregistered(old)

    def _check_method_name_conflicts(self, name: str, flag: Flag) -> None:
        if flag.allow_using_method_names:
            return
        for taken in {name} if flag.short_name is None else {name, flag.short_name}:
            if taken in _RESERVED:
                raise FlagNameConflictsWithMethodError(
                    f'Cannot define a flag named "{taken}". It conflicts with a method on '
                    f'class "{type(self).__name__}". To allow defining it, use '
                    f"allow_using_method_names and access the flag value with "
                    f"FLAGS['{taken}'].value. FLAGS.{taken} returns the method, not the "
                    "flag value.")

    def register(self, flag: Flag) -> Flag:
        """Add `flag` to the help group of its `module_name` (tfx's shortcut for
        `self[flag.name] = flag` plus `register_flag_by_module`)."""
        self[flag.name] = flag
        self.register_flag_by_module(flag.module_name or _caller_module(), flag)
        return flag

    def register_flag_by_module(self, module_name: str, flag: Flag) -> None:
        """Record that module `module_name` defined `flag` (its help group)."""
        self._flags_by_module.setdefault(module_name, []).append(flag)

    def register_key_flag_for_module(self, module_name: str, flag: Flag) -> None:
        """Make `flag` a key flag of module `module_name` (listed in its help)."""
        key_flags = self._key_flags_by_module.setdefault(module_name, [])
        if not any(f is flag for f in key_flags):
            key_flags.append(flag)

    def flags_by_module_dict(self) -> dict[str, list[Flag]]:
        """module name -> the flags it defined."""
        return self._flags_by_module

    def key_flags_by_module_dict(self) -> dict[str, list[Flag]]:
        """module name -> the flags declared key for it."""
        return self._key_flags_by_module

    def get_flags_for_module(self, module: str | types.ModuleType) -> list[Flag]:
        """The flags `module` (a name or a module) defined."""
        name = module if isinstance(module, str) else module.__name__
        return list(self._flags_by_module.get(name, []))

    def get_key_flags_for_module(self, module: str | types.ModuleType) -> list[Flag]:
        """The flags `module` defined, then those declared key for it."""
        name = module if isinstance(module, str) else module.__name__
        key_flags = self.get_flags_for_module(name)
        for flag in self._key_flags_by_module.get(name, []):
            if not any(f is flag for f in key_flags):
                key_flags.append(flag)
        return key_flags

    def find_module_defining_flag(self, flagname: str, default: Any = None) -> Any:
        """The name of the module that defined flag `flagname`, else `default`."""
        registered = self._flags.get(flagname)
        if registered is None:
            return default
        for module, flags in self._flags_by_module.items():
            for flag in flags:
                if (flag.name, flag.short_name) == (registered.name, registered.short_name):
                    return module
        return default

    def _forget_if_unregistered(self, flag: Flag) -> None:
        """Drop `flag` from the module records once no name refers to it."""
        if any(f is flag for f in self._flags.values()):
            return
        for flags in [*self._flags_by_module.values(), *self._key_flags_by_module.values()]:
            flags[:] = [f for f in flags if f is not flag]

    def append_flag_values(self, flag_values: FlagValues) -> None:
        """Add every flag of `flag_values` (DuplicateFlagError naming both modules)."""
        for name, flag in flag_values._flags.items():
            if name == flag.name:
                try:
                    self[name] = flag
                except DuplicateFlagError:
                    raise DuplicateFlagError.from_flag(
                        name, self, other_flag_values=flag_values) from None

    def remove_flag_values(self, flag_values: FlagValues | Iterable[str]) -> None:
        """Remove the flags named in `flag_values`."""
        for name in list(flag_values):
            self.__delattr__(name)

    def __delattr__(self, name: str) -> None:
        """Remove a flag name (the flag leaves the help once no name refers to it)."""
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(name)
        del self._flags[name]
        self._forget_if_unregistered(flag)

    # -- reading and writing values --
    def __getattr__(self, name: str) -> Any:
        flags = self.__dict__["_flags"]
        flag = flags.get(name)
        if flag is None:
            raise AttributeError(name)
        if not self.__dict__["_parsed"] and not flag.present:
            if not self.__dict__["_implicit_parse"]:
                raise UnparsedFlagAccessError(
                    f"Trying to access flag --{name} before flags were parsed.")
            self(sys.argv)
        return flag.value

    def __setattr__(self, name: str, value: Any) -> None:
        """Set flag `name`'s value, then run its validators (restoring the old value
        when one fails)."""
        flag = self._flags.get(name)
        if flag is None:
            raise UnrecognizedFlagError(name, value)
        old, old_default = flag.value, flag.using_default_value
        flag.value = value
        try:
            self._validate(flag)
            self._validate_groups(name)
        except Exception:
            flag.value, flag.using_default_value = old, old_default
            raise
        flag.using_default_value = False

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
        """The value of flag `name`, or `default` when it is None (AttributeError for
        an unknown flag, as absl)."""
        value = getattr(self, name)
        return default if value is None else value

    def set_default(self, name: str, value: Any) -> None:
        """Change a flag's default (and its value, while it still is the default)."""
        flag = self._flags.get(name)
        if flag is None:
            raise UnrecognizedFlagError(name, value)
        flag._set_default(value)
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
            UnrecognizedFlagError, IllegalFlagValueError, CantOpenFlagFileError, Error
            (a missing value).
        """
        if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name "
                             "as the first element.")
        object.__setattr__(self, "_program", argv[0])
        args = self.read_flags_from_files(list(argv[1:]), force_gnu=False)
        rest: list[tuple[str | None, str]] = []  # (unknown flag name or None, argument)
        undefok: set[str] = set()
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                if known_only:
                    rest.append((None, arg))
                break
            if not arg.startswith("-") or arg == "-":
                rest.append((None, arg))
                continue
            name, has_value, value = arg[2 if arg.startswith("--") else 1:].partition("=")
            if not name:
                rest.append((None, arg))
                continue

            def next_value(arg: str = arg) -> str:
                nonlocal i
                if i >= len(args):
                    raise Error(f"Missing value for flag {arg}")
                i += 1
                return args[i - 1]

            if name == "undefok":
                listed = [v.strip() for v in (value if has_value else next_value()).split(",")]
                undefok.update(listed)
                undefok.update(f"no{v}" for v in listed)
                continue
            flag = self._flags.get(name)
            if flag is not None:
                if not has_value:
                    value = "true" if flag.boolean else next_value()
            elif name.startswith("no") and len(name) > 2:
                negated = self._flags.get(name[2:])
                if negated is not None and negated.boolean:
                    if has_value:
                        raise ValueError(f"{arg} does not take an argument")
                    flag, value = negated, "false"
            if flag is None:
                rest.append((name, arg))
                continue
            flag.parse(value)
            flag.using_default_value = False
        remaining = []
        for name, arg in rest:
            if name is None:
                remaining.append(arg)
            elif name in undefok:
                continue
            elif known_only:
                remaining.append(arg)
            else:
                raise UnrecognizedFlagError(name, arg, self._suggestions(name))
        remaining.extend(args[i:])
        self.mark_as_parsed()
        for flag in self._unique():
            self._validate(flag)
        self._validate_groups()
        return [argv[0], *remaining]

    def read_flags_from_files(self, argv: Sequence[str], force_gnu: bool = True) -> list[str]:
        """`argv` with each `--flagfile=path` (or `--flagfile path`) replaced by the
        file's arguments, in place (nested flag files too; a circular one is skipped).

        Raises:
            CantOpenFlagFileError: a flag file cannot be read.
            IllegalFlagValueError: `--flagfile` ends the arguments.
        """
        del force_gnu  # tfx scans GNU-style always
        out: list[str] = []
        args = list(argv)
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg in ("--flagfile", "-flagfile"):
                if i >= len(args):
                    raise IllegalFlagValueError("--flagfile with no argument")
                out.extend(self._flag_file_lines(os.path.expanduser(args[i])))
                i += 1
            elif arg.startswith(("--flagfile=", "-flagfile=")):
                out.extend(self._flag_file_lines(_flag_file_name(arg)))
            else:
                out.append(arg)
                if arg == "--":
                    break
        return out + args[i:]

    def _flag_file_lines(self, filename: str, seen: list[str] | None = None) -> list[str]:
        if not filename:
            return []
        seen = [] if seen is None else seen
        if filename in seen:
            sys.stderr.write(f"Warning: Hit circular flagfile dependency. Ignoring flagfile: "
                             f"{filename}\n")
            return []
        seen.append(filename)
        try:
            with open(filename) as file:
                lines = file.readlines()
        except OSError as exc:
            raise CantOpenFlagFileError(f"ERROR:: Unable to open flagfile: {exc}") from None
        out: list[str] = []
        for line in lines:
            if line.isspace() or line.startswith(("#", "//")):
                continue
            if line.startswith(("--flagfile=", "-flagfile=")):
                out.extend(self._flag_file_lines(_flag_file_name(line), seen))
            else:
                out.append(line.strip())
        seen.pop()
        return out

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
    def _render(self, module: str, flags: Iterable[Flag], prefix: str = "") -> str:
        """absl's help block of `module`: its name, then each flag still registered under
        its name (or one of absl's special flags), sorted by name, once."""
        shown = module
        if module == "__main__":  # absl shows the program for the main module
            shown = self._program or (sys.argv[0] if sys.argv and sys.argv[0] else module)
        lines = [f"\n{prefix}{shown}:"]
        done: set[int] = set()
        for flag in sorted(flags, key=lambda f: f.name):
            current = self._flags.get(flag.name)
            if (current is not flag and _SPECIAL_FLAGS.get(flag.name) is not flag) or (
                    id(flag) in done):
                continue
            done.add(id(flag))
            lines.append(flag.help_text(prefix + "  "))
        return "\n".join(lines)

    def module_help(self, module: str | types.ModuleType) -> str:
        """The help of the key flags of `module` (a name or a module; '' if none), as
        absl's: a line break, the module's name and colon, then each flag's entry."""
        name = module if isinstance(module, str) else module.__name__
        flags = self.get_key_flags_for_module(name)
        return self._render(name, flags) if flags else ""

    def main_module_help(self) -> str:
        """The help of the main program's key flags (what `--help` lists)."""
        return self.module_help("__main__")

    def get_help(self, prefix: str = "", include_special_flags: bool = True) -> str:
        """The help of every flag, grouped by the module that defined it, the main
        program's first, then (with `include_special_flags`) absl's --flagfile and
        --undefok under "absl.flags"; each line starts with `prefix`."""
        modules = sorted((m for m, flags in self._flags_by_module.items() if flags),
                         key=lambda m: (m != "__main__", m))
        blocks = [self._render(m, self._flags_by_module[m], prefix) for m in modules]
        if include_special_flags:
            blocks.append(self._render("absl.flags", _SPECIAL_FLAGS.values(), prefix))
        return "\n".join(blocks)

    @property
    def program(self) -> str:
        """The program name of the last parsed command line ('' before one)."""
        return self._program

    def __str__(self) -> str:
        return self.get_help()


def _flag_file_name(directive: str) -> str:
    return os.path.expanduser(directive.split("=", 1)[1].strip())


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
_RESERVED = frozenset(dir(FlagValues))

# The flags every command line has, listed by --helpfull as absl lists them.
_SPECIAL_FLAGS = {
    "flagfile": Flag(ArgumentParser(), ArgumentSerializer(), "flagfile", "",
                     "Insert flag definitions from the given file into the command line."),
    "undefok": Flag(ArgumentParser(), ArgumentSerializer(), "undefok", "",
                    "comma-separated list of flag names that it is okay to specify on the "
                    "command line even if the program does not define a flag with that "
                    "name.  IMPORTANT: flags in this list that have arguments MUST use the "
                    "--flag=value format."),
}


FLAGS = FlagValues(implicit_parse=True)


class FlagHolder:
    """A defined flag, as DEFINE_* return it: read `.value` instead of `FLAGS.name`.

    Example:
        >>> STEPS = DEFINE_integer("steps", 10, "Steps.")
        >>> FLAGS(["prog", "--steps=3"]); STEPS.value
        3
    """

    def __init__(self, flag_values: FlagValues, flag: Flag,
                 ensure_non_none_value: bool = False) -> None:
        self._flagvalues = flag_values
        self._name = flag.name
        self._ensure_non_none_value = ensure_non_none_value

    def __eq__(self, other: object) -> bool:
        mine, theirs = type(self).__name__, type(other).__name__
        raise TypeError(f"unsupported operand type(s) for ==: '{mine}' and '{theirs}' (did "
                        f"you mean to use '{mine}.value' instead?)")

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        name = type(self).__name__
        raise TypeError(f"bool() not supported for instances of type '{name}' (did you mean "
                        f"to use '{name}.value' instead?)")

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> Any:
        """The flag's value (IllegalFlagValueError if None for a flag that must have one:
        a non-None default, or required)."""
        value = getattr(self._flagvalues, self._name)
        if self._ensure_non_none_value and value is None:
            raise IllegalFlagValueError(f"Unexpected None value for flag {self._name}")
        return value

    @property
    def default(self) -> Any:
        return self._flagvalues[self._name].default

    @property
    def present(self) -> bool:
        """Whether the command line set the flag."""
        return bool(self._flagvalues[self._name].present)

    def serialize(self) -> str:
        return self._flagvalues[self._name].serialize()


def _resolve(flag_ref: str | FlagHolder, flag_values: FlagValues | None
             ) -> tuple[str, FlagValues]:
    """(name, FlagValues) of a flag given by name or FlagHolder."""
    if isinstance(flag_ref, FlagHolder):
        if flag_values is not None and flag_values is not FLAGS and (
                flag_values is not flag_ref._flagvalues):
            raise ValueError("flag_values must not be customized when operating on a "
                             "FlagHolder")
        return flag_ref.name, flag_ref._flagvalues
    return flag_ref, FLAGS if flag_values is None else flag_values


def _resolve_many(flag_refs: Sequence[str | FlagHolder], flag_values: FlagValues | None
                  ) -> tuple[list[str], FlagValues]:
    found: FlagValues | None = None
    names = []
    for ref in flag_refs:
        name, values = (ref.name, ref._flagvalues) if isinstance(ref, FlagHolder) else (
            ref, FLAGS if flag_values is None else flag_values)
        if found is not None and found is not values:
            raise ValueError("multiple FlagValues instances used in invocation. FlagHolders "
                             "must be registered to the same FlagValues instance as do flag "
                             "names, if provided.")
        found = values
        names.append(name)
    if found is None:
        raise ValueError("flag_refs argument must not be empty")
    return names, found


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

"""`tf.flags` registry: FlagValues (parsing, validation, help), FLAGS, FlagHolder, errors.

A FlagValues maps flag names (and short names) to Flags, records which module defined
each flag and which flags are key to a module, parses command lines as absl's (see
flags_api's docstring for the forms, --flagfile and --undefok), runs validators after
parsing and assignment, and formats help as absl's `--help`. `FLAGS` is TensorFlow's
global one, parsing `sys.argv` on the first read of an unparsed flag. DEFINE_* return a
FlagHolder of the flag they defined.

    values = FlagValues()
    values["steps"] = Flag(IntegerParser(), ArgumentSerializer(), "steps", 10, "Steps.")
    values(["prog", "--steps=3"]); values.steps      # 3
"""

from __future__ import annotations

import copy
import os
import sys
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TextIO
from xml.dom import minidom

from tfx.core.api.flags_flag import Error, Flag, IllegalFlagValueError
from tfx.core.api.flags_parsers import ArgumentParser, ArgumentSerializer
from tfx.core.api.flags_text import xml_element

__all__ = ["FLAGS", "CantOpenFlagFileError", "DuplicateFlagError", "FlagHolder",
           "FlagNameConflictsWithMethodError", "FlagValues", "UnparsedFlagAccessError",
           "UnrecognizedFlagError", "ValidationError"]


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
_DISCLAIMED = {__name__, "tfx.core.api.flags_api", "tfx.core.api.flags_flag",
               "tfx.core.api.tf_decorator"}


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
        setattr_(self, "_gnu_getopt", True)

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
                if self._gnu_getopt:
                    continue
                break  # without GNU scanning the first positional argument ends the flags
            name, has_value, value = arg[2 if arg.startswith("--") else 1:].partition("=")
            if not name:
                rest.append((None, arg))
                if self._gnu_getopt:
                    continue
                break

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
        gnu = force_gnu or self._gnu_getopt
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
                if not arg.startswith("-"):
                    if not gnu:
                        break
                elif "=" not in arg and i < len(args) and not args[i].startswith("-"):
                    # the value of `--name value` is no positional argument
                    flag = self._flags.get(arg.lstrip("-"))
                    if flag is not None and not flag.boolean:
                        out.append(args[i])
                        i += 1
        return out + args[i:]

    def set_gnu_getopt(self, gnu_getopt: bool = True) -> None:
        """Scan GNU-style (flags after positional arguments too; the default) or stop at
        the first positional argument."""
        object.__setattr__(self, "_gnu_getopt", gnu_getopt)

    def is_gnu_getopt(self) -> bool:
        return self._gnu_getopt

    def flags_into_string(self) -> str:
        """Every flag other than None as `--name=value`, one a line, ordered by (module,
        name), as absl's (and gflags') CommandlineFlagsIntoString."""
        lines = []
        for _, flags in sorted(self._flags_by_module.items()):
            for flag in sorted(flags, key=lambda f: f.name):
                if flag.value is not None:
                    lines.append(flag.serialize() + "\n")
        return "".join(lines)

    def append_flags_into_file(self, filename: str) -> None:
        """Append `flags_into_string()` to `filename` (a flag file for --flagfile)."""
        with open(filename, "a") as out:
            out.write(self.flags_into_string())

    def __getstate__(self) -> Any:
        raise TypeError("can't pickle FlagValues")

    def __copy__(self) -> Any:
        raise TypeError("FlagValues does not support shallow copies. Use "
                        "absl.testing.flagsaver or copy.deepcopy instead.")

    def __deepcopy__(self, memo: dict[int, Any]) -> FlagValues:
        twin = object.__new__(type(self))
        for key, value in self.__dict__.items():
            object.__setattr__(twin, key, copy.deepcopy(value, memo))
        return twin

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

    def write_help_in_xml_format(self, outfile: TextIO | None = None) -> None:
        """Write every flag as XML (absl's and gflags' `--helpxml` format) to `outfile`
        (default stdout): the program, its usage, then a <flag> per flag by module and
        name, the main program's key flags marked."""
        program = sys.argv[0] if sys.argv else ""
        doc = minidom.Document()
        root = doc.createElement("AllFlags")
        doc.appendChild(root)
        root.appendChild(xml_element(doc, "program", os.path.basename(program)))
        usage = getattr(sys.modules.get("__main__"), "__doc__", None)
        usage = f"\nUSAGE: {program} [flags]\n" if not usage else usage.replace("%s",
                                                                                 program)
        root.appendChild(xml_element(doc, "usage", usage))
        key_flags = self.get_key_flags_for_module("__main__")
        for module in sorted(self._flags_by_module,
                             key=lambda m: program if m == "__main__" else m):
            shown = program if module == "__main__" else module
            for flag in sorted(self._flags_by_module[module], key=lambda f: f.name):
                is_key = any(flag is k for k in key_flags)
                root.appendChild(flag._create_xml_dom_element(doc, shown, is_key=is_key))
        outfile = outfile or sys.stdout
        outfile.write(doc.toprettyxml(indent="  ", encoding="utf-8").decode("utf-8"))
        outfile.flush()

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

"""`tf.flags` parsers and serializers: text (or a Python value) to a flag's value and back.

A parser turns a command-line argument (or a Python default) into a flag's value and
raises ValueError/TypeError with a readable reason when it cannot; its `syntactic_help`
is the type line of the flag's help ("an integer in the range [0, 10]") and
`flag_type()` names the type. A serializer writes a value back as command-line text.
These are absl's classes as TensorFlow 1.x's `tf.flags` exports them, with absl's
messages:

    IntegerParser(0, 10).parse("0x1f")      # 31
    IntegerParser(0, 10).syntactic_help     # 'an integer in the range [0, 10]'
    ListParser().parse('a, "b,c"')          # ['a', 'b,c']
    CsvListSerializer(",").serialize(["a", "b,c"])   # 'a,"b,c"'

As absl's, parsers hold no state but their construction arguments, so a parser class
called again with the same positional arguments returns the same instance.
"""

from __future__ import annotations

import csv
import enum
import io
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any
from xml.dom import minidom

from tfx.core.api.flags_text import xml_element

__all__ = [
    "ArgumentParser",
    "ArgumentSerializer",
    "BaseListParser",
    "BooleanParser",
    "CsvListSerializer",
    "EnumClassListSerializer",
    "EnumClassParser",
    "EnumClassSerializer",
    "EnumParser",
    "FloatParser",
    "IntegerParser",
    "ListParser",
    "ListSerializer",
    "NumericParser",
    "WhitespaceSeparatedListParser",
]


class _SharedByArguments(type):
    """Parsers are shared: one instance per (class, positional arguments), as absl's.

    Keyword arguments, or positional ones that cannot be hashed, make a new instance.
    """

    _instances: dict[tuple, Any] = {}

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return super().__call__(*args, **kwargs)
        key = (cls, *args)
        try:
            found = _SharedByArguments._instances.get(key)
        except TypeError:
            return super().__call__(*args)
        if found is None:
            found = _SharedByArguments._instances.setdefault(key, super().__call__(*args))
        return found


class ArgumentParser(metaclass=_SharedByArguments):
    """Parses a string flag: the value is the argument itself.

    Subclasses override `parse` (raising ValueError or TypeError for a bad argument),
    `flag_type` and `syntactic_help`.
    """

    syntactic_help: str = ""

    def __class_getitem__(cls, item: Any) -> type:
        # absl's parsers are generic (ArgumentParser[str]()); the type does not matter here.
        return cls

    def parse(self, argument: Any) -> Any:
        """The value of `argument`; TypeError unless it is a string."""
        if not isinstance(argument, str):
            raise TypeError(f'flag value must be a string, found "{type(argument)}"')
        return argument

    def flag_type(self) -> str:
        """The type's name in help and XML help."""
        return "string"

    def _custom_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        """The parser's extra elements in XML help (bounds, separators)."""
        del doc
        return []


class ArgumentSerializer:
    """Writes a flag value as command-line text (`str(value)`)."""

    def __class_getitem__(cls, item: Any) -> type:
        return cls

    def serialize(self, value: Any) -> str:
        return str(value)


class NumericParser(ArgumentParser):
    """A number, optionally bounded (inclusive): `convert`, then the bounds check."""

    lower_bound: Any = None
    upper_bound: Any = None

    def is_outside_bounds(self, val: Any) -> bool:
        """Whether `val` is below the lower or above the upper bound."""
        return ((self.lower_bound is not None and val < self.lower_bound)
                or (self.upper_bound is not None and val > self.upper_bound))

    def parse(self, argument: Any) -> Any:
        val = self.convert(argument)
        if self.is_outside_bounds(val):
            raise ValueError(f"{val} is not {self.syntactic_help}")
        return val

    def convert(self, argument: Any) -> Any:
        """The number `argument` stands for (subclasses)."""
        raise NotImplementedError

    def _custom_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return [xml_element(doc, name, bound) for name, bound in
                (("lower_bound", self.lower_bound), ("upper_bound", self.upper_bound))
                if bound is not None]

    def _bounds_help(self, article: str, kind: str, lower: Any, upper: Any) -> str:
        """absl's phrase for the bounds: 'a non-negative integer', 'number <= 5', ..."""
        if lower is not None and upper is not None:
            return f"{article} {kind} in the range [{lower}, {upper}]"
        if kind == "integer":
            if lower == 1:
                return "a positive integer"
            if upper == -1:
                return "a negative integer"
        if lower == 0:
            return f"a non-negative {kind}"
        if upper == 0:
            return f"a non-positive {kind}"
        if upper is not None:
            return f"{kind} <= {upper}"
        if lower is not None:
            return f"{kind} >= {lower}"
        return f"{article} {kind}"


class FloatParser(NumericParser):
    """A float (from a string, int or float), optionally bounded."""

    syntactic_help = "a number"

    def __init__(self, lower_bound: float | None = None,
                 upper_bound: float | None = None) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.syntactic_help = self._bounds_help("a", "number", lower_bound, upper_bound)

    def convert(self, argument: Any) -> float:
        if isinstance(argument, (int, float, str)) and not isinstance(argument, bool):
            return float(argument)
        raise TypeError(
            f"Expect argument to be a string, int, or float, found {type(argument)}")

    def flag_type(self) -> str:
        return "float"


class IntegerParser(NumericParser):
    """An int (decimal, `0x` hex or `0o` octal text, or an int), optionally bounded."""

    syntactic_help = "an integer"

    def __init__(self, lower_bound: int | None = None, upper_bound: int | None = None) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.syntactic_help = self._bounds_help("an", "integer", lower_bound, upper_bound)

    def convert(self, argument: Any) -> int:
        if isinstance(argument, int) and not isinstance(argument, bool):
            return argument
        if isinstance(argument, str):
            # absl reads a prefix only in lower case and only right at the start.
            base = {"0x": 16, "0o": 8}.get(argument[:2], 10) if len(argument) > 2 else 10
            return int(argument, base)
        raise TypeError(f"Expect argument to be a string or int, found {type(argument)}")

    def flag_type(self) -> str:
        return "int"


class BooleanParser(ArgumentParser):
    """true/t/1 or false/f/0 (any case), or an int 0 or 1."""

    def parse(self, argument: Any) -> bool:
        if isinstance(argument, str):
            lowered = argument.lower()
            if lowered in ("true", "t", "1"):
                return True
            if lowered in ("false", "f", "0"):
                return False
            raise ValueError("Non-boolean argument to boolean flag", argument)
        if isinstance(argument, int):
            if argument in (0, 1):
                return bool(argument)
            raise ValueError("Non-boolean argument to boolean flag", argument)
        raise TypeError("Non-boolean argument to boolean flag", argument)

    def flag_type(self) -> str:
        return "bool"


class EnumParser(ArgumentParser):
    """One of `enum_values` (the listed spelling of a case-insensitive match).

    Raises:
        ValueError: `enum_values` is empty or a string.
    """

    def __init__(self, enum_values: Iterable[str], case_sensitive: bool = True) -> None:
        if not enum_values:
            raise ValueError(f'enum_values cannot be empty, found "{enum_values}"')
        if isinstance(enum_values, str):
            raise ValueError(f'enum_values cannot be a str, found "{enum_values}"')
        self.enum_values = list(enum_values)
        self.case_sensitive = case_sensitive

    def parse(self, argument: Any) -> str:
        if self.case_sensitive:
            if argument in self.enum_values:
                return argument
        else:
            wanted = argument.upper()
            for value in self.enum_values:
                if value.upper() == wanted:
                    return value
        raise ValueError(f"value should be one of <{'|'.join(self.enum_values)}>")

    def flag_type(self) -> str:
        return "string enum"


class EnumClassParser(ArgumentParser):
    """A member of `enum_class`, by name (case-insensitively unless `case_sensitive`).

    Raises:
        TypeError: `enum_class` is not an Enum.
        ValueError: it has no members, or two names differing only in case when not
            `case_sensitive`.
    """

    def __init__(self, enum_class: type[enum.Enum], case_sensitive: bool = True) -> None:
        if not (isinstance(enum_class, type) and issubclass(enum_class, enum.Enum)):
            raise TypeError(f"{enum_class} is not a subclass of Enum.")
        if not enum_class.__members__:
            raise ValueError(f'enum_class cannot be empty, but "{enum_class}" is empty.')
        if not case_sensitive:
            counts = Counter(name.lower() for name in enum_class.__members__)
            clashes = {name for name, count in counts.items() if count > 1}
            if clashes:
                raise ValueError(f"Duplicate enum values for {clashes} using "
                                 "case_sensitive=False")
        self.enum_class = enum_class
        self._case_sensitive = case_sensitive
        names = tuple(enum_class.__members__)
        self._member_names = names if case_sensitive else tuple(n.lower() for n in names)

    @property
    def member_names(self) -> Sequence[str]:
        """The accepted names (lower case when not case-sensitive)."""
        return self._member_names

    def parse(self, argument: Any) -> enum.Enum:
        if isinstance(argument, self.enum_class):
            return argument
        if not isinstance(argument, str):
            raise ValueError(f"{argument} is not an enum member or a name of a member in "
                             f"{self.enum_class}")
        key = EnumParser(self._member_names, case_sensitive=self._case_sensitive).parse(
            argument)
        if self._case_sensitive:
            return self.enum_class[key]
        return next(member for name, member in self.enum_class.__members__.items()
                    if name.lower() == key.lower())

    def flag_type(self) -> str:
        return "enum class"


class ListSerializer(ArgumentSerializer):
    """A list joined by `list_sep`."""

    def __init__(self, list_sep: str) -> None:
        self.list_sep = list_sep

    def serialize(self, value: Any) -> str:
        return self.list_sep.join(str(item) for item in value)


class EnumClassSerializer(ArgumentSerializer):
    """An Enum member by name (lower case if `lowercase`)."""

    def __init__(self, lowercase: bool) -> None:
        self._lowercase = lowercase

    def serialize(self, value: Any) -> str:
        name = str(value.name)
        return name.lower() if self._lowercase else name


class EnumClassListSerializer(ListSerializer):
    """Enum members by name, joined by `list_sep` (one member: its name).

    Keyword arguments go to the EnumClassSerializer of the members (`lowercase`).
    """

    def __init__(self, list_sep: str, **kwargs: Any) -> None:
        super().__init__(list_sep)
        self._element_serializer = EnumClassSerializer(**kwargs)

    def serialize(self, value: Any) -> str:
        if isinstance(value, list):
            return self.list_sep.join(self._element_serializer.serialize(v) for v in value)
        return self._element_serializer.serialize(value)


class CsvListSerializer(ListSerializer):
    """A list as one CSV row with `list_sep` as the delimiter (items quoted as needed)."""

    def serialize(self, value: Any) -> str:
        out = io.StringIO()
        csv.writer(out, delimiter=self.list_sep).writerow([str(item) for item in value])
        return out.getvalue().strip()


class BaseListParser(ArgumentParser):
    """A list of strings split at `token` (whitespace when None); `name` describes the
    separator in the help ("a comma separated list").

    Raises:
        ValueError: `name` is empty.
    """

    def __init__(self, token: str | None = None, name: str | None = None) -> None:
        if not name:
            raise ValueError("BaseListParser needs the name of its separator")
        self._token = token
        self._name = name
        self.syntactic_help = f"a {name} separated list"

    def parse(self, argument: Any) -> list[str]:
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        return [item.strip() for item in argument.split(self._token)]

    def flag_type(self) -> str:
        return f"{self._name} separated list of strings"


class ListParser(BaseListParser):
    """A comma-separated list of strings, read as one CSV row (quotes group commas)."""

    def __init__(self) -> None:
        super().__init__(",", "comma")

    def parse(self, argument: Any) -> list[str]:
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        try:
            row = next(csv.reader([argument], strict=True))
        except csv.Error as exc:
            raise ValueError(f"Unable to parse the value {argument!r} as a "
                             f"{self.flag_type()}: {exc}") from exc
        return [item.strip() for item in row]

    def _custom_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return [xml_element(doc, "list_separator", repr(","))]


class WhitespaceSeparatedListParser(BaseListParser):
    """A whitespace-separated list of strings; with `comma_compat`, commas separate too."""

    def __init__(self, comma_compat: bool = False) -> None:
        self._comma_compat = comma_compat
        super().__init__(None, "whitespace or comma" if comma_compat else "whitespace")

    def parse(self, argument: Any) -> list[str]:
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        if self._comma_compat:
            argument = argument.replace(",", " ")
        return argument.split()

    def _custom_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        separators = sorted(string.whitespace + ("," if self._comma_compat else ""))
        return [xml_element(doc, "list_separator", repr(c)) for c in separators]

"""`tf.flags` Flag classes: one command-line flag, its parser, serializer and value.

A Flag parses its default at construction (so a bad default fails at definition) and
each command-line argument with its parser, recasting the parser's ValueError or
TypeError as IllegalFlagValueError "flag --name=argument: reason". `present` counts
the arguments parsed; `serialize()` writes the value back as a command-line argument.
These are absl's classes as TensorFlow 1.x's `tf.flags` exports them:

    flag = Flag(IntegerParser(), ArgumentSerializer(), "steps", "10", "Steps.")
    flag.value, flag.default_as_str        # 10, "'10'"
    flag.parse("0x20"); flag.serialize()   # '--steps=32'

MultiFlag collects repeated arguments into a list; EnumFlag, EnumClassFlag and
MultiEnumClassFlag take their values from a list of strings or an Enum class and show
the choices ("<a|b>: ...") in their help.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Iterable
from typing import Any
from xml.dom import minidom

from tfx.core.api.flags_parsers import (
    ArgumentParser,
    ArgumentSerializer,
    BooleanParser,
    EnumClassListSerializer,
    EnumClassParser,
    EnumClassSerializer,
    EnumParser,
)
from tfx.core.api.flags_text import text_wrap, xml_element

__all__ = ["BooleanFlag", "EnumClassFlag", "EnumFlag", "Error", "Flag",
           "IllegalFlagValueError", "MultiEnumClassFlag", "MultiFlag"]


class Error(Exception):
    """The base of the flag errors."""


class IllegalFlagValueError(Error):
    """A flag's value cannot be parsed, is out of range or fails a validator."""


class Flag:
    """One command-line flag.

    Args:
        parser: an ArgumentParser turning text (or a Python value) into the value.
        serializer: an ArgumentSerializer writing the value back (None: not
            serializable, unless `boolean`).
        name: the flag's name (`--name`).
        default: its value before parsing, itself parsed (None: no default).
        help_string: the help text ('(no help available)' when empty).
        short_name: a one-letter alias (`-n`).
        boolean: set by `--name`/`--noname`, without a value.
        allow_override: a later definition of the name may replace this flag.
        allow_override_cpp, allow_hide_cpp: kept for absl's signature (no C++ flags).
        allow_overwrite: parsing a second time replaces the value (else an error).
        allow_using_method_names: the name may shadow a FlagValues method.
        module_name: tfx's: the module whose help lists the flag when it is
            registered with `FlagValues.register` (DEFINE_* find the caller instead).

    Attributes:
        value, default, default_unparsed, default_as_str (repr of the serialized
        default, or None), present (arguments parsed), using_default_value,
        validators, parser, serializer, and the arguments above.

    Raises:
        IllegalFlagValueError: the default does not parse.
    """

    def __init__(self, parser: ArgumentParser, serializer: ArgumentSerializer | None,
                 name: str, default: Any, help_string: str | None,
                 short_name: str | None = None, boolean: bool = False,
                 allow_override: bool = False, allow_override_cpp: bool = False,
                 allow_hide_cpp: bool = False, allow_overwrite: bool = True,
                 allow_using_method_names: bool = False, *, module_name: str = "") -> None:
        self.name = name
        self.help = help_string or "(no help available)"
        self.short_name = short_name
        self.boolean = boolean
        self.present = 0
        self.parser = parser
        self.serializer = serializer
        self.allow_override = allow_override
        self.allow_override_cpp = allow_override_cpp
        self.allow_hide_cpp = allow_hide_cpp
        self.allow_overwrite = allow_overwrite
        self.allow_using_method_names = allow_using_method_names
        self.module_name = module_name
        self.using_default_value = True
        self._value: Any = None
        self.validators: list[Any] = []
        if allow_hide_cpp and allow_override_cpp:
            raise Error("Can't have both allow_hide_cpp (means use Python flag) and "
                        "allow_override_cpp (means use C++ flag after InitGoogle)")
        self._set_default(default)

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value

    # Flags compare and hash by identity, and refuse truth tests and copies, as absl's.
    def __hash__(self) -> int:
        return hash(id(self))

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Flag):
            return id(self) < id(other)
        return NotImplemented

    def __bool__(self) -> bool:
        raise TypeError("A Flag instance would always be True. Did you mean to test the "
                        "`.value` attribute?")

    def __getstate__(self) -> None:
        raise TypeError("can't pickle Flag objects")

    def __copy__(self) -> Flag:
        raise TypeError(f"{type(self).__name__} does not support shallow copies. Use "
                        "copy.deepcopy instead.")

    def __deepcopy__(self, memo: dict[int, Any]) -> Flag:
        twin = object.__new__(type(self))
        twin.__dict__ = copy.deepcopy(self.__dict__, memo)
        return twin

    def _get_parsed_value_as_string(self, value: Any) -> str | None:
        if value is None:
            return None
        if self.serializer:
            return repr(self.serializer.serialize(value))
        if self.boolean:
            return repr("true" if value else "false")
        return repr(str(value))

    def parse(self, argument: Any) -> None:
        """Parse `argument` into the value (IllegalFlagValueError when it does not parse,
        or when the flag was parsed already and overwriting is not allowed)."""
        if self.present and not self.allow_overwrite:
            raise IllegalFlagValueError(
                f"flag --{self.name}={argument}: already defined as {self.value}")
        self.value = self._parse(argument)
        self.present += 1

    def _parse(self, argument: Any) -> Any:
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError, OverflowError) as exc:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {exc}") from None

    def unparse(self) -> None:
        """Back to the default, as if never parsed."""
        self.value = self.default
        self.using_default_value = True
        self.present = 0

    def serialize(self) -> str:
        """The value as a command-line argument ('--name=v', '--[no]name', '' for None)."""
        return self._serialize(self.value)

    def _serialize(self, value: Any) -> str:
        if value is None:
            return ""
        if self.boolean:
            return f"--{self.name}" if value else f"--no{self.name}"
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        return f"--{self.name}={self.serializer.serialize(value)}"

    def _set_default(self, value: Any) -> None:
        """Change the default (and the value, while it is the default)."""
        self.default_unparsed = value
        self.default = None if value is None else self._parse_from_default(value)
        self.default_as_str = self._get_parsed_value_as_string(self.default)
        if self.using_default_value:
            self.value = self.default

    def _parse_from_default(self, value: Any) -> Any:
        return self._parse(value)

    def flag_type(self) -> str:
        """The type's name ('int', 'multi string', 'comma separated list of strings')."""
        return self.parser.flag_type()

    def help_text(self, prefix: str = "  ") -> str:
        """The flag's entry in `--help`, as absl formats it, indented by `prefix`."""
        names = f"-{self.short_name}," if self.short_name else ""
        names += f"--[no]{self.name}:" if self.boolean else f"--{self.name}:"
        text = text_wrap(f"{names} {self.help or ''}", indent=prefix + "  ",
                         firstline_indent=prefix)
        if self.default_as_str:
            text += "\n" + text_wrap(f"(default: {self.default_as_str})",
                                     indent=prefix + "  ")
        if self.parser.syntactic_help:
            text += "\n" + text_wrap(f"({self.parser.syntactic_help})", indent=prefix + "  ")
        return text

    def help_lines(self) -> list[str]:
        """`help_text()` as lines."""
        return self.help_text().split("\n")

    def _create_xml_dom_element(self, doc: minidom.Document, module_name: str,
                                is_key: bool = False) -> minidom.Element:
        """The flag's <flag> element in XML help, as absl writes it."""
        element = doc.createElement("flag")
        if is_key:
            element.appendChild(xml_element(doc, "key", "yes"))
        element.appendChild(xml_element(doc, "file", module_name))
        element.appendChild(xml_element(doc, "name", self.name))
        if self.short_name:
            element.appendChild(xml_element(doc, "short_name", self.short_name))
        if self.help:
            element.appendChild(xml_element(doc, "meaning", self.help))
        if self.serializer and not isinstance(self.default, str):
            default = "" if self.default is None else self.serializer.serialize(self.default)
        else:
            default = self.default
        element.appendChild(xml_element(doc, "default", default))
        element.appendChild(xml_element(doc, "current",
                                        self._serialize_value_for_xml(self.value)))
        element.appendChild(xml_element(doc, "type", self.flag_type()))
        for extra in self._extra_xml_dom_elements(doc):
            element.appendChild(extra)
        return element

    def _serialize_value_for_xml(self, value: Any) -> Any:
        return value

    def _extra_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return self.parser._custom_xml_dom_elements(doc)


class BooleanFlag(Flag):
    """A flag set by `--name`/`--noname` (or `--name=true|false|t|f|1|0`)."""

    def __init__(self, name: str, default: Any, help: str | None,  # noqa: A002
                 short_name: str | None = None, **args: Any) -> None:
        super().__init__(BooleanParser(), None, name, default, help, short_name, True, **args)


class EnumFlag(Flag):
    """A flag whose value is one of `enum_values`; the help starts '<a|b>: '."""

    def __init__(self, name: str, default: Any, help: str | None,  # noqa: A002
                 enum_values: Iterable[str], short_name: str | None = None,
                 case_sensitive: bool = True, **args: Any) -> None:
        parser = EnumParser(enum_values, case_sensitive)
        super().__init__(parser, ArgumentSerializer(), name, default, help, short_name, **args)
        self.parser = parser
        self.help = f"<{'|'.join(parser.enum_values)}>: {self.help}"

    def _extra_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return [xml_element(doc, "enum_value", v) for v in self.parser.enum_values]


class EnumClassFlag(Flag):
    """A flag whose value is a member of `enum_class` (named case-insensitively unless
    `case_sensitive`; serialized in lower case then)."""

    def __init__(self, name: str, default: Any, help: str | None,  # noqa: A002
                 enum_class: type[enum.Enum], short_name: str | None = None,
                 case_sensitive: bool = False, **args: Any) -> None:
        parser = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        serializer = EnumClassSerializer(lowercase=not case_sensitive)
        super().__init__(parser, serializer, name, default, help, short_name, **args)
        self.parser = parser
        self.help = f"<{'|'.join(parser.member_names)}>: {self.help}"

    def _extra_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return [xml_element(doc, "enum_value", name)
                for name in self.parser.enum_class.__members__]


class MultiFlag(Flag):
    """A flag that may be repeated; its value is the list of every occurrence's value.

    The default may be one value or an iterable of values; the first command-line
    occurrence replaces it, later ones append.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help += ";\n    repeat this option to specify a list of values"

    def parse(self, arguments: Any) -> None:
        values = self._parse(arguments)
        if self.present:
            self.value.extend(values)
        else:
            self.value = values
        self.present += len(values)

    def _parse(self, arguments: Any) -> list[Any]:
        if isinstance(arguments, str) or not isinstance(arguments, Iterable):
            arguments = [arguments]
        return [super(MultiFlag, self)._parse(item) for item in arguments]

    def _serialize(self, value: Any) -> str:
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        if value is None:
            return ""
        return "\n".join(super(MultiFlag, self)._serialize(item) for item in value)

    def flag_type(self) -> str:
        return "multi " + self.parser.flag_type()

    def _extra_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        values = getattr(self.parser, "enum_values", ())
        return [xml_element(doc, "enum_value", v) for v in values]


class MultiEnumClassFlag(MultiFlag):
    """A repeatable flag of `enum_class` members (see MultiFlag and EnumClassFlag)."""

    def __init__(self, name: str, default: Any, help_string: str,
                 enum_class: type[enum.Enum], case_sensitive: bool = False,
                 **args: Any) -> None:
        parser = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        serializer = EnumClassListSerializer(list_sep=",", lowercase=not case_sensitive)
        super().__init__(parser, serializer, name, default, help_string, **args)
        self.parser = parser
        self.serializer = serializer
        self.help = (f"<{'|'.join(parser.member_names)}>: "
                     f"{help_string or '(no help available)'};\n"
                     "    repeat this option to specify a list of values")

    def _extra_xml_dom_elements(self, doc: minidom.Document) -> list[minidom.Element]:
        return [xml_element(doc, "enum_value", name)
                for name in self.parser.enum_class.__members__]

    def _serialize_value_for_xml(self, value: Any) -> Any:
        if value is None:
            return ""
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        return self.serializer.serialize(value)

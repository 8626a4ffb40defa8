"""`tf.flags` text helpers: the help width, wrapping, and docstrings turned into help.

As absl's (TensorFlow 1.x's `tf.flags.text_wrap`, `doc_to_help`, `get_help_width`):

    text_wrap("a b c", length=3, indent="  ", firstline_indent="")   # 'a\\n  b\\n  c'
    doc_to_help('''Line one
        continues here.

        Next paragraph.''')      # 'Line one continues here.\\n\\nNext paragraph.'
"""

from __future__ import annotations

import re
import shutil
import textwrap
from typing import Any
from xml.dom import minidom

__all__ = ["doc_to_help", "get_help_width", "text_wrap"]

# Characters XML 1.0 forbids or discourages, dropped from XML help as absl drops them.
_ILLEGAL_XML_CHARS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")

_DEFAULT_HELP_WIDTH = 80


def get_help_width() -> int:
    """The width help is wrapped to: the terminal's columns ($COLUMNS first), else 80."""
    return shutil.get_terminal_size(fallback=(_DEFAULT_HELP_WIDTH, 1)).columns


def text_wrap(text: str, length: int | None = None, indent: str = "",
              firstline_indent: str | None = None) -> str:
    """Wrap `text` to lines of at most `length` characters (indentation included).

    Each line of `text` is a paragraph wrapped on its own; lines of only whitespace
    become empty lines; tabs expand to 4 spaces.

    Args:
        text: the text.
        length: the line width (default `get_help_width()`).
        indent: the indentation of every line but the first.
        firstline_indent: the first line's indentation (default `indent`).

    Raises:
        ValueError: an indentation is not shorter than `length`.

    Example:
        >>> text_wrap("one two three", length=9, indent="  ")
        '  one two\\n  three'
    """
    if length is None:
        length = get_help_width()
    if indent is None:
        indent = ""
    if firstline_indent is None:
        firstline_indent = indent
    if len(indent) >= length:
        raise ValueError("Length of indent exceeds length")
    if len(firstline_indent) >= length:
        raise ValueError("Length of first line indent exceeds length")
    first = textwrap.TextWrapper(width=length, initial_indent=firstline_indent,
                                 subsequent_indent=indent)
    rest = textwrap.TextWrapper(width=length, initial_indent=indent, subsequent_indent=indent)
    lines: list[str] = []
    wrapper = first
    for paragraph in text.expandtabs(4).splitlines():
        paragraph = paragraph.strip()
        lines.extend(wrapper.wrap(paragraph) if paragraph else [""])
        wrapper = rest
    return "\n".join(lines)


def _dedent_docstring(doc: str) -> str:
    """PEP 257's trim: the first line stripped, the others less their common indent,
    leading and trailing blank lines dropped."""
    if not doc:
        return ""
    lines = doc.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    cut = min(indents) if indents else 0
    trimmed = [lines[0].strip()] + [line[cut:].rstrip() for line in lines[1:]]
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    while trimmed and not trimmed[0]:
        trimmed.pop(0)
    return "\n".join(trimmed)


def doc_to_help(doc: str) -> str:
    """A docstring as help text: dedented, and each line break between two non-blank
    characters joined into a space (blank lines and indented continuations stay).

    Example:
        >>> doc_to_help("Reads data\\n    from disk.")
        'Reads data from disk.'
    """
    doc = re.sub(r"^[ \t]+$", "", doc.strip(), flags=re.M)
    doc = _dedent_docstring(doc)
    return re.sub(r"(?<=\S)\n(?=\S)", " ", doc, flags=re.M)


def xml_element(doc: minidom.Document, name: str, value: Any) -> minidom.Element:
    """<name>value</name> as absl's XML help writes it: booleans in lower case, characters
    XML forbids dropped."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    element = doc.createElement(name)
    element.appendChild(doc.createTextNode(_ILLEGAL_XML_CHARS.sub("", text)))
    return element

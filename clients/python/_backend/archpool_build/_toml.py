"""The part of TOML that pyproject.toml uses, read with the standard library of every Python the client supports
(tomllib only came with 3.11): tables, bare keys, basic and literal strings, booleans, integers, arrays and
inline tables. Anything else is an error naming the line, never a silent misreading."""

import re
from typing import Any, Dict, List

__all__ = ["TomlError", "loads"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class TomlError(ValueError):
    """pyproject.toml holds something this reader does not read."""


def loads(text: str, name: str = "pyproject.toml") -> Dict[str, Any]:
    return _Reader(text, name).document()


class _Reader:
    def __init__(self, text: str, name: str) -> None:
        self._text = text
        self._name = name
        self._at = 0

    def document(self) -> Dict[str, Any]:
        root: Dict[str, Any] = {}
        table = root
        while True:
            self._skip(newlines=True)
            if self._at >= len(self._text):
                return root
            if self._peek() == "[":
                table = self._table_header(root)
            else:
                key = self._key()
                self._skip()
                self._expect("=")
                self._put(table, key, self._value())
            self._end_of_line()

    def _table_header(self, root: Dict[str, Any]) -> Dict[str, Any]:
        self._expect("[")
        if self._peek() == "[":
            raise self._error("arrays of tables ([[...]]) are not read here")
        self._skip()
        table = root
        while True:
            key = self._key()
            child = table.setdefault(key, {})
            if not isinstance(child, dict):
                raise self._error(f"'{key}' is already a value, not a table")
            table = child
            self._skip()
            if self._peek() == ".":
                self._at += 1
                self._skip()
                continue
            self._expect("]")
            return table

    def _key(self) -> str:
        match = _BARE_KEY.match(self._text, self._at)
        if not match:
            raise self._error("expected a bare key (letters, digits, '_' and '-')")
        self._at = match.end()
        return match.group()

    def _put(self, table: Dict[str, Any], key: str, value: Any) -> None:
        if key in table:
            raise self._error(f"key '{key}' is defined twice")
        table[key] = value

    def _value(self) -> Any:
        self._skip()
        c = self._peek()
        if c == '"':
            return self._basic_string()
        if c == "'":
            return self._literal_string()
        if c == "[":
            return self._array()
        if c == "{":
            return self._inline_table()
        for word, value in (("true", True), ("false", False)):
            if self._text.startswith(word, self._at):
                self._at += len(word)
                return value
        match = _INTEGER.match(self._text, self._at)
        if match:
            self._at = match.end()
            return int(match.group())
        raise self._error("expected a string, a boolean, an integer, an array or an inline table")

    def _basic_string(self) -> str:
        if self._text.startswith('"""', self._at):
            raise self._error('multi-line strings (""") are not read here')
        self._at += 1
        out: List[str] = []
        while True:
            c = self._peek()
            if c in ("", "\n"):
                raise self._error("string not closed on its line")
            self._at += 1
            if c == '"':
                return "".join(out)
            if c != "\\":
                out.append(c)
                continue
            e = self._peek()
            self._at += 1
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
            elif e in ("u", "U"):
                width = 4 if e == "u" else 8
                digits = self._text[self._at:self._at + width]
                if not re.fullmatch(r"[0-9A-Fa-f]{%d}" % width, digits):
                    raise self._error(f"\\{e} needs {width} hex digits")
                out.append(chr(int(digits, 16)))
                self._at += width
            else:
                raise self._error(f"unknown escape \\{e}")

    def _literal_string(self) -> str:
        if self._text.startswith("'''", self._at):
            raise self._error("multi-line strings (''') are not read here")
        end = self._text.find("'", self._at + 1)
        line_end = self._text.find("\n", self._at)
        if end < 0 or 0 <= line_end < end:
            raise self._error("string not closed on its line")
        value = self._text[self._at + 1:end]
        self._at = end + 1
        return value

    def _array(self) -> List[Any]:
        self._expect("[")
        items: List[Any] = []
        while True:
            self._skip(newlines=True)
            if self._peek() == "]":
                self._at += 1
                return items
            items.append(self._value())
            self._skip(newlines=True)
            if self._peek() == ",":
                self._at += 1
            elif self._peek() != "]":
                raise self._error("expected ',' or ']' in an array")

    def _inline_table(self) -> Dict[str, Any]:
        self._expect("{")
        table: Dict[str, Any] = {}
        self._skip()
        if self._peek() == "}":
            self._at += 1
            return table
        while True:
            self._skip()
            key = self._key()
            self._skip()
            self._expect("=")
            self._put(table, key, self._value())
            self._skip()
            if self._peek() == "}":
                self._at += 1
                return table
            self._expect(",")

    def _skip(self, newlines: bool = False) -> None:
        while self._at < len(self._text):
            c = self._text[self._at]
            if c in " \t" or (newlines and c in "\r\n"):
                self._at += 1
            elif c == "#":
                end = self._text.find("\n", self._at)
                self._at = len(self._text) if end < 0 else end
            else:
                return

    def _end_of_line(self) -> None:
        self._skip()
        if self._at < len(self._text) and self._peek() not in "\r\n":
            raise self._error("expected the end of the line")

    def _expect(self, c: str) -> None:
        if self._peek() != c:
            raise self._error(f"expected '{c}'")
        self._at += 1

    def _peek(self) -> str:
        return self._text[self._at:self._at + 1]

    def _error(self, what: str) -> TomlError:
        line = self._text.count("\n", 0, self._at) + 1
        return TomlError(f"{self._name} line {line}: {what}; the archpool build backend reads only the part of TOML"
                         " that pyproject.toml needs (tables, bare keys, one-line strings, arrays, inline tables)")

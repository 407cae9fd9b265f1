"""A TOML config file, read so that every error points at the line of the key it is about.

`read_toml_file` parses the file and keeps its text; `Located.error` turns a key path
(``("store", "url")``, ``("quotas", "0", "calls")``) and a problem into a `ConfigurationError`
reading ``toolwire.toml:7: store.url: <problem>``. `key_line` finds a key's line: a table
header, an assignment, or a key inside the N-th ``[[array]]`` table (path element ``"N"``).
`check_keys` refuses an unknown key and names the nearest known one (``did you mean``).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolwire.errors import ConfigurationError

__all__ = ["Located", "check_keys", "key_line", "kind_of", "read_toml_file", "unknown_key"]


@dataclass(frozen=True, slots=True)
class Located:
    """A config file's text, to point errors at the line that defines a key."""

    text: str
    name: str

    def error(self, key: tuple[str, ...], problem: str) -> ConfigurationError:
        """``<file>:<line>: <dotted.key>: <problem>``."""
        line = key_line(self.text, key)
        where = f"{self.name}:{line}" if line is not None else self.name
        return ConfigurationError(f"{where}: {'.'.join(key)}: {problem}")

    def string(self, value: Any, key: tuple[str, ...]) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {kind_of(value)}")
        return value

    def strings(self, value: Any, key: tuple[str, ...]) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"expected a list of strings, got {kind_of(value)}")
        return tuple(value)

    def boolean(self, value: Any, key: tuple[str, ...]) -> bool:
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {kind_of(value)}")
        return value

    def number(self, value: Any, key: tuple[str, ...]) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.error(key, f"expected a positive number, got {value!r}")
        return float(value)

    def integer(
        self, value: Any, key: tuple[str, ...], *, minimum: int, maximum: int | None = None
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {kind_of(value)}")
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
            raise self.error(key, f"must be {bounds}, got {value}")
        return value


def kind_of(value: Any) -> str:
    """``a string``, ``a list``, ``a table``, ...: what a config value is, for an error."""
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a number"}
    names.update({list: "a list", dict: "a table"})
    return names.get(type(value), type(value).__name__)


def read_toml_file(file: Path) -> tuple[dict[str, Any], Located]:
    """Parse ``file``; a syntax error becomes a `ConfigurationError` with its line."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read config file {file}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{file}: invalid TOML: {exc}") from None
    return data, Located(text=text, name=str(file))


def check_keys(
    table: Mapping[str, Any],
    allowed: set[str] | frozenset[str],
    prefix: tuple[str, ...],
    at: Located,
) -> None:
    """Refuse the first unknown key (a typo must not be silently ignored)."""
    for key in table:
        if key not in allowed:
            raise at.error((*prefix, key), unknown_key(key, allowed))


def unknown_key(key: str, allowed: set[str] | frozenset[str]) -> str:
    """``unknown key; did you mean 'x'? (expected one of [...])`` for a key not in ``allowed``."""
    close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {hint}(expected one of {sorted(allowed)})"


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def key_line(text: str, key: tuple[str, ...]) -> int | None:
    """The 1-based line that defines ``key`` (a table header or an assignment), if found.

    The N-th ``[[name]]`` header opens ``(*name, "N")``, so ``("quotas", "1", "calls")`` is
    the ``calls`` line of the second ``[[quotas]]`` table.
    """
    table: tuple[str, ...] = ()
    arrays: dict[tuple[str, ...], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = _split_key(header.group(2))
            if header.group(1) == "[[":
                index = arrays.get(table, 0)
                arrays[table] = index + 1
                table = (*table, str(index))
            if table == key:
                return number
            continue
        assign = _ASSIGN.match(line)
        if assign:
            full = (*table, *_split_key(assign.group(1)))
            if full == key[: len(full)] and len(full) <= len(key):
                return number
    return None


def _split_key(raw: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in raw.split("."))

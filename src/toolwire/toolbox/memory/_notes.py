"""`Notes`: one memory scope's entries, kept as one JSON document under one key.

One document per scope makes the per-scope size limit exact even with many writers: every
write is a compare-and-set of the whole document (`toolwire.toolbox.memory._swaps.swap`), so two
agents appending at once both land, and neither can push the scope past its limit. Each entry
carries a version (1 on creation, +1 per write) for ``memory_write(expected_version=...)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from toolwire.errors import ConfigurationError
from toolwire.results import Err

__all__ = [
    "KEY_PATTERN",
    "MEMORY_KEY",
    "MemoryLimits",
    "Note",
    "Notes",
    "excerpt",
    "unreadable",
]

MEMORY_KEY = "toolwire.memory"
"""The key holding a scope's document (scopes are shared with other tools: it is namespaced)."""
KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}")
"""A note's key: a letter or digit, then up to 99 letters, digits, ``_``, ``.`` or ``-``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MemoryLimits:
    """How much memory one scope may hold.

    Attributes:
        max_entry_chars: The longest one note may grow.
        max_scope_chars: All notes of a scope together.
        max_entries: Notes in one scope.

    Raises:
        ConfigurationError: a limit that is not a positive int, or an entry limit above the
            scope's.
    """

    max_entry_chars: int = 8_000
    max_scope_chars: int = 64_000
    max_entries: int = 200

    def __post_init__(self) -> None:
        for name in ("max_entry_chars", "max_scope_chars", "max_entries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"MemoryLimits({name}={value!r}) must be a positive int")
        if self.max_entry_chars > self.max_scope_chars:
            raise ConfigurationError("MemoryLimits: max_entry_chars cannot exceed max_scope_chars")


@dataclass(frozen=True, kw_only=True, slots=True)
class Note:
    """One entry: its text, its version and when it was last written (ISO 8601, UTC)."""

    content: str
    version: int
    updated_at: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Notes:
    """A scope's notes by key."""

    entries: dict[str, Note] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> Notes | None:
        """The document stored at `MEMORY_KEY` (empty when absent), or ``None`` when what is
        stored there is not one (then nothing may overwrite it unnoticed)."""
        if text is None:
            return cls()
        try:
            raw: Any = json.loads(text)
            entries = {
                str(key): Note(
                    content=str(value["content"]),
                    version=int(value["version"]),
                    updated_at=str(value["updated_at"]),
                )
                for key, value in raw["entries"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return cls(entries=entries)

    def dump(self) -> str:
        """The document as JSON (ASCII, so any text the model sent is storable)."""
        entries = {
            key: {"content": n.content, "version": n.version, "updated_at": n.updated_at}
            for key, n in sorted(self.entries.items())
        }
        return json.dumps({"entries": entries}, separators=(",", ":"))

    @property
    def chars(self) -> int:
        """Characters of every note together."""
        return sum(len(note.content) for note in self.entries.values())

    def with_note(self, key: str, content: str) -> tuple[Notes, Note]:
        """A copy where ``key`` holds ``content`` (one version newer), and that note."""
        old = self.entries.get(key)
        note = Note(
            content=content,
            version=1 if old is None else old.version + 1,
            updated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        return replace(self, entries={**self.entries, key: note}), note

    def without(self, key: str) -> Notes:
        """A copy without ``key``."""
        return replace(self, entries={k: v for k, v in self.entries.items() if k != key})


def unreadable(scope: str) -> Err:
    """The answer when a scope's document is not one `Notes.parse` reads."""
    return Err(
        f"the memory of scope {scope} is not readable (the value at {MEMORY_KEY!r} is not "
        "toolwire's JSON); an operator must repair or delete that key",
        cause="unreadable_memory",
    )


def excerpt(text: str, limit: int = 80) -> str:
    """The start of ``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

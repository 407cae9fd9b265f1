"""``memory_read`` and ``memory_write``: long-term notes in the call's memory scope.

Notes live in the key-value store (the ``shared_storage`` kind) under the scope
`memory_scope_id` derives from the context: ``global``, ``personality:<id>``, ``team:<id>`` or
the host's own ``memory_scope_id``. Every write is a compare-and-set of the scope's document,
retried when another agent wrote first, so concurrent appends all land. ``replace`` is
last-writer-wins unless the model passes ``expected_version`` (the version ``memory_read``
showed): then a note changed meanwhile is refused ``STALE_WRITE``, like a file changed since it
was read. Reads are untrusted output: memory holds whatever earlier sessions (or pages they
read) put there.
"""

from __future__ import annotations

from typing import Literal

from toolwire.context import ToolContext
from toolwire.errors import StoreError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox._common import shared_state_tool
from toolwire.toolbox.memory._notes import (
    KEY_PATTERN,
    MEMORY_KEY,
    MemoryLimits,
    Note,
    Notes,
    excerpt,
    unreadable,
)
from toolwire.toolbox.memory._scopes import memory_scope_id, shared_store, store_failed
from toolwire.toolbox.memory._swaps import Refusal, swap
from toolwire.tools import Tool

__all__ = ["note_tools"]


def _bad_key(key: str) -> Err | None:
    if KEY_PATTERN.fullmatch(key):
        return None
    return Err(
        f"key {key[:120]!r} is not a valid note key: 1-100 characters, a letter or digit "
        "first, then letters, digits, '_', '.' or '-' (e.g. 'user-preferences')",
        ErrorCode.INPUT_INVALID,
        field="key",
    )


class _Write:
    """The change one ``memory_write`` makes to a scope's document (see `swap`)."""

    def __init__(
        self,
        key: str,
        content: str,
        mode: Literal["append", "replace"],
        expected_version: int | None,
        limits: MemoryLimits,
        scope: str,
    ) -> None:
        self.key, self.content, self.mode = key, content, mode
        self.expected_version, self.limits, self.scope = expected_version, limits, scope

    def __call__(self, current: str | None) -> tuple[str, tuple[str, Note | None, int]]:
        notes = Notes.parse(current)
        if notes is None:
            raise Refusal(unreadable(self.scope))
        old = notes.entries.get(self.key)
        self._check_version(old)
        if self.mode == "replace" and not self.content:
            if old is None:
                raise Refusal(
                    Err(f"no note {self.key!r} to delete", ErrorCode.INPUT_INVALID, field="key")
                )
            kept = notes.without(self.key)
            return kept.dump(), ("Deleted", None, kept.chars)
        if self.mode == "append" and old is not None:
            text = f"{old.content}\n{self.content}"
        else:
            text = self.content
        self._check_size(notes, old, text)
        updated, note = notes.with_note(self.key, text)
        verb = "Created" if old is None else "Appended to" if self.mode == "append" else "Replaced"
        return updated.dump(), (verb, note, updated.chars)

    def _check_version(self, old: Note | None) -> None:
        have = 0 if old is None else old.version
        if self.expected_version is not None and have != self.expected_version:
            raise Refusal(
                Err(
                    f"note {self.key!r} is at version {have}, not {self.expected_version}: "
                    "someone wrote it since you read it; memory_read it again, then write",
                    ErrorCode.STALE_WRITE,
                    conflict_key=self.key,
                )
            )

    def _check_size(self, notes: Notes, old: Note | None, text: str) -> None:
        limits = self.limits
        if len(text) > limits.max_entry_chars:
            raise Refusal(
                Err(
                    f"note {self.key!r} would hold {len(text):,} characters, over the "
                    f"{limits.max_entry_chars:,} one note may; shorten it or split it into "
                    "several keys",
                    ErrorCode.INPUT_INVALID,
                    field="content",
                )
            )
        if old is None and len(notes.entries) >= limits.max_entries:
            raise Refusal(
                Err(
                    f"this memory already holds {limits.max_entries} notes, the most it may; "
                    "replace or delete one (mode='replace' with empty content) first",
                    ErrorCode.INPUT_INVALID,
                    field="key",
                )
            )
        total = notes.chars - (0 if old is None else len(old.content)) + len(text)
        if total > limits.max_scope_chars:
            raise Refusal(
                Err(
                    f"memory is full: this write would bring it to {total:,} characters, over "
                    f"its {limits.max_scope_chars:,}; shorten or delete notes first "
                    f"(memory_read lists them with their sizes)",
                    ErrorCode.INPUT_INVALID,
                    field="content",
                )
            )


def _listing(scope: str, notes: Notes, limits: MemoryLimits) -> Ok:
    if not notes.entries:
        return Ok(f"No memory notes yet (scope {scope}).", structured={"scope": scope, "notes": []})
    lines = [
        f"{len(notes.entries)} note{'' if len(notes.entries) == 1 else 's'} (scope {scope}; "
        f"{notes.chars:,} of "
        f"{limits.max_scope_chars:,} characters used):"
    ]
    listed = []
    for key, note in sorted(notes.entries.items()):
        lines.append(
            f"- {key} (v{note.version}, {len(note.content):,} chars): {excerpt(note.content)}"
        )
        listed.append({"key": key, "version": note.version, "chars": len(note.content)})
    lines.append("Read one with memory_read(key=...).")
    return Ok("\n".join(lines), structured={"scope": scope, "notes": listed})


def _memory_read(limits: MemoryLimits) -> Tool:
    @shared_state_tool(
        "memory", "Read long-term memory", read_only=True, max_result_chars=20_000, untrusted=True
    )
    async def memory_read(ctx: ToolContext, key: str | None = None) -> ToolResult:
        """Read your long-term memory notes, kept across sessions.

        Without a key, lists every note with its version, size and first words.

        Args:
            key: The note to read in full.
        """
        if key is not None and (bad := _bad_key(key)) is not None:
            return bad
        scope = memory_scope_id(ctx)
        if isinstance(store := shared_store(ctx, "memory_read", scope), Err):
            return store
        try:
            notes = Notes.parse(await store.get(MEMORY_KEY))
        except StoreError as exc:
            return store_failed("memory_read", exc)
        if notes is None:
            return unreadable(scope)
        if key is None:
            return _listing(scope, notes, limits)
        note = notes.entries.get(key)
        if note is None:
            known = ", ".join(sorted(notes.entries)[:20]) or "none yet"
            return Err(
                f"no memory note {key!r}; notes: {known}", ErrorCode.INPUT_INVALID, field="key"
            )
        return Ok(
            f"[{key}] version {note.version}, updated {note.updated_at}\n{note.content}",
            structured={"key": key, "version": note.version, "scope": scope},
        )

    return memory_read


def _memory_write(limits: MemoryLimits) -> Tool:
    @shared_state_tool("memory", "Write long-term memory", read_only=False, max_result_chars=2_000)
    async def memory_write(
        ctx: ToolContext,
        key: str,
        content: str,
        mode: Literal["append", "replace"] = "append",
        expected_version: int | None = None,
    ) -> ToolResult:
        """Save a long-term note that later sessions can read with memory_read.

        append adds a line to the note (creating it); replace overwrites it, and replace with
        empty content deletes it. Concurrent appends by other agents are never lost.

        Args:
            key: The note's name, e.g. 'user-preferences' (letters, digits, '_', '.', '-').
            content: The text to append or the note's new text.
            mode: 'append' (default) or 'replace'.
            expected_version: Refuse the write unless the note is still at this version (the
                one memory_read showed; 0 means it must not exist yet).
        """
        if (bad := _bad_key(key)) is not None:
            return bad
        if mode == "append" and not content.strip():
            return Err(
                "content is empty; nothing to append", ErrorCode.INPUT_INVALID, field="content"
            )
        scope = memory_scope_id(ctx)
        if isinstance(store := shared_store(ctx, "memory_write", scope), Err):
            return store
        change = _Write(key, content, mode, expected_version, limits, scope)
        try:
            outcome = await swap(store, MEMORY_KEY, change)
        except StoreError as exc:
            return store_failed("memory_write", exc)
        if isinstance(outcome, Err):
            return outcome
        verb, note, total = outcome
        used = f"scope {scope}: {total:,} of {limits.max_scope_chars:,} characters used"
        if note is None:
            return Ok(f"Deleted note {key!r} ({used}).", structured={"key": key, "scope": scope})
        return Ok(
            f"{verb} note {key!r}: version {note.version}, {len(note.content):,} characters "
            f"({used}).",
            structured={"key": key, "version": note.version, "scope": scope, "scope_chars": total},
        )

    return memory_write


def note_tools(limits: MemoryLimits) -> list[Tool]:
    """``memory_read`` and ``memory_write`` under ``limits``."""
    return [_memory_read(limits), _memory_write(limits)]

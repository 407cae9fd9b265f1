"""The memory tools (toolset ``memory``): ``memory_read``, ``memory_write``, ``session_search``.

- ``memory_read`` / ``memory_write``: long-term notes in the key-value store, in the call's
  memory scope (``global``, ``personality:<id>``, ``team:<id>`` or the host's
  ``memory_scope_id``; see `toolwire.toolbox.memory._scopes`), within `MemoryLimits`, every
  write a compare-and-set so concurrent agents lose nothing. They declare ``shared_storage()``.
- ``session_search``: ranked full-text search over past sessions through the ``archive`` kind.

```python
from toolwire.toolbox.memory import MemoryLimits, memory_tools

registry.register_all(memory_tools(MemoryLimits(max_scope_chars=32_000)))
```

Rooms: ``_tools.py`` (the three tools), ``_notes.py`` (a scope's notes), ``_scopes.py`` (which scope
a call writes), ``_search.py`` (``session_search``). Also here: ``_swaps.py`` (`swap`:
compare-and-set one key until no other writer got in between).
"""

from __future__ import annotations

from toolwire.toolbox.memory._notes import MemoryLimits
from toolwire.toolbox.memory._search import session_search
from toolwire.toolbox.memory._tools import note_tools
from toolwire.tools import Tool

__all__ = ["MemoryLimits", "memory_tools", "session_search"]


def memory_tools(limits: MemoryLimits | None = None) -> list[Tool]:
    """``memory_read``, ``memory_write`` (under ``limits``, default `MemoryLimits()`) and
    ``session_search``."""
    return [*note_tools(limits or MemoryLimits()), session_search]

"""The built-in tools. Each reaches the world only through its `ToolContext` seams.

```python
from toolwire import ToolRegistry, create_backends
from toolwire.toolbox import command_guard_hook, default_tools

async with ToolRegistry(create_backends()) as registry:  # closing stops every process
    registry.register_all(default_tools())
    command_guard_hook(registry.hooks)
```

| toolset | tools |
| --- | --- |
| ``file`` | ``read_file``, ``write_file``, ``patch_file``, ``search_files`` |
| ``terminal`` | ``terminal`` |
| ``process`` | ``process_start``, ``process_list``, ``process_logs``, ``process_stop``,
``process_wait``, ``process_watch`` |
| ``code`` | ``lint``, ``typecheck``, ``run_tests`` (hidden when no linter, type checker or test
runner is installed); ``run_code`` (code mode: built per registry by
`toolwire.code_mode.run_code_tool`, the ``code-mode`` extra) |
| ``delegation`` | ``task`` (needs a ``subagent`` backend:
`toolwire.capabilities.kinds.subagent.Delegation`) |
| ``memory`` | ``memory_read``, ``memory_write`` (key-value store, the context's memory scope),
``session_search`` (needs the ``archive`` backend) |
| ``todo`` | ``todo_write``, ``todo_read`` (the session's list) |
| ``browser`` | ``browser_navigate``, ``browser_snapshot``, ``browser_click``, ``browser_type``,
``browser_press_key``, ``browser_select_option``, ``browser_wait_for``, ``browser_back``,
``browser_tabs``, ``browser_screenshot``, ``browser_console_messages``, ``browser_close`` (needs a
``browser`` backend, `toolwire.capabilities.kinds.browser.BrowserBackend`; hidden without Chromium)
|
| ``web`` | ``fetch_url`` (a page as Markdown, PDF, JSON, text or an image, paged; robots.txt
honoured; needs the ``network`` backend, ``toolwire[web]``), ``web_search`` (Brave, Tavily, Exa,
SearXNG or DuckDuckGo, chosen by ``[web_search]``; hidden while the chosen provider has no key) |
| ``results`` | ``read_result`` (pages through a result trimmed to its budget; see
`toolwire.execution.handles`) |
| ``kanban`` | ``kanban_create``, ``kanban_get``, ``kanban_update``, ``kanban_move``,
``kanban_list`` (one board per team or personality) |

Without capability backends every one of them is refused ``not_available``; with backends but
no reach for a path, the seam refuses (``PATH_NOT_REACHABLE: ...``, also ``not_available``).
The process tools also answer ``not_available`` when the process backend has no background
processes (``create_backends()`` gives them).

Rooms: ``_files.py``, ``_patching.py``, ``_search.py``, ``_terminal.py``, ``_processes.py``,
``_todo.py``, ``_delegation.py``, ``_kept_results.py`` (one toolset's tools each); ``browser/``,
``code/``, ``kanban/``, ``memory/``, ``web/`` (toolsets of several modules); ``guard.py`` (the
command guard as a hook). What the file tools share: ``_common.py`` (paths, refusals),
``_file_stats.py`` (`look`), ``_filetypes.py`` (text or binary), ``_locks.py`` (path locks),
``_write_turns.py`` (`write_turn`), ``_stale.py`` (STALE_WRITE), ``_protected.py`` (paths no write
tool touches), ``_diagnosis.py`` (why ``old_text`` did not match), ``_spill.py`` (spill files);
``_sandbox_notices.py`` (the command tools' once-only warning of an unsandboxed fallback).
"""

from __future__ import annotations

from toolwire.toolbox._delegation import task
from toolwire.toolbox._files import read_file, write_file
from toolwire.toolbox._kept_results import result_tools
from toolwire.toolbox._patching import patch_file
from toolwire.toolbox._processes import process_tools
from toolwire.toolbox._search import search_files
from toolwire.toolbox._terminal import terminal
from toolwire.toolbox._todo import todo_tools
from toolwire.toolbox.browser import browser_tools
from toolwire.toolbox.code import code_tools
from toolwire.toolbox.guard import command_guard_hook
from toolwire.toolbox.kanban import kanban_tools
from toolwire.toolbox.memory import memory_tools
from toolwire.toolbox.web import web_tools
from toolwire.tools import Tool

__all__ = [
    "browser_tools",
    "code_tools",
    "command_guard_hook",
    "default_tools",
    "delegation_tools",
    "file_tools",
    "kanban_tools",
    "memory_tools",
    "process_tools",
    "result_tools",
    "terminal_tools",
    "todo_tools",
    "web_tools",
]


def file_tools() -> list[Tool]:
    """``read_file``, ``write_file``, ``patch_file`` and ``search_files`` (toolset ``file``)."""
    return [read_file, write_file, patch_file, search_files]


def terminal_tools() -> list[Tool]:
    """``terminal`` (toolset ``terminal``); install `command_guard_hook` alongside it."""
    return [terminal]


def delegation_tools() -> list[Tool]:
    """``task`` (toolset ``delegation``): runs sub-agents through the ``subagent`` backend."""
    return [task]


def default_tools() -> list[Tool]:
    """Every built-in tool, grouped by toolset (see the table above); each is gated by its
    seams."""
    return [
        *file_tools(),
        *terminal_tools(),
        *process_tools(),
        *code_tools(),
        *delegation_tools(),
        *memory_tools(),
        *todo_tools(),
        *kanban_tools(),
        *browser_tools(),
        *web_tools(),
        *result_tools(),
    ]

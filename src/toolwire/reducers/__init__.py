"""Result reducers: deterministic rewrites that keep the signal of a tool's output.

`default_reducers` returns a registry with the built-ins: ``terminal`` (git status, test runs,
installs, head + tail), ``read_file`` (first 200 lines of an unranged read), ``kanban_list``
(counts by status and the top 5 open) and ``fetch_url`` (a page without its link farms, images,
tracking parameters and repeated lines). See ``docs/reducers.md``.

Rooms: ``_registry.py`` (the reducer contract and registry), ``_defaults.py`` (`default_reducers`),
``_terminal.py`` (the terminal reducer) over ``_git_status.py``, ``test_runs.py``,
``_installs.py`` and ``_head_tail.py``, with ``_lines.py`` (line selection) and ``_spill.py`` (the
spill pointer); ``_read_file.py``, ``_kanban.py`` and ``fetch_url.py`` (one tool's reducer each).
"""

from __future__ import annotations

from toolwire.reducers._defaults import default_reducers
from toolwire.reducers._kanban import KanbanListReducer
from toolwire.reducers._read_file import ReadFileReducer
from toolwire.reducers._registry import (
    ReducerContext,
    ReducerRegistry,
    ToolResultReducer,
    safe_reduce,
)
from toolwire.reducers._spill import (
    SPILL_POINTER_PATTERN,
    attach_spill_pointer,
    format_spill_pointer,
    split_spill_pointer,
)
from toolwire.reducers._terminal import TerminalReducer, reduce_terminal_output
from toolwire.reducers.fetch_url import FetchUrlReducer

__all__ = [
    "SPILL_POINTER_PATTERN",
    "FetchUrlReducer",
    "KanbanListReducer",
    "ReadFileReducer",
    "ReducerContext",
    "ReducerRegistry",
    "TerminalReducer",
    "ToolResultReducer",
    "attach_spill_pointer",
    "default_reducers",
    "format_spill_pointer",
    "reduce_terminal_output",
    "safe_reduce",
    "split_spill_pointer",
]

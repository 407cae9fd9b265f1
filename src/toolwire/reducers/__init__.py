"""Result reducers: deterministic rewrites that keep the signal of a tool's output.

`default_reducers` returns a registry with the built-ins: ``terminal`` (git status, test runs,
installs, head + tail), ``read_file`` (first 200 lines of an unranged read), ``kanban_list``
(counts by status and the top 5 open) and ``fetch_url`` (a page without its link farms, images,
tracking parameters and repeated lines). See ``docs/reducers.md``.

Rooms: ``registry.py`` (the reducer contract and registry), ``defaults.py`` (`default_reducers`),
``terminal.py`` (the terminal reducer) over ``git_status.py``, ``test_runs.py``,
``installs.py`` and ``head_tail.py``, with ``lines.py`` (line selection) and ``spill.py`` (the
spill pointer); ``read_file.py``, ``kanban.py`` and ``fetch_url.py`` (one tool's reducer each).
"""

from __future__ import annotations

from toolwire.reducers.defaults import default_reducers
from toolwire.reducers.fetch_url import FetchUrlReducer
from toolwire.reducers.kanban import KanbanListReducer
from toolwire.reducers.read_file import ReadFileReducer
from toolwire.reducers.registry import (
    ReducerContext,
    ReducerRegistry,
    ToolResultReducer,
    safe_reduce,
)
from toolwire.reducers.spill import (
    SPILL_POINTER_PATTERN,
    attach_spill_pointer,
    format_spill_pointer,
    split_spill_pointer,
)
from toolwire.reducers.terminal import TerminalReducer, reduce_terminal_output

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

"""`default_reducers`: a reducer registry holding the built-in reducers."""

from __future__ import annotations

from toolwire.reducers._kanban import KanbanListReducer
from toolwire.reducers._read_file import ReadFileReducer
from toolwire.reducers._registry import ReducerRegistry
from toolwire.reducers._terminal import TerminalReducer
from toolwire.reducers.fetch_url import FetchUrlReducer

__all__ = ["default_reducers"]


def default_reducers() -> ReducerRegistry:
    """A fresh registry with the built-ins: ``terminal``, ``read_file``, ``kanban_list`` and
    ``fetch_url``."""
    registry = ReducerRegistry()
    registry.register(TerminalReducer())
    registry.register(ReadFileReducer())
    registry.register(KanbanListReducer())
    registry.register(FetchUrlReducer())
    return registry

"""The kanban board (toolset ``kanban``): ``kanban_create``, ``kanban_get``, ``kanban_update``,
``kanban_move`` and ``kanban_list``.

One board per team (``team:<team_id>``) or, outside a team, per personality
(``personality:<id>``, the session id without one), in the key-value store through the
``shared_storage`` kind. Every card is its own key and every change a compare-and-set, retried
when another agent got there first: agents sharing a Redis or PostgreSQL store lose nothing.
Passing ``expected_rev`` turns a concurrent change into a ``STALE_WRITE`` refusal instead.

Columns: ``todo``, ``ready``, ``running``, ``review``, ``blocked``, ``done``, ``archived``.

Rooms: ``_tools.py`` (the five tools), ``_board.py`` (`Board`) and ``_cards.py`` (`Card`).
"""

from __future__ import annotations

from toolwire.toolbox.kanban._board import DEFAULT_MAX_CARDS
from toolwire.toolbox.kanban._cards import COLUMNS
from toolwire.toolbox.kanban._tools import kanban_tool_list
from toolwire.tools import Tool

__all__ = ["COLUMNS", "DEFAULT_MAX_CARDS", "kanban_tools"]


def kanban_tools(max_cards: int = DEFAULT_MAX_CARDS) -> list[Tool]:
    """The five kanban tools; a board holds at most ``max_cards`` cards."""
    return kanban_tool_list(max_cards)

"""The five kanban tools over one board per team (``team:<id>``) or personality.

Cards are written by many agents, so ``kanban_get`` and ``kanban_list`` are untrusted output.
``kanban_list`` answers a JSON array of card summaries, newest change first; the registry's
``kanban_list`` reducer turns more than 10 into counts by status and the top open cards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from pydantic import Field

from toolwire.context import ToolContext
from toolwire.errors import StoreError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox._common import shared_state_tool
from toolwire.toolbox.kanban._board import Board
from toolwire.toolbox.kanban._cards import Card, Column
from toolwire.toolbox.memory._scopes import board_scope_id, shared_store, store_failed
from toolwire.toolbox.memory._swaps import Refusal
from toolwire.tools import Tool

__all__ = ["kanban_tool_list"]

Title = Annotated[str, Field(min_length=1, max_length=200)]
Body = Annotated[str, Field(max_length=8_000)]
Labels = Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=10)]
Name = Annotated[str, Field(max_length=80)]
T = TypeVar("T")


def _actor(ctx: ToolContext) -> str:
    return ctx.personality_id or ctx.agent_id or "system"


async def _on_board(
    ctx: ToolContext, tool_name: str, max_cards: int, action: Callable[[Board], Awaitable[T]]
) -> T | Err:
    """Run ``action`` on the call's board; a missing seam or a failing store is the answer."""
    store = shared_store(ctx, tool_name, board_scope_id(ctx))
    if isinstance(store, Err):
        return store
    try:
        return await action(Board(store, max_cards=max_cards))
    except StoreError as exc:
        return store_failed(tool_name, exc)


def _check_rev(card: Card, expected_rev: int | None) -> None:
    if expected_rev is not None and card.rev != expected_rev:
        raise Refusal(
            Err(
                f"{card.id} is at rev {card.rev}, not {expected_rev}: another agent changed it "
                "since you read it; kanban_get it again and decide",
                ErrorCode.STALE_WRITE,
                conflict_key=card.id,
            )
        )


def _labels(labels: list[str] | None) -> tuple[str, ...] | None:
    if labels is None:
        return None
    return tuple(dict.fromkeys(" ".join(label.split()).lower() for label in labels))


def _answer(result: Card | Err, verb: str) -> ToolResult:
    if isinstance(result, Err):
        return result
    return Ok(
        f"{verb} {result.id} [{result.status}] {result.title} (rev {result.rev})",
        structured=result.summary(),
    )


def _matches(
    card: Card, column: str | None, assignee: str | None, label: str | None, text: str | None
) -> bool:
    if column is None and card.status == "archived":
        return False
    if column is not None and card.status != column:
        return False
    if assignee is not None and (card.assignee or "") != assignee:
        return False
    if label is not None and label.lower() not in card.labels:
        return False
    return text is None or text.casefold() in f"{card.title}\n{card.body}".casefold()


def _kanban_create(max_cards: int) -> Tool:
    @shared_state_tool("kanban", "Create a kanban card", read_only=False, max_result_chars=2_000)
    async def kanban_create(
        ctx: ToolContext,
        title: Title,
        body: Body = "",
        column: Column = "todo",
        assignee: Name | None = None,
        labels: Labels | None = None,
    ) -> ToolResult:
        """Add a card to the team's (or your) kanban board.

        Args:
            title: What the task is, in a line.
            body: Details, acceptance criteria, links.
            column: Where it starts: todo (default), ready, running, review, blocked, done.
            assignee: Who does it (a personality or agent name).
            labels: Short tags, e.g. ['bug', 'cli'].
        """

        def make(card_id: str, now: str) -> Card:
            return Card(
                id=card_id,
                title=" ".join(title.split()),
                body=body,
                status=column,
                assignee=assignee or None,
                labels=_labels(labels) or (),
                created_by=_actor(ctx),
                created_at=now,
                updated_at=now,
                changed_ns=time.time_ns(),
            )

        async def create(board: Board) -> Card | Err:
            return await board.create(make)

        return _answer(await _on_board(ctx, "kanban_create", max_cards, create), "Created")

    return kanban_create


def _kanban_get(max_cards: int) -> Tool:
    @shared_state_tool(
        "kanban", "Show a kanban card", read_only=True, max_result_chars=12_000, untrusted=True
    )
    async def kanban_get(ctx: ToolContext, card_id: str) -> ToolResult:
        """Show one card in full: title, column, assignee, labels, rev, recent moves, body.

        Args:
            card_id: The card, e.g. 'card-12'.
        """

        async def get(board: Board) -> Card | Err:
            return await board.get(card_id)

        card = await _on_board(ctx, "kanban_get", max_cards, get)
        if isinstance(card, Err):
            return card
        return Ok(card.render(), structured={**card.summary(), "body": card.body})

    return kanban_get


def _kanban_update(max_cards: int) -> Tool:
    @shared_state_tool("kanban", "Edit a kanban card", read_only=False, max_result_chars=2_000)
    async def kanban_update(
        ctx: ToolContext,
        card_id: str,
        title: Title | None = None,
        body: Body | None = None,
        assignee: Name | None = None,
        labels: Labels | None = None,
        expected_rev: int | None = None,
    ) -> ToolResult:
        """Change a card's title, body, assignee ('' unassigns) or labels (the whole list).

        Fields you leave out keep their value, even when another agent changed them meanwhile.

        Args:
            card_id: The card, e.g. 'card-12'.
            title: The new title.
            body: The new body (replaces the old one).
            assignee: The new assignee; '' for nobody.
            labels: The new labels (replace the old ones).
            expected_rev: Refuse unless the card is still at this rev.
        """
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = " ".join(title.split())
        if body is not None:
            changes["body"] = body
        if assignee is not None:
            changes["assignee"] = assignee or None
        if labels is not None:
            changes["labels"] = _labels(labels)
        if not changes:
            return Err(
                "nothing to change: give title, body, assignee or labels", ErrorCode.INPUT_INVALID
            )

        def edit(card: Card) -> Card:
            _check_rev(card, expected_rev)
            return card.changed(_actor(ctx), **changes)

        async def update(board: Board) -> Card | Err:
            return await board.change(card_id, edit)

        return _answer(await _on_board(ctx, "kanban_update", max_cards, update), "Updated")

    return kanban_update


def _kanban_move(max_cards: int) -> Tool:
    @shared_state_tool("kanban", "Move a kanban card", read_only=False, max_result_chars=2_000)
    async def kanban_move(
        ctx: ToolContext, card_id: str, column: Column, expected_rev: int | None = None
    ) -> ToolResult:
        """Move a card to another column: todo, ready, running, review, blocked, done, archived.

        Args:
            card_id: The card, e.g. 'card-12'.
            column: Where it goes.
            expected_rev: Refuse unless the card is still at this rev.
        """

        def edit(card: Card) -> Card:
            _check_rev(card, expected_rev)
            return card.changed(_actor(ctx), status=column)

        async def move(board: Board) -> Card | Err:
            return await board.change(card_id, edit)

        return _answer(await _on_board(ctx, "kanban_move", max_cards, move), "Moved")

    return kanban_move


def _kanban_list(max_cards: int) -> Tool:
    @shared_state_tool(
        "kanban", "List kanban cards", read_only=True, max_result_chars=20_000, untrusted=True
    )
    async def kanban_list(
        ctx: ToolContext,
        column: Column | None = None,
        assignee: str | None = None,
        label: str | None = None,
        text: str | None = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 100,
    ) -> ToolResult:
        """List the board's cards as JSON, most recently changed first (newest card first on
        ties; archived ones only when column='archived').

        Args:
            column: Only cards in this column (status).
            assignee: Only cards assigned to this name ('' for unassigned ones).
            label: Only cards with this label.
            text: Only cards whose title or body contains this text (any case).
            limit: At most this many cards (1-500).
        """

        async def cards(board: Board) -> list[Card]:
            return await board.cards()

        found = await _on_board(ctx, "kanban_list", max_cards, cards)
        if isinstance(found, Err):
            return found
        chosen = [c for c in found if _matches(c, column, assignee, label, text)]
        chosen.sort(key=lambda card: (card.updated_at, card.changed_ns, card.number), reverse=True)
        summaries = [card.summary() for card in chosen[:limit]]
        return Ok(
            json.dumps(summaries, ensure_ascii=False),
            structured={"cards": summaries, "matched": len(chosen)},
        )

    return kanban_list


def kanban_tool_list(max_cards: int) -> list[Tool]:
    """The five kanban tools over boards of at most ``max_cards`` cards."""
    factories = (_kanban_create, _kanban_get, _kanban_update, _kanban_move, _kanban_list)
    return [factory(max_cards) for factory in factories]

"""`Card`: one kanban card, as stored (JSON under its own key) and as summarised for lists."""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, get_args

__all__ = [
    "CARD_ID",
    "CARD_PREFIX",
    "COLUMNS",
    "Card",
    "Column",
    "card_key",
    "now_iso",
]

Column = Literal["todo", "ready", "running", "review", "blocked", "done", "archived"]
COLUMNS: tuple[str, ...] = get_args(Column)
"""The board's columns, in flow order; a card's ``status`` is its column."""
CARD_ID = re.compile(r"card-([1-9][0-9]{0,8})")
"""A card's id: ``card-<n>``, numbered from 1 per board."""
CARD_PREFIX = "toolwire.kanban.card:"
"""Card keys start with this in the board's scope."""


def card_key(number: int) -> str:
    """The key card ``card-<number>`` is stored under."""
    return f"{CARD_PREFIX}{number}"


def now_iso() -> str:
    """Now, as ISO 8601 UTC text to the millisecond (sorts as time does)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, kw_only=True, slots=True)
class Card:
    """One card. ``rev`` starts at 1 and grows by one per change (``expected_rev`` checks it)."""

    id: str
    title: str
    body: str = ""
    status: str = "todo"
    assignee: str | None = None
    labels: tuple[str, ...] = ()
    created_by: str
    created_at: str
    updated_at: str
    rev: int = 1
    changed_ns: int = 0
    """``time.time_ns()`` of the last change: orders cards changed within one millisecond
    (``updated_at`` shows only milliseconds); 0 in cards stored before it existed."""
    history: tuple[str, ...] = field(default=())
    """The last moves, ``<when> <who>: <from> → <to>``, newest last (at most 20)."""

    @classmethod
    def parse(cls, text: str) -> Card | None:
        """The card stored as ``text``, or ``None`` when it is not one."""
        try:
            raw: Any = json.loads(text)
            raw["labels"] = tuple(raw.get("labels", ()))
            raw["history"] = tuple(raw.get("history", ()))
            return cls(**raw)
        except (ValueError, TypeError, KeyError):
            return None

    @property
    def number(self) -> int:
        """The ``<n>`` of ``card-<n>`` (0 for a malformed id)."""
        match = CARD_ID.fullmatch(self.id)
        return 0 if match is None else int(match[1])

    def dump(self) -> str:
        """The card as JSON (ASCII, so any text the model sent is storable)."""
        return json.dumps(asdict(self), separators=(",", ":"))

    def changed(self, actor: str, **changes: Any) -> Card:
        """A copy with ``changes``, one revision newer; a move is added to the history."""
        status = changes.get("status", self.status)
        history = self.history
        stamp = now_iso()
        if status != self.status:
            history = (*history, f"{stamp} {actor}: {self.status} → {status}")[-20:]
        return replace(
            self,
            **changes,
            rev=self.rev + 1,
            updated_at=stamp,
            changed_ns=time.time_ns(),
            history=history,
        )

    def summary(self) -> dict[str, Any]:
        """What ``kanban_list`` shows of the card (the shape its reducer reads)."""
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "assignee": self.assignee,
            "labels": list(self.labels),
            "updated_at": self.updated_at,
            "rev": self.rev,
        }

    def render(self) -> str:
        """The whole card as text for ``kanban_get``."""
        labels = ", ".join(self.labels) or "none"
        lines = [
            f"{self.id} [{self.status}] {self.title}",
            f"assignee: {self.assignee or 'nobody'} · labels: {labels} · rev {self.rev}",
            f"created {self.created_at} by {self.created_by} · updated {self.updated_at}",
        ]
        if self.history:
            lines.append("moves: " + "; ".join(self.history[-5:]))
        if self.body:
            lines.extend(["", self.body])
        return "\n".join(lines)

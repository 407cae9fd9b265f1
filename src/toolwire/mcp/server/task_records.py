"""What an MCP task keeps beside its `toolwire.execution.tasks` record: who created it, and the
call's arguments (what its result is presented with).

A task of ``registry.tasks`` knows its tool, call and session, not the credential that created
it nor the arguments its answer's ``<untrusted source="...">`` label is computed from. Both go
into a second record on the same store (key ``mcp-`` + the task id, same time to live), so
every replica on a shared store finds them:

- **owner**: the principal of the request that created the task (the id of a credential's
  issuer, client and subject, `request_owner`), or ``None`` when the server does not
  authenticate. A request of another principal is answered as for an unknown task.
- **arguments**: the call's arguments, as the presenter is given them. Arguments whose JSON is
  larger than `ARGUMENTS_KEPT_CHARS` keep only the string arguments the ``source`` label reads
  (``path``, ``url``, ``command``, ``query``), so the label is the same and the store is not
  filled with file contents.

A task with no such record (one handed off by another path) belongs to nobody: only an
unauthenticated request sees it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.execution.tasks import Tasks
from toolwire.mcp.server.auth._principals import request_principal

__all__ = ["ARGUMENTS_KEPT_CHARS", "TaskRecord", "TaskRecords", "request_owner"]

logger = logging.getLogger("toolwire.mcp")

ARGUMENTS_KEPT_CHARS = 64 * 1024
"""Arguments whose JSON is longer keep only what the ``source`` label reads."""
_LABEL_KEYS = ("path", "url", "command", "query")
_PREFIX = "mcp-"


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """The MCP side of one task.

    Attributes:
        owner: The principal that created it (`request_owner`); ``None``: nobody
            authenticated.
        arguments: The call's arguments (maybe reduced, see the module docstring).
    """

    owner: str | None
    arguments: dict[str, Any] = field(default_factory=dict)


def request_owner(request: Any) -> str | None:
    """The id of the principal behind an HTTP request authenticated by toolwire's guard
    (`toolwire.principals.Principal.id`), or ``None`` for a request nobody authenticated
    (stdio, a server without authentication)."""
    principal = request_principal(request)
    return None if principal.is_local else principal.id


def kept_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` as a task record keeps them (see the module docstring)."""
    kept = dict(arguments)
    try:
        size = len(json.dumps(kept, default=str))
    except (TypeError, ValueError):
        size = ARGUMENTS_KEPT_CHARS + 1
    if size <= ARGUMENTS_KEPT_CHARS:
        return kept
    return {
        key: value[:ARGUMENTS_KEPT_CHARS]
        for key in _LABEL_KEYS
        if isinstance(value := kept.get(key), str)
    }


class TaskRecords:
    """The MCP records of ``tasks``'s tasks, on its store.

    Args:
        tasks: The registry's tasks (their store and time to live).
    """

    def __init__(self, tasks: Tasks) -> None:
        self._tasks = tasks

    async def keep(self, task_id: str, owner: str | None, arguments: Mapping[str, Any]) -> None:
        """Record who created ``task_id`` and with which arguments."""
        record = {"owner": owner, "arguments": kept_arguments(arguments)}
        text = json.dumps(record, default=str)
        await self._tasks.store.set(_PREFIX + task_id, text, self._tasks.ttl_s)

    async def read(self, task_id: str) -> TaskRecord | None:
        """The record of ``task_id``, or ``None`` when it has none (or it cannot be read)."""
        raw = await self._tasks.store.get(_PREFIX + task_id)
        if raw is None:
            return None
        try:
            record = json.loads(raw)
            owner = record["owner"]
            arguments = record["arguments"]
        except (ValueError, KeyError, TypeError):
            logger.warning("toolwire: the MCP record of task %s cannot be read", task_id)
            return None
        if not (owner is None or isinstance(owner, str)) or not isinstance(arguments, dict):
            logger.warning("toolwire: the MCP record of task %s cannot be read", task_id)
            return None
        return TaskRecord(owner=owner, arguments=arguments)

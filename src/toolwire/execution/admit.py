"""Stage 1, admit: may this call run at all? Every gate, in one place.

In order (the first that refuses answers the call ``not_available``):

1. the provider snapshot: a tool the model was not shown this iteration (``not_offered``);
2. unknown tool (``Unknown tool: <name>``, with the nearest names the caller may call when the
   lookup is a mapping's ``get``, as the registry's is: a model that misspelt a name can fix it);
3. surface exclusion, toolset allowlist, MCP/plugin filters (see `toolwire.execution.gates`);
4. availability: `Tool.currently_available` — the same rule definitions use; the tool's own
   reason and fix when its ``is_available`` says why (`toolwire.availability`), else
   ``unavailable``;
5. capabilities declared but no backends configured (fail closed).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire.availability import UNAVAILABLE, unavailable
from toolwire.calls import ToolCall
from toolwire.errors import ConfigurationError
from toolwire.execution.gates import FilterOptions, RegisteredTool, check_call
from toolwire.execution.settings import ToolLookup
from toolwire.providers._snapshot import NOT_OFFERED, ToolSnapshot
from toolwire.results import Err, ErrorCode

__all__ = ["OPEN", "Admission", "admit", "check_allowed_tools"]


@dataclass(frozen=True, slots=True)
class Admission:
    """Who may call what in one batch: the allowlist, the filters and the snapshot.

    Attributes:
        allowed: Built-in tools allowed (``None``: all; empty: none).
        filters: MCP, plugin and surface filters.
        snapshot: The tools the model was shown this iteration; others are refused.
        approvals: Approval tokens for calls that need one (`toolwire.execution.approvals`).
        deferred: Deferred tools no session found (`toolwire.tool_search`): without a
            snapshot, a call to one is refused ``not_offered``.
    """

    allowed: frozenset[str] | None = None
    filters: FilterOptions | None = None
    snapshot: ToolSnapshot | None = None
    approvals: tuple[str, ...] = ()
    deferred: frozenset[str] = frozenset()
    unrestricted: bool = field(init=False, repr=False, compare=False)
    """Nothing but the registry itself restricts the calls (worked out once)."""

    def __post_init__(self) -> None:
        open_ = self.allowed is None and self.filters is None and self.snapshot is None
        object.__setattr__(self, "unrestricted", open_)

    @classmethod
    def of(
        cls,
        allowed_tools: Sequence[str] | None,
        filters: FilterOptions | None,
        snapshot: ToolSnapshot | None,
    ) -> Admission:
        """Check and freeze the caller's arguments.

        Raises:
            ConfigurationError: ``allowed_tools`` is one string, or ``snapshot`` is not a
                `ToolSnapshot` (programming errors, not model errors).
        """
        check_allowed_tools(allowed_tools)
        if snapshot is not None and not isinstance(snapshot, ToolSnapshot):
            raise ConfigurationError(
                f"snapshot= takes a ToolSnapshot (from take_snapshot), got "
                f"{type(snapshot).__name__}"
            )
        allowed = None if allowed_tools is None else frozenset(allowed_tools)
        return cls(allowed, filters, snapshot)


OPEN = Admission()
"""No allowlist, no filters, no snapshot."""


def check_allowed_tools(allowed_tools: Any) -> None:
    """Refuse ``allowed_tools="name"``: a string would be read as a list of letters.

    Raises:
        ConfigurationError: it is a string.
    """
    if isinstance(allowed_tools, str):
        raise ConfigurationError(
            f"allowed_tools takes a list of tool names, not the string {allowed_tools!r}; "
            f"pass [{allowed_tools!r}]"
        )


def admit(
    lookup: ToolLookup, admission: Admission, has_backends: bool, call: ToolCall
) -> RegisteredTool | Err:
    """The registered tool the call may run, or the refusal it is answered with."""
    name = call.name
    snapshot = admission.snapshot
    if snapshot is not None:
        if name not in snapshot:
            return snapshot.refusal(name)
    elif name in admission.deferred:
        return Err(
            f"Unknown tool: {name} (not offered: find it with tool_search first)",
            ErrorCode.NOT_AVAILABLE,
            reason=NOT_OFFERED,
        )
    entry = lookup(name) if type(name) is str else None
    if entry is None:
        return Err(
            f"Unknown tool: {name}{_nearest(lookup, admission, name)}",
            ErrorCode.NOT_AVAILABLE,
            reason="unknown_tool",
        )
    if not admission.unrestricted:
        denied = check_call(entry, admission.allowed, admission.filters)
        if denied is not None:
            return denied
    tool = entry.tool
    if tool.is_available is not None and not tool.currently_available():
        why = unavailable(tool)  # the tool's own reason and fix when it gives one
        message = why.message if why is not None else f"Tool {name} is not currently available"
        return Err(
            message,
            ErrorCode.NOT_AVAILABLE,
            reason=why.reason if why is not None else UNAVAILABLE,
        )
    if not has_backends and entry.declares_capabilities:
        return Err(
            f"Tool {name} declares capabilities but no capability backends are configured",
            ErrorCode.NOT_AVAILABLE,
            reason="no_backends",
        )
    return entry


_NEAREST_LIMIT = 3
_NEAREST_CUTOFF = 0.6


def _nearest(lookup: ToolLookup, admission: Admission, name: object) -> str:
    """``"; did you mean: a, b?"`` naming registered tools close to ``name`` that this caller
    may call (never one its allowlist, filters or surface hide), or ``""``."""
    known = getattr(lookup, "__self__", None)
    if not isinstance(known, Mapping) or not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(
        name, list(known), n=_NEAREST_LIMIT * 3, cutoff=_NEAREST_CUTOFF
    )
    visible = [
        candidate
        for candidate in close
        if admission.unrestricted
        or check_call(known[candidate], admission.allowed, admission.filters) is None
    ][:_NEAREST_LIMIT]
    return f"; did you mean: {', '.join(visible)}?" if visible else ""

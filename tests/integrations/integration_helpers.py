"""What the adapter tests share: user tools, a registry that records its batches, helpers."""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolwire import CallOutcome, ToolCall, ToolContext, ToolRegistry, tool

GITHUB_PAT = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
"""A token in a known secret format: the presenter must redact it."""


@dataclass(frozen=True)
class Batch:
    """One ``execute_parallel`` the registry ran."""

    names: tuple[str, ...]
    ids: tuple[str, ...]
    ctx: ToolContext


class RecordingRegistry(ToolRegistry):
    """A real registry that also records each batch it is asked to run."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.batches: list[Batch] = []

    def execute_parallel(  # type: ignore[override]
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        ctx: ToolContext,
        *args: Any,
        **kwargs: Any,
    ) -> Coroutine[Any, Any, list[CallOutcome]]:
        plain = [c for c in calls if isinstance(c, ToolCall)]
        self.batches.append(Batch(tuple(c.name for c in plain), tuple(c.id for c in plain), ctx))
        return super().execute_parallel(calls, ctx, *args, **kwargs)


@tool
async def emit_chars(n: int) -> str:
    """Return `n` characters.

    Args:
        n: How many characters.
    """
    return "x" * n


@tool
def shout(text: str) -> str:
    """Upper-case a text.

    Args:
        text: The text.
    """
    return text.upper()


@tool
def leak() -> str:
    """Return a configuration line that holds a token."""
    return f"token={GITHUB_PAT}"


@tool
def describe_context(ctx: ToolContext) -> str:
    """Say what the call's context holds."""
    return (
        f"session={ctx.session_id} turn={ctx.current_turn} messages={ctx.message_count} "
        f"platform={ctx.platform} budget={ctx.result_budget_chars} dir={ctx.working_dir}"
    )


@tool
def pick(label: str, count: int = 1) -> str:
    """Repeat a label (``count`` is optional, so the schema cannot be strict).

    Args:
        label: The label.
        count: How many times.
    """
    return label * count


USER_TOOLS = (emit_chars, shout, leak, describe_context, pick)


def share(total: int, calls: int) -> int:
    """The registry's per-call share of ``total`` across ``calls``."""
    return max(total // calls, 1)


def body_of(text: str) -> str:
    """The result inside the presenter's frame."""
    start = text.index("===\n") + 4
    return text[start : text.rindex("\n===TOOL_RESULT_END===")]

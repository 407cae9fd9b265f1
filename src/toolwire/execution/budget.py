"""Stage 6, budget: the per-turn output budget, split across a batch, capped per tool and
enforced by a post-trim."""

from __future__ import annotations

from toolwire.results import Ok, ToolResult

__all__ = ["call_budget", "split_budget", "trim_result", "truncation_marker"]


def split_budget(total_chars: int, call_count: int) -> int:
    """Each call's share: ``floor(total / max(n, 1))``, at least 1."""
    return max(total_chars // max(call_count, 1), 1)


def call_budget(per_call: int, max_result_chars: int | None) -> int:
    """``min(per_call, max_result_chars)`` — a tool's cap only ever lowers its share."""
    return per_call if max_result_chars is None else min(per_call, max_result_chars)


def truncation_marker(total_chars: int) -> str:
    """The exact marker the model sees: ``\\n[truncated — N chars total]`` (em dash)."""
    return f"\n[truncated \u2014 {total_chars} chars total]"


def trim_result(result: ToolResult, budget: int) -> tuple[ToolResult, bool]:
    """Cut a successful value longer than ``budget``; errors are never trimmed here.

    Returns the result and whether it was truncated. Only ``budget`` characters are copied, so a
    huge value costs no second copy of itself.
    """
    if not isinstance(result, Ok):
        return result, False
    length = len(result.value)
    if length <= budget:
        return result, False
    value = result.value[:budget] + truncation_marker(length)
    return Ok(value, structured=result.structured, cost_usd=result.cost_usd), True

"""How deeply the MCP fast paths read a request: `MAX_DEPTH` nested arrays and objects.

The SDK parses a message with pydantic, which refuses one nested more than 200 levels deep as a
parse error (``-32700``). The fast paths parse with `orjson` (1,024 levels) or `json` (which
raises `RecursionError` near Python's recursion limit), so without a bound they would answer
bodies the SDK refuses, or fail with a traceback on deeper ones. A message nested deeper than
`MAX_DEPTH` is left to the SDK, which answers it (or refuses it) as it answers every message.

`too_deep` costs two byte counts for an ordinary body; only a body with more brackets than
`MAX_DEPTH` has its parsed value walked (without recursion).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["MAX_DEPTH", "too_deep"]

MAX_DEPTH: Final = 128
"""The deepest nesting of arrays and objects a fast path reads (below the SDK's 200, so what
is handed over is never something the fast path would have answered differently)."""


def too_deep(text: bytes | str, value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value``, parsed from ``text``, nests arrays and objects deeper than ``limit``.

    Args:
        text: The JSON text ``value`` was parsed from (its bracket count rules most out).
        value: The parsed value.
        limit: The deepest nesting allowed (``[]`` is one level).
    """
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
    else:
        brackets = text.count("[") + text.count("{")
    if brackets <= limit:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False

"""Why a tool is withheld: the one answer listings, the CLI and a refused call share.

A tool's ``is_available`` says whether it is offered (`toolwire.tools.Tool.currently_available`:
``tools/list``, definitions, snapshots and calls all use it). When it is a `Gate` — a plain
function of no arguments with a ``why()`` — the tool can also say why it is not, with a stable
reason and the fix:

```python
def _why() -> Unavailable | None:
    if key_configured("providers/brave/apiKey"):
        return None
    return Unavailable(reason="missing_api_key", message="web_search: set BRAVE_API_KEY ...")

tool = define_tool(..., is_available=Gate(_why))
```

`unavailable` is that answer for any tool (``None`` while it is offered; ``reason="unavailable"``
and a generic message for a plain ``is_available``). A call of a withheld tool is refused with it
(``not_available``, its ``reason``), and ``toolwire tools`` and the ``toolwire serve`` banner list
withheld tools apart from the ones ``tools/list`` sends, each with its message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.tools import Tool

__all__ = ["UNAVAILABLE", "Gate", "Unavailable", "unavailable"]

UNAVAILABLE = "unavailable"
"""The reason of a tool withheld by a plain ``is_available``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Unavailable:
    """Why a tool is withheld.

    Attributes:
        reason: A stable reason code (``missing_api_key``, ``tool_not_installed``...).
        message: What the model and the operator read: what is missing and how to provide it.
    """

    reason: str
    message: str


class Gate:
    """An ``is_available`` that can say why: true while ``why()`` answers ``None``.

    Args:
        why: ``None`` when the tool can run, else why not. Called on every listing and call:
            keep it cheap (cache what touches the disk).
    """

    __slots__ = ("_why",)

    def __init__(self, why: Callable[[], Unavailable | None]) -> None:
        self._why = why

    def __call__(self) -> bool:
        """Whether the tool can run now."""
        return self._why() is None

    def why(self) -> Unavailable | None:
        """Why the tool cannot run now, or ``None``."""
        return self._why()


def unavailable(tool: Tool) -> Unavailable | None:
    """Why ``tool`` is withheld right now, or ``None`` when it is offered (the rule of
    `toolwire.tools.Tool.currently_available`)."""
    if tool.currently_available():
        return None
    gate = tool.is_available
    if isinstance(gate, Gate):
        try:
            why = gate.why()
        except Exception:  # fail closed, as currently_available does
            why = None
        if why is not None:
            return why
    return Unavailable(reason=UNAVAILABLE, message=f"Tool {tool.name} is not currently available")

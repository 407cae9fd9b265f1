"""Paging a long text: a window of ``max_chars`` from ``start_index``, and how to go on.

```python
window = page_text(text, start_index=0, max_chars=20_000)
window.text         # the characters shown
window.next_start   # where the next call starts, or None at the end
window.footer()     # "[37,055 more characters: call fetch_url with start_index=20000 ...]"
```

A window that does not reach the end stops at a line break in its last fifth (else a space in
its last tenth), so a page is not cut mid-word; ``next_start`` is exactly where it stopped,
and the windows of successive calls join up to the whole text.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Window", "page_text"]


@dataclass(frozen=True, slots=True)
class Window:
    """The part of a text one call shows.

    Attributes:
        text: The characters shown.
        start: Index of its first character in the whole text.
        end: Index just past its last character.
        total: Length of the whole text.
    """

    text: str
    start: int
    end: int
    total: int

    @property
    def remaining(self) -> int:
        """Characters after this window."""
        return self.total - self.end

    @property
    def next_start(self) -> int | None:
        """The ``start_index`` that continues, or ``None`` when this window reaches the end."""
        return self.end if self.remaining else None

    def footer(self, tool_name: str = "fetch_url") -> str:
        """The continuation line, or ``""`` at the end."""
        if not self.remaining:
            return ""
        return (
            f"[{self.remaining:,} more characters (shown {self.start:,}-{self.end:,} of "
            f"{self.total:,}): call {tool_name} with start_index={self.end} to continue]"
        )


def page_text(text: str, start_index: int, max_chars: int) -> Window:
    """The window of at most ``max_chars`` characters from ``start_index``.

    Raises:
        ValueError: ``start_index`` is negative or past the end, or ``max_chars`` < 1.
    """
    total = len(text)
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    if start_index < 0 or (start_index > 0 and start_index >= total):
        raise ValueError(
            f"start_index {start_index} is outside the content ({total:,} characters); "
            f"use 0-{max(total - 1, 0)}"
        )
    end = min(total, start_index + max_chars)
    if end < total:
        end = _soft_end(text, start_index, end, max_chars)
    return Window(text[start_index:end], start_index, end, total)


def _soft_end(text: str, start: int, end: int, max_chars: int) -> int:
    newline = text.rfind("\n", end - max_chars // 5, end)
    if newline > start:
        return newline + 1
    space = text.rfind(" ", end - max_chars // 10, end)
    if space > start:
        return space + 1
    return end

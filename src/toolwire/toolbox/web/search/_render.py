"""What ``web_search`` answers: a compact numbered list for the model, the hits as data.

```text
3 results from Brave for "rust async runtimes":

1. Tokio - An asynchronous Rust runtime
   https://tokio.rs/
   2024-05-02 · Tokio is an event-driven, non-blocking I/O platform for writing ...
```

Snippets in the text are cut at `TEXT_SNIPPET_CHARS`; ``structured`` keeps them whole (up to
`MAX_SNIPPET_CHARS`).
"""

from __future__ import annotations

from typing import Any

from toolwire.toolbox.web.search._protocol import SearchHit

__all__ = ["TEXT_SNIPPET_CHARS", "render_text", "structured"]

TEXT_SNIPPET_CHARS = 280


def render_text(label: str, query: str, hits: tuple[SearchHit, ...], notes: tuple[str, ...]) -> str:
    """The numbered list the model reads (or a one-line "no results")."""
    quoted = query if len(query) <= 200 else query[:199] + "…"
    if not hits:
        lines = [f'No results from {label} for "{quoted}".']
    else:
        noun = "result" if len(hits) == 1 else "results"
        lines = [f'{len(hits)} {noun} from {label} for "{quoted}":']
        for number, hit in enumerate(hits, start=1):
            lines.extend(["", f"{number}. {hit.title}", f"   {hit.url}"])
            about = _short(hit.snippet)
            if hit.date:
                about = f"{hit.date} · {about}" if about else hit.date
            if about:
                lines.append(f"   {about}")
    lines.extend(f"\n({note})" for note in notes)
    return "\n".join(lines)


def structured(
    provider: str,
    query: str,
    hits: tuple[SearchHit, ...],
    cost_usd: float | None,
    notes: tuple[str, ...],
) -> dict[str, Any]:
    """The answer as data: provider, query, results (title, url, snippet, date), cost."""
    return {
        "provider": provider,
        "query": query,
        "count": len(hits),
        "results": [hit.to_dict() for hit in hits],
        "cost_usd": cost_usd,
        "notes": list(notes),
    }


def _short(snippet: str) -> str:
    if len(snippet) <= TEXT_SNIPPET_CHARS:
        return snippet
    return snippet[: TEXT_SNIPPET_CHARS - 1].rstrip() + "…"

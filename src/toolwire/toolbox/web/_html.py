"""HTML → Markdown keeping the main content: trafilatura finds it, html-to-markdown renders it.

```python
from toolwire.toolbox.web._html import html_to_markdown

page = html_to_markdown(html, base_url="https://example.com/post")
print(page.title, page.method)  # "A post", "main-content"
print(page.text)                # "# A post\n\nThe article's paragraphs, links, tables..."
```

trafilatura (maintained, used by research crawlers) scores the page's blocks and keeps the
article with its links and tables as clean HTML; html-to-markdown (a Rust converter) turns that
into Markdown with relative links made absolute. A page where trafilatura finds no main content
(a form, a very short page), or an index whose links it dropped (70% or more of the visible
text is link text and the main content kept under a quarter of the links), is converted whole
by html-to-markdown with its navigation, forms, scripts and hidden elements dropped.
``benchmarks/bench_extract.py`` compares this pipeline with the alternatives on real saved
pages (see ``docs/toolbox.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from toolwire.safety.linear_regex import LinearMatch, linear

__all__ = [
    "INDEX_LINKS_KEPT",
    "INDEX_LINK_SHARE",
    "MIN_MAIN_CHARS",
    "Extracted",
    "html_to_markdown",
]

MIN_MAIN_CHARS = 200
"""Main content shorter than this (and shorter than the whole page's text) is not trusted."""
INDEX_LINK_SHARE = 0.7
"""A page whose visible text is at least this share link text may be an index of links..."""
INDEX_LINKS_KEPT = 0.25
"""... and is one when the main content kept fewer than this share of its links."""

_LINK = linear(r"\[([^\]\n]*)\]\([^)\n]*\)")


@dataclass(frozen=True, slots=True)
class Extracted:
    """A page as Markdown.

    Attributes:
        text: The Markdown, with ``# title`` first when the page has one.
        title: The page's title, or ``None``.
        method: ``main-content`` (trafilatura found the article) or ``whole-page``.
    """

    text: str
    title: str | None
    method: Literal["main-content", "whole-page"]


def html_to_markdown(html: str, base_url: str | None = None) -> Extracted:
    """The main content of ``html`` as Markdown (blocking: run it in a worker thread).

    Args:
        html: The page source.
        base_url: The page's URL; relative links are resolved against it.
    """
    main, title = _main_content(html, base_url)
    body = _markdown(main, base_url, whole_page=False) if main is not None else ""
    whole = _markdown(html, base_url, whole_page=True)
    if _is_index(whole, body) or (len(body) < MIN_MAIN_CHARS and len(whole) > len(body)):
        return Extracted(_with_title(whole, title), title, "whole-page")
    return Extracted(_with_title(body, title), title, "main-content")


def _is_index(whole: str, main: str) -> bool:
    """A page that is mostly links (a site's front page, a docs index), whose links the
    main-content extraction dropped: the links are what the reader came for."""
    linked = visible = 0
    for found in _LINK.finditer(whole):
        linked += len("".join(str(found.group(1)).split()))
    visible = len("".join(_LINK.sub(_link_text, whole).split()))
    if not visible or linked / visible < INDEX_LINK_SHARE:
        return False
    return len(_LINK.findall(main)) < len(_LINK.findall(whole)) * INDEX_LINKS_KEPT


def _link_text(found: LinearMatch) -> str:
    return str(found.group(1))


def _main_content(html: str, base_url: str | None) -> tuple[str | None, str | None]:
    import trafilatura

    tree = trafilatura.load_html(html)
    if tree is None:
        return None, None
    title = _title(tree)
    found = trafilatura.extract(
        tree,
        url=base_url,
        output_format="html",
        include_links=True,
        include_tables=True,
        include_images=False,
    )
    return (found or None), title


def _title(tree: Any) -> str | None:
    element = tree.find(".//title")
    text = element.text_content() if element is not None else ""
    return " ".join(text.split()) or None


def _markdown(html: str, base_url: str | None, *, whole_page: bool) -> str:
    import html_to_markdown as h2m

    options = h2m.ConversionOptions(
        extract_metadata=False,
        base_url=base_url,
        skip_images=not whole_page,
        preprocessing=h2m.PreprocessingOptions(
            preset="aggressive" if whole_page else "minimal",
            remove_navigation=whole_page,
            remove_forms=whole_page,
        ),
    )
    return (h2m.convert(html, options).content or "").strip()


def _with_title(body: str, title: str | None) -> str:
    if title is None or body.lstrip().startswith("# "):
        return body
    return f"# {title}\n\n{body}" if body else f"# {title}"

"""The ``fetch_url`` reducer: a page's Markdown keeps its text and loses the chrome around it.

The fetch_url output format (the contract between the tool and this reducer)::

    URL: <final url> (<kind label>)
    <blank line>
    <the window of content>
    <blank line>
    [<note>]                 (optional: byte cap, paging; each on its own line in brackets)

The header line and the bracketed notes after the content are kept verbatim (the paging line
carries the ``start_index`` to continue from). Only HTML pages and plain text are rewritten
(``HTML as Markdown``; ``HTML source`` from ``raw=True``, plain text, PDF, JSON and images are
left as they are):

* **link farms**: a run of 4 or more lines that hold nothing but links (menus, "related
  articles", share buttons, tag clouds) becomes ``[N links omitted]`` — unless most of the
  page's characters are on link-only lines: then the page is an index and its links are what
  the model wants;
* **images**: ``![alt](url)`` becomes ``[image: alt]`` (or is dropped without alt text);
* **tracking parameters**: ``utm_*``, ``fbclid``, ``gclid``, ``mc_eid`` and the like are cut
  from link targets;
* **repeats**: a line of 20+ characters seen before in the window is dropped (cookie banners
  and "share this" blocks repeated at top and bottom);
* **pointless links**: a line that is only a link to a place on the same page ("Skip to main
  content") or only a bare URL linked to itself that the window links again (a teaser image's
  link beside its headline) is dropped;
* **blank runs**: more than one blank line in a row becomes one; trailing spaces go.

Errors are never touched; a result the reducer does not recognise is returned as it came.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from toolwire.reducers._registry import GuardedReducer, ReducerContext
from toolwire.results import Ok, ToolResult
from toolwire.safety.linear_regex import LinearMatch, linear

__all__ = ["LINK_RUN", "FetchUrlReducer", "reduce_page"]

LINK_RUN = 4
"""Consecutive link-only lines at which a run counts as a link farm."""
LINK_INDEX_SHARE = 0.5
"""A page whose characters are mostly on link-only lines is an index: its links are its signal."""

_HEADER = linear(r"^URL: (\S+) \(HTML as Markdown\)$")
_NOTE = linear(r"^\[[^\n]*\]$")
_IMAGE = linear(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = linear(r"\[[^\]\n]*\]\([^)\n]*\)")
_LINK_ONLY_LINE = linear(r"^\s*(?:[-*+]|\d+\.)?\s*(?:\[[^\]\n]*\]\([^)\n]*\)[\s|·•,/-]*)+$")
_TRACKING = linear(
    r"([?&])(?:utm_[a-z]{1,20}|fbclid|gclid|dclid|msclkid|mc_eid|mc_cid|_ga|igshid|yclid)"
    r"=[^&#)\s]*&?"
)
_TARGET = linear(r"\]\(([^)\s]*)\)")
_SINGLE_LINK = linear(r"^\s*\[([^\]\n]*)\]\(([^)\s]*)\)\s*$")
_MIN_REPEAT = 20


class FetchUrlReducer(GuardedReducer):
    """Drops link farms, images, tracking parameters and repeated lines from fetched pages."""

    tool_name = "fetch_url"

    def _reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        if not isinstance(result, Ok):
            return result
        header, sep, rest = result.value.partition("\n")
        found = _HEADER.match(header) if sep else None
        if found is None:
            return result
        body, notes = _split_notes(rest)
        reduced = reduce_page(body, page_url=str(found.group(1)))
        if reduced == body:
            return result
        value = "\n\n".join([f"{header}\n\n{reduced.strip(chr(10))}", *notes])
        return dataclasses.replace(result, value=value)


def _split_notes(rest: str) -> tuple[str, list[str]]:
    lines = rest.split("\n")
    notes: list[str] = []
    while lines and (_NOTE.match(lines[-1]) or not lines[-1].strip()):
        line = lines.pop()
        if line.strip():
            notes.insert(0, line)
    return "\n".join(lines), notes


def reduce_page(markdown: str, page_url: str | None = None) -> str:
    """The Markdown of a page without its link farms, images, tracking parameters and
    repeated lines (see the module docstring); ``page_url`` (the page's own address) lets it
    drop links to places on the same page."""
    lines = [_clean_line(line) for line in markdown.split("\n")]
    targets = Counter(str(t) for line in lines for t in _TARGET.findall(line))
    lines = [line for line in lines if not _pointless(line, page_url, targets)]
    total = sum(len(line.strip()) for line in lines)
    links = sum(len(line.strip()) for line in lines if _is_link_only(line))
    keep_links = not total or links / total > LINK_INDEX_SHARE
    out: list[str] = []
    seen: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not keep_links and _is_link_only(line):
            end = index
            while end < len(lines) and (_is_link_only(lines[end]) or not lines[end].strip()):
                end += 1
            count = sum(1 for item in lines[index:end] if item.strip())
            if count >= LINK_RUN:
                out.append(f"[{count} links omitted]")
                if end < len(lines):
                    out.append("")
                index = end
                continue
        key = line.strip()
        if len(key) >= _MIN_REPEAT and key in seen:
            index += 1
            continue
        seen.add(key)
        out.append(line)
        index += 1
    if not markdown.endswith("\n"):
        while out and not out[-1]:
            out.pop()  # a dropped line was the last one
    if not markdown.startswith("\n"):
        while out and not out[0]:
            out.pop(0)  # a dropped line was the first one
    return _squeeze_blank(out)


def _pointless(line: str, page_url: str | None, targets: Counter[str]) -> bool:
    """A line that is one link to a place on this page ("Skip to main content"), or one bare
    URL linked to itself that the window links again (a teaser image's link)."""
    found = _SINGLE_LINK.match(line)
    if found is None:
        return False
    text, target = str(found.group(1)), str(found.group(2))
    if page_url is not None and target.startswith((f"{page_url}#", "#")):
        return True
    return text == target and targets[target] > 1


def _clean_line(line: str) -> str:
    line = _IMAGE.sub(_image_text, line)
    if "(" in line and "=" in line:
        line = _LINK.sub(_untracked, line)
    return line.rstrip()


def _image_text(match: LinearMatch) -> str:
    alt = " ".join(str(match.group(1)).split())
    return f"[image: {alt}]" if alt else ""


def _untracked(match: LinearMatch) -> str:
    link = str(match.group(0))
    for _ in range(20):  # one pass misses a parameter right after a removed one
        cleaned = _TRACKING.sub(_keep_separator, link)
        if cleaned == link:
            break
        link = cleaned
    return link.replace("?)", ")").replace("&)", ")")


def _keep_separator(match: LinearMatch) -> str:
    return str(match.group(1)) if str(match.group(0)).endswith("&") else ""


def _is_link_only(line: str) -> bool:
    return bool(line.strip()) and _LINK_ONLY_LINE.match(line) is not None


def _squeeze_blank(lines: list[str]) -> str:
    out: list[str] = []
    for line in lines:
        if not line and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out)

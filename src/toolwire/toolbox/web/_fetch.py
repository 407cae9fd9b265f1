"""``fetch_url`` (toolset ``web``): a web page, PDF, JSON, text or image, as the model reads it.

```python
from toolwire.toolbox.web import FetchSettings, fetch_url_tool

registry.register(fetch_url_tool(FetchSettings(user_agent="my-agent/1.0")))
```

The fetch goes through ``ctx.scoped_fetch`` (`SafeFetcher` under the network policy: every
redirect re-checked, private addresses refused unless the policy allows them), after the
site's robots.txt when `FetchSettings.respect_robots` is on. The body is cut at
`FetchSettings.max_bytes`, converted in a worker thread (`convert_body`), and paged: the
answer ends with how many characters remain and the ``start_index`` to continue from. What a
page says is adversary-controlled: the tool is ``output_is_untrusted``.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from toolwire.capabilities.kinds.network.kind import network
from toolwire.capabilities.seams import FetchResponse, ScopedFetch
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import HostNotAllowedError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.threads import run_in_worker
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused
from toolwire.toolbox.web._documents import Converted, UnsupportedContent, convert_body
from toolwire.toolbox.web._paging import Window, page_text
from toolwire.toolbox.web._robots import RobotsCheck
from toolwire.toolbox.web._settings import FetchSettings
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["MAX_CHARS_LIMIT", "fetch_url_tool", "web_extra_installed"]

MAX_CHARS_LIMIT = 200_000
"""The most characters one call may ask for (the call's result budget may allow fewer)."""
_FRAME_CHARS = 400  # room kept in the result budget for the header and the paging line
_ERROR_EXCERPT_CHARS = 1_000
_WEB_EXTRA = ("httpx", "trafilatura", "html_to_markdown", "pypdf", "protego", "charset_normalizer")


def fetch_url_tool(settings: FetchSettings | None = None) -> Tool:
    """A ``fetch_url`` tool with these settings (`FetchSettings.from_env` by default).

    Each tool keeps its own robots.txt cache.
    """
    config = settings or FetchSettings.from_env()
    robots = RobotsCheck(config)
    installed = web_extra_installed()

    @tool(
        capabilities=[network(["*"])],
        options=ToolOptions(
            toolset="web",
            is_available=lambda: installed,
            output_is_untrusted=True,
            max_result_chars=MAX_CHARS_LIMIT + _FRAME_CHARS,
            timeout_s=2 * config.timeout_s + 30,
            annotations=ToolAnnotations(title="Fetch a URL", read_only=True, open_world=True),
        ),
    )
    async def fetch_url(
        ctx: ToolContext,
        url: str,
        max_chars: int = config.default_max_chars,
        start_index: int = 0,
        raw: bool = False,
    ) -> ToolResult:
        """Fetch a URL and return its content: a web page as Markdown (main content only), a
        PDF as text, JSON indented, text as is, an image described (bytes attached).

        Long content is paged: the answer ends with how many characters remain and the
        start_index to call again with.

        Args:
            url: An http or https URL.
            max_chars: Characters to return at most (1-200000).
            start_index: Character to start from, to read the rest of a long page.
            raw: Return HTML source (and JSON as sent) instead of Markdown.
        """
        url = url.strip()
        problem = _check_args(url, max_chars, start_index)
        if problem is not None:
            return problem
        seam = ctx.scoped_fetch
        if seam is None:
            return missing_seam("fetch_url", "network access")
        fetched = await _fetch(seam, url, config, robots)
        if isinstance(fetched, Err):
            return fetched
        return await _present(ctx, url, fetched, config, max_chars, start_index, raw)

    return fetch_url


def web_extra_installed() -> bool:
    """Whether the ``web`` extra is installed (its packages looked up, not imported); without
    it ``fetch_url`` is unavailable, so no model is offered a tool that could only fail
    (``pip install 'toolwire[web]'``)."""
    return all(importlib.util.find_spec(name) is not None for name in _WEB_EXTRA)


def _check_args(url: str, max_chars: int, start_index: int) -> Err | None:
    if not url.lower().startswith(("http://", "https://")):
        return Err(
            f"url must start with http:// or https:// (got {url[:80]!r})",
            ErrorCode.INPUT_INVALID,
            field="url",
        )
    if not 1 <= max_chars <= MAX_CHARS_LIMIT:
        return Err(
            f"max_chars must be 1-{MAX_CHARS_LIMIT}, got {max_chars}",
            ErrorCode.INPUT_INVALID,
            field="max_chars",
        )
    if start_index < 0:
        return Err(
            f"start_index must be >= 0, got {start_index}",
            ErrorCode.INPUT_INVALID,
            field="start_index",
        )
    return None


async def _fetch(
    seam: ScopedFetch, url: str, config: FetchSettings, robots: RobotsCheck
) -> FetchResponse | Err:
    try:
        if config.respect_robots:
            verdict = await robots.check(seam, url)
            if not verdict.allowed:
                return Err(verdict.reason, ErrorCode.NOT_AVAILABLE, reason="robots_txt")
        response = await seam.fetch(
            url,
            headers={"user-agent": config.user_agent, "accept": _ACCEPT},
            timeout_s=config.timeout_s,
            max_bytes=config.max_bytes,
        )
        if config.respect_robots and response.url != url:  # redirected: the target's rules too
            verdict = await robots.check(seam, response.url)
            if not verdict.allowed:
                reason = f"{url} redirected to {response.url}, and {verdict.reason}"
                return Err(reason, ErrorCode.NOT_AVAILABLE, reason="robots_txt")
        return response
    except HostNotAllowedError as exc:
        return refused(exc)
    except TimeoutError:
        return Err(
            f"fetching {_host(url)} timed out after {config.timeout_s:g} s",
            cause="timeout",
        )
    except OSError as exc:
        return Err(f"fetching {_host(url)} failed: {exc}", cause=type(exc).__name__)
    except ValueError as exc:
        return Err(str(exc), ErrorCode.INPUT_INVALID, field="url")


_ACCEPT = (
    "text/html,application/xhtml+xml,application/pdf,application/json,text/plain;q=0.9,"
    "image/*;q=0.8,*/*;q=0.5"
)


async def _present(
    ctx: ToolContext,
    url: str,
    response: FetchResponse,
    config: FetchSettings,
    max_chars: int,
    start_index: int,
    raw: bool,
) -> ToolResult:
    body = response.body[: config.max_bytes]
    cut = response.truncated or len(response.body) > config.max_bytes
    content_type = _header(response, "content-type")
    try:
        converted = await run_in_worker(
            lambda: convert_body(
                body, content_type, response.url, raw=raw, max_image_bytes=config.max_image_bytes
            )
        )
    except UnsupportedContent as exc:
        if response.status >= 400:
            return _http_error(response, None)
        return Err(str(exc), ErrorCode.EXECUTION_FAILED, cause="unsupported_content")
    if response.status >= 400:
        return _http_error(response, converted)
    budget = max(1, min(max_chars, ctx.result_budget_chars - _FRAME_CHARS))
    try:
        window = page_text(converted.text, start_index, budget)
    except ValueError as exc:
        return Err(str(exc), ErrorCode.INPUT_INVALID, field="start_index")
    text = _render(response, converted, window, cut, len(body), raw)
    return Ok(text, structured=_structured(url, response, content_type, converted, window, cut))


def _http_error(response: FetchResponse, converted: Converted | None) -> Err:
    excerpt = ""
    if converted is not None and converted.kind != "image":
        excerpt = converted.text[:_ERROR_EXCERPT_CHARS]
    return Err(
        f"HTTP {response.status} from {response.url}" + (f"\n\n{excerpt}" if excerpt else ""),
        cause=f"http_{response.status}",
    )


def _render(
    response: FetchResponse, converted: Converted, window: Window, cut: bool, size: int, raw: bool
) -> str:
    label = _RAW_LABELS.get(converted.kind) if raw else None
    header = f"URL: {response.url} ({label or _KIND_LABELS[converted.kind]})"
    parts = [header, "", window.text]
    if cut:
        parts.append(f"\n[the response was cut at {size:,} bytes: the rest was not downloaded]")
    footer = window.footer()
    if footer:
        parts.append(f"\n{footer}")
    return "\n".join(parts)


_RAW_LABELS = {"html": "HTML source", "json": "JSON as sent"}
_KIND_LABELS = {
    "html": "HTML as Markdown",
    "pdf": "PDF as text",
    "json": "JSON",
    "text": "text",
    "image": "image",
}


def _structured(
    url: str,
    response: FetchResponse,
    content_type: str,
    converted: Converted,
    window: Window,
    cut: bool,
) -> dict[str, Any]:
    return {
        "url": url,
        "final_url": response.url,
        "status": response.status,
        "content_type": content_type,
        "kind": converted.kind,
        "title": converted.title,
        "total_chars": window.total,
        "start_index": window.start,
        "end_index": window.end,
        "remaining_chars": window.remaining,
        "next_start_index": window.next_start,
        "truncated_bytes": cut,
        **converted.details,
    }


def _header(response: FetchResponse, name: str) -> str:
    for key, value in response.headers.items():
        if key.lower() == name:
            return value
    return ""


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).hostname or "the host"
    except ValueError:
        return "the host"

"""The web tools (toolset ``web``): ``fetch_url`` and ``web_search``.

```python
from toolwire.toolbox.web import FetchSettings, web_tools

registry.register_all(web_tools())  # settings from TOOLWIRE_FETCH_* (FetchSettings.from_env)
registry.register_all(web_tools(FetchSettings(respect_robots=False)))  # fetches a person asks for
```

``fetch_url`` needs the ``network`` capability's backend (a `SafeFetcher`, which
``create_backends()`` gives when ``toolwire[web]`` is installed); without it the tool answers
``not_available``. Its output is untrusted: pages are written by whoever controls the site.
``web_search`` asks the provider of ``search`` (`WebSearchSettings`, by default from
``TOOLWIRE_WEB_SEARCH_*``: DuckDuckGo without a key) through the same backend.

Rooms: ``_fetch.py`` (``fetch_url``), ``_settings.py`` (`FetchSettings`), ``_robots.py``
(robots.txt, RFC 9309), ``_charsets.py`` (bytes → text), ``_documents.py`` (a body → what the model
reads), ``_html.py`` (HTML → Markdown), ``_paging.py`` (a window of a long text), ``search/``
(``web_search`` and its providers).
"""

from __future__ import annotations

from toolwire.toolbox.web._fetch import fetch_url_tool
from toolwire.toolbox.web._settings import FetchSettings
from toolwire.toolbox.web.search import WebSearchSettings, web_search_tool
from toolwire.tools import Tool

__all__ = [
    "FetchSettings",
    "WebSearchSettings",
    "fetch_url_tool",
    "web_search_tool",
    "web_tools",
]


def web_tools(
    fetch: FetchSettings | None = None, search: WebSearchSettings | None = None
) -> list[Tool]:
    """``fetch_url`` and ``web_search`` (toolset ``web``), with ``fetch`` and ``search``
    settings or those of the environment."""
    return [fetch_url_tool(fetch), web_search_tool(search)]

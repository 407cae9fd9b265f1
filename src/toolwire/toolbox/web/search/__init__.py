"""``web_search`` (toolset ``web``) and its providers: Brave, Tavily, Exa, SearXNG, DuckDuckGo.

```python
from toolwire.toolbox.web.search import WebSearchSettings, web_search_tool

registry.register(web_search_tool())  # DuckDuckGo, or $TOOLWIRE_WEB_SEARCH_PROVIDER
registry.register(web_search_tool(WebSearchSettings(provider="exa")))  # key: EXA_API_KEY
```

One provider protocol (`SearchProvider`: build the request, parse the answer) and one tool
that sends the request through the network seam with the key from the secrets seam. See
``docs/toolbox.md`` (``web: web_search``) for the providers' APIs, prices and error codes.

Rooms: ``_tool.py`` (``web_search``), ``_settings.py`` (`WebSearchSettings`), ``_protocol.py`` and
``_providers.py``; one file per provider: ``_brave.py``, ``_tavily.py``, ``_exa.py``,
``_searxng.py``, ``_duckduckgo.py``; ``keys.py`` (is the key there?), ``_hits.py`` (`SearchHit`
values), ``_render.py`` (the answer) and ``_failures.py`` (a failed provider's stable codes).
"""

from __future__ import annotations

from toolwire.toolbox.web.search._failures import ProviderFailure
from toolwire.toolbox.web.search._protocol import HttpCall, SearchHit, SearchPage, SearchProvider
from toolwire.toolbox.web.search._providers import create_provider
from toolwire.toolbox.web.search._settings import PROVIDERS, WebSearchSettings
from toolwire.toolbox.web.search._tool import web_search_tool
from toolwire.toolbox.web.search.keys import key_configured

__all__ = [
    "PROVIDERS",
    "HttpCall",
    "ProviderFailure",
    "SearchHit",
    "SearchPage",
    "SearchProvider",
    "WebSearchSettings",
    "create_provider",
    "key_configured",
    "web_search_tool",
]

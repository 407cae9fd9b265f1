"""The MCP conformance fixture: what the official suite's server scenarios call, as toolwire
tools and server features, served by ``toolwire serve --conformance-fixture``.

```python
registry.register_all(fixture_tools())
options = with_fixture_features(ServeOptions())
await serve_registry(registry, transport="http", port=0, options=options)
```

The tools are in `toolwire.mcp.conformance.tools`, the resources, template, subscriptions and
completion in `toolwire.mcp.conformance.resources`; the client the suite's client scenarios
run is ``python -m toolwire.mcp.conformance.client <url>``. See ``docs/mcp.md``
(Conformance) for the scenarios and what each proves.

Also here: ``samples.py`` (the sample media: a PNG and a WAV, built in code).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from toolwire.mcp.conformance.resources import install_fixture_resources
from toolwire.mcp.conformance.tools import FIXTURE_TOOLSET, fixture_tools

if TYPE_CHECKING:
    from toolwire.mcp.server.server import ServeOptions

__all__ = ["FIXTURE_TOOLSET", "fixture_tools", "install_fixture_resources", "with_fixture_features"]


def with_fixture_features(options: ServeOptions) -> ServeOptions:
    """``options`` with the fixture's resources, subscriptions and completion added."""
    return replace(options, server_features=(*options.server_features, install_fixture_resources))

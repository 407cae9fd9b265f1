"""The egress proxy: the only way out of a sandbox, checked by the shared network policy.

```python
from toolwire.capabilities.kinds.process.sandbox.egress import EgressProxy

async with EgressProxy() as proxy:
    listener = await proxy.serve_unix(path, NetworkPolicy(allow=("pypi.org",)))
```

An HTTP/1.1 forward proxy (absolute-form requests) and ``CONNECT`` tunnels, each target checked by
`toolwire.capabilities.kinds.network.check_destination`, the code `SafeFetcher` uses. A refusal is
answered ``403`` with ``X-Toolwire-Refusal: <code>``; decisions are logged on ``toolwire.egress``.
See ``docs/sandbox.md`` ("The egress proxy"). It needs the ``web`` extra (httpx, h11, ada-url):
``pip install 'toolwire[web]'``.

Rooms: ``_proxy.py`` (`EgressProxy`), ``_listeners.py`` (a Unix or loopback TCP socket with its own
policy), ``_context.py`` (what a listener's connections share), ``_connection.py`` (one client
connection), ``_client.py`` (h11 parsing of the client side), ``_forward.py`` (one absolute-form
request), ``_tunnel.py`` (a checked, pinned ``CONNECT`` tunnel), ``_splice.py`` (two streams joined
both ways), ``_headers.py`` (hop-by-hop headers stop here), ``_answers.py`` (the proxy's own answers
and their log line) and ``_limits.py`` (what one client may hold, and for how long).
"""

from __future__ import annotations

from toolwire.errors import ConfigurationError

try:
    from toolwire.capabilities.kinds.network._ports import DEFAULT_PORTS
    from toolwire.capabilities.kinds.process.sandbox.egress._answers import (
        REFUSAL_HEADER,
        ProxyCode,
    )
    from toolwire.capabilities.kinds.process.sandbox.egress._limits import EgressLimits
    from toolwire.capabilities.kinds.process.sandbox.egress._listeners import EgressListener
    from toolwire.capabilities.kinds.process.sandbox.egress._proxy import EgressProxy
except ModuleNotFoundError as exc:  # httpx, h11 or ada-url
    raise ConfigurationError(
        f"the egress proxy needs {exc.name}: pip install 'toolwire[web]'"
    ) from exc

__all__ = [
    "DEFAULT_PORTS",
    "REFUSAL_HEADER",
    "EgressLimits",
    "EgressListener",
    "EgressProxy",
    "ProxyCode",
]

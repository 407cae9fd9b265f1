"""Browser clients: CORS on the streamable HTTP endpoint (`ServeOptions.cors_origins`).

A web page can call an MCP server only if the server answers the browser's CORS preflight and
marks its answers readable by that page's origin. With ``cors_origins`` set, every request
passes through Starlette's ``CORSMiddleware`` first, so:

- a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from a listed
  origin is answered ``200`` before authentication (browsers never send credentials on a
  preflight), allowing ``GET``, ``POST``, ``DELETE`` and the headers the page asked for
  (``Authorization``, ``Mcp-Session-Id``, ``Mcp-Protocol-Version``, ``Mcp-Param-*``, ...); one
  from any other origin is answered ``400``;
- an answer to a listed origin carries ``Access-Control-Allow-Origin`` and exposes
  ``Mcp-Session-Id``, ``Mcp-Protocol-Version`` and ``WWW-Authenticate`` to the page;
- on a loopback server, whose DNS-rebinding protection refuses foreign ``Origin`` headers
  (``403``), the listed origins are trusted too.

The origins are named one by one; ``"*"`` is refused: the tools include a terminal, and no
team wants every page any of its browsers opens to be able to call them (with a token in the
page or not). Pages served from several origins list each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from toolwire.errors import ConfigurationError

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp

__all__ = [
    "ALLOWED_METHODS",
    "EXPOSED_HEADERS",
    "PREFLIGHT_MAX_AGE_S",
    "check_cors_origins",
    "trusting_origins",
    "with_cors",
]

ALLOWED_METHODS: Final = ("GET", "POST", "DELETE", "OPTIONS")
"""What the endpoint answers: streams, messages, ending a session, the preflight itself."""
EXPOSED_HEADERS: Final = ("Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate")
"""Answer headers a page's script must read: the session to send back, the revision, and
where to authenticate after a ``401``."""
PREFLIGHT_MAX_AGE_S: Final = 600
"""How long a browser may reuse a preflight's answer."""


def check_cors_origins(origins: tuple[str, ...]) -> None:
    """Check that each of ``origins`` is a browser origin: ``http(s)://host[:port]``, in
    lower case, nothing after it.

    Raises:
        ConfigurationError: one is not (the message shows the form a browser sends), or it
            is ``"*"``.
    """
    if isinstance(origins, str):
        raise ConfigurationError(
            f"cors_origins must be a list of origins, not the string {origins!r}: "
            f"write ({origins!r},) in Python or [{origins!r}] in toolwire.toml"
        )
    for origin in origins:
        if origin == "*":
            raise ConfigurationError(
                "cors_origins: '*' would let every web page a browser opens call these tools; "
                "list the origins of the pages that may call the server, e.g. "
                "['https://app.example.com']"
            )
        if not isinstance(origin, str) or _origin_of(origin) != origin:
            shown = _origin_of(origin) if isinstance(origin, str) else None
            hint = f"; the browser would send {shown!r}" if shown else ""
            raise ConfigurationError(
                f"cors_origins: {origin!r} is not a browser origin (scheme://host[:port], "
                f"lower-case, http or https, no path or trailing slash, e.g. "
                f"'https://app.example.com'){hint}"
            )


def with_cors(app: ASGIApp, origins: tuple[str, ...]) -> ASGIApp:
    """``app`` behind Starlette's ``CORSMiddleware`` for ``origins`` (see the module doc)."""
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        app,
        allow_origins=list(origins),
        allow_methods=list(ALLOWED_METHODS),
        allow_headers=["*"],  # mirrors what the page asks for: Mcp-Param-* names vary
        expose_headers=list(EXPOSED_HEADERS),
        max_age=PREFLIGHT_MAX_AGE_S,
    )


def trusting_origins(
    security: TransportSecuritySettings | None, origins: tuple[str, ...]
) -> TransportSecuritySettings | None:
    """``security`` with ``origins`` added to the origins its DNS-rebinding protection lets
    in (its ``Host`` check is unchanged)."""
    if security is None or not security.enable_dns_rebinding_protection or not origins:
        return security
    allowed = [*security.allowed_origins, *origins]
    return security.model_copy(update={"allowed_origins": allowed})


def _origin_of(origin: str) -> str | None:
    """The origin a browser would send for ``origin`` (``None`` if it names none)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + ("" if port in (None, default) else f":{port}")

"""`check_exposure`: refuse to serve HTTP beyond this machine without authentication."""

from __future__ import annotations

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth.settings import is_loopback_host

__all__ = ["INSECURE_WARNING", "check_exposure"]

INSECURE_WARNING = (
    "serving {host} WITHOUT AUTHENTICATION (--insecure-no-auth): anyone who can reach the "
    "port can run every tool, commands included. Only do this behind a proxy that "
    "authenticates."
)


def check_exposure(host: str, *, authenticated: bool, insecure_no_auth: bool = False) -> str | None:
    """Whether serving HTTP on ``host`` is allowed; the warning to show loudly, if any.

    Raises:
        ConfigurationError: ``host`` is reachable from other machines (not loopback) and no
            authentication is configured, and ``insecure_no_auth`` was not given.
    """
    if authenticated or is_loopback_host(host):
        return None
    if insecure_no_auth:
        return INSECURE_WARNING.format(host=host or "every interface")
    raise ConfigurationError(
        f"refusing to serve on {host or 'every interface'} without authentication: anyone who "
        "can reach it could run the tools. Turn on bearer tokens ([auth] tokens = true, then "
        "`toolwire token create`) or OAuth ([auth.oauth], see docs/mcp.md), or bind "
        "127.0.0.1 (or pass --insecure-no-auth when a proxy in front authenticates)"
    )

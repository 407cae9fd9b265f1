"""``TOOLWIRE_AUTH_*`` environment variables over the ``[auth]`` table, as every ``TOOLWIRE_*``
variable wins over the file.

| variable | key | value |
| --- | --- | --- |
| ``TOOLWIRE_AUTH_TOKENS`` | ``[auth] tokens`` | ``true``/``false`` (``1``/``0``, ``on``/``off``) |
| ``TOOLWIRE_AUTH_TOKEN_CACHE_S`` | ``[auth] token_cache_s`` | seconds |
| ``TOOLWIRE_AUTH_OAUTH_ISSUER`` | ``[auth.oauth] issuer`` | a string |
| ``TOOLWIRE_AUTH_OAUTH_JWKS_URL`` | ``[auth.oauth] jwks_url`` | a URL |
| ``TOOLWIRE_AUTH_OAUTH_AUDIENCE`` | ``[auth.oauth] audience`` | comma-separated |
| ``TOOLWIRE_AUTH_OAUTH_RESOURCE`` | ``[auth.oauth] resource`` | a URL |
| ``TOOLWIRE_AUTH_OAUTH_ALGORITHMS`` | ``[auth.oauth] algorithms`` | comma-separated |
| ``TOOLWIRE_AUTH_OAUTH_LEEWAY_S`` | ``[auth.oauth] leeway_s`` | seconds |
| ``TOOLWIRE_AUTH_OAUTH_JWKS_CACHE_S`` | ``[auth.oauth] jwks_cache_s`` | seconds |
| ``TOOLWIRE_AUTH_OAUTH_JWKS_REFETCH_S`` | ``[auth.oauth] jwks_refetch_s`` | seconds |
| ``TOOLWIRE_AUTH_OAUTH_SCOPES`` | ``[auth.oauth.scopes]`` | JSON: ``{"tools:files": ["file"]}`` |

A variable replaces its key (``SCOPES`` the whole table); the rest of the table stays. Any
``TOOLWIRE_AUTH_OAUTH_*`` variable turns OAuth on, so the issuer and audience must then come
from the file or the environment. An empty variable counts as unset. An unknown
``TOOLWIRE_AUTH_*`` variable is refused rather than ignored: a misspelt switch must not leave a
server open.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth.settings import AuthSettings, KeyError_, auth_settings_from_table

__all__ = ["AUTH_ENV_PREFIX", "AUTH_VARIABLES", "auth_settings_from_config", "auth_table_with_env"]

AUTH_ENV_PREFIX = "TOOLWIRE_AUTH_"
_OAUTH_PREFIX = AUTH_ENV_PREFIX + "OAUTH_"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_KINDS = {
    "tokens": "bool",
    "token_cache_s": "number",
    "oauth.issuer": "string",
    "oauth.jwks_url": "string",
    "oauth.audience": "list-or-string",
    "oauth.resource": "string",
    "oauth.algorithms": "list",
    "oauth.leeway_s": "number",
    "oauth.jwks_cache_s": "number",
    "oauth.jwks_refetch_s": "number",
    "oauth.scopes": "json-table",
}
AUTH_VARIABLES: Mapping[str, tuple[str, ...]] = {
    AUTH_ENV_PREFIX + key.replace(".", "_").upper(): ("auth", *key.split(".")) for key in _KINDS
}
"""Each ``TOOLWIRE_AUTH_*`` variable and the key it sets (``("auth", "oauth", "issuer")``)."""


def auth_table_with_env(table: Any, env: Mapping[str, str]) -> Any:
    """The ``[auth]`` table (``None``: absent) with the variables in ``env`` applied; the
    table unchanged (``None`` stays ``None``) when none is set.

    Raises:
        ConfigurationError: an unknown ``TOOLWIRE_AUTH_*`` variable, or a value that is not
            of its key's kind (the message names the variable).
    """
    given = {name: env[name] for name in env if name.startswith(AUTH_ENV_PREFIX) and env[name]}
    if not given:
        return table
    unknown = sorted(set(given) - set(AUTH_VARIABLES))
    if unknown:
        raise ConfigurationError(
            f"${unknown[0]}: unknown variable; expected one of {sorted(AUTH_VARIABLES)}"
        )
    if table is not None and not isinstance(table, dict):
        return table  # the file's own error ("expected a table") is reported as it is
    merged: dict[str, Any] = dict(table) if table is not None else {}
    for name, raw in sorted(given.items()):
        key = AUTH_VARIABLES[name]
        value = _typed(name, raw, _KINDS[".".join(key[1:])])
        if len(key) == 2:
            merged[key[1]] = value
        else:
            oauth = merged.get("oauth")
            oauth = dict(oauth) if isinstance(oauth, dict) else {}
            oauth[key[2]] = value
            merged["oauth"] = oauth
    return merged


def auth_settings_from_config(table: Any, env: Mapping[str, str], error: KeyError_) -> AuthSettings:
    """`AuthSettings` from the file's ``[auth]`` table (``None``: absent) and the
    ``TOOLWIRE_AUTH_*`` variables of ``env``; a bad value set by a variable is reported with
    the variable's name, one from the file with its line (``error``).

    Raises:
        ConfigurationError: as `auth_table_with_env` and
            `toolwire.mcp.server.auth.settings.auth_settings_from_table`.
    """
    merged = auth_table_with_env(table, env)
    if merged is None:
        return AuthSettings()
    by_key = {key: name for name, key in AUTH_VARIABLES.items() if env.get(name)}

    def located(key: tuple[str, ...], problem: str) -> ConfigurationError:
        for length in range(len(key), 1, -1):
            variable = by_key.get(key[:length])
            if variable is not None:
                return ConfigurationError(f"${variable}: {problem}")
        return error(key, problem)

    return auth_settings_from_table(merged, located)


def _typed(name: str, raw: str, kind: str) -> Any:
    text = raw.strip()
    if kind == "bool":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ConfigurationError(f"${name}: expected true or false, got {raw!r}")
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            raise ConfigurationError(f"${name}: expected a number, got {raw!r}") from None
    if kind in ("list", "list-or-string"):
        items = [item.strip() for item in text.split(",") if item.strip()]
        return items[0] if kind == "list-or-string" and len(items) == 1 else items
    if kind == "json-table":
        try:
            return json.loads(text)
        except ValueError:
            raise ConfigurationError(
                f'${name}: expected a JSON object such as {{"tools:files": ["file"]}}, got {raw!r}'
            ) from None
    return text

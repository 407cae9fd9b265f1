"""Whether the chosen provider's key is there, answered without the event loop.

``is_available`` is a plain function called on every listing, so it cannot ask the async
secrets resolver. `key_configured` looks where `create_backends` makes the resolver look by
default: the vault file of the ref (``~/.toolwire/secrets/<ref percent-encoded>``) and the
environment variables `EnvSecretsResolver` reads for it (the one `DEFAULT_ENV_SECRETS` names,
``BRAVE_API_KEY``, ..., then ``TOOLWIRE_SECRET_<REF>``). It reads no value.
A key kept elsewhere (a custom resolver) needs a ``key_configured`` of your own given to
`web_search_tool`; the call itself always resolves the key through the secrets seam.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import quote

from toolwire.capabilities.kinds.secrets._resolvers import (
    DEFAULT_ENV_SECRETS,
    DEFAULT_VAULT_DIR,
    EnvSecretsResolver,
)

__all__ = ["DEFAULT_VAULT_DIR", "key_configured"]


def key_configured(
    ref: str,
    *,
    environ: Mapping[str, str] | None = None,
    vault_dir: str | None = DEFAULT_VAULT_DIR,
    env_table: Mapping[str, str] = DEFAULT_ENV_SECRETS,
) -> bool:
    """Whether ``ref`` has a value in the environment or the vault (the value is not read).

    Args:
        ref: The secret ref (``providers/brave/apiKey``).
        environ: The environment (``os.environ`` by default, read at each call).
        vault_dir: The vault directory; ``None`` skips it.
        env_table: Ref → environment variable.
    """
    env = os.environ if environ is None else environ
    if any(env.get(name) for name in EnvSecretsResolver(env_table).variables(ref)):
        return True
    if vault_dir is None:
        return False
    name = quote(ref, safe="")
    return os.path.isfile(os.path.join(os.path.expanduser(vault_dir), name))

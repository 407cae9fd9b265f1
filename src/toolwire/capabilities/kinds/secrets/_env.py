"""Secrets from environment variables: a named variable per ref, and a name for any ref.

Every ref has a variable of its own, named by one rule: ``TOOLWIRE_SECRET_`` then the ref in
upper case with each character that is not a letter or a digit replaced by ``_``
(`secret_env_name`):

| ref | variable |
| --- | --- |
| ``github_token`` | ``TOOLWIRE_SECRET_GITHUB_TOKEN`` |
| ``providers/exa/apiKey`` | ``TOOLWIRE_SECRET_PROVIDERS_EXA_APIKEY`` |

A table names other variables for some refs: `DEFAULT_ENV_SECRETS` (``EXA_API_KEY``,
``GITHUB_TOKEN``, ...), extended by ``[secrets.env]`` in ``toolwire.toml``. A named variable is
read first, then the ref's own. Refs that differ only in case or punctuation share their own
variable (``a/b`` and ``a_b``): name distinct variables in the table to keep them apart.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = [
    "DEFAULT_ENV_SECRETS",
    "SECRET_ENV_PREFIX",
    "EnvSecretsResolver",
    "check_env_name",
    "secret_env_name",
]

DEFAULT_ENV_SECRETS: Mapping[str, str] = {
    "providers/openai/apiKey": "OPENAI_API_KEY",
    "providers/anthropic/apiKey": "ANTHROPIC_API_KEY",
    "providers/gemini/apiKey": "GEMINI_API_KEY",
    "providers/exa/apiKey": "EXA_API_KEY",
    "providers/tavily/apiKey": "TAVILY_API_KEY",
    "providers/brave/apiKey": "BRAVE_API_KEY",
    "providers/github/token": "GITHUB_TOKEN",
}
"""The ref → environment variable table `EnvSecretsResolver` uses by default."""

SECRET_ENV_PREFIX = "TOOLWIRE_SECRET_"
"""The prefix of every ref's own variable (`secret_env_name`)."""

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def secret_env_name(ref: str) -> str:
    """The variable every ref can be set with: ``github_token`` →
    ``TOOLWIRE_SECRET_GITHUB_TOKEN``, ``providers/exa/apiKey`` →
    ``TOOLWIRE_SECRET_PROVIDERS_EXA_APIKEY``."""
    return SECRET_ENV_PREFIX + _NOT_ALNUM.sub("_", ref).upper()


def check_env_name(name: object) -> str:
    """``name`` itself when it can name an environment variable (letters, digits and ``_``,
    not starting with a digit).

    Raises:
        ValueError: it cannot.
    """
    if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not an environment variable name (A-Z, 0-9, _)")
    return name


class EnvSecretsResolver:
    """Resolves refs from environment variables: the table's variable, then the ref's own.

    Args:
        mapping: Ref → variable name (default `DEFAULT_ENV_SECRETS`; yours replaces it, so
            merge with ``{**DEFAULT_ENV_SECRETS, ...}`` to extend).
        environ: Where to read variables (default ``os.environ``, read at each `get`).
        own_variables: Also read each ref's own variable, `secret_env_name` (default).

    An unset or empty variable resolves to ``None``.
    """

    __slots__ = ("_environ", "_mapping", "_own")

    def __init__(
        self,
        mapping: Mapping[str, str] | None = None,
        environ: Mapping[str, str] = os.environ,
        *,
        own_variables: bool = True,
    ) -> None:
        self._mapping = dict(DEFAULT_ENV_SECRETS if mapping is None else mapping)
        self._environ = environ
        self._own = own_variables

    @property
    def mapping(self) -> Mapping[str, str]:
        """The ref → variable table."""
        return dict(self._mapping)

    def variables(self, ref: str) -> tuple[str, ...]:
        """The variables read for ``ref``, in order."""
        named = self._mapping.get(ref)
        own = secret_env_name(ref) if self._own else None
        return tuple(dict.fromkeys(n for n in (named, own) if n is not None))

    async def get(self, ref: str) -> str | None:
        """The first set variable's value for ``ref``, or ``None``."""
        for name in self.variables(ref):
            value = self._environ.get(name)
            if value:
                return value
        return None

    def how_to_set(self, ref: str) -> list[str]:
        """How to give ``ref`` a value here, for the missing-secret message."""
        names = self.variables(ref)
        if not names:
            return []
        return [f"set the environment variable {' or '.join(names)}"]

    def __repr__(self) -> str:
        return f"EnvSecretsResolver(refs={sorted(self._mapping)!r})"

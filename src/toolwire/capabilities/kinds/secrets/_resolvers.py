"""Secrets: where values come from (resolvers) and what a tool may ask for (`DeclaredSecrets`).

A *ref* names a secret: ``providers/exa/apiKey``. Resolvers map refs to values:

- `EnvSecretsResolver` reads environment variables: a ref → variable table (`DEFAULT_ENV_SECRETS`
  unless you pass your own), then the ref's own variable, ``TOOLWIRE_SECRET_<REF>``
  (`toolwire.capabilities.kinds.secrets._env`);
- `VaultSecretsResolver` keeps one file per ref in a directory only you can read
  (`DEFAULT_VAULT_DIR`, ``~/.toolwire/secrets``, in `create_backends`; ``toolwire secret
  set|list|delete`` manage it);
- `ChainSecretsResolver` asks several in order.

`DeclaredSecrets` is the seam a tool sees: it resolves only the refs the tool declared; a declared
ref with no value raises `SecretNotConfiguredError` (a `KeyError`) naming the ways to set it
that work with these resolvers (each resolver's ``how_to_set``). A value never appears in a
``repr``, a log line or an exception message of anything in this module.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote, unquote

import anyio.to_thread

from toolwire.capabilities.kinds.fs_reach._atomic import replace_atomically
from toolwire.capabilities.kinds.secrets._env import (
    DEFAULT_ENV_SECRETS,
    EnvSecretsResolver,
    check_env_name,
)
from toolwire.capabilities.kinds.secrets.seam import validate_ref
from toolwire.errors import (
    ConfigurationError,
    SecretNotConfiguredError,
    SecretNotDeclaredError,
)

__all__ = [
    "DEFAULT_ENV_SECRETS",
    "DEFAULT_VAULT_DIR",
    "ChainSecretsResolver",
    "DeclaredSecrets",
    "EnvSecretsResolver",
    "SecretsResolver",
    "VaultSecretsResolver",
    "how_to_set",
    "is_ref_permitted",
    "secrets_env_table",
]

DEFAULT_VAULT_DIR = "~/.toolwire/secrets"
"""The vault `create_backends` reads first and ``toolwire secret`` writes."""

_DENIED = "SECRET_NOT_DECLARED: requested secret is not permitted for this tool"


@runtime_checkable
class SecretsResolver(Protocol):
    """Looks up a secret by ref; ``None`` when it does not know it."""

    async def get(self, ref: str) -> str | None:
        """The value of ``ref``, or ``None``."""
        ...


def is_ref_permitted(ref: str, declared: Sequence[str]) -> bool:
    """Whether a tool that declared ``declared`` may resolve ``ref``.

    An exact declared ref grants itself. ``prefix/*`` grants refs strictly below ``prefix``,
    compared segment by segment (``providers/exa/*`` grants ``providers/exa/apiKey`` but not
    ``providers/exampleX/apiKey``). A ref with traversal segments is granted only by an exact
    match.
    """
    if not isinstance(ref, str) or not ref:
        return False
    if ref in declared:
        return True
    try:
        validate_ref(ref)
    except ValueError:
        return False
    segments = ref.split("/")
    for grant in declared:
        if not grant.endswith("/*"):
            continue
        prefix = grant[:-2].split("/")
        if len(segments) > len(prefix) and segments[: len(prefix)] == prefix:
            return True
    return False


class ChainSecretsResolver:
    """Asks each resolver in order; the first non-``None`` value wins."""

    __slots__ = ("_resolvers",)

    def __init__(self, *resolvers: SecretsResolver) -> None:
        self._resolvers = resolvers

    async def get(self, ref: str) -> str | None:
        """The first value any resolver has for ``ref``, or ``None``."""
        for resolver in self._resolvers:
            value = await resolver.get(ref)
            if value is not None:
                return value
        return None

    def how_to_set(self, ref: str) -> list[str]:
        """Every resolver's ways to give ``ref`` a value, in order."""
        return [hint for resolver in self._resolvers for hint in how_to_set(resolver, ref)]

    def __repr__(self) -> str:
        return f"ChainSecretsResolver({', '.join(repr(r) for r in self._resolvers)})"


_TEMP_PREFIX = "%tmp."
"""Temporary files start with a ``%`` that no quoted ref file name can start with."""


class VaultSecretsResolver:
    """One file per ref in a private directory.

    The directory is created with mode ``0700`` (and reset to it on every `set`); each file
    holds the value plus a newline, has mode ``0600`` and is written atomically (temporary file,
    fsync, rename). A ref's file name is the ref percent-encoded, so ``providers/exa/apiKey``
    is ``providers%2Fexa%2FapiKey``. Files are opened without following symbolic links.

    Args:
        directory: The vault directory.
    """

    __slots__ = ("_directory",)

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        path = os.fspath(directory)
        if not path:
            raise ConfigurationError("VaultSecretsResolver needs a directory path")
        self._directory = os.path.abspath(os.path.expanduser(path))

    @property
    def directory(self) -> str:
        """The vault directory."""
        return self._directory

    def _file(self, ref: str) -> str:
        name = quote(validate_ref(ref), safe="")
        if len(name.encode()) > 255:
            raise ValueError("a secret ref is too long to store (255 bytes once encoded)")
        return os.path.join(self._directory, name)

    async def get(self, ref: str) -> str | None:
        """The stored value (its trailing newline removed), or ``None``.

        Raises:
            ValueError: the ref is malformed.
        """
        path = self._file(ref)
        return await anyio.to_thread.run_sync(_read_secret, path)

    async def set(self, ref: str, value: str) -> None:
        """Store ``value`` under ``ref``, atomically.

        Raises:
            ValueError: the ref is malformed or the value is not a string.
        """
        if not isinstance(value, str):
            raise ValueError("a secret value must be a string")
        path = self._file(ref)
        await anyio.to_thread.run_sync(_write_secret, self._directory, path, value)

    async def delete(self, ref: str) -> None:
        """Remove ``ref``; a no-op when absent."""
        path = self._file(ref)
        with contextlib.suppress(FileNotFoundError):
            await anyio.to_thread.run_sync(os.unlink, path)

    async def refs(self) -> list[str]:
        """Every stored ref, sorted."""
        names = await anyio.to_thread.run_sync(_list_names, self._directory)
        return sorted(unquote(n) for n in names if not n.startswith(_TEMP_PREFIX))

    def how_to_set(self, ref: str) -> list[str]:
        """How to store ``ref`` here: ``toolwire secret set`` writes the default vault."""
        if self._directory == os.path.abspath(os.path.expanduser(DEFAULT_VAULT_DIR)):
            return [f"run `toolwire secret set {shlex.quote(ref)}`"]
        return ["store it in the resolver's vault (VaultSecretsResolver.set)"]

    def __repr__(self) -> str:
        return f"VaultSecretsResolver({self._directory!r})"


def _read_secret(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        text = handle.read().decode("utf-8")
    return text[:-1] if text.endswith("\n") else text


def _write_secret(directory: str, path: str, value: str) -> None:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if not stat.S_ISDIR(os.lstat(directory).st_mode):
        raise ConfigurationError(f"the secrets vault {directory!r} is not a directory")
    os.chmod(directory, 0o700)
    payload = (value + "\n").encode("utf-8")
    replace_atomically(path, payload, temp_name=_TEMP_PREFIX, mode=0o600, create_mode=0o600)


def _list_names(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except FileNotFoundError:
        return []


class DeclaredSecrets:
    """The `ScopedSecrets` seam: resolves only the refs a tool declared.

    Args:
        refs: The declared refs: exact refs and ``prefix/*`` grants (see `is_ref_permitted`).
        resolver: Where values come from.
    """

    __slots__ = ("_refs", "_resolver")

    def __init__(self, refs: Sequence[str], resolver: SecretsResolver) -> None:
        if isinstance(refs, str):
            raise TypeError(f"refs is a list of refs: [{refs!r}]")
        self._refs = tuple(refs)
        self._resolver = resolver

    @property
    def refs(self) -> tuple[str, ...]:
        """The declared refs."""
        return self._refs

    async def get(self, ref: str) -> str:
        """The value of a declared ref.

        Raises:
            SecretNotDeclaredError: not declared (the message never echoes the ref).
            SecretNotConfiguredError: declared, but no resolver has a value (a `KeyError`
                whose message says how to set it).
        """
        if not is_ref_permitted(ref, self._refs):
            raise SecretNotDeclaredError(_DENIED)
        try:
            value = await self._resolver.get(ref)
        except ValueError:
            value = None  # a resolver that cannot store this ref shape has no value for it
        if value is None:
            ways = how_to_set(self._resolver, ref)
            fix = " or ".join(ways) if ways else "give the registry a resolver that has it"
            raise SecretNotConfiguredError(f"secret {ref} is not configured: {fix}")
        return value

    def __repr__(self) -> str:
        return f"DeclaredSecrets(refs={self._refs!r})"


def how_to_set(resolver: SecretsResolver, ref: str) -> list[str]:
    """How ``resolver`` can be given ``ref``'s value (its ``how_to_set``; none when it has no
    such method)."""
    hints = getattr(resolver, "how_to_set", None)
    if hints is None:
        return []
    return [str(hint) for hint in hints(ref)]


def secrets_env_table(
    table: Any, error: Callable[[tuple[str, ...], str], Exception]
) -> dict[str, str]:
    """``[secrets]`` of ``toolwire.toml`` → its ``env`` table: ref → environment variable.

    Args:
        table: The ``[secrets]`` table as parsed.
        error: Makes the exception for a key and a problem (``Located.error`` of the config).

    Raises:
        Exception: from ``error``, naming the key: an unknown key, a malformed ref, or a value
            that is not a variable name.
    """
    if not isinstance(table, dict):
        raise error(("secrets",), "expected a table ([secrets.env])")
    for key in table:
        if key != "env":
            raise error(("secrets", key), "unknown key; expected one of ['env']")
    env = table.get("env", {})
    if not isinstance(env, dict):
        raise error(("secrets", "env"), 'expected a table of ref = "VARIABLE"')
    for ref, name in env.items():
        try:
            validate_ref(ref)
            check_env_name(name)
        except ValueError as exc:
            raise error(("secrets", "env", ref), str(exc)) from None
    return dict(env)

"""The ``secrets`` kind: the declared secret refs, through ``ctx.secrets_resolver``.

A ref names a secret (``providers/exa/apiKey``); a declaration lists exact refs and
segment-wise prefix grants ending in ``/*``. The seam is a ``DeclaredSecrets`` over the
backends' resolver: anything undeclared is refused without echoing the ref.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.capabilities.kinds.secrets.seam import ScopedSecrets

__all__ = ["SECRETS", "ScopedSecrets", "SecretsCapability", "secrets"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SecretsCapability(Capability):
    """These secret refs: exact refs, or segment-wise prefix grants ending in ``/*``."""

    refs: tuple[str, ...]


def secrets(refs: Iterable[str]) -> SecretsCapability:
    """Declare the secret refs the tool may resolve (``providers/exa/apiKey``, ``providers/*``)."""
    return SecretsCapability(refs=non_empty_strings("secrets(refs)", refs))


def _resolve(declared: SecretsCapability, call: Resolution) -> ScopedSecrets | None:
    resolver = call.backends.secrets_resolver
    if resolver is None:
        return None
    from toolwire.capabilities.kinds.secrets._resolvers import DeclaredSecrets

    return DeclaredSecrets(declared.refs, resolver)


SECRETS: CapabilityKind[SecretsCapability, ScopedSecrets] = CapabilityKind(
    name="secrets",
    declaration=SecretsCapability,
    resolve=_resolve,
    context_field="secrets_resolver",
    backend=lambda backends: backends.secrets_resolver,
    setup_hint="give CapabilityBackends a secrets_resolver, e.g. EnvSecretsResolver()",
)
"""``secrets(refs)`` → ``ctx.secrets_resolver``; needs ``CapabilityBackends.secrets_resolver``."""

"""The seam of the ``secrets`` kind: `ScopedSecrets`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["ScopedSecrets"]


@runtime_checkable
class ScopedSecrets(Protocol):
    """Resolves the secret references a tool declared, and nothing else."""

    async def get(self, ref: str) -> str:
        """The secret's value.

        Raises:
            SecretNotDeclaredError: the ref was not declared (the message never echoes it).
            KeyError: the ref was declared but no resolver knows it.
        """
        ...

"""The seam of the ``secrets`` kind: `ScopedSecrets`, and what a well-formed ref is."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["ScopedSecrets", "validate_ref"]


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


def validate_ref(ref: str) -> str:
    """``ref`` itself when it is a well-formed ref.

    A ref is non-empty, relative (no leading ``/``), holds no NUL or backslash, and no segment
    is empty, ``.`` or ``..``.

    Raises:
        ValueError: the ref is malformed (the message does not repeat it).
    """
    if not isinstance(ref, str) or not ref:
        raise ValueError("a secret ref must be a non-empty string like 'providers/exa/apiKey'")
    if "\0" in ref or "\\" in ref or ref.startswith("/"):
        raise ValueError("a secret ref may not hold NUL or backslashes, or start with '/'")
    if any(segment in ("", ".", "..") for segment in ref.split("/")):
        raise ValueError("a secret ref may not have empty, '.' or '..' segments")
    return ref

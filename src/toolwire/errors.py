"""Every exception toolwire raises at a programmer.

What a *model* gets wrong never raises: it comes back as a `ToolResult` error with a stable
code. What a *programmer* gets wrong (a bad tool definition, a duplicate name, a misconfigured
backend) raises one of these, with a message that says how to fix it.

```
ToolwireError
├── ToolDefinitionError      a tool, schema or decorator target is malformed
├── RegistrationError        duplicate tool or reducer, unknown name to unregister
├── ConfigurationError       bad config file, bad backend URL, missing optional dependency
├── CapabilityError          a scoped seam refused an operation (base of the four below)
│   ├── PathNotReachableError   ScopedFs: message starts with ``PATH_NOT_REACHABLE:``
│   ├── HostNotAllowedError     ScopedFetch / safe_fetch: ``HOST_NOT_ALLOWED:``
│   ├── BinaryNotAllowedError   ScopedProcess: ``BINARY_NOT_ALLOWED:``
│   └── SecretNotDeclaredError  ScopedSecrets: ``SECRET_NOT_DECLARED:``
├── SecretNotConfiguredError a declared secret has no value (also a KeyError); says how to set it
├── StoreError               a key-value store was used wrongly (non-string value, negative TTL)
├── ProviderError            a ToolProvider failed to list its tools (discovery failed)
├── FormatError              a value handed to a format function is not that API's shape
└── AbortedError             the abort signal fired (``raise_if_aborted``)
```
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = [
    "AbortedError",
    "BinaryNotAllowedError",
    "CapabilityError",
    "ConfigurationError",
    "FormatError",
    "HostNotAllowedError",
    "PathNotReachableError",
    "ProviderError",
    "RegistrationError",
    "SecretNotConfiguredError",
    "SecretNotDeclaredError",
    "StoreError",
    "ToolDefinitionError",
    "ToolwireError",
]


class ToolwireError(Exception):
    """Base of every exception toolwire raises."""


class ToolDefinitionError(ToolwireError, ValueError):
    """A tool, its schema or a decorated function cannot be turned into a valid tool."""


class RegistrationError(ToolwireError, ValueError):
    """A registry refused a registration (duplicate name, unknown name, bad reducer)."""


class ConfigurationError(ToolwireError, ValueError):
    """Configuration is invalid: a config file key, a backend URL, a missing extra."""


class CapabilityError(ToolwireError):
    """A scoped capability seam refused an operation; the message is safe to show a model."""


class PathNotReachableError(CapabilityError, PermissionError):
    """A path is outside the tool's resolved file-system reach."""


class HostNotAllowedError(CapabilityError, PermissionError):
    """A URL's host or address is refused by the network policy."""


class BinaryNotAllowedError(CapabilityError, PermissionError):
    """A binary is not in the tool's declared ``allowed_binaries``."""


class SecretNotDeclaredError(CapabilityError, PermissionError):
    """A secret reference was not declared by the tool; the message never echoes the ref."""


class SecretNotConfiguredError(ToolwireError, KeyError):
    """A declared secret has no value in any resolver; the message names the ways to give it
    one that work here (``toolwire secret set REF``, its environment variables), never a value.
    A `KeyError`, as before it had its own class."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""  # KeyError's own str() adds quotes


class StoreError(ToolwireError, ValueError):
    """A key-value store was called with invalid arguments."""


class ProviderError(ToolwireError):
    """A tool provider failed to list its tools.

    Attributes:
        provider_id: The failing provider's id.
    """

    def __init__(self, message: str, *, provider_id: str) -> None:
        super().__init__(message)
        self.provider_id = provider_id

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the keyword ``provider_id`` (the default passes ``args`` only)."""
        return functools.partial(type(self), provider_id=self.provider_id), self.args


class FormatError(ToolwireError, ValueError):
    """A value handed to a `toolwire.formats` function is not the shape that API uses."""


class AbortedError(ToolwireError):
    """The abort signal fired.

    Attributes:
        reason: The reason given to ``AbortSignal.abort``.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"aborted: {reason}")
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the reason, not the message (which would be prefixed twice)."""
        return type(self), (self.reason,)

"""The error a missing framework extra raises, naming what to install."""

from __future__ import annotations

from toolwire.errors import ConfigurationError

__all__ = ["missing_extra"]


def missing_extra(feature: str, extra: str, cause: ImportError) -> ConfigurationError:
    """The `ConfigurationError` for an adapter whose framework is not installed.

    Args:
        feature: What needs it (``"toolwire.integrations.pydantic_ai"``).
        extra: The extra that installs it (``"pydantic-ai"``).
        cause: The ``ImportError`` that revealed it.
    """
    missing = cause.name or str(cause)
    return ConfigurationError(
        f"{feature} needs {missing}, which is not installed: pip install 'toolwire[{extra}]'"
    )

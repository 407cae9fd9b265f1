"""``TOOLWIRE_*`` environment variables: overrides of what ``toolwire.toml`` says (roots,
network lists, toolsets, sandbox mode, store URL, host, port, result budget)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolwire.capabilities.kinds.process.sandbox._settings import SANDBOX_MODES
from toolwire.config._tables import resolved_paths
from toolwire.errors import ConfigurationError

__all__ = ["env_overrides"]


def env_overrides(env: Mapping[str, str], base: Path) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if roots := env.get("TOOLWIRE_SANDBOX_ROOTS"):
        values["sandbox_write"] = resolved_paths([p for p in roots.split(os.pathsep) if p], base)
        values["sandbox_read"] = ()
    for variable, name in (
        ("TOOLWIRE_NETWORK_ALLOW", "network_allow"),
        ("TOOLWIRE_NETWORK_DENY", "network_deny"),
        ("TOOLWIRE_TOOLSETS", "toolsets"),
    ):
        if (raw := env.get(variable)) is not None:
            values[name] = tuple(item.strip() for item in raw.split(",") if item.strip())
    if mode := env.get("TOOLWIRE_SANDBOX_MODE"):
        if mode not in SANDBOX_MODES:
            raise ConfigurationError(
                f"$TOOLWIRE_SANDBOX_MODE: expected one of {list(SANDBOX_MODES)}, got {mode!r}"
            )
        values["sandbox_mode"] = mode
    if url := env.get("TOOLWIRE_STORE_URL"):
        values["store_url"] = url
    if host := env.get("TOOLWIRE_HOST"):
        values["http_host"] = host
    for variable, name, low, high in (
        ("TOOLWIRE_RESULT_BUDGET_CHARS", "result_budget_chars", 1, None),
        ("TOOLWIRE_PORT", "http_port", 0, 65535),
    ):
        if (raw := env.get(variable)) is not None:
            values[name] = _env_int(variable, raw, low, high)
    return values


def _env_int(variable: str, raw: str, low: int, high: int | None) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"${variable}: expected an integer, got {raw!r}") from None
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"between {low} and {high}"
        raise ConfigurationError(f"${variable}: must be {bounds}, got {value}")
    return value

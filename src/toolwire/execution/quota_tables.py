"""Quotas from a config file: ``toolwire.toml``'s ``[[quotas]]`` array of tables.

```toml
[[quotas]]
name = "searches"            # required: keys the counters, named in refusals
toolsets = ["web"]           # or tools = ["web_search"]; neither: every tool
scope = "session"            # session (default), personality, global
calls = 100
window_s = 3600

[[quotas]]
name = "spend"
cost_usd = 5.0
```

Every key is a `toolwire.execution.quotas.Quota` field; a wrong key, type or value is refused
with the file, the line and the fix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from toolwire.config.files import unknown_key
from toolwire.errors import ConfigurationError
from toolwire.execution.quotas import Quota, Quotas

__all__ = ["QUOTA_KEYS", "quotas_from_tables"]

QUOTA_KEYS = frozenset(
    {
        "name",
        "tools",
        "toolsets",
        "scope",
        "calls",
        "window_s",
        "concurrent",
        "cost_usd",
        "wall_time_s",
        "lease_s",
    }
)
"""The keys a ``[[quotas]]`` table may hold."""

ErrorAt: TypeAlias = Callable[[tuple[str, ...], str], ConfigurationError]
"""Builds the error for a key path (``("quotas", "0", "calls")``) and a problem."""

_NAMES = ("tools", "toolsets")
_INTEGERS = ("calls", "concurrent")
_NUMBERS = ("window_s", "cost_usd", "wall_time_s", "lease_s")


def quotas_from_tables(value: Any, error: ErrorAt) -> Quotas:
    """The `Quotas` of a ``[[quotas]]`` array of tables.

    Raises:
        ConfigurationError: not an array of tables, an unknown key, a value of the wrong type,
            or a quota `Quota` refuses (no limit, a bad scope, ...).
    """
    if not isinstance(value, list) or not all(isinstance(table, dict) for table in value):
        raise error(("quotas",), "expected an array of tables ([[quotas]], see docs/quotas.md)")
    return Quotas(
        [_quota(table, ("quotas", str(index)), error) for index, table in enumerate(value)]
    )


def _quota(table: dict[str, Any], at: tuple[str, ...], error: ErrorAt) -> Quota:
    unknown = sorted(set(table) - QUOTA_KEYS)
    if unknown:
        raise error((*at, unknown[0]), unknown_key(unknown[0], QUOTA_KEYS))
    for key in _NAMES:
        names = table.get(key)
        if names is not None and (
            not isinstance(names, list) or not all(isinstance(n, str) for n in names)
        ):
            raise error((*at, key), "expected a list of names")
    for key in _INTEGERS:
        count = table.get(key)
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
            raise error((*at, key), f"expected an integer, got {count!r}")
    for key in _NUMBERS:
        number = table.get(key)
        if number is not None and (isinstance(number, bool) or not isinstance(number, int | float)):
            raise error((*at, key), f"expected a number, got {number!r}")
    try:
        return Quota(**table)
    except (ConfigurationError, TypeError) as exc:
        raise error(at, str(exc)) from None

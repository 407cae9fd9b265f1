"""`FetchSettings`: what ``fetch_url`` sends, how much it reads, and whether it obeys robots.txt.

```python
from toolwire.toolbox.web import FetchSettings, web_tools

tools = web_tools(FetchSettings(user_agent="my-agent/1.0 (+https://example.com/bot)"))
```

The defaults come from the environment when `web_tools` is given no settings
(`FetchSettings.from_env`): ``TOOLWIRE_FETCH_USER_AGENT`` and ``TOOLWIRE_FETCH_IGNORE_ROBOTS``
(``1``, ``true`` or ``yes``), like the reference MCP fetch server's ``--user-agent`` and
``--ignore-robots-txt``. `FetchSettings.from_table` reads the same settings from a config table
(``user_agent``, ``ignore_robots_txt``, ``max_bytes``, ``timeout_s``, ...), the variables
winning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.errors import ConfigurationError
from toolwire.version import __version__

__all__ = ["DEFAULT_USER_AGENT", "IGNORE_ROBOTS_ENV", "USER_AGENT_ENV", "FetchSettings"]

DEFAULT_USER_AGENT = f"toolwire/{__version__} (autonomous agent; fetch_url)"
"""Sent unless configured otherwise; robots.txt rules are matched against its product token."""
USER_AGENT_ENV = "TOOLWIRE_FETCH_USER_AGENT"
"""The environment variable that overrides the user agent."""
IGNORE_ROBOTS_ENV = "TOOLWIRE_FETCH_IGNORE_ROBOTS"
"""The environment variable that, set to ``1``/``true``/``yes``, turns the robots.txt check off."""

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True, kw_only=True, slots=True)
class FetchSettings:
    """How ``fetch_url`` fetches.

    Attributes:
        user_agent: The ``User-Agent`` header, and the agent robots.txt rules are read for.
        respect_robots: Refuse URLs the site's robots.txt disallows for ``user_agent``
            (fetches a model makes on its own are autonomous, as in the reference MCP fetch
            server; turn this off only for fetches a person asked for).
        max_bytes: Bytes of a response read at most; the rest is not downloaded.
        timeout_s: Deadline of one fetch (robots.txt is fetched under the same deadline).
        default_max_chars: Characters of a page returned when the model gives no
            ``max_chars``.
        max_image_bytes: Images up to this size come back as bytes (base64 in
            ``structured``, image content over MCP); larger ones are only described.
        robots_cache_size: Sites whose robots.txt is kept (for ``robots_ttl_s`` seconds).
        robots_ttl_s: How long a site's robots.txt answer is reused.
    """

    user_agent: str = DEFAULT_USER_AGENT
    respect_robots: bool = True
    max_bytes: int = 5 * 1024 * 1024
    timeout_s: float = 30.0
    default_max_chars: int = 20_000
    max_image_bytes: int = 2 * 1024 * 1024
    robots_cache_size: int = 256
    robots_ttl_s: float = 3600.0

    def __post_init__(self) -> None:
        if not self.user_agent.strip() or any(c in self.user_agent for c in "\r\n\0"):
            raise ConfigurationError(
                "FetchSettings.user_agent must be one non-empty line, e.g. 'my-agent/1.0'"
            )
        positive = {
            "max_bytes": self.max_bytes,
            "timeout_s": self.timeout_s,
            "default_max_chars": self.default_max_chars,
            "robots_cache_size": self.robots_cache_size,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ConfigurationError(f"FetchSettings.{name} must be > 0, got {value}")
        if self.max_image_bytes < 0 or self.robots_ttl_s < 0:
            raise ConfigurationError(
                "FetchSettings.max_image_bytes and robots_ttl_s must be >= 0 "
                f"(got {self.max_image_bytes}, {self.robots_ttl_s})"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> FetchSettings:
        """The defaults, with ``TOOLWIRE_FETCH_USER_AGENT`` and ``TOOLWIRE_FETCH_IGNORE_ROBOTS``
        from ``env`` (``os.environ`` by default).

        Raises:
            ConfigurationError: ``TOOLWIRE_FETCH_IGNORE_ROBOTS`` is not a boolean word, or the
                user agent is not one line.
        """
        return cls.from_table({}, env)

    @classmethod
    def from_table(
        cls, table: Mapping[str, Any], env: Mapping[str, str] | None = None
    ) -> FetchSettings:
        """Settings from a config table (``user_agent``, ``ignore_robots_txt``, ``max_bytes``,
        ``timeout_s``, ``default_max_chars``, ``max_image_bytes``), then the
        ``TOOLWIRE_FETCH_*`` variables of ``env`` (``os.environ`` by default), which win.

        Raises:
            ConfigurationError: an unknown key, a value of the wrong type, or a bad variable.
        """
        unknown = sorted(set(table) - set(_TABLE_KEYS))
        if unknown:
            raise ConfigurationError(
                f"fetch_url settings: unknown key(s) {unknown}; use {sorted(_TABLE_KEYS)}"
            )
        values: dict[str, Any] = {}
        for key, kind in _TABLE_KEYS.items():
            if key not in table:
                continue
            value = table[key]
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise ConfigurationError(
                    f"fetch_url settings: {key} must be {_KIND_NAMES[kind]}, got {value!r}"
                )
            values[key] = value
        if "ignore_robots_txt" in values:
            values["respect_robots"] = not values.pop("ignore_robots_txt")
        env = os.environ if env is None else env
        if env.get(USER_AGENT_ENV):
            values["user_agent"] = env[USER_AGENT_ENV]
        flag = env.get(IGNORE_ROBOTS_ENV, "").strip().lower()
        if flag not in _TRUE | _FALSE:
            raise ConfigurationError(
                f"${IGNORE_ROBOTS_ENV}: expected 1/true/yes or 0/false/no, got {flag!r}"
            )
        if flag:
            values["respect_robots"] = flag not in _TRUE
        return cls(**values)


_TABLE_KEYS: dict[str, type | tuple[type, ...]] = {
    "user_agent": str,
    "ignore_robots_txt": bool,
    "max_bytes": int,
    "timeout_s": (int, float),
    "default_max_chars": int,
    "max_image_bytes": int,
}
_KIND_NAMES: dict[type | tuple[type, ...], str] = {
    str: "a string",
    bool: "true or false",
    int: "an integer",
    (int, float): "a number",
}

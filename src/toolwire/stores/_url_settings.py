"""`UrlSettings`: the settings a store URL carries in its query string, beside the driver's own.

In ``redis://host:6379/0?max_connections=20&pool_timeout=5`` the Redis backend reads
``max_connections`` and ``pool_timeout`` itself and hands the rest of the URL, byte for byte, to
redis-py; ``postgresql://...?command_timeout=10`` likewise (asyncpg would send an unknown
parameter to the server as a setting, which the server refuses). That way a config file's
``kv_url`` alone can tune a store. A keyword argument wins over the URL; the default applies
when neither gives a value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from urllib.parse import unquote_plus

from toolwire.errors import ConfigurationError

__all__ = ["UrlSettings"]

_WHOLE_NUMBER = re.compile(r"[0-9]+")


class UrlSettings:
    """A store URL split into the query parameters named ``names`` and the driver's URL.

    Args:
        url: The URL as configured.
        names: The query parameters the backend reads itself.
    """

    def __init__(self, url: str, names: Collection[str]) -> None:
        base, question, rest = url.partition("?")
        query, hash_mark, fragment = rest.partition("#")
        kept: list[str] = []
        self._values: dict[str, str] = {}
        for piece in query.split("&") if query else []:
            name, _, value = piece.partition("=")
            if unquote_plus(name) in names:
                self._values[unquote_plus(name)] = unquote_plus(value)  # the last one wins
            else:
                kept.append(piece)
        self.url = base + (question if kept else "") + "&".join(kept) + hash_mark + fragment
        """The URL without the backend's parameters, for the driver."""

    def text(self, query: str) -> str | None:
        """The URL's ``?<query>=`` value as given (decoded); ``None`` when absent."""
        return self._values.get(query)

    def count(self, keyword: str, given: object, *, query: str, default: int) -> int:
        """A whole number of at least 1, from ``given``, else the URL, else ``default``.

        Raises:
            ConfigurationError: the value is not a whole number of at least 1.
        """
        if given is None and query in self._values:
            text = self._values[query]
            if _WHOLE_NUMBER.fullmatch(text) is None or int(text) < 1:
                raise ConfigurationError(
                    f"?{query}={text!r} in the store URL must be a whole number of at least 1"
                )
            return int(text)
        if given is None:
            return default
        if isinstance(given, bool) or not isinstance(given, int) or given < 1:
            raise ConfigurationError(
                f"{keyword}={given!r} must be a whole number (int) of at least 1"
            )
        return given

    def seconds(self, keyword: str, given: object, *, query: str, default: float) -> float:
        """A positive, finite number of seconds, from ``given``, else the URL, else ``default``.

        Raises:
            ConfigurationError: the value is not a positive, finite number.
        """
        if given is None and query in self._values:
            text = self._values[query]
            try:
                seconds = float(text)
            except ValueError:
                seconds = math.nan
            if not 0 < seconds < math.inf:
                raise ConfigurationError(
                    f"?{query}={text!r} in the store URL must be a positive number of seconds"
                )
            return seconds
        if given is None:
            return default
        if (
            isinstance(given, bool)
            or not isinstance(given, int | float)
            or not 0 < given < math.inf
        ):
            raise ConfigurationError(
                f"{keyword}={given!r} must be a positive, finite number of seconds"
            )
        return float(given)

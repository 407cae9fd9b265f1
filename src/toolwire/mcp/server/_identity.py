"""How a served registry presents itself beyond its name: title, description, website, icons.

``[serve]`` in ``toolwire.toml`` sets them (`identity_from_table`); the server puts them in its
``serverInfo`` (the legacy ``initialize`` result, and the stamp on every 2026-07-28 answer):

```toml
[serve]
title = "ACME tools"
description = "Files and commands in the ACME monorepo"
website_url = "https://tools.acme.example"
icons = [{ src = "https://tools.acme.example/icon.png", mime_type = "image/png" }]
```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.errors import ConfigurationError

__all__ = ["IDENTITY_KEYS", "ServerIcon", "ServerIdentity", "identity_from_table"]

IDENTITY_KEYS = frozenset({"title", "description", "website_url", "icons"})
"""The ``[serve]`` keys `identity_from_table` reads."""
_ICON_KEYS = frozenset({"src", "mime_type", "sizes"})


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerIcon:
    """An icon clients may show for the server.

    Attributes:
        src: An ``https:`` (or ``http:``) or ``data:`` URI.
        mime_type: Its MIME type, when the URI does not say it (``image/png``, ...).
        sizes: ``"48x48"``-style sizes it is available in, or ``("any",)`` for a scalable one.
    """

    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.src.startswith(("https://", "http://", "data:")):
            raise ConfigurationError(
                f"a server icon's src must be an https: (or http:) or data: URI, got {self.src!r}"
            )

    def as_wire(self) -> dict[str, Any]:
        """The MCP ``Icon`` object."""
        wire: dict[str, Any] = {"src": self.src}
        if self.mime_type is not None:
            wire["mimeType"] = self.mime_type
        if self.sizes:
            wire["sizes"] = list(self.sizes)
        return wire


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerIdentity:
    """The server's ``serverInfo`` beyond its name and version.

    Attributes:
        title: A human-readable name (``"ACME tools"``).
        description: One sentence on what it serves.
        website_url: Where to read more.
        icons: Icons clients may show.
    """

    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: tuple[ServerIcon, ...] = ()


def identity_from_table(
    serve: Mapping[str, Any], error: Callable[[tuple[str, ...], str], ConfigurationError]
) -> ServerIdentity:
    """The identity ``[serve]`` describes (only its `IDENTITY_KEYS` are read).

    Raises:
        ConfigurationError: a key has the wrong type, an icon an unknown key or a bad ``src``
            (made by ``error``, which names the key and the line).
    """
    texts: dict[str, str | None] = {}
    for key in ("title", "description", "website_url"):
        value = serve.get(key)
        if value is not None and not isinstance(value, str):
            raise error(("serve", key), "expected a string")
        texts[key] = value
    icons = serve.get("icons", [])
    if not isinstance(icons, list):
        raise error(("serve", "icons"), "expected an array of tables ({ src = ... })")
    return ServerIdentity(
        title=texts["title"],
        description=texts["description"],
        website_url=texts["website_url"],
        icons=tuple(_icon(icon, error) for icon in icons),
    )


def _icon(table: object, error: Callable[[tuple[str, ...], str], ConfigurationError]) -> ServerIcon:
    key = ("serve", "icons")
    if not isinstance(table, Mapping):
        raise error(key, 'each icon is a table: { src = "https://...", mime_type = ... }')
    unknown = sorted(set(table) - _ICON_KEYS)
    if unknown:
        raise error(key, f"unknown icon key {unknown[0]!r} (known: mime_type, sizes, src)")
    src, mime, sizes = table.get("src"), table.get("mime_type"), table.get("sizes", [])
    if not isinstance(src, str):
        raise error(key, "an icon needs src, a string")
    if mime is not None and not isinstance(mime, str):
        raise error(key, "an icon's mime_type is a string")
    if not (isinstance(sizes, list) and all(isinstance(size, str) for size in sizes)):
        raise error(key, 'an icon\'s sizes is an array of strings ("48x48", "any")')
    try:
        return ServerIcon(src=src, mime_type=mime, sizes=tuple(sizes))
    except ConfigurationError as exc:
        raise error(key, str(exc)) from None

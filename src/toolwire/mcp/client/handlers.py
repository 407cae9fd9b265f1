"""What a bridged MCP server may ask the host: sampling, elicitation, roots, and its logs.

An MCP server can send requests back to its client while a call runs. `McpProvider` answers
them with the handlers the host gives it, and declares the matching client capabilities only
for the handlers given (a server then knows not to ask for the rest):

```python
async def ask_user(params: mt.ElicitRequestParams) -> mt.ElicitResult:
    return mt.ElicitResult(action="accept", content={"approve": True})

provider = McpProvider(config, handlers=ClientHandlers(elicitation=ask_user))
```

- ``sampling``: ``sampling/createMessage`` → the host's model answers.
- ``elicitation``: ``elicitation/create`` → the host asks its user. An accepted answer that
  leaves out a field whose schema has a ``default`` gets that default (SEP-1034), so a host
  that shows a form with the defaults filled in and sends back only what changed still
  answers the whole form.
- ``roots``: ``roots/list`` → the directories the host lets the server see.
- ``logging``: the server's ``notifications/message`` (on 2026-07-28 links every request
  then opts into every level, as that revision asks).

A handler that raises answers the server with a JSON-RPC error (the message is the
exception's), never breaks the connection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as mt
from mcp.client.session import ClientRequestContext

__all__ = [
    "ClientHandlers",
    "ElicitationHandler",
    "LogHandler",
    "RootsHandler",
    "SamplingHandler",
    "apply_schema_defaults",
]

logger = logging.getLogger("toolwire.mcp")

SamplingHandler = Callable[[mt.CreateMessageRequestParams], Awaitable[mt.CreateMessageResult]]
"""Answers a server's ``sampling/createMessage``."""
ElicitationHandler = Callable[[mt.ElicitRequestParams], Awaitable[mt.ElicitResult]]
"""Answers a server's ``elicitation/create``."""
RootsHandler = Callable[[], Awaitable[Sequence[mt.Root]]]
"""Answers a server's ``roots/list``."""
LogHandler = Callable[[mt.LoggingMessageNotificationParams], Awaitable[None]]
"""Receives a server's ``notifications/message``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ClientHandlers:
    """The host's answers to a bridged server's requests (see the module docstring).

    Attributes:
        sampling: Answers ``sampling/createMessage``; ``None``: not offered.
        elicitation: Answers ``elicitation/create``; ``None``: not offered.
        roots: Answers ``roots/list``; ``None``: not offered.
        logging: Receives the server's log messages; ``None``: they go to the
            ``toolwire.mcp`` logger at debug level.
    """

    sampling: SamplingHandler | None = None
    elicitation: ElicitationHandler | None = None
    roots: RootsHandler | None = None
    logging: LogHandler | None = None

    def client_options(self) -> dict[str, Any]:
        """The SDK `Client`'s callback arguments for these handlers."""
        options: dict[str, Any] = {"logging_callback": self._on_log}
        if self.logging is not None:  # 2026-07-28 links send logs only to requests that opt in
            options["log_level"] = "debug"
        if self.sampling is not None:
            options["sampling_callback"] = self._on_sampling
        if self.elicitation is not None:
            options["elicitation_callback"] = self._on_elicitation
        if self.roots is not None:
            options["list_roots_callback"] = self._on_roots
        return options

    async def _on_sampling(
        self, context: ClientRequestContext, params: mt.CreateMessageRequestParams
    ) -> mt.CreateMessageResult | mt.ErrorData:
        assert self.sampling is not None
        try:
            return await self.sampling(params)
        except Exception as exc:
            return _failed("sampling", exc)

    async def _on_elicitation(
        self, context: ClientRequestContext, params: mt.ElicitRequestParams
    ) -> mt.ElicitResult | mt.ErrorData:
        assert self.elicitation is not None
        try:
            answer = await self.elicitation(params)
        except Exception as exc:
            return _failed("elicitation", exc)
        schema = getattr(params, "requested_schema", None)
        if answer.action != "accept" or not isinstance(schema, Mapping):
            return answer
        content = apply_schema_defaults(schema, answer.content or {})
        return answer.model_copy(update={"content": content})

    async def _on_roots(self, context: ClientRequestContext) -> mt.ListRootsResult | mt.ErrorData:
        assert self.roots is not None
        try:
            return mt.ListRootsResult(roots=list(await self.roots()))
        except Exception as exc:
            return _failed("roots", exc)

    async def _on_log(self, params: mt.LoggingMessageNotificationParams) -> None:
        if self.logging is None:
            logger.debug("MCP server log (%s): %r", params.level, params.data)
            return
        try:
            await self.logging(params)
        except Exception:
            logger.exception("the MCP log handler failed")


def apply_schema_defaults(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with the ``default`` of every top-level property it leaves out."""
    filled = dict(content)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, spec in properties.items():
            if name not in filled and isinstance(spec, Mapping) and "default" in spec:
                filled[name] = spec["default"]
    return filled


def _failed(what: str, exc: Exception) -> mt.ErrorData:
    logger.warning("the MCP %s handler failed: %s", what, exc)
    return mt.ErrorData(code=mt.INTERNAL_ERROR, message=f"{what} failed: {exc}")

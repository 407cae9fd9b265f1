"""`Tool`: a name, a JSON schema, declared capabilities and an async ``execute``."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from toolwire.capabilities import Capability, ToolCapabilities
from toolwire.context import ToolContext
from toolwire.errors import ToolDefinitionError
from toolwire.results import ToolResult
from toolwire.schema import ArgsValidator, JsonSchemaValidator

__all__ = [
    "TOOL_NAME_PATTERN",
    "ApprovalRule",
    "CachePolicy",
    "DirectCall",
    "ExecuteFn",
    "Tool",
    "ToolAnnotations",
    "define_tool",
    "direct_call_of",
]

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What every provider API accepts as a tool name."""

ExecuteFn: TypeAlias = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]
ApprovalRule: TypeAlias = Callable[[Mapping[str, Any], ToolContext], bool]
"""``requires_approval`` as a predicate over the validated arguments and the context: only
``False`` lets the call run unapproved (see `toolwire.execution.approvals`)."""


@dataclass(frozen=True, slots=True)
class DirectCall:
    """What an ``execute`` that only wraps a coroutine function does, in two parts, so the
    pipeline can run the function's coroutine itself (one coroutine frame less per call).

    ``execute(args, ctx)`` must be equivalent to ``convert(await function(**args))``, the
    exceptions included. ``@tool`` attaches one to the ``execute`` it builds for an async
    function without a context parameter (see `direct_call_of`).

    Attributes:
        function: Called with the validated arguments as keywords; returns an awaitable.
        convert: Maps the awaited value to the `ToolResult` ``execute`` would have returned.
    """

    function: Callable[..., Awaitable[Any]]
    convert: Callable[[Any], ToolResult]

    def attach(self, execute: ExecuteFn) -> ExecuteFn:
        """Mark ``execute`` as equivalent to this call; returns ``execute``."""
        setattr(execute, _DIRECT_CALL, self)
        return execute


_DIRECT_CALL = "__toolwire_direct_call__"


def direct_call_of(execute: ExecuteFn) -> DirectCall | None:
    """The `DirectCall` attached to ``execute``, if any."""
    direct = getattr(execute, _DIRECT_CALL, None)
    return direct if isinstance(direct, DirectCall) else None


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolAnnotations:
    """Behaviour hints, passed to MCP clients as tool annotations. ``None`` = unknown."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class CachePolicy:
    """Opt-in result caching: successful, untruncated results only, never in dry-run.

    Attributes:
        ttl_s: Seconds an entry stays fresh.
        max_entries: Entries kept per tool before the oldest is evicted.
        key_fn: Turns validated arguments into the cache key (default: canonical JSON).
    """

    ttl_s: float = 300.0
    max_entries: int = 1000
    key_fn: Callable[[dict[str, Any]], str] | None = None

    def __post_init__(self) -> None:
        if not self.ttl_s > 0:
            raise ToolDefinitionError(f"CachePolicy(ttl_s={self.ttl_s!r}) must be positive")
        if self.max_entries < 1:
            raise ToolDefinitionError(f"CachePolicy(max_entries={self.max_entries!r}) must be >= 1")


@dataclass(frozen=True, kw_only=True, slots=True)
class Tool:
    """A tool the model can call.

    Build one directly, with `define_tool`, or with the ``@tool`` decorator.

    Attributes:
        name: Unique name, ``^[a-zA-Z0-9_-]{1,64}$``.
        description: What the model reads to decide when to call it.
        schema: JSON Schema of the arguments object.
        execute: ``async (args, ctx) -> ToolResult``; an exception becomes ``execution_failed``.
        capabilities: What the tool needs from the world; empty = no side effects.
        toolset: Group label (``file``, ``web``, ...), used by toolset gating.
        max_result_chars: Lowers this tool's share of the output budget.
        is_available: Called whenever definitions are built or a call is gated; anything but
            ``True`` (or an exception) hides it. See `currently_available`.
        always_include: Bypasses the toolset allowlist (never ``exclude_tools``).
        output_is_untrusted: Results carry adversary-controlled text; the presenter wraps them.
        timeout_s: Per-call timeout; ``None`` uses the registry's default.
        sequential: A barrier: earlier calls in the batch finish first, later ones start after.
        annotations: MCP behaviour hints.
        cache: Opt-in result caching (``True`` = default `CachePolicy`).
        output_schema: JSON Schema of ``structured``, when the tool returns one.
        icons: MCP icons (``{"src": ..., "mimeType": ..., "sizes": [...]}``), listed by
            ``toolwire serve``; a bridged MCP tool keeps its server's.
        requires_approval: ``True``, or an `ApprovalRule`: such a call runs only with an
            approval token bound to it (`toolwire.execution.approvals`).
        long_running: Calls may outlast a turn: one still running after the hand-off time
            becomes a task (`toolwire.execution.tasks`).
        side_effects: The tool changes the world: its calls get an effect journal, so a
            retried call is answered from it, never run twice (`toolwire.execution.effects`).
        defer_loading: Left out of the definitions until a ``tool_search`` finds it for the
            session; a call to it before that is answered ``not_offered``
            (`toolwire.tool_search`).
        sink: The tool sends data out or makes outside changes: once a program has read
            untrusted output, a call to it needs approval or is refused, per the flow policy
            (`toolwire.code_mode._flow`).
        validator: Compiled argument validator; built from ``schema`` when not given.
    """

    name: str
    description: str
    schema: Mapping[str, Any]
    execute: ExecuteFn
    capabilities: ToolCapabilities = field(default_factory=ToolCapabilities)
    toolset: str | None = None
    max_result_chars: int | None = None
    is_available: Callable[[], bool] | None = None
    always_include: bool = False
    output_is_untrusted: bool = False
    timeout_s: float | None = None
    sequential: bool = False
    annotations: ToolAnnotations | None = None
    cache: CachePolicy | None = None
    output_schema: Mapping[str, Any] | None = None
    icons: tuple[Mapping[str, Any], ...] = ()
    requires_approval: bool | ApprovalRule = False
    long_running: bool = False
    side_effects: bool = False
    defer_loading: bool = False
    sink: bool = False
    validator: ArgsValidator = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME_PATTERN.fullmatch(self.name):
            raise ToolDefinitionError(
                f"tool name {self.name!r} is invalid: use 1-64 characters from a-z, A-Z, 0-9, "
                "'_' and '-' (what every model API accepts)"
            )
        if not isinstance(self.description, str):
            raise ToolDefinitionError(f"tool {self.name!r}: description must be a string")
        schema = self.schema
        if not isinstance(schema, dict | Mapping) or schema.get("type", "object") != "object":
            raise ToolDefinitionError(
                f'tool {self.name!r}: schema must be a JSON Schema object with "type": "object"'
            )
        if self.is_available is not None and not callable(self.is_available):
            raise ToolDefinitionError(
                f"tool {self.name!r}: is_available must be a function returning bool (or None), "
                f"got {type(self.is_available).__name__}"
            )
        if self.is_available is not None and inspect.iscoroutinefunction(self.is_available):
            raise ToolDefinitionError(
                f"tool {self.name!r}: is_available must be a plain function returning bool; it is "
                "called on every listing and call, so it cannot be async (cache the answer)"
            )
        if not callable(self.execute):
            raise ToolDefinitionError(f"tool {self.name!r}: execute must be an async callable")
        if self.max_result_chars is not None and self.max_result_chars < 1:
            raise ToolDefinitionError(f"tool {self.name!r}: max_result_chars must be >= 1")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ToolDefinitionError(f"tool {self.name!r}: timeout_s must be positive")
        if not isinstance(self.capabilities, ToolCapabilities):
            caps: Any = self.capabilities
            if isinstance(caps, Sequence):
                object.__setattr__(self, "capabilities", ToolCapabilities.of(*caps))
            else:
                raise ToolDefinitionError(
                    f"tool {self.name!r}: capabilities must be ToolCapabilities or a list of "
                    "declarations such as [network([...]), storage('session')]"
                )
        if self.cache is True:  # type: ignore[comparison-overlap,unused-ignore]
            object.__setattr__(self, "cache", CachePolicy())
        elif self.cache is False:  # type: ignore[comparison-overlap,unused-ignore]
            object.__setattr__(self, "cache", None)
        elif self.cache is not None and not isinstance(self.cache, CachePolicy):
            raise ToolDefinitionError(
                f"tool {self.name!r}: cache must be True, False, None or a CachePolicy"
            )
        _check_approval_rule(self.name, self.requires_approval)
        for flag in ("long_running", "side_effects", "defer_loading", "sink"):
            if not isinstance(getattr(self, flag), bool):
                raise ToolDefinitionError(f"tool {self.name!r}: {flag} must be True or False")
        if self.validator is None:
            try:
                object.__setattr__(self, "validator", JsonSchemaValidator(self.schema))
            except ToolDefinitionError as exc:
                raise ToolDefinitionError(f"tool {self.name!r}: {exc}") from None

    def currently_available(self) -> bool:
        """The one availability rule, used by definitions, calls, snapshots and providers.

        Available when ``is_available`` is absent or returns exactly ``True``; ``False``, any
        other value and an exception all hide the tool (fail closed).
        """
        check = self.is_available
        if check is None:
            return True
        try:
            return check() is True
        except Exception:
            return False

    @property
    def is_mcp(self) -> bool:
        """True for ``mcp__<server>__<tool>`` names."""
        return self.name.startswith("mcp__")

    @property
    def mcp_server(self) -> str | None:
        """The server segment of an MCP tool's name."""
        if not self.is_mcp:
            return None
        parts = self.name.split("__")
        return parts[1] if len(parts) >= 3 else None


def _check_approval_rule(name: str, rule: object) -> None:
    if isinstance(rule, bool):
        return
    if not callable(rule) or inspect.iscoroutinefunction(rule):
        raise ToolDefinitionError(
            f"tool {name!r}: requires_approval must be a bool or a plain function "
            f"(args, ctx) -> bool, got {type(rule).__name__}"
        )


def define_tool(
    *,
    name: str,
    description: str,
    schema: Mapping[str, Any],
    execute: ExecuteFn,
    capabilities: ToolCapabilities | Sequence[Capability] = (),
    **options: Any,
) -> Tool:
    """Build a `Tool` from a hand-written JSON schema; ``capabilities`` may be a list.

    Any other `Tool` field (``toolset``, ``timeout_s``, ``annotations``, ...) is accepted by name.

    Raises:
        ToolDefinitionError: a field is invalid; the message says which and how to fix it.
    """
    caps = (
        capabilities
        if isinstance(capabilities, ToolCapabilities)
        else ToolCapabilities.of(*capabilities)
    )
    try:
        return Tool(
            name=name,
            description=description,
            schema=schema,
            execute=execute,
            capabilities=caps,
            **options,
        )
    except TypeError as exc:
        raise ToolDefinitionError(f"define_tool({name!r}): {exc}") from None

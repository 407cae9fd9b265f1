"""`ToolOptions`: the options of ``@tool`` beyond a tool's name, description and capabilities,
as one value."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from toolwire.capabilities import Capability, ToolCapabilities
from toolwire.docstrings import DocstringStyle
from toolwire.tools import ApprovalRule, CachePolicy, ToolAnnotations

__all__ = ["ToolOptions", "choose_options"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolOptions:
    """How ``@tool`` builds a `toolwire.tools.Tool` from a function, beyond its name and
    description: ``@tool(options=ToolOptions(toolset="web", timeout_s=30))``.

    One value, so a module's tools can share theirs (``READ_ONLY = ToolOptions(...)``, then
    ``@tool(options=READ_ONLY)``) and derive one with `dataclasses.replace`.

    Three things stay direct keywords of ``@tool``: ``name`` and ``description``, which belong
    to one function and never to a shared value, and ``capabilities``, which the documentation's
    examples pass more than every other option together (8 of 17 option uses in ``docs/`` and
    the README; next come ``output_is_untrusted`` with 2 and the rest with 1 each) and which is
    what a reader of a tool must see first: what it may touch. ``capabilities=`` overrides this
    value's field. The other options as keywords of ``@tool`` still work, with a
    `DeprecationWarning`.

    Attributes:
        capabilities: What the tool needs from the world (as ``@tool(capabilities=...)``).
        toolset: Group label (``file``, ``web``, ...), used by toolset gating.
        max_result_chars: Lowers this tool's share of the output budget.
        is_available: Called whenever definitions are built or a call is gated.
        always_include: Bypasses the toolset allowlist.
        output_is_untrusted: Results carry adversary-controlled text; the presenter wraps them.
        timeout_s: Per-call timeout; ``None`` uses the registry's default.
        sequential: A barrier within a batch.
        annotations: MCP behaviour hints.
        cache: Opt-in result caching (``True`` = the default `CachePolicy`).
        output_schema: JSON Schema of ``structured``.
        icons: MCP icons.
        requires_approval: ``True`` or an `ApprovalRule`.
        long_running: Calls may outlast a turn and become tasks.
        side_effects: Calls get an effect journal, so a retry never runs twice.
        defer_loading: Left out of the definitions until ``tool_search`` finds it.
        sink: The tool sends data out (the flow policy applies).
        docstring_style: How the docstring is read: ``"auto"``, ``"google"``, ``"numpy"`` or
            ``"sphinx"``.

    Each is the `Tool` field of that name; see `toolwire.tools.Tool` for the details.
    """

    capabilities: ToolCapabilities | Sequence[Capability] = ()
    toolset: str | None = None
    max_result_chars: int | None = None
    is_available: Callable[[], bool] | None = None
    always_include: bool = False
    output_is_untrusted: bool = False
    timeout_s: float | None = None
    sequential: bool = False
    annotations: ToolAnnotations | None = None
    cache: CachePolicy | bool | None = None
    output_schema: Mapping[str, Any] | None = None
    icons: tuple[Mapping[str, Any], ...] = ()
    requires_approval: bool | ApprovalRule = False
    long_running: bool = False
    side_effects: bool = False
    defer_loading: bool = False
    sink: bool = False
    docstring_style: DocstringStyle = "auto"

    def tool_fields(self) -> dict[str, Any]:
        """The `Tool` fields these options set as they are (all but ``capabilities``,
        ``cache`` and ``docstring_style``, which the decorator turns into values first)."""
        if self is _DEFAULT:  # the common case, @tool bare: its fields once (W4 registers 2,000)
            return dict(_DEFAULT_FIELDS)
        return {name: getattr(self, name) for name in _TOOL_FIELDS}


_CONVERTED = frozenset({"capabilities", "cache", "docstring_style"})
_TOOL_FIELDS = tuple(f.name for f in fields(ToolOptions) if f.name not in _CONVERTED)
_DEFAULT = ToolOptions()
_DEFAULT_FIELDS = {name: getattr(_DEFAULT, name) for name in _TOOL_FIELDS}


def choose_options(
    capabilities: ToolCapabilities | Sequence[Capability] | None,
    options: ToolOptions | None,
    keywords: Mapping[str, Any],
) -> ToolOptions:
    """``options`` with ``capabilities`` and the deprecated option ``keywords`` applied.

    Raises:
        TypeError: ``options`` is not a `ToolOptions`, or a keyword is not one of its fields.
    """
    if options is None:
        chosen = _DEFAULT
    elif isinstance(options, ToolOptions):
        chosen = options
    else:
        raise TypeError(f"@tool(options=...) takes a ToolOptions, got {type(options).__name__}")
    if keywords:
        shown = ", ".join(f"{key}=..." for key in keywords)
        warnings.warn(
            f"@tool({shown}) is deprecated: pass @tool(options=ToolOptions({shown})) "
            "(from toolwire import ToolOptions); name, description and capabilities stay "
            "keywords",
            DeprecationWarning,
            stacklevel=3,
        )
        chosen = replace(chosen, **keywords)
    if capabilities is not None:
        chosen = replace(chosen, capabilities=capabilities)
    return chosen

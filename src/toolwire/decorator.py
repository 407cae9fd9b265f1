"""``@tool``: a typed Python function becomes a `Tool`.

The schema comes from the type hints and the docstring (Google, NumPy or Sphinx style); a
parameter annotated `ToolContext` is injected and hidden from the schema; arguments are
validated by pydantic (built on the first call, so registering thousands of tools stays cheap);
sync functions run in worker threads, never on the event loop.

Return values map to results: ``str`` → the value; ``dict``, ``list``, pydantic models and
dataclasses → JSON text plus ``structured``; a `ToolResult` passes through; ``None`` → ``""``.
An exception becomes ``execution_failed`` with its message (the registry does that).
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, NotRequired, TypeVar, overload

import pydantic
import pydantic_core
from typing_extensions import TypedDict, deprecated

from toolwire.capabilities import Capability, ToolCapabilities
from toolwire.context import ToolContext
from toolwire.docstrings import DocstringStyle
from toolwire.errors import ToolDefinitionError
from toolwire.results import Err, Ok, ToolResult, ok
from toolwire.schema import ArgsValidator, PydanticValidator
from toolwire.threads import run_in_worker
from toolwire.tool_options import ToolOptions, choose_options
from toolwire.tool_params import Param, inspect_parameters
from toolwire.tools import ApprovalRule, CachePolicy, DirectCall, Tool, ToolAnnotations
from toolwire.typeschema import fast_type_schema

__all__ = ["to_tool_result", "tool"]

F = TypeVar("F", bound=Callable[..., Any])


def to_tool_result(value: Any) -> ToolResult:
    """Map a function's return value to a `ToolResult` (see the module docstring)."""
    if isinstance(value, str):
        return ok(value)
    if isinstance(value, Ok | Err):
        return value
    if value is None:
        return Ok("")
    data = pydantic_core.to_jsonable_python(value, fallback=str)
    text = json.dumps(data, ensure_ascii=False)
    if isinstance(data, dict):
        return Ok(text, structured=data)
    if isinstance(data, list):
        return Ok(text, structured={"result": data})
    return Ok(text)


class _LazyValidator:
    """Builds the pydantic model on first use; thread-safe."""

    __slots__ = ("_build", "_lock", "_validator")

    def __init__(self, build: Callable[[], ArgsValidator]) -> None:
        self._build = build
        self._validator: ArgsValidator | None = None
        self._lock = threading.Lock()

    def validate(self, raw: str | Mapping[str, Any]) -> dict[str, Any]:
        validator = self._validator
        if validator is None:
            with self._lock:
                if self._validator is None:
                    self._validator = self._build()
                validator = self._validator
        return validator.validate(raw)


def _json_default(value: Any) -> tuple[bool, Any]:
    """``(True, value as JSON)`` when a default can be shown in the schema; a default that is not
    JSON (NaN, infinity, an object) is left out — the function's own default still applies."""
    try:
        data = pydantic_core.to_jsonable_python(value)
        json.dumps(data, allow_nan=False)
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        return False, None
    return True, data


def _drop_non_json_defaults(properties: dict[str, Any]) -> None:
    for prop in properties.values():
        if isinstance(prop, dict) and "default" in prop and not _json_default(prop["default"])[0]:
            del prop["default"]


def _parameter_problem(
    fn_name: str, params: Sequence[Param], exc: Exception
) -> ToolDefinitionError:
    """The `ToolDefinitionError` for a signature pydantic cannot handle, naming the parameter."""
    for p in params:
        try:
            pydantic.TypeAdapter(p.annotation).json_schema()
        except Exception as problem:
            reason = str(problem).splitlines()[0] if str(problem) else type(problem).__name__
            return ToolDefinitionError(
                f"@tool {fn_name!r}: parameter {p.name!r} has a type that cannot be turned into "
                f"a JSON schema and validator ({_type_name(p.annotation)}: {reason}); use a "
                "JSON-shaped type such as str, int, float, bool, list[str], dict[str, int], a "
                "Literal, a pydantic model or a typing_extensions.TypedDict"
            )
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ToolDefinitionError(f"@tool {fn_name!r}: its parameters cannot be validated ({reason})")


def _type_name(annotation: Any) -> str:
    name = annotation.__name__ if isinstance(annotation, type) else repr(annotation)
    return name if len(name) <= 80 else name[:79] + "…"


def _build_schema(fn_name: str, params: Sequence[Param]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    fast = [fast_type_schema(p.annotation) for p in params]
    if any(schema is None for schema in fast):
        try:
            full = _model(fn_name, params).model_json_schema()
        except ToolDefinitionError:
            raise
        except Exception as exc:  # pydantic's errors name no parameter: find it
            raise _parameter_problem(fn_name, params, exc) from None
        properties = full.get("properties", {})
        _drop_non_json_defaults(properties)
        for prop in properties.values():
            prop.pop("title", None)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if full.get("required"):
            schema["required"] = full["required"]
        if "$defs" in full:
            schema["$defs"] = full["$defs"]
        schema["additionalProperties"] = False
        for p in params:
            if p.description:
                properties[p.name].setdefault("description", p.description)
        return schema
    for p, prop in zip(params, fast, strict=True):
        assert prop is not None
        if p.description:
            prop["description"] = p.description
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        else:
            ok, value = _json_default(p.default)
            if ok:
                prop["default"] = value
        properties[p.name] = prop
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _model(fn_name: str, params: Sequence[Param]) -> type[pydantic.BaseModel]:
    fields: dict[str, Any] = {}
    for p in params:
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (p.annotation, pydantic.Field(default, description=p.description or None))
    try:
        return pydantic.create_model(
            f"{fn_name}_arguments",
            __config__=pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
    except Exception as exc:  # schema generation, user and schema errors alike
        raise _parameter_problem(fn_name, params, exc) from None


_ANNOTATED: Any = Annotated  # built at run time from the signature; hidden from the type checker
_TYPED_DICT: Any = TypedDict
_NOT_REQUIRED: Any = NotRequired


def _arguments(fn_name: str, params: Sequence[Param]) -> Any:
    """A TypedDict of the parameters: validation yields a plain dict, and an omitted optional
    argument stays omitted, so the function's own default applies."""
    fields: dict[str, Any] = {}
    for p in params:
        annotated = _ANNOTATED[p.annotation, pydantic.Field(description=p.description or None)]
        fields[p.name] = (
            annotated if p.default is inspect.Parameter.empty else _NOT_REQUIRED[annotated]
        )
    arguments = _TYPED_DICT(f"{fn_name}_arguments", fields)
    arguments.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")
    try:
        pydantic.TypeAdapter(arguments)
    except Exception as exc:
        raise _parameter_problem(fn_name, params, exc) from None
    return arguments


def _make_execute(
    fn: Callable[..., Any], ctx_name: str | None
) -> Callable[[dict[str, Any], ToolContext], Any]:
    if inspect.iscoroutinefunction(fn):

        async def execute_async(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            if ctx_name is not None:
                args = {**args, ctx_name: ctx}
            return to_tool_result(await fn(**args))

        if ctx_name is None:  # the pipeline may call ``fn`` itself, a frame less per call
            return DirectCall(fn, to_tool_result).attach(execute_async)
        return execute_async

    async def execute_in_thread(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if ctx_name is not None:
            args = {**args, ctx_name: ctx}
        return to_tool_result(await run_in_worker(functools.partial(fn, **args)))

    return execute_in_thread


_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR


def _is_generator_function(fn: Callable[..., Any]) -> bool:
    """``inspect.isgeneratorfunction or isasyncgenfunction``, read once from a plain
    function's code flags (W4 decorates 2,000 functions)."""
    if type(fn) is types.FunctionType:
        return bool(fn.__code__.co_flags & _GENERATOR_FLAGS)
    return inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn)


def _decorate(
    fn: Callable[..., Any], name: str | None, description: str | None, options: ToolOptions
) -> Tool:
    if not callable(fn):
        raise ToolDefinitionError(f"@tool needs a function, got {fn!r}")
    if _is_generator_function(fn):
        raise ToolDefinitionError(
            f"@tool {fn.__name__!r}: generators cannot be tools; return a value"
        )
    name = name or fn.__name__
    summary, params, ctx_name = inspect_parameters(fn, options.docstring_style)
    description = description or summary
    if not description:
        raise ToolDefinitionError(
            f"@tool {name!r} has no description: add a docstring or pass description=..."
        )
    caps = options.capabilities
    if not isinstance(caps, ToolCapabilities):
        caps = ToolCapabilities.of(*caps)
    cache = CachePolicy() if options.cache is True else options.cache
    schema = _build_schema(name, params)
    validator = _LazyValidator(
        lambda: PydanticValidator(pydantic.TypeAdapter(_arguments(name, params)))
    )
    return Tool(
        name=name,
        description=description,
        schema=schema,
        execute=_make_execute(fn, ctx_name),
        capabilities=caps,
        cache=cache or None,
        validator=validator,
        **options.tool_fields(),
    )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    capabilities: ToolCapabilities | Sequence[Capability] | None = None,
    options: ToolOptions | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


@overload
@deprecated("pass @tool(options=ToolOptions(...)); name, description, capabilities stay")
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    capabilities: ToolCapabilities | Sequence[Capability] | None = None,
    options: ToolOptions | None = None,
    toolset: str | None = None,
    max_result_chars: int | None = None,
    is_available: Callable[[], bool] | None = None,
    always_include: bool = False,
    output_is_untrusted: bool = False,
    timeout_s: float | None = None,
    sequential: bool = False,
    annotations: ToolAnnotations | None = None,
    cache: CachePolicy | bool | None = None,
    output_schema: Mapping[str, Any] | None = None,
    icons: tuple[Mapping[str, Any], ...] = (),
    requires_approval: bool | ApprovalRule = False,
    long_running: bool = False,
    side_effects: bool = False,
    defer_loading: bool = False,
    sink: bool = False,
    docstring_style: DocstringStyle = "auto",
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    capabilities: ToolCapabilities | Sequence[Capability] | None = None,
    options: ToolOptions | None = None,
    **keywords: Any,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a `Tool`; usable bare (``@tool``) or with options (``@tool(...)``).

    ``name`` and ``description`` override the function's name and docstring summary;
    ``capabilities`` declares what the tool may touch; every other choice is one value,
    ``options=ToolOptions(...)`` (`toolwire.tool_options.ToolOptions`, which says why these
    three stay keywords). The other options as keywords (``toolset=``, ``timeout_s=``, ...)
    still work, with a `DeprecationWarning`, and build the same tool.

    Raises:
        ToolDefinitionError: the function cannot be a tool (``*args``, unresolvable hints, no
            description, an invalid name); the message says how to fix it.
        TypeError: ``options`` is not a `ToolOptions`, or an unknown keyword.
    """
    chosen = choose_options(capabilities, options, keywords)
    if fn is not None:
        return _decorate(fn, name, description, chosen)
    return lambda inner: _decorate(inner, name, description, chosen)

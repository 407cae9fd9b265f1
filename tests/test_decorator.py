"""@tool: schema from hints and docstrings, context injection, threads, return mapping."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import threading
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
import anyio.lowlevel
import pydantic
import pytest

from toolwire.capabilities import ToolCapabilities, network, storage
from toolwire.context import ToolContext
from toolwire.decorator import to_tool_result, tool
from toolwire.errors import ToolDefinitionError
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.schema import ArgsInvalid
from toolwire.tool_options import ToolOptions
from toolwire.tools import CachePolicy, Tool, ToolAnnotations


class Address(pydantic.BaseModel):
    street: str
    number: int


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Opaque:
    """A type pydantic cannot build a schema for."""


_OPAQUE = Opaque()


class Greeter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def greet(self, name: str, ctx: ToolContext) -> str:
        """Greet someone."""
        return f"{self.prefix} {name} ({ctx.session_id})"

    async def agreet(self, name: str) -> str:
        """Greet someone, asynchronously."""
        return f"{self.prefix} {name}"


async def _run(t: Tool, args: Any, ctx: ToolContext | None = None) -> ToolResult:
    registry = ToolRegistry(reducers=None)
    registry.register(t)
    outcome = await registry.execute(t.name, args, ctx or ToolContext(session_id="s"))
    return outcome.result


# -- schema -----------------------------------------------------------------------------------


def test_bare_decorator_builds_a_tool_named_after_the_function() -> None:
    @tool
    def greet(name: str) -> str:
        """Say hello."""
        return f"hi {name}"

    assert isinstance(greet, Tool)
    assert (greet.name, greet.description) == ("greet", "Say hello.")


def test_schema_comes_from_type_hints_and_the_google_docstring() -> None:
    @tool
    def search(query: str, limit: int = 10, tags: list[str] | None = None) -> str:
        """Search the index.

        Args:
            query: What to look for.
            limit: How many results.
            tags: Only these tags.
        """
        return ""

    assert search.description == "Search the index."
    assert search.schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "description": "How many results.", "default": 10},
            "tags": {
                "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                "description": "Only these tags.",
                "default": None,
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def test_numpy_docstrings_describe_parameters() -> None:
    @tool
    def area(width: float, height: float) -> float:
        """Compute an area.

        Parameters
        ----------
        width : float
            The width.
        height : float
            The height.
        """
        return width * height

    assert area.schema["properties"]["width"]["description"] == "The width."
    assert area.description == "Compute an area."


def test_sphinx_docstrings_describe_parameters() -> None:
    @tool
    def area(width: float) -> float:
        """Compute an area.

        :param width: The width.
        """
        return width

    assert area.schema["properties"]["width"]["description"] == "The width."


def test_a_model_parameter_uses_pydantic_for_the_schema() -> None:
    @tool
    def deliver(to: Address, mode: Literal["air", "sea"] = "air") -> str:
        """Deliver.

        Args:
            to: Where to.
        """
        return ""

    schema = deliver.schema
    assert schema["required"] == ["to"]
    assert schema["additionalProperties"] is False
    assert "Address" in schema["$defs"]
    assert schema["properties"]["to"]["description"] == "Where to."
    assert schema["properties"]["mode"] == {
        "default": "air",
        "enum": ["air", "sea"],
        "type": "string",
    }


def test_the_context_parameter_is_hidden_from_the_schema() -> None:
    @tool
    def where(path: str, ctx: ToolContext) -> str:
        """Where am I."""
        return ctx.working_dir

    @tool
    def maybe(ctx: ToolContext | None = None) -> str:
        """Maybe a context."""
        return ""

    assert list(where.schema["properties"]) == ["path"]
    assert where.schema["required"] == ["path"]
    assert maybe.schema["properties"] == {}


def test_options_override_name_and_description_and_set_tool_fields() -> None:
    hints = ToolAnnotations(read_only=True)

    @tool(
        name="fetch_page",
        description="Fetch a page.",
        capabilities=[network(["example.com"])],
        options=ToolOptions(
            toolset="web",
            timeout_s=3,
            sequential=True,
            annotations=hints,
            cache=True,
            output_is_untrusted=True,
        ),
    )
    def fetch(url: str) -> str:
        """Ignored summary."""
        return url

    assert (fetch.name, fetch.description, fetch.toolset) == ("fetch_page", "Fetch a page.", "web")
    assert fetch.capabilities.declared == ("network",)
    assert (fetch.timeout_s, fetch.sequential, fetch.annotations) == (3, True, hints)
    assert fetch.cache == CachePolicy()
    assert fetch.output_is_untrusted


def test_a_function_without_docstring_or_description_is_refused() -> None:
    def bare(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match="no description"):
        tool(bare)


def test_star_args_are_refused() -> None:
    def spread(*values: int) -> int:
        """Spread."""
        return 0

    with pytest.raises(ToolDefinitionError, match="named parameters only"):
        tool(spread)


def test_star_kwargs_are_refused() -> None:
    def named(**values: int) -> int:
        """Named."""
        return 0

    with pytest.raises(ToolDefinitionError, match="named parameters only"):
        tool(named)


def test_positional_only_parameters_are_refused() -> None:
    def positional(x: int, /) -> int:
        """Positional."""
        return x

    with pytest.raises(ToolDefinitionError, match="positional-only"):
        tool(positional)


def test_generators_are_refused() -> None:
    def numbers() -> Any:
        """Numbers."""
        yield 1

    with pytest.raises(ToolDefinitionError, match="generators"):
        tool(numbers)


def test_unresolvable_type_hints_are_refused_with_a_hint() -> None:
    def odd(x: NotDefinedAnywhere) -> str:  # type: ignore[name-defined]  # noqa: F821
        """Odd."""
        return ""

    with pytest.raises(ToolDefinitionError, match="cannot resolve its type hints"):
        tool(odd)


def test_an_invalid_name_option_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="is invalid"):

        @tool(name="has space")
        def f() -> str:
            """F."""
            return ""


def test_a_non_callable_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="needs a function"):
        tool(42)  # type: ignore[call-overload]


def test_capabilities_may_be_given_as_tool_capabilities() -> None:
    @tool(capabilities=ToolCapabilities.of(storage("session")))
    def remember() -> str:
        """Remember."""
        return ""

    assert remember.capabilities.declared == ("storage",)


def test_a_default_that_is_not_json_is_left_out_of_the_schema() -> None:
    @tool
    def f(x: Any = _OPAQUE, y: int | None = None) -> str:
        """F."""
        return ""

    assert "default" not in f.schema["properties"]["x"]
    assert f.schema["properties"]["y"]["default"] is None
    assert "required" not in f.schema


def test_the_pydantic_path_without_required_fields_or_definitions() -> None:
    @tool
    def since(when: datetime.date = datetime.date(2020, 1, 1)) -> str:
        """Since."""
        return when.isoformat()

    assert since.schema == {
        "type": "object",
        "properties": {"when": {"default": "2020-01-01", "format": "date", "type": "string"}},
        "additionalProperties": False,
    }


def test_a_parameter_type_without_a_schema_is_refused_at_decoration() -> None:
    with pytest.raises(ToolDefinitionError, match="cannot be turned into a JSON schema"):

        @tool
        def f(x: Opaque | None = None) -> str:
            """F."""
            return ""


# -- validation -------------------------------------------------------------------------------


@tool
def order(qty: int, address: Address, express: bool = False) -> str:
    """Place an order."""
    return f"{qty} to {address.street} {address.number} express={express}"


def test_validator_accepts_json_and_dicts_and_keeps_omitted_optionals_omitted() -> None:
    raw = {"qty": 2, "address": {"street": "Main", "number": 1}}
    from_dict = order.validator.validate(raw)
    from_json = order.validator.validate('{"qty": 2, "address": {"street": "Main", "number": 1}}')
    assert from_dict == from_json
    assert "express" not in from_dict
    assert isinstance(from_dict["address"], Address)


def test_validator_names_every_bad_field() -> None:
    with pytest.raises(ArgsInvalid) as caught:
        order.validator.validate({"qty": "many", "address": {"street": 1}, "colour": "red"})
    paths = {p.path for p in caught.value.problems}
    assert paths == {"qty", "address.street", "address.number", "colour"}


@pytest.mark.anyio
async def test_a_context_argument_sent_by_the_model_is_refused() -> None:
    @tool
    def where(ctx: ToolContext) -> str:
        """Where."""
        return "here"

    result = await _run(where, {"ctx": "forged"})
    assert isinstance(result, Err)
    assert result.code == ErrorCode.INPUT_INVALID
    assert "ctx: unexpected field" in result.error


# -- execution --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_validated_arguments_reach_the_function_with_defaults_applied() -> None:
    result = await _run(order, '{"qty": 2, "address": {"street": "Main", "number": 1}}')
    assert result == Ok("2 to Main 1 express=False")


@pytest.mark.anyio
async def test_the_context_is_injected() -> None:
    @tool
    def who(ctx: ToolContext) -> str:
        """Who."""
        return f"{ctx.session_id}/{ctx.tool_call_id}"

    assert await _run(who, {}, ToolContext(session_id="sess")) == Ok("sess/call_0")


@pytest.mark.anyio
async def test_the_context_is_injected_into_async_functions() -> None:
    @tool
    async def who(name: str, ctx: ToolContext) -> str:
        """Who."""
        return f"{name}@{ctx.session_id}"

    assert await _run(who, {"name": "ada"}, ToolContext(session_id="s2")) == Ok("ada@s2")


@pytest.mark.anyio
async def test_sync_functions_run_on_a_worker_thread() -> None:
    @tool
    def thread_id() -> str:
        """Thread id."""
        return str(threading.get_ident())

    result = await _run(thread_id, {})
    assert isinstance(result, Ok)
    assert int(result.value) != threading.get_ident()


@pytest.mark.anyio
async def test_async_functions_run_on_the_event_loop_thread() -> None:
    @tool
    async def thread_id() -> str:
        """Thread id."""
        await anyio.lowlevel.checkpoint()
        return str(threading.get_ident())

    assert await _run(thread_id, {}) == Ok(str(threading.get_ident()))


@pytest.mark.anyio
async def test_an_exception_becomes_execution_failed_with_its_message() -> None:
    @tool
    def broken(x: int) -> str:
        """Broken."""
        raise ValueError(f"cannot handle {x}")

    result = await _run(broken, {"x": 3})
    assert result == Err("cannot handle 3", ErrorCode.EXECUTION_FAILED, cause="ValueError")


@pytest.mark.anyio
async def test_an_async_exception_becomes_execution_failed() -> None:
    @tool
    async def broken() -> str:
        """Broken."""
        raise KeyError("missing")

    result = await _run(broken, {})
    assert isinstance(result, Err)
    assert (result.code, result.cause) == (ErrorCode.EXECUTION_FAILED, "KeyError")


# -- return mapping ---------------------------------------------------------------------------


def test_a_string_is_the_value() -> None:
    assert to_tool_result("text") == Ok("text")


def test_none_is_an_empty_value() -> None:
    assert to_tool_result(None) == Ok("")


def test_a_dict_becomes_json_and_structured() -> None:
    assert to_tool_result({"a": 1, "b": "é"}) == Ok(
        '{"a": 1, "b": "é"}', structured={"a": 1, "b": "é"}
    )


def test_a_list_becomes_json_with_structured_under_result() -> None:
    assert to_tool_result([1, 2]) == Ok("[1, 2]", structured={"result": [1, 2]})


def test_a_pydantic_model_becomes_json_and_structured() -> None:
    value = Address(street="Main", number=1)
    assert to_tool_result(value) == Ok(
        '{"street": "Main", "number": 1}', structured={"street": "Main", "number": 1}
    )


def test_a_dataclass_becomes_json_and_structured() -> None:
    assert to_tool_result(Point(x=1, y=2)) == Ok('{"x": 1, "y": 2}', structured={"x": 1, "y": 2})


def test_a_number_becomes_its_json_text() -> None:
    assert to_tool_result(42) == Ok("42")


@pytest.mark.parametrize("result", [Ok("v", cost_usd=0.1), Err("no", ErrorCode.NOT_AVAILABLE)])
def test_a_tool_result_passes_through(result: ToolResult) -> None:
    assert to_tool_result(result) is result


@pytest.mark.anyio
async def test_a_returned_err_reaches_the_caller_unchanged() -> None:
    @tool
    def refuse() -> ToolResult:
        """Refuse."""
        return Err("stale", ErrorCode.STALE_WRITE, conflict_key="/f")

    assert await _run(refuse, {}) == Err("stale", ErrorCode.STALE_WRITE, conflict_key="/f")


@pytest.mark.anyio
async def test_a_returned_dict_reaches_the_caller_as_json_and_structured() -> None:
    @tool
    async def stats() -> dict[str, int]:
        """Stats."""
        return {"n": 3}

    assert await _run(stats, {}) == Ok('{"n": 3}', structured={"n": 3})


@pytest.mark.anyio
async def test_bound_methods_become_tools_without_self() -> None:
    greeter = Greeter("hello")
    sync_tool, async_tool = tool(greeter.greet), tool(greeter.agreet)
    assert sync_tool.name == "greet"
    assert sync_tool.schema["required"] == ["name"]
    assert list(async_tool.schema["properties"]) == ["name"]
    assert await _run(sync_tool, {"name": "ada"}) == Ok("hello ada (s)")
    assert await _run(async_tool, {"name": "ada"}) == Ok("hello ada")


@pytest.mark.anyio
async def test_pydantic_path_arguments_arrive_as_python_values() -> None:
    @tool
    def since(when: datetime.date = datetime.date(2020, 1, 1)) -> str:
        """Since."""
        return repr(when)

    assert await _run(since, '{"when": "2021-02-03"}') == Ok("datetime.date(2021, 2, 3)")
    assert await _run(since, "{}") == Ok("datetime.date(2020, 1, 1)")


# -- odd type hints are definition errors that name the parameter (issue 9, item 19) ---------


class _PlainTypedDict(typing.TypedDict):
    x: int


def _odd_signatures() -> list[tuple[str, Any]]:
    def dict_with_one_argument(a: dict[str]) -> str:  # type: ignore[type-arg]
        """Doc."""
        return ""

    def bare_callable(a: Callable) -> str:  # type: ignore[type-arg]
        """Doc."""
        return ""

    def typing_typed_dict(a: _PlainTypedDict) -> str:
        """Doc."""
        return ""

    def bad_constraint(a: Annotated[int, pydantic.Field(gt="abc")]) -> str:
        """Doc."""
        return ""

    return [
        ("dict[str]", dict_with_one_argument),
        ("bare Callable", bare_callable),
        ("typing.TypedDict", typing_typed_dict),
        ("bad Field constraint", bad_constraint),
    ]


@pytest.mark.parametrize(("label", "fn"), _odd_signatures(), ids=[s[0] for s in _odd_signatures()])
def test_an_odd_type_hint_is_a_definition_error_naming_the_parameter(label: str, fn: Any) -> None:
    with pytest.raises(ToolDefinitionError, match=r"parameter 'a' has a type that cannot"):
        tool(fn)


@pytest.mark.parametrize("default", [math.nan, math.inf, -math.inf])
def test_a_non_finite_default_is_left_out_of_a_schema_that_stays_valid_json(default: float) -> None:
    def fast(a: float = default) -> str:
        """Doc."""
        return str(a)

    def slow(a: Annotated[float, pydantic.Field(ge=-1e400)] = default) -> str:
        """Doc."""
        return str(a)

    for fn in (fast, slow):
        schema = tool(fn).schema
        json.dumps(schema, allow_nan=False)  # raises on NaN/Infinity
        assert "default" not in schema["properties"]["a"]


# -- what no schema could describe is refused (outside check, issue 23) ------------------------


def test_a_parameter_without_an_annotation_is_refused_naming_function_and_parameter() -> None:
    def lookup(city, units: str = "metric") -> str:  # type: ignore[no-untyped-def]
        """Look up the weather."""
        return city

    with pytest.raises(ToolDefinitionError) as raised:
        tool(lookup)
    assert "'lookup'" in str(raised.value)
    assert "parameter 'city' has no type annotation" in str(raised.value)
    assert "city: Any" in str(raised.value)


def test_a_parameter_annotated_any_accepts_any_json_value() -> None:
    def echo(value: Any) -> str:
        """Echo."""
        return json.dumps(value)

    made = tool(echo)
    assert made.schema["properties"]["value"] == {}
    assert made.schema["required"] == ["value"]


def test_a_docstring_entry_naming_no_parameter_is_refused() -> None:
    def search(query: str, limit: int = 5) -> str:
        """Search.

        Args:
            query: What to look for.
            max_results: How many hits.
        """
        return query

    with pytest.raises(ToolDefinitionError) as raised:
        tool(search)
    assert "'search'" in str(raised.value)
    assert "documents max_results, which is not a parameter" in str(raised.value)


def test_a_docstring_may_document_the_context_parameter() -> None:
    async def where(path: str, ctx: ToolContext) -> str:
        """Where.

        Args:
            path: A path.
            ctx: Injected by toolwire.
        """
        return path

    assert list(tool(where).schema["properties"]) == ["path"]

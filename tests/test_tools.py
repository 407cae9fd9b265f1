"""Tool and define_tool: names, schemas, options, the compiled validator."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolwire.capabilities import ToolCapabilities, network, storage
from toolwire.context import ToolContext
from toolwire.errors import ToolDefinitionError
from toolwire.results import Ok, ToolResult
from toolwire.schema import ArgsInvalid, JsonSchemaValidator
from toolwire.tools import TOOL_NAME_PATTERN, CachePolicy, Tool, ToolAnnotations, define_tool

OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


async def _execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok("ok")


def _tool(**overrides: Any) -> Tool:
    options: dict[str, Any] = {
        "name": "search",
        "description": "Search.",
        "schema": OBJECT,
        "execute": _execute,
    }
    options.update(overrides)
    return Tool(**options)


_NAME_CHARS = string.ascii_letters + string.digits + "_-"


@given(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=64))
def test_every_name_of_1_to_64_allowed_characters_is_accepted(name: str) -> None:
    assert _tool(name=name).name == name


@given(st.text(min_size=0, max_size=80))
@example("search\n")
@example("a" * 65)
def test_a_name_outside_the_pattern_is_refused_with_a_message(name: str) -> None:
    if re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
        assert _tool(name=name).name == name
        return
    with pytest.raises(ToolDefinitionError, match="1-64 characters"):
        _tool(name=name)


@pytest.mark.parametrize(
    "name", ["", "a" * 65, "has space", "dot.name", "slash/x", "ümlaut", "a\n"]
)
def test_typical_bad_names_are_refused(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="is invalid"):
        _tool(name=name)


def test_the_name_pattern_is_the_provider_one() -> None:
    assert TOOL_NAME_PATTERN.pattern == r"^[a-zA-Z0-9_-]{1,64}$"


def test_a_name_with_a_trailing_newline_is_refused() -> None:
    # ``$`` matches before a final newline; the pattern must still refuse it.
    with pytest.raises(ToolDefinitionError):
        _tool(name="search\n")


def test_description_must_be_a_string() -> None:
    with pytest.raises(ToolDefinitionError, match="description"):
        _tool(description=None)


@pytest.mark.parametrize("schema", [{"type": "array"}, ["type", "object"], "object"])
def test_schema_must_be_an_object_schema(schema: object) -> None:
    with pytest.raises(ToolDefinitionError, match='"type": "object"'):
        _tool(schema=schema)


def test_a_schema_without_type_counts_as_an_object() -> None:
    assert _tool(schema={"properties": {}}).schema == {"properties": {}}


def test_an_invalid_json_schema_is_refused_naming_the_tool() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'search'.*JSON schema is invalid"):
        _tool(schema={"type": "object", "properties": {"q": {"type": "strng"}}})


def test_execute_must_be_callable() -> None:
    with pytest.raises(ToolDefinitionError, match="execute"):
        _tool(execute="run")


@pytest.mark.parametrize("field", ["max_result_chars"])
def test_max_result_chars_must_be_positive(field: str) -> None:
    with pytest.raises(ToolDefinitionError, match=field):
        _tool(**{field: 0})


@pytest.mark.parametrize("timeout", [0, -1, float("nan")])
def test_timeout_must_be_positive(timeout: float) -> None:
    with pytest.raises(ToolDefinitionError, match="timeout_s"):
        _tool(timeout_s=timeout)


def test_defaults_are_the_safe_ones() -> None:
    tool = _tool()
    assert tool.capabilities == ToolCapabilities()
    assert (tool.toolset, tool.max_result_chars, tool.is_available) == (None, None, None)
    assert (tool.always_include, tool.output_is_untrusted, tool.sequential) == (False,) * 3
    assert (tool.timeout_s, tool.annotations, tool.cache, tool.output_schema) == (None,) * 4


def test_a_list_of_declarations_becomes_tool_capabilities() -> None:
    tool = _tool(capabilities=[network(["*"]), storage("session")])
    assert tool.capabilities.declared == ("network", "storage")


def test_capabilities_of_another_type_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="capabilities must be"):
        _tool(capabilities={"network": ["*"]})


def test_cache_true_means_the_default_policy() -> None:
    assert _tool(cache=True).cache == CachePolicy()


def test_cache_false_means_no_caching() -> None:
    assert _tool(cache=False).cache is None


def test_cache_of_another_type_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="CachePolicy"):
        _tool(cache={"ttl_s": 5})


def test_cache_policy_defaults() -> None:
    policy = CachePolicy()
    assert (policy.ttl_s, policy.max_entries, policy.key_fn) == (300.0, 1000, None)


@pytest.mark.parametrize(("field", "value"), [("ttl_s", 0), ("ttl_s", -5), ("max_entries", 0)])
def test_cache_policy_refuses_bad_bounds(field: str, value: float) -> None:
    with pytest.raises(ToolDefinitionError, match=field):
        CachePolicy(**{field: value})


def test_annotations_are_kept() -> None:
    hints = ToolAnnotations(title="Search", read_only=True, open_world=True)
    assert _tool(annotations=hints).annotations == hints


def test_a_validator_is_compiled_from_the_schema() -> None:
    tool = _tool()
    assert isinstance(tool.validator, JsonSchemaValidator)
    assert tool.validator.validate('{"q": "x"}') == {"q": "x"}
    with pytest.raises(ArgsInvalid):
        tool.validator.validate("{}")


def test_a_given_validator_is_used_as_is() -> None:
    class Anything:
        def validate(self, raw: object) -> dict[str, Any]:
            return {"always": True}

    validator = Anything()
    assert _tool(validator=validator).validator is validator


@pytest.mark.parametrize(
    ("name", "is_mcp", "server"),
    [
        ("mcp__github__create_issue", True, "github"),
        ("mcp__fs__read__file", True, "fs"),
        ("mcp__broken", True, None),
        ("read_file", False, None),
        ("mcp_not_quite", False, None),
    ],
)
def test_mcp_names_are_recognised(name: str, is_mcp: bool, server: str | None) -> None:
    tool = _tool(name=name)
    assert (tool.is_mcp, tool.mcp_server) == (is_mcp, server)


def test_define_tool_accepts_a_list_of_capabilities_and_any_tool_option() -> None:
    tool = define_tool(
        name="fetch",
        description="Fetch a page.",
        schema=OBJECT,
        execute=_execute,
        capabilities=[network(["example.com"])],
        toolset="web",
        timeout_s=5,
        sequential=True,
        output_is_untrusted=True,
    )
    assert tool.capabilities.declared == ("network",)
    assert (tool.toolset, tool.timeout_s, tool.sequential, tool.output_is_untrusted) == (
        "web",
        5,
        True,
        True,
    )


def test_define_tool_defaults_to_no_capabilities() -> None:
    tool = define_tool(name="t", description="d", schema=OBJECT, execute=_execute)
    assert tool.capabilities.is_empty


def test_define_tool_refuses_an_unknown_option_by_name() -> None:
    with pytest.raises(ToolDefinitionError, match=r"define_tool\('t'\).*colour"):
        define_tool(name="t", description="d", schema=OBJECT, execute=_execute, colour="red")


def test_a_non_callable_is_available_is_refused_at_definition() -> None:
    async def run(args: dict[str, object], ctx: object) -> object:
        return None

    with pytest.raises(ToolDefinitionError, match="is_available must be a function"):
        Tool(
            name="t",
            description="d",
            schema={"type": "object"},
            execute=run,  # type: ignore[arg-type]
            is_available=True,
        )  # type: ignore[arg-type]

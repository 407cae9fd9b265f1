"""strict_schema: strict only when it keeps the schema's meaning; the input is never mutated."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.formats import strict_schema


def _obj(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), **extra}


def test_all_required_closed_object_is_strict_with_additional_properties_false() -> None:
    strict, reason = strict_schema(_obj({"a": {"type": "string"}}))
    assert reason == ""
    assert strict == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }


def test_nested_objects_and_array_items_are_closed_too() -> None:
    schema = _obj(
        {"p": _obj({"q": {"type": "integer"}}), "xs": {"type": "array", "items": _obj({})}}
    )
    strict, _ = strict_schema(schema)
    assert strict is not None
    assert strict["properties"]["p"]["additionalProperties"] is False
    assert strict["properties"]["xs"]["items"]["additionalProperties"] is False


def test_defs_are_checked_and_closed() -> None:
    schema = _obj({"p": {"$ref": "#/$defs/P"}}, **{"$defs": {"P": _obj({"x": {"type": "number"}})}})
    strict, _ = strict_schema(schema)
    assert strict is not None
    assert strict["$defs"]["P"]["additionalProperties"] is False


def test_defs_with_an_optional_property_are_not_strict() -> None:
    inner = {"type": "object", "properties": {"x": {"type": "number"}}}
    schema = _obj({"p": {"$ref": "#/$defs/P"}}, **{"$defs": {"P": inner}})
    assert strict_schema(schema)[0] is None


def test_empty_properties_object_is_strict() -> None:
    assert strict_schema({"type": "object", "properties": {}})[0] is not None


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}}, "'a' is optional"),
        (_obj({"a": {"type": "string"}}, additionalProperties=True), "additionalProperties"),
        (_obj({}, additionalProperties={"type": "string"}), "additionalProperties"),
        ({"type": "object"}, "without 'properties'"),
        (_obj({"a": {"type": "string", "minLength": 1}}), "'minLength'"),
        (_obj({"a": {"oneOf": [{"type": "string"}]}}), "'oneOf'"),
        (_obj({"a": {"allOf": [{"type": "string"}]}}), "'allOf'"),
        (_obj({"a": {"type": "string", "default": "x"}}), "'default'"),
        (_obj({"a": {"type": "string", "format": "uri"}}), "format 'uri'"),
        (_obj({"a": {"$ref": "https://example.com/s.json"}}), "local $ref"),
        (_obj({"a": {"additionalProperties": True}}), "accepts any keys"),
        ({"anyOf": [_obj({})]}, "root"),
    ],
)
def test_schemas_that_cannot_be_strict_say_why(schema: dict[str, Any], why: str) -> None:
    strict, reason = strict_schema(schema)
    assert strict is None
    assert why in reason


def test_deep_nesting_is_not_strict() -> None:
    schema: dict[str, Any] = _obj({})
    for _ in range(11):
        schema = _obj({"n": schema})
    assert "nested deeper" in strict_schema(schema)[1]


def test_dollar_schema_is_dropped_from_the_strict_form() -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **_obj({})}
    strict, _ = strict_schema(schema)
    assert strict is not None
    assert "$schema" not in strict


def test_anthropic_dialect_refuses_numeric_bounds_that_openai_accepts() -> None:
    schema = _obj({"n": {"type": "integer", "minimum": 0}})
    assert strict_schema(schema, dialect="openai")[0] is not None
    assert strict_schema(schema, dialect="anthropic")[0] is None


_leaf = st.sampled_from(
    [{"type": "string"}, {"type": "integer", "minimum": 1}, {"type": "string", "minLength": 2}]
)
_schemas = st.recursive(
    _leaf,
    lambda inner: st.builds(
        lambda props, closed, all_required: {
            "type": "object",
            "properties": props,
            "required": list(props) if all_required else list(props)[:1],
            **({"additionalProperties": False} if closed else {}),
        },
        st.dictionaries(st.from_regex(r"[a-z]{1,5}", fullmatch=True), inner, max_size=3),
        st.booleans(),
        st.booleans(),
    ),
    max_leaves=8,
)


def _is_object(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


@given(_schemas.filter(_is_object))
def test_input_is_never_mutated_and_output_is_a_separate_copy(schema: dict[str, Any]) -> None:
    before = copy.deepcopy(schema)
    strict, _ = strict_schema(schema)
    assert schema == before
    if strict is not None:
        strict["mutated"] = True
        assert "mutated" not in schema


@given(_schemas.filter(_is_object))
def test_every_object_in_a_strict_schema_is_closed_and_fully_required(
    schema: dict[str, Any],
) -> None:
    strict, _ = strict_schema(schema)
    if strict is None:
        return

    def check(node: dict[str, Any]) -> None:
        if node.get("type") == "object":
            assert node["additionalProperties"] is False
            assert set(node["properties"]) <= set(node.get("required", []))
            for sub in node["properties"].values():
                check(sub)

    check(strict)

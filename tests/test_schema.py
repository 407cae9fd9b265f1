"""Argument validators: JSON strings and dicts, every bad field named, values never echoed."""

from __future__ import annotations

import json
import string
from typing import Annotated, Any, Literal, NotRequired

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import TypedDict

from toolwire.errors import ToolDefinitionError
from toolwire.schema import (
    ArgsInvalid,
    ArgsValidator,
    FieldProblem,
    JsonSchemaValidator,
    PydanticValidator,
    parse_args_object,
)

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "customer": {"type": "string"},
        "express": {"type": "boolean"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["sku", "qty"],
                "additionalProperties": False,
            },
        },
        "colour": {"enum": ["red", "green"]},
        "note": {"type": ["string", "null"], "maxLength": 5},
        "code": {"type": "string", "pattern": "^[0-9]+$"},
        "count": {"type": "integer", "minimum": 1},
    },
    "required": ["customer"],
    "additionalProperties": False,
}


def _problems(validator: ArgsValidator, raw: Any) -> ArgsInvalid:
    with pytest.raises(ArgsInvalid) as caught:
        validator.validate(raw)
    return caught.value


# -- parse_args_object -----------------------------------------------------------------------


def test_parse_accepts_a_json_object_string_and_a_mapping_alike() -> None:
    assert parse_args_object('{"a": 1}') == parse_args_object({"a": 1}) == {"a": 1}


def test_parse_copies_a_mapping() -> None:
    original = {"a": 1}
    parsed = parse_args_object(original)
    parsed["b"] = 2
    assert original == {"a": 1}


def test_parse_accepts_bytes() -> None:
    assert parse_args_object(b'{"a": 1}') == {"a": 1}


@pytest.mark.parametrize("raw", ["", "   ", "\n"])
def test_parse_treats_an_empty_string_as_no_arguments(raw: str) -> None:
    assert parse_args_object(raw) == {}


def test_parse_reports_malformed_json_with_its_position() -> None:
    problem = _problems(JsonSchemaValidator({"type": "object"}), '{"a": 1')
    assert "malformed JSON" in str(problem)
    assert "line 1 column 8" in str(problem)
    assert problem.field is None


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("[1, 2]", "array"),
        ("null", "null"),
        ('"s"', "string"),
        ("3", "number"),
        ("true", "boolean"),
    ],
)
def test_parse_refuses_json_that_is_not_an_object(raw: str, kind: str) -> None:
    with pytest.raises(ArgsInvalid, match=f"expected a JSON object, got {kind}"):
        parse_args_object(raw)


def test_parse_refuses_deeply_nested_json_without_crashing() -> None:
    with pytest.raises(ArgsInvalid, match="nested too deeply"):
        parse_args_object("[" * 100_000)


def test_parse_refuses_an_argument_of_another_type() -> None:
    with pytest.raises(ArgsInvalid, match="got int"):
        parse_args_object(5)  # type: ignore[arg-type]


def test_field_problem_exposes_path_and_expectation() -> None:
    problem = FieldProblem(("items[2].qty", "expected integer"))
    assert (problem.path, problem.expected) == ("items[2].qty", "expected integer")


# -- JsonSchemaValidator ----------------------------------------------------------------------


def test_json_schema_validator_returns_the_arguments() -> None:
    validator = JsonSchemaValidator(ORDER_SCHEMA)
    args = {"customer": "c", "items": [{"sku": "a", "qty": 2}]}
    assert validator.validate(json.dumps(args)) == validator.validate(args) == args


def test_missing_required_field_is_named() -> None:
    problem = _problems(JsonSchemaValidator(ORDER_SCHEMA), {})
    assert problem.detail == "customer: required field missing"
    assert problem.field == "customer"


def test_several_missing_fields_are_each_named_once() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b", "c"],
        "properties": {"n": {"type": "object", "required": ["x", "y"]}},
    }
    problem = _problems(JsonSchemaValidator(schema), {"b": 1, "n": {}})
    assert problem.detail == (
        "a: required field missing; c: required field missing; "
        "n.x: required field missing; n.y: required field missing"
    )


def test_keys_matching_pattern_properties_are_not_unexpected() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert _problems(JsonSchemaValidator(schema), {"x_1": 1, "y": 2}).detail == (
        "y: unexpected field"
    )


def test_wrong_type_names_the_path_and_the_expected_type() -> None:
    problem = _problems(JsonSchemaValidator(ORDER_SCHEMA), {"customer": 5})
    assert problem.detail == "customer: expected string"


def test_nested_paths_use_dots_and_indexes() -> None:
    args = {"customer": "c", "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": "two"}]}
    problem = _problems(JsonSchemaValidator(ORDER_SCHEMA), args)
    assert problem.detail == "items[1].qty: expected integer"


def test_every_bad_field_is_named() -> None:
    args = {"customer": 1, "express": "yes", "items": [{"qty": 1}], "colour": "blue", "zz": 0}
    detail = _problems(JsonSchemaValidator(ORDER_SCHEMA), args).detail
    assert "customer: expected string" in detail
    assert "express: expected boolean" in detail
    assert "items[0].sku: required field missing" in detail
    assert 'colour: must be one of ["red", "green"]' in detail
    assert "zz: unexpected field" in detail


def test_problems_are_sorted_by_path_and_field_is_the_first() -> None:
    problem = _problems(JsonSchemaValidator(ORDER_SCHEMA), {"express": 1, "customer": 1})
    assert [p.path for p in problem.problems] == ["customer", "express"]
    assert problem.field == "customer"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"note": 3}, "note: expected string or null"),
        ({"note": "toolong"}, "note: must have at most 5 characters"),
        ({"code": "12a"}, 'code: must match the pattern "^[0-9]+$"'),
        ({"count": 0}, "count: must be >= 1"),
    ],
)
def test_rule_failures_say_what_was_expected(args: dict[str, Any], expected: str) -> None:
    detail = _problems(JsonSchemaValidator(ORDER_SCHEMA), {"customer": "c", **args}).detail
    assert detail == expected


def test_an_unusual_rule_is_named() -> None:
    schema = {"type": "object", "unevaluatedProperties": False}
    detail = _problems(JsonSchemaValidator(schema), {"abc": 1}).detail
    assert detail == "(arguments): fails the 'unevaluatedProperties' rule"


def test_more_than_twenty_problems_are_summarised() -> None:
    schema = {"type": "object", "additionalProperties": False}
    problem = _problems(JsonSchemaValidator(schema), {f"k{i:02}": i for i in range(25)})
    assert len(problem.problems) == 25
    assert str(problem).endswith("... and 5 more")


def test_a_huge_unexpected_key_is_clipped() -> None:
    schema = {"type": "object", "additionalProperties": False}
    detail = _problems(JsonSchemaValidator(schema), {"k" * 10_000: 1}).detail
    assert len(detail) < 100
    assert detail.endswith("…: unexpected field")


def test_an_invalid_schema_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="JSON schema is invalid"):
        JsonSchemaValidator({"type": "object", "minProperties": -1})


def test_the_schema_draft_it_declares_is_honoured() -> None:
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 1, "exclusiveMinimum": True}},
    }
    assert "n: " in _problems(JsonSchemaValidator(draft4), {"n": 1}).detail


# -- PydanticValidator --------------------------------------------------------------------


class Item(pydantic.BaseModel):
    sku: str
    qty: int


class OrderArgs(TypedDict):
    customer: str
    items: NotRequired[list[Item]]
    express: NotRequired[bool]
    colour: NotRequired[Literal["red", "green"]]


OrderArgs.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")  # type: ignore[attr-defined]


class OrderModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    customer: str
    express: bool = False


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    good: bool


class PetArgs(TypedDict):
    pet: Annotated[Cat | Dog, pydantic.Field(discriminator="kind")]


def _pydantic(annotation: Any) -> PydanticValidator:
    return PydanticValidator(pydantic.TypeAdapter(annotation))


def test_pydantic_validator_accepts_json_and_dicts_alike() -> None:
    validator = _pydantic(OrderArgs)
    raw = {"customer": "c", "express": True}
    assert validator.validate(json.dumps(raw)) == validator.validate(raw) == raw


def test_pydantic_validator_returns_a_plain_dict_for_a_model() -> None:
    assert _pydantic(OrderModel).validate('{"customer": "c"}') == {
        "customer": "c",
        "express": False,
    }


def test_pydantic_empty_string_is_no_arguments() -> None:
    assert "customer: required field missing" in _problems(_pydantic(OrderModel), "").detail


def test_pydantic_names_missing_unexpected_and_wrongly_typed_fields() -> None:
    raw = {"express": "maybe", "extra": 1, "items": [{"sku": "a", "qty": "x"}]}
    detail = _problems(_pydantic(OrderArgs), raw).detail
    assert "customer: required field missing" in detail
    assert "extra: unexpected field" in detail
    assert "express: Input should be a valid boolean" in detail
    assert "items[0].qty: Input should be a valid integer" in detail


def test_pydantic_malformed_json_is_reported_as_such() -> None:
    problem = _problems(_pydantic(OrderArgs), '{"customer": ')
    assert problem.detail.startswith("(arguments): malformed JSON (")
    assert problem.field is None


@pytest.mark.parametrize("raw", ["[1]", "3", '"text"'])
def test_pydantic_refuses_json_that_is_not_an_object(raw: str) -> None:
    assert _problems(_pydantic(OrderModel), raw).detail == "(arguments): expected a JSON object"


def test_pydantic_accepts_bytes() -> None:
    assert _pydantic(OrderModel).validate(b'{"customer": "c"}') == {
        "customer": "c",
        "express": False,
    }


def test_a_pydantic_adapter_of_a_non_object_type_is_refused() -> None:
    assert _problems(_pydantic(int), "5").detail == "(arguments): expected a JSON object"


def test_pydantic_refuses_an_argument_of_another_type() -> None:
    with pytest.raises(ArgsInvalid, match="expected a JSON object, got int"):
        _pydantic(OrderModel).validate(5)  # type: ignore[arg-type]


def test_pydantic_bad_discriminator_names_the_allowed_tags_not_the_sent_one() -> None:
    detail = _problems(_pydantic(PetArgs), {"pet": {"kind": "SECRET-TAG-42"}}).detail
    assert "SECRET-TAG-42" not in detail
    assert "'cat'" in detail
    assert "'dog'" in detail


# -- values are never echoed (property) -------------------------------------------------------

_SECRETS = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(["sk-", "ghp_", "AKIA", "xoxb-", "pw:"]),
    st.text(alphabet=string.ascii_letters + string.digits, min_size=16, max_size=48),
)

_WRONGLY_TYPED_SCHEMAS: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "number": {"type": "number", "minimum": 0},
    "list": {"type": "array", "items": {"type": "integer"}},
    "obj": {"type": "object", "properties": {"x": {"type": "integer"}}},
    "enum": {"enum": ["red", "green"]},
    "short": {"type": "string", "maxLength": 3},
    "digits": {"type": "string", "pattern": "^[0-9]+$"},
    "const": {"const": "fixed"},
}


class Inner(pydantic.BaseModel):
    x: int


class WronglyTyped(TypedDict):
    int_: NotRequired[int]
    bool_: NotRequired[bool]
    number: NotRequired[float]
    list_: NotRequired[list[int]]
    obj: NotRequired[Inner]
    enum: NotRequired[Literal["red", "green"]]
    short: NotRequired[Annotated[str, pydantic.Field(max_length=3)]]
    digits: NotRequired[Annotated[str, pydantic.Field(pattern="^[0-9]+$")]]
    mapping: NotRequired[dict[str, int]]
    pet: NotRequired[Annotated[Cat | Dog, pydantic.Field(discriminator="kind")]]


WronglyTyped.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")  # type: ignore[attr-defined]

_JSON_VALIDATOR = JsonSchemaValidator(
    {"type": "object", "properties": _WRONGLY_TYPED_SCHEMAS, "additionalProperties": False}
)
_PYDANTIC_VALIDATOR = _pydantic(WronglyTyped)


def _placements(secret: str) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects with the secret in one or more wrongly typed places."""
    json_places = {
        "int": secret,
        "bool": secret,
        "number": secret,
        "list": [1, secret],
        "obj": {"x": secret},
        "enum": secret,
        "short": secret,
        "digits": secret,
        "const": secret,
    }
    return st.dictionaries(st.sampled_from(sorted(json_places)), st.just(None), min_size=1).map(
        lambda keys: {key: json_places[key] for key in keys}
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _SECRETS, st.booleans())
def test_json_schema_messages_never_contain_the_sent_value(
    data: st.DataObject, secret: str, as_json: bool
) -> None:
    args = data.draw(_placements(secret))
    problem = _problems(_JSON_VALIDATOR, json.dumps(args) if as_json else args)
    assert secret not in str(problem)
    assert len(problem.problems) == len(args)


_PYDANTIC_PLACES = {
    "int_": lambda s: s,
    "bool_": lambda s: s,
    "number": lambda s: s,
    "list_": lambda s: [1, s],
    "obj": lambda s: {"x": s},
    "enum": lambda s: s,
    "short": lambda s: s,
    "digits": lambda s: s,
    "mapping": lambda s: {"k": s},
    "pet": lambda s: {"kind": s},
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(sorted(_PYDANTIC_PLACES)), min_size=1, unique=True),
    _SECRETS,
    st.booleans(),
)
def test_pydantic_messages_never_contain_the_sent_value(
    places: list[str], secret: str, as_json: bool
) -> None:
    args = {place: _PYDANTIC_PLACES[place](secret) for place in places}
    problem = _problems(_PYDANTIC_VALIDATOR, json.dumps(args) if as_json else args)
    assert secret not in str(problem)
    assert {p.path.split(".")[0].split("[")[0] for p in problem.problems} == set(places)


@settings(max_examples=40, deadline=None)
@given(_SECRETS)
def test_malformed_json_messages_never_contain_the_text(secret: str) -> None:
    raw = '{"token": "' + secret  # unterminated string
    for validator in (_JSON_VALIDATOR, _PYDANTIC_VALIDATOR):
        assert secret not in str(_problems(validator, raw))


# -- hand-written schemas (issue 9, item 19) --------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "sent", "expected"),
    [
        ({"enum": [1, 2, None]}, "x", "a: must be one of [1, 2, null]"),
        ({"const": 3}, 4, "a: must equal 3"),
        ({"enum": [True, {"k": [1]}]}, 0, 'a: must be one of [true, {"k": [1]}]'),
        ({"type": ["integer", "null"]}, "x", "a: expected integer or null"),
    ],
)
def test_rules_with_non_string_values_word_themselves(
    rule: dict[str, Any], sent: Any, expected: str
) -> None:
    validator = JsonSchemaValidator({"type": "object", "properties": {"a": rule}})
    with pytest.raises(ArgsInvalid) as caught:
        validator.validate({"a": sent})
    assert caught.value.detail == expected


@pytest.mark.parametrize(
    "ref", ["#/$defs/Missing", "#/properties/nope", "https://example.com/schema.json", "other.json"]
)
def test_a_reference_that_does_not_resolve_inside_the_schema_is_refused(ref: str) -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}, "$defs": {"Item": {}}}
    with pytest.raises(ToolDefinitionError, match="refers to"):
        JsonSchemaValidator(schema)


def test_references_inside_the_schema_are_accepted() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Item"}, "b": {"$ref": "#/$defs/a~1b"}},
        "$defs": {"Item": {"type": "integer"}, "a/b": {"type": "string"}},
    }
    assert JsonSchemaValidator(schema).validate({"a": 1, "b": "x"}) == {"a": 1, "b": "x"}

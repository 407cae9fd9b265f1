"""Argument validators, compiled once per tool, and model-readable validation messages.

Both kinds accept a JSON object string or a mapping and return the validated arguments as a
dict. A failure raises `ArgsInvalid`, whose message names every bad field's path and what was
expected — and never echoes the value the model sent (it may be a secret, or huge).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import unquote

from pydantic import BaseModel, TypeAdapter, ValidationError

from toolwire.errors import ToolDefinitionError

if TYPE_CHECKING:  # jsonschema loads on first use: decorated tools never need it
    import jsonschema.exceptions

__all__ = [
    "ArgsInvalid",
    "ArgsValidator",
    "FieldProblem",
    "JsonSchemaValidator",
    "PydanticValidator",
    "parse_args_object",
]

_MAX_NAME = 64
_MAX_PROBLEMS = 20


class FieldProblem(tuple[str, str]):
    """``(path, expectation)``: ``("items[2].qty", "expected integer")``."""

    __slots__ = ()

    @property
    def path(self) -> str:
        return self[0]

    @property
    def expected(self) -> str:
        return self[1]


class ArgsInvalid(Exception):
    """The arguments failed validation; ``str(exc)`` is the message for the model."""

    def __init__(
        self, problems: list[FieldProblem], *, preamble: str = "invalid arguments"
    ) -> None:
        self.problems = problems
        shown = problems[:_MAX_PROBLEMS]
        parts = [f"{p.path or '(arguments)'}: {p.expected}" for p in shown]
        if len(problems) > len(shown):
            parts.append(f"... and {len(problems) - len(shown)} more")
        self.detail = "; ".join(parts)
        """The problems alone: ``a: expected integer; b: required field missing``."""
        super().__init__(f"{preamble}: {self.detail}")

    @property
    def field(self) -> str | None:
        """The path of the first bad field; ``None`` when the whole arguments object is bad."""
        return (self.problems[0].path or None) if self.problems else None


@runtime_checkable
class ArgsValidator(Protocol):
    """Validates raw arguments into the dict a tool's ``execute`` receives."""

    def validate(self, raw: str | Mapping[str, Any]) -> dict[str, Any]:
        """The validated arguments. Raises `ArgsInvalid`."""
        ...


def _clip(name: str) -> str:
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 1] + "…"


def _format_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + _clip(str(part))
    return out


def parse_args_object(raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """Turn raw arguments into a dict: a JSON object string, or a mapping.

    An empty string counts as ``{}`` (several APIs send it for argument-less tools).

    Raises:
        ArgsInvalid: malformed JSON, or JSON that is not an object.
    """
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        raise ArgsInvalid([FieldProblem(("", f"expected a JSON object, got {type(raw).__name__}"))])
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ArgsInvalid(
            [
                FieldProblem(
                    ("", f"malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
                )
            ]
        ) from None
    except RecursionError:
        raise ArgsInvalid([FieldProblem(("", "malformed JSON (nested too deeply)"))]) from None
    if not isinstance(value, dict):
        raise ArgsInvalid([FieldProblem(("", f"expected a JSON object, got {_json_type(value)}"))])
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _shown(value: Any) -> str:
    """A schema value (never the instance) as short JSON, whatever its type."""
    return json.dumps(value, default=str, ensure_ascii=False)[:200]


def _types(want: Any) -> str:
    return " or ".join(str(t) for t in want) if isinstance(want, list) else str(want)


_EXPECTATIONS: dict[str, Callable[[Any], str]] = {
    "type": lambda want: f"expected {_types(want)}",
    "enum": lambda want: "must be one of " + _shown(want),
    "const": lambda want: "must equal " + _shown(want),
    "minimum": lambda want: f"must be >= {want}",
    "maximum": lambda want: f"must be <= {want}",
    "exclusiveMinimum": lambda want: f"must be > {want}",
    "exclusiveMaximum": lambda want: f"must be < {want}",
    "multipleOf": lambda want: f"must be a multiple of {want}",
    "minLength": lambda want: f"must have at least {want} characters",
    "maxLength": lambda want: f"must have at most {want} characters",
    "pattern": lambda want: f"must match the pattern {_shown(want)}",
    "format": lambda want: f"must be a valid {want}",
    "minItems": lambda want: f"must have at least {want} items",
    "maxItems": lambda want: f"must have at most {want} items",
    "uniqueItems": lambda want: "items must be unique",
    "minProperties": lambda want: f"must have at least {want} properties",
    "maxProperties": lambda want: f"must have at most {want} properties",
    "anyOf": lambda want: "does not match any allowed shape",
    "oneOf": lambda want: "must match exactly one allowed shape",
    "allOf": lambda want: "does not match every required shape",
    "not": lambda want: "matches a forbidden shape",
    "contains": lambda want: "no item matches the required shape",
    "dependentRequired": lambda want: "is missing fields it depends on",
}


def _describe(error: jsonschema.exceptions.ValidationError) -> str:
    """What the schema expected, in words that never quote the instance (only the rule that
    failed is worded, so a rule of any value type words itself)."""
    kind = str(error.validator)
    expectation = _EXPECTATIONS.get(kind)
    if expectation is None:
        return f"fails the {kind!r} rule"
    return expectation(error.validator_value)


class JsonSchemaValidator:
    """A compiled JSON Schema validator for hand-written schemas.

    Raises:
        ToolDefinitionError: the schema itself is not valid JSON Schema.
    """

    __slots__ = ("_validator",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        import jsonschema
        import jsonschema.exceptions
        import jsonschema.validators

        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(dict(schema))
        except jsonschema.exceptions.SchemaError as exc:
            raise ToolDefinitionError(f"the tool's JSON schema is invalid: {exc.message}") from None
        _check_refs(schema)
        self._validator = cls(dict(schema))

    def validate(self, raw: str | Mapping[str, Any]) -> dict[str, Any]:
        """Parse and validate; raises `ArgsInvalid` naming every bad field."""
        args = parse_args_object(raw)
        problems: list[FieldProblem] = []
        for error in self._validator.iter_errors(args):
            path = list(error.absolute_path)
            if error.validator == "required":  # one error per missing field, none naming it
                for missing in _missing_fields(error, args, path):
                    problem = FieldProblem(
                        (_format_path([*path, missing]), "required field missing")
                    )
                    if problem not in problems:
                        problems.append(problem)
            elif error.validator == "additionalProperties":
                extras = _extra_fields(error, path, args)
                for name in extras or ["(unknown)"]:
                    problems.append(FieldProblem((_format_path([*path, name]), "unexpected field")))
            else:
                problems.append(FieldProblem((_format_path(path), _describe(error))))
        if problems:
            problems.sort(key=lambda p: p.path)
            raise ArgsInvalid(problems)
        return args


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _check_refs(schema: Mapping[str, Any]) -> None:
    """Every ``$ref`` must point inside the schema (``#`` or ``#/a/b``): nothing is fetched.

    Raises:
        ToolDefinitionError: a reference is remote or does not resolve.
    """
    for ref in _refs(schema):
        if not ref.startswith("#"):
            raise ToolDefinitionError(
                f"the tool's JSON schema refers to {ref!r}, outside itself; put the definition "
                "under $defs and refer to it as '#/$defs/<name>'"
            )
        node: Any = schema
        for raw in ref[1:].split("/")[1:] if ref != "#" else ():
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ToolDefinitionError(
                    f"the tool's JSON schema refers to {ref!r}, which does not exist in it; "
                    "define it under $defs"
                )


def _at(instance: Any, path: list[Any]) -> Any:
    for part in path:
        instance = instance[part]
    return instance


def _missing_fields(
    error: jsonschema.exceptions.ValidationError, args: Any, path: list[Any]
) -> list[str]:
    required = error.validator_value if isinstance(error.validator_value, list) else []
    try:
        present = _at(args, path)
    except (KeyError, IndexError, TypeError):
        present = {}
    missing = [str(name) for name in required if isinstance(present, dict) and name not in present]
    return missing or ["(unknown)"]


def _extra_fields(
    error: jsonschema.exceptions.ValidationError, path: list[Any], args: Any
) -> list[str]:
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    known = set(schema.get("properties", {}) or {})
    patterns = list((schema.get("patternProperties") or {}).keys())
    try:
        obj = _at(args, path)
    except (KeyError, IndexError, TypeError):
        return []
    if not isinstance(obj, dict):
        return []
    return sorted(
        str(k) for k in obj if k not in known and not any(re.search(p, str(k)) for p in patterns)
    )


class PydanticValidator:
    """Validates with a pydantic ``TypeAdapter`` (used by ``@tool``); parses JSON in Rust."""

    __slots__ = ("_adapter", "_core")

    def __init__(self, adapter: TypeAdapter[Any]) -> None:
        self._adapter = adapter
        self._core = adapter.validator

    def validate(self, raw: str | Mapping[str, Any]) -> dict[str, Any]:
        """Parse and validate; raises `ArgsInvalid` naming every bad field."""
        try:
            if type(raw) is str:  # the common case first: a JSON string from the model
                value = self._core.validate_json(raw if raw and not raw.isspace() else "{}")
                if type(value) is dict:
                    return value
            elif isinstance(raw, bytes):
                if not raw.strip():
                    raw = "{}"
                value = self._core.validate_json(raw)
            elif isinstance(raw, Mapping):
                value = self._core.validate_python(raw)
            else:
                parse_args_object(raw)  # raises the right message for the wrong type
                raise AssertionError("unreachable")
        except ValidationError as exc:
            problems = []
            for e in exc.errors(include_input=False, include_url=False):
                if e["type"] in ("json_invalid", "json_type"):
                    problems.append(
                        FieldProblem(
                            (
                                "",
                                "malformed JSON (" + e["msg"].split(":", 1)[-1].strip()[:120] + ")",
                            )
                        )
                    )
                elif e["type"] == "missing":
                    problems.append(
                        FieldProblem((_format_path(e["loc"]), "required field missing"))
                    )
                elif e["type"] == "extra_forbidden":
                    problems.append(FieldProblem((_format_path(e["loc"]), "unexpected field")))
                elif e["type"] in ("dict_type", "model_type") and not e["loc"]:
                    problems.append(FieldProblem(("", "expected a JSON object")))
                elif e["type"] == "union_tag_invalid":  # pydantic's message quotes the sent tag
                    ctx = e.get("ctx", {})
                    tags = ctx.get("expected_tags")
                    want = f"{ctx.get('discriminator', 'the tag')} must be one of {tags}"
                    problems.append(FieldProblem((_format_path(e["loc"]), want[:200])))
                else:
                    problems.append(FieldProblem((_format_path(e["loc"]), e["msg"])))
            raise ArgsInvalid(problems) from None
        if isinstance(value, BaseModel):
            return {name: getattr(value, name) for name in type(value).model_fields}
        if not isinstance(value, dict):
            raise ArgsInvalid([FieldProblem(("", "expected a JSON object"))])
        return value

"""The fast type → JSON Schema path: what it covers equals what pydantic builds."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from collections.abc import Set as AbstractSet
from typing import Annotated, Any, Literal, Optional, Union

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.typeschema import fast_type_schema


def _pydantic_schema(annotation: Any) -> dict[str, Any]:
    return pydantic.TypeAdapter(annotation).json_schema()


_SCALARS = st.sampled_from([str, int, float, bool, type(None), Any])
_LITERALS = st.one_of(
    st.lists(st.text(max_size=5), min_size=1, max_size=4, unique=True),
    st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True),
).map(lambda values: Literal[tuple(values)])  # type: ignore[misc]


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        inner.map(lambda t: Sequence[t]),  # type: ignore[valid-type]
        inner.map(lambda t: tuple[t, ...]),  # type: ignore[valid-type]
        inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        inner.map(lambda t: Mapping[str, t]),  # type: ignore[valid-type]
        st.lists(inner, min_size=2, max_size=3).map(lambda ts: Union[tuple(ts)]),  # noqa: UP007
        inner.map(lambda t: Optional[t]),  # noqa: UP045
    )


_ANNOTATIONS = st.recursive(_SCALARS | _LITERALS, _containers, max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(_ANNOTATIONS)
def test_fast_schema_equals_pydantic_schema_wherever_it_answers(annotation: Any) -> None:
    fast = fast_type_schema(annotation)
    if fast is None:
        return
    assert fast == _pydantic_schema(annotation)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (list, {"type": "array", "items": {}}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (MutableSequence[str], {"type": "array", "items": {"type": "string"}}),
        (Iterable[int], {"type": "array", "items": {"type": "integer"}}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (AbstractSet[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (dict, {"type": "object", "additionalProperties": True}),
        (dict[str, Any], {"type": "object", "additionalProperties": True}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Literal["a"], {"const": "a", "type": "string"}),
        (Literal["a", "b"], {"enum": ["a", "b"], "type": "string"}),
        (Literal[1, 2], {"enum": [1, 2], "type": "integer"}),
        (Literal[True], {"const": True, "type": "boolean"}),
    ],
)
def test_common_types_have_the_expected_schema(annotation: Any, expected: dict[str, Any]) -> None:
    assert fast_type_schema(annotation) == expected


@pytest.mark.parametrize(
    "annotation",
    [
        Union[None, int],  # noqa: UP007
        Union[int, None, str],  # noqa: UP007
        Union[list[str], Sequence[str]],  # noqa: UP007
        Union[list[str], tuple[str, ...], None],  # noqa: UP007
    ],
)
def test_unions_put_null_last_and_drop_repeated_branches_as_pydantic_does(
    annotation: Any,
) -> None:
    assert fast_type_schema(annotation) == _pydantic_schema(annotation)


def test_sets_match_pydantic() -> None:
    for annotation in (set[int], frozenset[str], set):
        assert fast_type_schema(annotation) == _pydantic_schema(annotation)


class Colour(enum.Enum):
    RED = "red"


class Model(pydantic.BaseModel):
    x: int


@dataclasses.dataclass
class Point:
    x: int


@pytest.mark.parametrize(
    "annotation",
    [
        Model,
        Point,
        Colour,
        list[Model],
        set[Model],
        dict[int, str],
        dict[str, Model],
        tuple[int, str],
        tuple,
        int | Model,
        Literal["a", 1],
        Literal[None],
        Annotated[int, pydantic.Field(ge=0)],
        bytes,
    ],
)
def test_everything_else_is_left_to_pydantic(annotation: Any) -> None:
    assert fast_type_schema(annotation) is None


def test_the_fast_path_returns_a_fresh_dict_each_time() -> None:
    first = fast_type_schema(int)
    assert first is not None
    first["description"] = "mutated"
    assert fast_type_schema(int) == {"type": "integer"}

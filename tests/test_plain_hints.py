"""`@tool` reads plain annotations without `typing.get_type_hints`, with the same answer."""

from __future__ import annotations

import typing
from typing import Annotated, Any, Optional

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from toolwire.context import ToolContext
from toolwire.hints import plain_hints

_LEAVES = st.sampled_from([int, str, float, bool, bytes, type(None), None, ToolContext])


def _annotation(depth: int = 2) -> st.SearchStrategy[Any]:
    if depth == 0:
        return _LEAVES
    inner = _annotation(depth - 1).filter(lambda a: a is not None)
    return st.one_of(
        _LEAVES,
        inner.map(lambda a: list[a]),  # type: ignore[valid-type]
        st.tuples(inner, inner).map(lambda kv: dict[kv[0], kv[1]]),  # type: ignore[misc]
        st.tuples(inner, inner).map(lambda ab: tuple[ab[0], ab[1]]),  # type: ignore[misc]
    )


def _function(annotations: dict[str, Any]) -> Any:
    def fn() -> None: ...

    fn.__annotations__ = dict(annotations)
    return fn


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "return"]), _annotation()))
def test_plain_annotations_read_as_get_type_hints_reads_them(annotations: dict[str, Any]) -> None:
    fn = _function(annotations)
    assert plain_hints(fn) == typing.get_type_hints(fn, include_extras=True)


class _Model(BaseModel):
    x: int


def test_annotations_that_need_evaluating_are_left_to_get_type_hints() -> None:
    for annotation in (
        "int",
        list["int"],
        Optional[int],  # noqa: UP045 - a typing form on purpose
        int | None,
        Annotated[int, "meta"],
        tuple[int, ...],
        _Model,  # a class with a metaclass of its own
        typing.Any,
    ):
        assert plain_hints(_function({"a": annotation})) is None, annotation


def test_a_function_without_annotations_has_no_hints() -> None:
    def fn(a, b):  # type: ignore[no-untyped-def]
        return a

    assert plain_hints(fn) == {}

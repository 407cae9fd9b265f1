"""ReducerRegistry: one reducer per exact tool name, idempotent cleanup, safe_reduce fallback."""

from __future__ import annotations

import pytest

from toolwire.errors import RegistrationError
from toolwire.reducers import (
    KanbanListReducer,
    ReadFileReducer,
    ReducerContext,
    ReducerRegistry,
    TerminalReducer,
    ToolResultReducer,
    default_reducers,
    safe_reduce,
)
from toolwire.results import Err, Ok, ToolResult, err, ok


class Upper:
    def __init__(self, tool_name: str = "echo") -> None:
        self.tool_name = tool_name

    def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        return ok(result.value.upper()) if isinstance(result, Ok) else result


class Exploding:
    tool_name = "echo"

    def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        raise RuntimeError("reducer bug")


class ReturnsGarbage:
    tool_name = "echo"

    def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        return "not a result"  # type: ignore[return-value]


CTX = ReducerContext(args={}, turn_count=1)


def test_registered_reducer_replaces_the_value() -> None:
    registry = ReducerRegistry()
    registry.register(Upper())
    assert registry.reduce("echo", ok("hi"), CTX) == ok("HI")


def test_lookup_is_by_exact_name() -> None:
    registry = ReducerRegistry()
    reducer = Upper("echo")
    registry.register(reducer)
    assert registry.get("echo") is reducer
    assert registry.get("ech") is None
    assert registry.get("echo2") is None
    assert registry.get("ECHO") is None


def test_absent_reducer_leaves_the_result_untouched() -> None:
    result = ok("hi")
    assert ReducerRegistry().reduce("echo", result, CTX) is result


def test_duplicate_registration_raises_naming_the_tool() -> None:
    registry = ReducerRegistry()
    registry.register(Upper())
    with pytest.raises(RegistrationError) as caught:
        registry.register(Upper())
    assert str(caught.value) == (
        "a reducer is already registered for tool 'echo'; call the cleanup returned by "
        "register() first"
    )


def test_cleanup_unregisters_and_allows_a_replacement() -> None:
    registry = ReducerRegistry()
    cleanup = registry.register(Upper())
    cleanup()
    assert "echo" not in registry
    replacement = Upper()
    registry.register(replacement)
    assert registry.get("echo") is replacement


def test_cleanup_is_idempotent_and_never_removes_a_later_reducer() -> None:
    registry = ReducerRegistry()
    cleanup = registry.register(Upper())
    cleanup()
    later = Upper()
    registry.register(later)
    cleanup()
    assert registry.get("echo") is later
    assert len(registry) == 1


def test_reducer_without_a_tool_name_is_refused() -> None:
    class Nameless:
        tool_name = ""

        def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
            return result

    with pytest.raises(RegistrationError, match="tool_name"):
        ReducerRegistry().register(Nameless())


def test_throwing_reducer_yields_the_original_result() -> None:
    result = ok("hi")
    assert safe_reduce(Exploding(), result, CTX) is result


def test_reducer_returning_a_non_result_yields_the_original_result() -> None:
    result = ok("hi")
    assert safe_reduce(ReturnsGarbage(), result, CTX) is result


def test_registry_reduce_goes_through_safe_reduce() -> None:
    registry = ReducerRegistry()
    registry.register(Exploding())
    result = err("boom")
    assert registry.reduce("echo", result, CTX) is result


def test_default_reducers_hold_the_built_ins() -> None:
    registry = default_reducers()
    assert sorted(registry) == ["fetch_url", "kanban_list", "read_file", "terminal"]
    assert isinstance(registry.get("terminal"), TerminalReducer)
    assert isinstance(registry.get("read_file"), ReadFileReducer)
    assert isinstance(registry.get("kanban_list"), KanbanListReducer)


def test_default_reducers_are_fresh_registries() -> None:
    first = default_reducers().get("terminal")
    assert first is not None
    assert default_reducers().get("terminal") is not first


def test_built_ins_satisfy_the_protocol() -> None:
    for reducer in (TerminalReducer(), ReadFileReducer(), KanbanListReducer()):
        assert isinstance(reducer, ToolResultReducer)


def test_reducer_context_defaults_to_empty_args_and_turn_one() -> None:
    ctx = ReducerContext()
    assert dict(ctx.args) == {}
    assert ctx.turn_count == 1


def test_errors_keep_their_fields_through_a_passthrough() -> None:
    result = Err("nope", reason="x")
    assert default_reducers().reduce("kanban_list", result, CTX) is result

"""`ToolBinding`: definitions, strictness, contexts and read records, framework-free."""

from __future__ import annotations

from pathlib import Path

import pytest
from integration_helpers import RecordingRegistry, pick, shout

from toolwire import ToolCall, ToolContext, ToolRegistry, static_tools
from toolwire.capabilities.seams import ReadRecord
from toolwire.errors import ConfigurationError
from toolwire.integrations import ToolBinding

pytestmark = pytest.mark.anyio


def test_a_schema_that_keeps_its_meaning_is_sent_strict() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    [bound] = ToolBinding(registry).tools()
    assert bound.strict
    assert bound.parameters["additionalProperties"] is False
    assert bound.parameters["required"] == ["text"]


def test_a_schema_with_an_optional_parameter_is_not_made_strict() -> None:
    registry = ToolRegistry()
    registry.register(pick)
    [bound] = ToolBinding(registry).tools()
    assert not bound.strict
    assert bound.parameters == dict(pick.schema)


def test_strict_true_refuses_a_tool_that_cannot_be_strict() -> None:
    registry = ToolRegistry()
    registry.register(pick)
    with pytest.raises(ConfigurationError, match="'pick' cannot be strict"):
        ToolBinding(registry, strict=True).tools()


def test_strict_false_sends_every_schema_as_it_is() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    [bound] = ToolBinding(registry, strict=False).tools()
    assert not bound.strict
    assert bound.parameters == dict(shout.schema)


def test_changing_a_definition_changes_nothing_the_model_is_shown_later() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    binding = ToolBinding(registry)
    [first] = binding.tools()
    first.parameters["properties"]["text"]["type"] = "integer"
    [again] = binding.tools()
    assert again.parameters["properties"]["text"]["type"] == "string"
    assert shout.schema["properties"]["text"]["type"] == "string"


def test_a_binding_takes_a_registry_and_says_how_to_make_one() -> None:
    with pytest.raises(ConfigurationError, match="ToolRegistry"):
        ToolBinding([shout])  # type: ignore[arg-type]


async def test_a_provider_limits_the_tools_to_its_snapshot() -> None:
    registry = ToolRegistry()
    registry.register_all([shout, pick])
    binding = ToolBinding(registry, provider=static_tools([pick]))
    snapshot = await binding.snapshot(iteration=1, session_id="s")
    assert [b.name for b in binding.tools(snapshot)] == ["pick"]


async def test_a_provider_tool_the_registry_lacks_is_a_configuration_error() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    binding = ToolBinding(registry, provider=static_tools([pick]))
    snapshot = await binding.snapshot(iteration=1, session_id="s")
    with pytest.raises(ConfigurationError, match=r"\['pick'\]"):
        binding.tools(snapshot)


def test_contexts_of_one_session_share_their_read_records(tmp_path: Path) -> None:
    binding = ToolBinding(ToolRegistry(), working_dir=str(tmp_path), result_budget_chars=500)
    first = binding.context(None, session_id="s1", platform="test", current_turn=1)
    first.read_mtimes["/a"] = ReadRecord(mtime=1.0, read_at_turn=1)  # type: ignore[index]
    later = binding.context(None, session_id="s1", platform="test", current_turn=3)
    other = binding.context(None, session_id="s2", platform="test")
    assert later.read_mtimes is first.read_mtimes
    assert other.read_mtimes == {}
    assert (later.current_turn, later.working_dir, later.result_budget_chars) == (
        3,
        str(tmp_path),
        500,
    )


def test_a_base_context_keeps_its_session_and_can_switch_read_records_off() -> None:
    binding = ToolBinding(ToolRegistry())
    base = ToolContext(session_id="mine", read_mtimes=None, personality_id="p")
    ctx = binding.context(base, session_id="run-id", platform="test", message_count=7)
    assert (ctx.session_id, ctx.personality_id, ctx.message_count) == ("mine", "p", 7)
    assert ctx.read_mtimes is None


async def test_a_call_is_run_and_presented(workspace: tuple[RecordingRegistry, Path]) -> None:
    registry, root = workspace
    binding = ToolBinding(registry, working_dir=str(root))
    ctx = binding.context(None, session_id="s", platform="test")
    result = await binding.call(None, ToolCall(id="1", name="leak", args={}), ctx)
    assert result.ok
    assert result.code is None
    assert "ghp_" not in result.text
    assert "[REDACTED:github-pat]" in result.text
    failed = await binding.call(None, ToolCall(id="2", name="shout", args={"text": 3}), ctx)
    assert not failed.ok
    assert failed.code is not None
    assert failed.code.value == "input_invalid"

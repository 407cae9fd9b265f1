"""Arguments and results: recorded only on opt-in, and then redacted and capped."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.trace import StatusCode
from otel_helpers import Otel

from toolwire import ToolContext, ToolRegistry, tool
from toolwire.execution.budget import trim_result
from toolwire.results import Err, Ok
from toolwire.telemetry import CAPTURE_CONTENT_ENV
from toolwire.telemetry._content import trimmed_chars

pytestmark = pytest.mark.anyio

GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@tool
async def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return f"you said: {text}"


@tool
async def refuse(text: str) -> str:
    """Fail with the text in the message.

    Args:
        text: What to put in the error.
    """
    raise RuntimeError(f"cannot use {text}")


def _registry(otel: Otel, **options: object) -> ToolRegistry:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry(**options))
    registry.register_all([echo, refuse])
    return registry


async def test_content_is_not_recorded_by_default(
    otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    registry = _registry(otel)
    await registry.execute("echo", {"text": "private"}, ToolContext(session_id="s"))
    await registry.execute("refuse", {"text": "private"}, ToolContext(session_id="s"))
    for span in otel.spans():
        assert "private" not in json.dumps(dict(span.attributes or {}))
        assert "private" not in (span.status.description or "")


async def test_opted_in_content_is_recorded_with_secrets_redacted(otel: Otel) -> None:
    registry = _registry(otel, capture_content=True, secret_values=["hunter2-sesame"])
    text = f"{GITHUB_TOKEN} and hunter2-sesame"
    await registry.execute("echo", {"text": text}, ToolContext(session_id="s"))
    attributes = dict(otel.span("execute_tool echo").attributes or {})
    arguments = str(attributes["gen_ai.tool.call.arguments"])
    result = str(attributes["gen_ai.tool.call.result"])
    for recorded in (arguments, result):
        assert GITHUB_TOKEN not in recorded
        assert "hunter2-sesame" not in recorded
        assert "[REDACTED:" in recorded
    assert json.loads(arguments).keys() == {"text"}
    assert result.startswith("you said: ")


async def test_an_opted_in_error_message_is_the_status_description_redacted(otel: Otel) -> None:
    registry = _registry(otel, capture_content=True)
    await registry.execute("refuse", {"text": GITHUB_TOKEN}, ToolContext(session_id="s"))
    span = otel.span("execute_tool refuse")
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is not None
    assert span.status.description.startswith("cannot use [REDACTED:")
    assert GITHUB_TOKEN not in str(dict(span.attributes or {}))


async def test_the_arguments_of_a_refused_call_are_recorded_as_sent(otel: Otel) -> None:
    registry = _registry(otel, capture_content=True)
    await registry.execute("echo", '{"text": 5}', ToolContext(session_id="s"))
    attributes = dict(otel.span("execute_tool echo").attributes or {})
    assert attributes["gen_ai.tool.call.arguments"] == '{"text": 5}'
    assert attributes["error.type"] == "input_invalid"


async def test_captured_content_is_capped(otel: Otel) -> None:
    registry = _registry(otel, capture_content=True, max_content_chars=50)
    await registry.execute("echo", {"text": "y" * 1000}, ToolContext(session_id="s"))
    result = str(dict(otel.span("execute_tool echo").attributes or {})["gen_ai.tool.call.result"])
    assert result == "you said: " + "y" * 40 + "\n[truncated \u2014 1010 chars total]"


async def test_the_environment_variable_opts_in(
    otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    registry = _registry(otel)
    await registry.execute("echo", {"text": "hi"}, ToolContext(session_id="s"))
    attributes = dict(otel.span("execute_tool echo").attributes or {})
    assert attributes["gen_ai.tool.call.result"] == "you said: hi"


async def test_a_redactor_that_breaks_changes_nothing_about_the_call(otel: Otel) -> None:
    def broken(text: str) -> str:
        raise ValueError("redactor bug")

    registry = _registry(otel, capture_content=True, redact=broken)
    outcome = await registry.execute("echo", {"text": "hi"}, ToolContext(session_id="s"))
    assert outcome.result == Ok("you said: hi")
    assert otel.span("execute_tool echo").end_time is not None


@given(value=st.text(max_size=300), budget=st.integers(min_value=1, max_value=400))
def test_trimmed_chars_is_what_the_budget_cut(value: str, budget: int) -> None:
    trimmed, _ = trim_result(Ok(value), budget)
    assert trimmed_chars(trimmed) == max(len(value) - budget, 0)


def test_errors_are_never_counted_as_trimmed() -> None:
    assert trimmed_chars(Err("x\n[truncated \u2014 99 chars total]")) == 0

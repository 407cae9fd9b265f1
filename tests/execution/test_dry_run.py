"""Dry-run: a synthetic result, arguments redacted and cut, the tool never runs."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from exec_helpers import Calls, ctx, registry_with, run
from hypothesis import given
from hypothesis import strategies as st

from toolwire.calls import ToolCall
from toolwire.capabilities import network
from toolwire.execution.dry_run import MAX_DRY_RUN_STRING, dry_run_result, redact_args
from toolwire.execution.hooks import deny
from toolwire.results import Err, ErrorCode, Ok
from toolwire.tools import CachePolicy

PREFIX = "[dry-run] write_file would be called with: "


def _shown(result: Ok | Err, prefix: str = PREFIX) -> Any:
    assert isinstance(result, Ok)
    assert result.value.startswith(prefix)
    return json.loads(result.value[len(prefix) :])


# -- the functions ----------------------------------------------------------------------------


def test_dry_run_result_shows_the_tool_and_sorted_json_arguments() -> None:
    result = dry_run_result("write_file", {"path": "/tmp/x", "append": False, "n": 2})
    assert result == Ok(PREFIX + '{"append": false, "n": 2, "path": "/tmp/x"}')


def test_strings_longer_than_500_are_cut_with_their_length() -> None:
    shown = redact_args({"content": "a" * 1200, "short": "b" * 500})
    assert shown["content"] == "a" * 500 + "...[truncated, 1200 chars]"
    assert shown["short"] == "b" * 500
    assert MAX_DRY_RUN_STRING == 500


def test_the_redactor_applies_to_every_string_before_the_cut() -> None:
    def redactor(text: str) -> str:
        return text.replace("hunter2", "[REDACTED]")

    args = {"pw": "hunter2", "nested": {"list": ["x hunter2", {"deep": "hunter2" * 100}]}}
    shown = redact_args(args, redactor)
    assert shown["pw"] == "[REDACTED]"
    assert shown["nested"]["list"][0] == "x [REDACTED]"
    assert shown["nested"]["list"][1]["deep"].endswith("...[truncated, 1000 chars]")
    assert "hunter2" not in json.dumps(shown)


def test_non_json_values_become_json() -> None:
    shown = redact_args({"when": datetime.date(2024, 1, 2), "tags": {"a"}, "n": None})
    assert shown == {"when": "2024-01-02", "tags": ["a"], "n": None}


def test_very_deep_nesting_is_cut_instead_of_recursing_forever() -> None:
    value: Any = "leaf"
    for _ in range(100):
        value = [value]
    assert "nested too deeply" in json.dumps(redact_args({"v": value}))


@given(st.dictionaries(st.text(max_size=5), st.text(max_size=1200), max_size=4))
def test_no_shown_string_exceeds_the_cut(args: dict[str, str]) -> None:
    for value in redact_args(args).values():
        assert len(value) <= MAX_DRY_RUN_STRING + len("...[truncated, 1200 chars]")


# -- in the pipeline --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_dry_run_answers_with_the_stub_and_the_tool_never_runs() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("write_file"), dry_run_redactor=None)
    outcomes = await registry.execute_parallel(
        [ToolCall(id="1", name="write_file", args='{"path": "/etc/x", "content": "hi"}')],
        ctx(dry_run=True),
    )
    assert _shown(outcomes[0].result) == {"path": "/etc/x", "content": "hi"}
    assert seen.log == []


@pytest.mark.anyio
async def test_the_default_redactor_hides_known_secret_formats() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("write_file"))
    token = "ghp_" + "a1b2c3d4e5" * 4
    (outcome,) = await registry.execute_parallel(
        [ToolCall(id="1", name="write_file", args={"content": f"token={token}"})],
        ctx(dry_run=True),
    )
    assert token not in outcome.result.value  # type: ignore[union-attr]
    assert "REDACTED" in outcome.result.value  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_custom_redactor_is_used() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("write_file"), dry_run_redactor=str.upper)
    (outcome,) = await registry.execute_parallel(
        [ToolCall(id="1", name="write_file", args={"content": "quiet"})], ctx(dry_run=True)
    )
    assert _shown(outcome.result) == {"content": "QUIET"}


@pytest.mark.anyio
async def test_gates_still_apply_in_dry_run() -> None:
    seen = Calls()
    registry = registry_with(
        seen.tool("net", capabilities=[network(["*"])]),
        seen.tool("off", is_available=lambda: False),
    )
    outcomes = await run(registry, ["net", "off", "missing"], ctx(dry_run=True))
    assert [o.result.reason for o in outcomes] == [  # type: ignore[union-attr]
        "no_backends",
        "unavailable",
        "unknown_tool",
    ]


@pytest.mark.anyio
async def test_invalid_arguments_are_reported_in_dry_run() -> None:
    seen = Calls()
    schema = {"type": "object", "required": ["path"]}
    registry = registry_with(seen.tool("write_file", schema=schema))
    (outcome,) = await run(registry, ["write_file"], ctx(dry_run=True))
    assert isinstance(outcome.result, Err)
    assert outcome.result.code == ErrorCode.INPUT_INVALID


@pytest.mark.anyio
async def test_hooks_still_deny_in_dry_run() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("write_file"))
    registry.hooks.before_tool_call(lambda call: deny("read-only session"))
    (outcome,) = await run(registry, ["write_file"], ctx(dry_run=True))
    assert outcome.result == Err("read-only session", ErrorCode.NOT_AVAILABLE, reason="hook_denied")


@pytest.mark.anyio
async def test_dry_run_never_serves_or_fills_the_result_cache() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("lookup", cache=CachePolicy()), dry_run_redactor=None)
    (stub,) = await run(registry, ["lookup"], ctx(dry_run=True))
    assert len(registry.settings.result_cache) == 0
    (real,) = await run(registry, ["lookup"])
    assert real.result == Ok("lookup ok")
    assert not real.cached
    (again,) = await run(registry, ["lookup"], ctx(dry_run=True))
    assert again.result == stub.result
    assert not again.cached
    assert seen.names == ["lookup"]


@pytest.mark.anyio
async def test_the_dry_run_stub_returns_before_the_budget_trim() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("write_file"), dry_run_redactor=None)
    (outcome,) = await registry.execute_parallel(
        [ToolCall(id="1", name="write_file", args={"content": "x" * 600})],
        ctx(dry_run=True, result_budget_chars=10),
    )
    assert _shown(outcome.result) == {"content": "x" * 500 + "...[truncated, 600 chars]"}

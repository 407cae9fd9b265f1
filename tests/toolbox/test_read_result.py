"""``read_result``: its definition, and paging a kept text written the way the handle stage
writes it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.execution.handles import HANDLES_SCOPE, HANDLES_TOOL, record_key
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import MemoryKeyValueBackend
from toolwire.toolbox import default_tools
from toolwire.toolbox._kept_results import read_result, result_tools

pytestmark = pytest.mark.anyio

HANDLE = "h-00112233445566ff"
TEXT = "abcdefghij" * 100


async def _registry(text: str = TEXT, session: str = "s1") -> ToolRegistry:
    kv = MemoryKeyValueBackend()
    store = kv.scoped(HANDLES_TOOL, HANDLES_SCOPE)
    record = {"tool": "terminal", "untrusted": False, "text": text}
    await store.set(record_key(session, HANDLE), json.dumps(record))
    registry = ToolRegistry(backends=CapabilityBackends(kv_store_factory=kv.scoped, processes=None))
    registry.register_all(result_tools())
    return registry


def _ctx(**fields: Any) -> ToolContext:
    fields.setdefault("session_id", "s1")
    return ToolContext(**fields)


def test_read_result_is_a_read_only_untrusted_tool_among_the_defaults() -> None:
    assert read_result.name == "read_result"
    assert read_result.toolset == "results"
    assert read_result.output_is_untrusted is True
    assert read_result.annotations is not None
    assert read_result.annotations.read_only is True
    assert read_result in default_tools()
    assert set(read_result.schema["properties"]) == {"handle", "start", "length"}
    assert read_result.schema["required"] == ["handle"]


async def test_a_page_is_the_slice_under_a_header_with_the_next_call() -> None:
    registry = await _registry()
    outcome = await registry.execute(
        "read_result", {"handle": HANDLE, "start": 10, "length": 5}, _ctx()
    )
    assert outcome.result == Ok(
        f"[read_result {HANDLE}: chars 10-15 of 1000 from terminal]\n"
        "abcde"
        f'\n[more: read_result(handle="{HANDLE}", start=15)]',
        structured={"handle": HANDLE, "tool": "terminal", "start": 10, "end": 15, "total": 1000},
    )


async def test_the_last_page_has_no_more_line() -> None:
    registry = await _registry()
    outcome = await registry.execute("read_result", {"handle": HANDLE, "start": 995}, _ctx())
    assert isinstance(outcome.result, Ok)
    assert outcome.result.value.endswith("\nfghij")


async def test_length_is_capped_by_the_call_budget() -> None:
    registry = await _registry()
    outcome = await registry.execute(
        "read_result", {"handle": HANDLE, "length": 900}, _ctx(result_budget_chars=300)
    )
    assert isinstance(outcome.result, Ok)
    assert len(outcome.result.value) <= 300
    assert outcome.result.structured is not None
    assert 100 < outcome.result.structured["end"] < 300


async def test_a_negative_start_or_zero_length_is_input_invalid() -> None:
    registry = await _registry()
    for args in ({"handle": HANDLE, "start": -1}, {"handle": HANDLE, "length": 0}, {}):
        outcome = await registry.execute("read_result", args, _ctx())
        assert isinstance(outcome.result, Err)
        assert outcome.result.code is ErrorCode.INPUT_INVALID


async def test_the_same_handle_in_another_session_is_not_available() -> None:
    registry = await _registry(session="s1")
    outcome = await registry.execute("read_result", {"handle": HANDLE}, _ctx(session_id="s2"))
    assert isinstance(outcome.result, Err)
    assert outcome.result.code is ErrorCode.NOT_AVAILABLE
    assert outcome.result.reason == "handle_not_available"


async def test_a_corrupt_record_is_not_available() -> None:
    kv = MemoryKeyValueBackend()
    await kv.scoped(HANDLES_TOOL, HANDLES_SCOPE).set(record_key("s1", HANDLE), "{not json")
    registry = ToolRegistry(backends=CapabilityBackends(kv_store_factory=kv.scoped, processes=None))
    registry.register_all(result_tools())
    outcome = await registry.execute("read_result", {"handle": HANDLE}, _ctx())
    assert isinstance(outcome.result, Err)
    assert outcome.result.reason == "handle_not_available"


async def test_without_a_store_read_result_is_not_available() -> None:
    registry = ToolRegistry(backends=CapabilityBackends(processes=None))
    registry.register_all(result_tools())
    outcome = await registry.execute("read_result", {"handle": HANDLE}, _ctx())
    assert isinstance(outcome.result, Err)
    assert outcome.result.code is ErrorCode.NOT_AVAILABLE

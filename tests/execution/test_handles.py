"""Result handles: a trimmed result keeps its full text, ``read_result`` pages through it, and
a handle belongs to its session (on asyncio and trio, with the in-memory store)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import ConfigurationError
from toolwire.execution.budget import truncation_marker
from toolwire.execution.handles import (
    HANDLE_LINE_PATTERN,
    ResultHandles,
    find_handle,
    handle_line,
)
from toolwire.execution.hooks import AfterCall
from toolwire.reducers._registry import ReducerContext, ReducerRegistry
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.stores import MemoryKeyValueBackend
from toolwire.toolbox._kept_results import read_result

pytestmark = pytest.mark.anyio

TEXT = "".join(f"line {i:05d}\n" for i in range(2000))  # 22,000 chars


def _returning(value: str) -> Any:
    async def body(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return Ok(value, structured={"n": 1})

    return body


def _registry(
    kv: MemoryKeyValueBackend | None = None, handles: ResultHandles | None = None, **options: Any
) -> tuple[ToolRegistry, Calls]:
    kv = kv or MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    options.setdefault("reducers", None)
    registry = ToolRegistry(backends=backends, result_handles=handles or ResultHandles(), **options)
    recorder = Calls()
    registry.register_all(
        [
            recorder.tool("big", _returning(TEXT)),
            recorder.tool("small", _returning("short")),
            read_result,
        ]
    )
    return registry, recorder


async def _read_all(registry: ToolRegistry, handle: str, context: ToolContext, start: int) -> str:
    """Page through ``handle`` from ``start`` with read_result's own default length."""
    parts = []
    while True:
        outcome = await registry.execute("read_result", {"handle": handle, "start": start}, context)
        assert isinstance(outcome.result, Ok), outcome.result
        facts = outcome.result.structured
        assert facts is not None
        parts.append(_page_text(outcome.result.value))
        if facts["end"] == facts["total"]:
            return "".join(parts)
        start = facts["end"]


def _page_text(value: str) -> str:
    body = value.split("\n", 1)[1]  # after the header line
    more = body.rfind('\n[more: read_result(handle="')
    return body if more < 0 else body[:more]


async def test_a_trimmed_result_ends_with_the_marker_then_the_handle_line() -> None:
    registry, _ = _registry()
    outcome = await registry.execute("big", {}, ctx(result_budget_chars=1000))
    assert isinstance(outcome.result, Ok)
    value = outcome.result.value
    handle = find_handle(value)
    assert handle is not None
    assert value == TEXT[:1000] + truncation_marker(len(TEXT)) + handle_line(handle, 1000)
    assert outcome.result.structured == {"n": 1}


async def test_a_result_that_fits_is_unchanged_and_nothing_is_kept() -> None:
    kv = MemoryKeyValueBackend()
    registry, _ = _registry(kv)
    outcome = await registry.execute("small", {}, ctx(result_budget_chars=1000))
    assert outcome.result == Ok("short", structured={"n": 1})
    assert await kv.scoped("read_result", "tool:read_result").list() == []


async def test_read_result_pages_reassemble_the_whole_text() -> None:
    registry, _ = _registry()
    context = ctx(result_budget_chars=3000)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    assert handle is not None
    rest = await _read_all(registry, handle, context, 3000)
    assert TEXT[:3000] + rest == TEXT


async def test_a_page_fits_its_budget_and_names_the_original_tool() -> None:
    registry, _ = _registry()
    context = ctx(result_budget_chars=500)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    page = await registry.execute("read_result", {"handle": handle, "start": 500}, context)
    assert isinstance(page.result, Ok)
    assert len(page.result.value) <= 500
    assert find_handle(page.result.value) is None  # not trimmed, so no handle of its own
    assert page.result.value.startswith(f"[read_result {handle}: chars 500-")
    assert page.result.value.endswith(")]")
    assert page.result.structured is not None
    assert page.result.structured["tool"] == "big"


async def test_length_reads_exactly_that_many_characters() -> None:
    registry, _ = _registry()
    context = ctx(result_budget_chars=1000)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    page = await registry.execute(
        "read_result", {"handle": handle, "start": 11, "length": 11}, context
    )
    assert isinstance(page.result, Ok)
    assert _page_text(page.result.value) == "line 00001\n"


async def test_start_past_the_end_is_input_invalid() -> None:
    registry, _ = _registry()
    context = ctx(result_budget_chars=1000)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    page = await registry.execute(
        "read_result", {"handle": handle, "start": len(TEXT) + 1}, context
    )
    assert isinstance(page.result, Err)
    assert page.result.code is ErrorCode.INPUT_INVALID
    assert page.result.field == "start"


async def test_another_session_gets_not_available() -> None:
    registry, _ = _registry()
    outcome = await registry.execute("big", {}, ctx(session_id="alice", result_budget_chars=900))
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    theirs = await registry.execute("read_result", {"handle": handle}, ctx(session_id="mallory"))
    assert isinstance(theirs.result, Err)
    assert theirs.result.code is ErrorCode.NOT_AVAILABLE
    assert theirs.result.reason == "handle_not_available"
    mine = await registry.execute("read_result", {"handle": handle}, ctx(session_id="alice"))
    assert isinstance(mine.result, Ok)


async def test_an_unknown_or_malformed_handle_is_not_available() -> None:
    registry, _ = _registry()
    for handle in ("h-0000000000000000", "../../etc", "r/abc"):
        outcome = await registry.execute("read_result", {"handle": handle}, ctx())
        assert isinstance(outcome.result, Err)
        assert outcome.result.reason == "handle_not_available"


async def test_a_handle_expires_after_its_ttl() -> None:
    registry, _ = _registry(handles=ResultHandles(ttl_s=0.05))
    context = ctx(result_budget_chars=900)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    await anyio.sleep(0.2)
    later = await registry.execute("read_result", {"handle": handle}, context)
    assert isinstance(later.result, Err)
    assert later.result.reason == "handle_not_available"


async def test_the_session_cap_evicts_the_oldest_text_first() -> None:
    cap = len(TEXT) * 2 + 10  # room for two texts, not three
    registry, _ = _registry(handles=ResultHandles(max_chars_per_session=cap))
    context = ctx(result_budget_chars=900)
    handles = []
    for _ in range(3):
        outcome = await registry.execute("big", {}, context)
        assert isinstance(outcome.result, Ok)
        handles.append(find_handle(outcome.result.value))
    first, *kept = [await registry.execute("read_result", {"handle": h}, context) for h in handles]
    assert isinstance(first.result, Err)
    assert first.result.reason == "handle_not_available"
    assert all(isinstance(page.result, Ok) for page in kept)


async def test_the_cap_is_per_session() -> None:
    cap = len(TEXT) + 10
    registry, _ = _registry(handles=ResultHandles(max_chars_per_session=cap))
    one = await registry.execute("big", {}, ctx(session_id="one", result_budget_chars=900))
    two = await registry.execute("big", {}, ctx(session_id="two", result_budget_chars=900))
    for outcome, session in ((one, "one"), (two, "two")):
        assert isinstance(outcome.result, Ok)
        page = await registry.execute(
            "read_result", {"handle": find_handle(outcome.result.value)}, ctx(session_id=session)
        )
        assert isinstance(page.result, Ok)


async def test_a_text_over_the_whole_cap_is_trimmed_without_a_handle() -> None:
    registry, _ = _registry(handles=ResultHandles(max_chars_per_session=len(TEXT) - 1))
    outcome = await registry.execute("big", {}, ctx(result_budget_chars=900))
    assert outcome.result == Ok(TEXT[:900] + truncation_marker(len(TEXT)), structured={"n": 1})


async def test_a_failing_store_leaves_the_plain_trim() -> None:
    class Broken(MemoryKeyValueBackend):
        async def set_value(self, *args: Any) -> None:
            raise OSError("disk full")

    registry, _ = _registry(Broken())
    outcome = await registry.execute("big", {}, ctx(result_budget_chars=900))
    assert outcome.result == Ok(TEXT[:900] + truncation_marker(len(TEXT)), structured={"n": 1})


async def test_the_kept_text_is_the_reduced_one_and_after_hooks_see_the_handle() -> None:
    class Upper:
        tool_name = "big"

        def reduce(self, result: ToolResult, rctx: ReducerContext) -> ToolResult:
            return Ok(result.value.upper()) if isinstance(result, Ok) else result

    reducers = ReducerRegistry()
    reducers.register(Upper())
    registry, _ = _registry(reducers=reducers)
    seen: list[ToolResult] = []

    def after(call: AfterCall) -> None:
        seen.append(call.result)

    registry.hooks.after_tool_call(after)
    context = ctx(result_budget_chars=2000)
    outcome = await registry.execute("big", {}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    assert handle is not None
    assert seen == [outcome.result]
    rest = await _read_all(registry, handle, context, 2000)
    assert TEXT.upper()[:2000] + rest == TEXT.upper()


async def test_handles_without_a_store_are_refused_when_the_registry_is_built() -> None:
    with pytest.raises(ConfigurationError, match="key-value store"):
        ToolRegistry(result_handles=ResultHandles())
    with pytest.raises(ConfigurationError, match="ResultHandles"):
        ToolRegistry(
            backends=CapabilityBackends(
                kv_store_factory=MemoryKeyValueBackend().scoped, processes=None
            ),
            result_handles=3600,  # type: ignore[arg-type]
        )


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="ttl_s"):
        ResultHandles(ttl_s=0)
    with pytest.raises(ConfigurationError, match="max_chars_per_session"):
        ResultHandles(max_chars_per_session=0)


async def test_without_handles_a_trim_is_the_plain_marker() -> None:
    recorder = Calls()
    registry = ToolRegistry(reducers=None)
    registry.register(recorder.tool("big", _returning(TEXT)))
    outcome = await registry.execute("big", {}, ctx(result_budget_chars=900))
    assert outcome.result == Ok(TEXT[:900] + truncation_marker(len(TEXT)), structured={"n": 1})


def test_the_handle_line_pattern_matches_only_a_final_line() -> None:
    line = handle_line("h-0123456789abcdef", 5)
    assert find_handle("text" + line) == "h-0123456789abcdef"
    assert find_handle("text" + line + "\nmore") is None
    assert HANDLE_LINE_PATTERN.search("text\n[result handle: h-xyz]") is None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(min_size=2, max_size=3000),
    budget=st.integers(min_value=1, max_value=400),
    page=st.integers(min_value=250, max_value=900),
)
def test_any_text_is_read_back_whole_whatever_the_budgets(
    text: str, budget: int, page: int, anyio_backend: str
) -> None:
    async def check() -> None:
        recorder = Calls()
        kv = MemoryKeyValueBackend()
        backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
        registry = ToolRegistry(backends=backends, reducers=None, result_handles=ResultHandles())
        registry.register_all([recorder.tool("t", _returning(text)), read_result])
        outcome = await registry.execute("t", {}, ctx(result_budget_chars=budget))
        assert isinstance(outcome.result, Ok)
        if len(text) <= budget:
            assert outcome.result.value == text
            return
        handle = find_handle(outcome.result.value)
        assert handle is not None
        rest = await _read_all(registry, handle, ctx(result_budget_chars=page), budget)
        assert text[:budget] + rest == text

    anyio.run(check, backend=anyio_backend)


async def test_the_presenters_cap_keeps_the_handle_line_last_and_reading_on_where_it_cut() -> None:
    from toolwire.presenting import Presenter, PresenterOptions

    registry, _ = _registry()
    outcome = await registry.execute("big", {}, ctx(result_budget_chars=1000))
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    assert handle is not None
    options = PresenterOptions(delimit_results=False, redact_secrets=False)
    kept = Presenter(PresenterOptions(ingestion_cap_chars=1000, delimit_results=False)).present(
        outcome, registry.get("big")
    )
    assert kept.text == outcome.result.value  # within the cap: unchanged
    cut = Presenter(replace(options, ingestion_cap_chars=300)).present(outcome, registry.get("big"))
    assert cut.text == TEXT[:300] + truncation_marker(len(TEXT)) + handle_line(handle, 300)


async def test_a_directly_run_tool_keeps_its_trimmed_result_behind_a_handle() -> None:
    # an @tool function without a context parameter runs without one (DirectCall): the
    # call's context is made only for the handle, with the call's session and budget
    @tool
    async def long_text(n: int) -> str:
        """Return a long text.

        Args:
            n: Unused.
        """
        return TEXT

    registry, _ = _registry()
    registry.register(long_text)
    context = ctx(result_budget_chars=1000)
    outcome = await registry.execute("long_text", {"n": 1}, context)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    assert handle is not None
    assert outcome.result.value == TEXT[:1000] + truncation_marker(len(TEXT)) + handle_line(
        handle, 1000
    )
    assert await _read_all(registry, handle, context, 1000) == TEXT[1000:]

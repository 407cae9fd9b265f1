"""memory_write against a model: any sequence of appends, replaces and deletes, with or without
expected versions, leaves exactly the notes the model predicts and never breaks a limit."""

from __future__ import annotations

import string

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from kv_stores import store_registry
from toolbox_helpers import run

from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import MemoryKeyValueBackend
from toolwire.toolbox.memory import MemoryLimits, memory_tools

LIMITS = MemoryLimits(max_entry_chars=60, max_scope_chars=150, max_entries=3)
CTX = ToolContext(session_id="s", personality_id="p")
WRITES = st.tuples(
    st.sampled_from(["a", "b", "c", "d"]),
    st.text(alphabet=string.ascii_letters + " ", max_size=45),
    st.sampled_from(["append", "replace"]),
    st.one_of(st.none(), st.integers(min_value=0, max_value=3)),
)


def expect(model: dict[str, tuple[str, int]], write: tuple[str, str, str, int | None]) -> str:
    """Apply one write to the model; the code it must answer (``ok`` when it succeeds)."""
    key, content, mode, expected = write
    if mode == "append" and not content.strip():
        return ErrorCode.INPUT_INVALID
    old = model.get(key)
    if expected is not None and (0 if old is None else old[1]) != expected:
        return ErrorCode.STALE_WRITE
    if mode == "replace" and not content:
        if old is None:
            return ErrorCode.INPUT_INVALID
        del model[key]
        return "ok"
    text = f"{old[0]}\n{content}" if mode == "append" and old is not None else content
    total = sum(len(c) for c, _ in model.values()) - (len(old[0]) if old else 0) + len(text)
    too_many = old is None and len(model) >= LIMITS.max_entries
    if len(text) > LIMITS.max_entry_chars or too_many or total > LIMITS.max_scope_chars:
        return ErrorCode.INPUT_INVALID
    model[key] = (text, 1 if old is None else old[1] + 1)
    return "ok"


@settings(max_examples=120, deadline=None)
@given(writes=st.lists(WRITES, max_size=12))
def test_writes_match_the_model(writes: list[tuple[str, str, str, int | None]]) -> None:
    async def scenario() -> None:
        async with MemoryKeyValueBackend() as backend:
            registry = store_registry(backend, memory_tools(LIMITS))
            model: dict[str, tuple[str, int]] = {}
            for key, content, mode, expected in writes:
                result = await run(
                    registry,
                    CTX,
                    "memory_write",
                    key=key,
                    content=content,
                    mode=mode,
                    expected_version=expected,
                )
                code = expect(model, (key, content, mode, expected))
                assert (result.code if isinstance(result, Err) else "ok") == code, result
            listing = await run(registry, CTX, "memory_read")
            assert isinstance(listing, Ok)
            assert listing.structured is not None
            stored = {n["key"]: (n["chars"], n["version"]) for n in listing.structured["notes"]}
            assert stored == {k: (len(c), v) for k, (c, v) in model.items()}
            for key, (content, _) in model.items():
                read = await run(registry, CTX, "memory_read", key=key)
                assert isinstance(read, Ok)
                assert read.value.split("\n", 1)[1] == content

    anyio.run(scenario)

"""Random operation sequences against a dict model, and random namespaces, on every backend.

Every store runs on asyncio; the memory and SQLite stores run on trio as well.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kv_targets import KINDS, check_partitions, on_loops, open_target

from toolwire.errors import StoreError

# Few, tricky characters so sequences hit the same keys and the escaping paths.
KEY_ALPHABET = "ab%_\\*?[]:é🔑"
keys = st.text(alphabet=KEY_ALPHABET, max_size=4)
values = st.one_of(st.just("7"), st.text(max_size=20).filter(lambda v: "\x00" not in v))
values = values.filter(lambda v: not any(0xD800 <= ord(c) <= 0xDFFF for c in v))
operations = st.lists(
    st.one_of(
        st.tuples(st.just("set"), keys, values),
        st.tuples(st.just("delete"), keys, st.just("")),
        st.tuples(st.just("increment"), keys, st.just("")),
    ),
    max_size=25,
)
EXAMPLES = {"memory": 100, "sqlite": 50, "redis": 30, "postgres": 20}
# Short names over the separators the layouts use, so tools, scope ids and keys collide often.
names = st.text(alphabet="ab1:\\*%_[é", min_size=1, max_size=3)
scope_ids = st.one_of(
    names, st.tuples(st.sampled_from(["tool:", "session:", "personality:"]), names).map("".join)
)
Triple = tuple[str, str, str]


@st.composite
def resplit_triples(draw: st.DrawFn) -> list[Triple]:
    """Triples that split one ``:``-joined string at different places, as a forger would.

    Joined naively, ``("a", "b:c", "d")`` and ``("a:b", "c", "d")`` are the same physical key.
    """
    parts = draw(st.lists(st.sampled_from(["a", "1", "0", "tool", ""]), min_size=3, max_size=6))
    splits = [
        (":".join(parts[:i]), ":".join(parts[i:j]), ":".join(parts[j:]))
        for i in range(1, len(parts))
        for j in range(i + 1, len(parts) + 1)
    ]
    valid = [split for split in splits if split[0] and split[1]]
    if not valid:
        return []
    return draw(st.lists(st.sampled_from(valid), min_size=1, max_size=4))


triples = st.tuples(st.lists(st.tuples(names, scope_ids, keys), max_size=8), resplit_triples()).map(
    lambda drawn: drawn[0] + drawn[1]
)


def _model_increment(model: dict[str, str], key: str) -> int | None:
    """The counter semantics: canonical decimal integers within 64 bits, absent = 0."""
    current = model.get(key, "0")
    if re.fullmatch(r"0|-?[1-9][0-9]*", current) is None or int(current) + 1 >= 2**63:
        return None
    model[key] = str(int(current) + 1)
    return int(model[key])


@pytest.mark.parametrize(("kind", "loop"), on_loops(KINDS))
def test_random_operation_sequences_match_a_dict(kind: str, loop: str, tmp_path: Path) -> None:
    async def check_one(ops: list[tuple[str, str, str]], prefix: str) -> None:
        async with open_target(kind, tmp_path) as target, target.make() as backend:
            store = backend.scoped("model", f"session:{uuid.uuid4().hex}")
            model: dict[str, str] = {}
            for op, key, value in ops:
                if op == "set":
                    await store.set(key, value)
                    model[key] = value
                elif op == "delete":
                    await store.delete(key)
                    model.pop(key, None)
                else:
                    expected = _model_increment(model, key)
                    if expected is None:
                        with pytest.raises(StoreError):
                            await store.increment(key)
                    else:
                        assert await store.increment(key) == expected
            for key, value in model.items():
                assert await store.get(key) == value
            assert await store.list() == sorted(model)
            assert await store.list(prefix) == sorted(k for k in model if k.startswith(prefix))

    @settings(
        max_examples=EXAMPLES[kind],
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(ops=operations, prefix=keys)
    def run(ops: list[tuple[str, str, str]], prefix: str) -> None:
        anyio.run(check_one, ops, prefix, backend=loop)

    run()


@pytest.mark.parametrize("isolate_tools", [False, True], ids=["shared", "isolate_tools"])
@pytest.mark.parametrize(("kind", "loop"), on_loops(KINDS))
def test_no_tool_scope_id_or_key_reaches_another_scopes_keys(
    kind: str, loop: str, isolate_tools: bool, tmp_path: Path
) -> None:
    async def check_one(written: list[Triple]) -> None:
        async with (
            open_target(kind, tmp_path / uuid.uuid4().hex) as target,
            target.make(isolate_tools=isolate_tools) as backend,
        ):
            await check_partitions(backend, written)

    @settings(
        max_examples=EXAMPLES[kind],
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(written=triples)
    def run(written: list[Triple]) -> None:
        anyio.run(check_one, written, backend=loop)

    run()

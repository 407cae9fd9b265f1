"""What keeping SSE events costs (`toolwire.mcp.server.event_store`), beside the store's own
``set``.

Each SSE event of a 2025-11-25 session served over HTTP is one `SessionEventStore.store_event`
(a ``set``, plus a ``delete`` once a stream passes its cap); a client that resumes costs one
`replay_events_after`. Printed: the median time per event stored (a tool-call answer's size),
the same for a bare ``set`` of that value on the same backend, and the median time to replay a
stream of 20 events, on the memory and SQLite backends. ``--repeats N`` (5 by default).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp.server.streamable_http import EventMessage
from mcp_types.jsonrpc import JSONRPCResponse

from toolwire.mcp.server.event_store import EVENTS_SCOPE, EVENTS_TOOL, KvEventStore
from toolwire.stores import MemoryKeyValueBackend, SqliteKeyValueBackend
from toolwire.stores._base import KeyValueBackend

EVENTS = 2000
STREAM = 20
ANSWER = JSONRPCResponse(
    jsonrpc="2.0",
    id=1,
    result={"content": [{"type": "text", "text": "x" * 400}], "isError": False},
)


async def _one_round(backend: KeyValueBackend) -> tuple[float, float, float]:
    store = backend.scoped(EVENTS_TOOL, EVENTS_SCOPE)
    events = KvEventStore(store).for_session("bench")
    data = ANSWER.model_dump_json(by_alias=True, exclude_unset=True)
    started = time.perf_counter()
    for n in range(EVENTS):
        await events.store_event(str(n % 50), ANSWER)
    per_event = (time.perf_counter() - started) / EVENTS
    started = time.perf_counter()
    for n in range(EVENTS):
        await store.set(f"raw/{n}", data, 300)
    per_set = (time.perf_counter() - started) / EVENTS
    first = await events.store_event("replayed", None)
    for _ in range(STREAM):
        await events.store_event("replayed", ANSWER)

    async def drop(event: EventMessage) -> None:
        return None

    started = time.perf_counter()
    await events.replay_events_after(first, drop)
    return per_event, per_set, time.perf_counter() - started


async def _measure(kind: str, repeats: int) -> tuple[float, float, float]:
    rounds = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            backend: KeyValueBackend = (
                MemoryKeyValueBackend()
                if kind == "memory"
                else SqliteKeyValueBackend(str(Path(folder) / "events.db"))
            )
            async with backend:
                rounds.append(await _one_round(backend))
    return tuple(statistics.median(r[i] for r in rounds) for i in range(3))  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    print("| backend | store_event µs | bare set µs | replay of 20 events ms |")
    print("| --- | ---: | ---: | ---: |")
    for kind in ("memory", "sqlite"):
        per_event, per_set, replay = anyio.run(_measure, kind, repeats)
        print(f"| {kind} | {per_event * 1e6:.1f} | {per_set * 1e6:.1f} | {replay * 1e3:.2f} |")


if __name__ == "__main__":
    main()

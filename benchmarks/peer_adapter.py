"""toolwire's adapter for the shared tool-execution benchmark (``shared/peer-bench``).

Each call goes through the whole pipeline the way an agent loop uses toolwire: a `ToolCall`
with the model's JSON string, `ToolRegistry.execute_parallel` (gates, validation, hooks,
budget, execution under the default timeout, reducers, trim), and the model-facing text of the
outcome. Batches (W2, W5) are one `execute_parallel` call: toolwire's own concurrent path.

Run from the harness folder, with toolwire installed in the harness's environment::

    python run.py --adapter-file toolwire=/abs/path/benchmarks/peer_adapter.py:Toolwire \\
        --adapters baseline,toolwire,pydantic-ai,openai-agents,mcp-direct
"""

from __future__ import annotations

from typing import Any

from adapters import Adapter  # type: ignore[import-not-found]  # provided by the harness

from toolwire import ToolCall, ToolContext, ToolRegistry, tool
from toolwire.results import Ok


def _text(result: Any) -> str:
    return result.value if isinstance(result, Ok) else f"Error: {result.error}"


class Toolwire(Adapter):  # type: ignore[misc]
    """The registry's full pipeline; one `execute_parallel` per batch."""

    name = "toolwire"
    batch_path = "one ToolRegistry.execute_parallel (gather on asyncio; sync fns in worker threads)"

    async def register(self, spec: str, fns: list[Any]) -> bool:
        self.registry = ToolRegistry()
        self.registry.register_all([tool(fn) for fn in fns])
        self.ctx = ToolContext(session_id="bench")
        return True

    async def definitions(self) -> list[dict[str, Any]]:
        return [
            {"type": "function", "function": dict(definition)}
            for definition in self.registry.definitions()
        ]

    async def call(self, name: str, args_json: str) -> str:
        call = ToolCall(id=self.next_id(), name=name, args=args_json)
        outcomes = await self.registry.execute_parallel([call], self.ctx)
        return _text(outcomes[0].result)

    async def call_batch(self, calls: list[tuple[str, str]]) -> list[str]:
        batch = [ToolCall(id=self.next_id(), name=n, args=a) for n, a in calls]
        outcomes = await self.registry.execute_parallel(batch, self.ctx)
        return [_text(outcome.result) for outcome in outcomes]

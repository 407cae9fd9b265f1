"""Code mode's peers on the same 100-call program, in an environment of their own.

Run it with a Python that has ``smolagents`` and ``pydantic-ai-harness[codemode]`` installed
(they are not toolwire dependencies; toolwire is not needed here)::

    python3 -m venv /tmp/peers-cm
    /tmp/peers-cm/bin/pip install smolagents 'pydantic-ai-harness[codemode]'
    /tmp/peers-cm/bin/python benchmarks/bench_code_mode_peers.py

1. smolagents' ``LocalPythonExecutor`` (an AST interpreter in the host process, not a sandbox)
   running ``ping()`` 100 times.
2. pydantic-ai-harness's ``CodeMode`` (Monty, like toolwire): an agent whose scripted model
   sends one ``run_code`` that gathers 100 ``ping()`` calls, beside the same agent whose model
   sends the 100 calls directly in one response (pydantic-ai's own parallel tool calls). Both
   include the agent loop's overhead, so the ratio is the comparable figure.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

GATHER = "import asyncio\nlen(await asyncio.gather(*[ping() for _ in range(100)]))"
SERIAL = "n = 0\nfor _ in range(100):\n    n += len(ping())\nn"


def _median_ms(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def _amedian_ms(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def smolagents_row(repeats: int) -> str:
    try:
        from smolagents.local_python_executor import LocalPythonExecutor
    except ImportError:
        return "| smolagents LocalPythonExecutor, 100 calls one by one | not installed | |"

    def ping() -> str:
        return "pong"

    executor = LocalPythonExecutor(additional_authorized_imports=[])
    executor.send_tools({"ping": ping})  # type: ignore[dict-item]
    assert executor(SERIAL).output == 400
    ms = _median_ms(lambda: executor(SERIAL), repeats)
    return f"| smolagents LocalPythonExecutor, 100 calls one by one | {ms:.2f} | |"


async def harness_rows(repeats: int) -> list[str]:
    try:
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import FunctionModel
        from pydantic_ai_harness import CodeMode
    except ImportError:
        return ["| pydantic-ai-harness CodeMode | not installed | |"]

    def scripted(first: list[ToolCallPart]) -> FunctionModel:
        def respond(messages: list[Any], info: Any) -> ModelResponse:
            if len(messages) == 1:
                return ModelResponse(parts=list(first))
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)

    def agent(model: FunctionModel, capabilities: list[Any]) -> Any:
        built = Agent(model, capabilities=capabilities)

        @built.tool_plain
        def ping() -> str:
            """Answer pong."""
            return "pong"

        return built

    direct_calls = [ToolCallPart("ping", {}, tool_call_id=f"c{i}") for i in range(100)]
    direct = agent(scripted(direct_calls), [])
    program = agent(scripted([ToolCallPart("run_code", {"code": GATHER}, "p1")]), [CodeMode()])
    await program.run("go")  # warm the pool
    base = await _amedian_ms(lambda: direct.run("go"), repeats)
    mode = await _amedian_ms(lambda: program.run("go"), repeats)
    return [
        f"| pydantic-ai agent, 100 direct calls in one response | {base:.2f} | 1.00× |",
        f"| pydantic-ai-harness CodeMode, one program gathering 100 | {mode:.2f} | "
        f"{mode / base:.2f}× |",
    ]


async def main(repeats: int = 15) -> None:
    print("| 100 calls of a trivial tool | median ms | × direct |")
    print("| --- | --- | --- |")
    print(smolagents_row(repeats))
    for row in await harness_rows(repeats):
        print(row)


if __name__ == "__main__":
    asyncio.run(main())

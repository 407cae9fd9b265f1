"""`ScriptedModel`: a model that makes the tool calls you script, in a provider's format.

It answers like the real API — a response whose tool calls `toolwire.formats` parses — and
reads back the result messages your agent appends, checking that every call was answered
exactly once. `run_script` is the usual loop (definitions, parse, ``execute_parallel``,
result messages) against it, so a test covers your tools through the real wire format.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.testing.wire import FORMATS, FormatName, ScriptedCall, ScriptedResult

__all__ = ["ScriptMismatchError", "ScriptedModel", "call", "run_script"]


class ScriptMismatchError(AssertionError):
    """The agent answered the scripted calls wrongly: a call without a result, a result for
    no call, or one answered twice (each real API rejects such a request)."""


def call(name: str, args: Mapping[str, Any] | str | None = None, /, **kwargs: Any) -> ScriptedCall:
    """A scripted call: ``call("add", a=1, b=2)``, ``call("add", {"a": 1})`` or
    ``call("add", '{"a": ')`` (raw text, for the OpenAI formats). For a call id of your own,
    build a `ScriptedCall` directly."""
    if args is not None and kwargs:
        raise TypeError("call() takes the arguments as a mapping, a string or keywords")
    return ScriptedCall(name=name, args=args if args is not None else kwargs)


class ScriptedModel:
    """Plays a model that makes scripted tool calls, turn by turn, in one provider's format.

    Args:
        format: ``openai_chat``, ``openai_responses``, ``anthropic`` or ``gemini``.
        turns: The calls of each turn; after the last turn the model answers with text.
        final_text: That closing text.
    """

    def __init__(
        self,
        format: FormatName,
        turns: Sequence[Sequence[ScriptedCall]],
        *,
        final_text: str = "done",
    ) -> None:
        if format not in FORMATS:
            raise ValueError(f"unknown format {format!r}; choose from {sorted(FORMATS)}")
        self.format: FormatName = format
        self._wire = FORMATS[format]
        self._turns = [list(turn) for turn in turns]
        self._final_text = final_text
        self._turn = 0
        self._pending: list[tuple[str, ScriptedCall]] = []
        self.results: list[ScriptedResult] = []
        """Every tool result received so far, in the order they arrived."""
        self.responses: list[dict[str, Any]] = []
        """Every response sent so far."""

    @property
    def done(self) -> bool:
        """Whether the closing text has been sent."""
        return self._turn > len(self._turns)

    @property
    def module(self) -> Any:
        """The `toolwire.formats` module of this format (``openai_chat``, ...)."""
        return importlib.import_module(f"toolwire.formats.{self.format}")

    def respond(self, messages: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        """Read the results in ``messages`` (what the agent appended since the last response:
        ``tool_result_messages(...)``), then send the next turn's calls, or the closing text.

        Raises:
            ScriptMismatchError: the results do not answer the last turn's calls one to one.
        """
        self._collect(messages)
        index = self._turn
        self._turn += 1
        script = self._turns[index] if index < len(self._turns) else []
        self._pending = [(c.id or f"call_{index + 1}_{i}", c) for i, c in enumerate(script)]
        response = self._wire.respond(index + 1, self._pending, self._final_text)
        self.responses.append(response)
        return response

    def _collect(self, messages: Sequence[Mapping[str, Any]]) -> None:
        received = self._wire.collect(messages)
        expected = dict(self._pending)
        answered: set[str] = set()
        for position, (call_id, text, is_error) in enumerate(received):
            if call_id is None:  # Gemini without ids: matched by position
                if position >= len(self._pending):
                    raise ScriptMismatchError(f"result #{position} answers no call")
                call_id = self._pending[position][0]
            if call_id not in expected:
                raise ScriptMismatchError(f"a result for {call_id!r}, which is no pending call")
            if call_id in answered:
                raise ScriptMismatchError(f"call {call_id!r} was answered twice")
            answered.add(call_id)
            name = expected[call_id].name
            self.results.append(
                ScriptedResult(tool_call_id=call_id, name=name, text=text, is_error=is_error)
            )
        missing = [cid for cid in expected if cid not in answered]
        if missing:
            raise ScriptMismatchError(f"calls without a result: {missing}")
        self._pending = []


async def run_script(
    model: ScriptedModel, registry: ToolRegistry, ctx: ToolContext
) -> list[ScriptedResult]:
    """Run ``model``'s script against ``registry`` the way an agent loop does, through the
    format's own functions: definitions out, calls parsed, ``execute_parallel``, result
    messages (presented) back. Returns every result the model received."""
    wire = model.module
    wire.tool_definitions(registry.definitions())  # what the model would be sent
    messages: list[dict[str, Any]] = []
    while True:
        response = model.respond(messages)
        if model.done:
            return model.results
        if model.format == "gemini":
            calls, ids = wire.read_tool_calls(response)
            outcomes = await registry.execute_parallel(calls, ctx)
            messages = wire.tool_result_messages(outcomes, tools=registry, call_ids=ids)
        else:
            calls = wire.parse_tool_calls(response)
            outcomes = await registry.execute_parallel(calls, ctx)
            messages = wire.tool_result_messages(outcomes, tools=registry)

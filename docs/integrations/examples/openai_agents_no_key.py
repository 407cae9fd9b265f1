"""Try the OpenAI Agents SDK tools without a key: a scripted Model stands in for OpenAI's."""

from __future__ import annotations

import json
from typing import Any

import anyio
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
from toolwire import ToolRegistry, create_backends
from toolwire.integrations.openai_agents import function_tools
from toolwire.toolbox import file_tools


class ScriptedModel(Model):
    """Answers each request with the next scripted output: no key, no network."""

    def __init__(self, *outputs: list[Any]) -> None:
        self.outputs = list(outputs)

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        output = self.outputs.pop(0)
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("run with Runner.run")


def call(name: str, arguments: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name=name, arguments=json.dumps(arguments)
    )


def say(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
    return ResponseOutputMessage(
        id="msg", type="message", role="assistant", status="completed", content=content
    )


async def main(root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all(file_tools())
        model = ScriptedModel(
            [call("read_file", {"path": "notes.txt"}, "c1")],  # first reply: a tool call
            [say("I read notes.txt.")],  # second reply, after the tool's result
        )
        tools = function_tools(registry, working_dir=root)
        agent = Agent(name="assistant", model=model, tools=tools)
        config = RunConfig(tracing_disabled=True)  # no key: nothing to send traces with
        result = await Runner.run(agent, "Read notes.txt", run_config=config)
        return "\n".join(
            str(item.output) for item in result.new_items if item.type == "tool_call_output_item"
        )


if __name__ == "__main__":
    print(anyio.run(main))

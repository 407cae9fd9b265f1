"""A hand-written agent loop: OpenAI Chat Completions and a toolwire registry."""

from __future__ import annotations

import dataclasses

import anyio
from openai import AsyncOpenAI

from toolwire import ToolContext, ToolRegistry, create_backends, tool
from toolwire.formats import openai_chat
from toolwire.toolbox import file_tools


@tool
def word_count(text: str) -> str:
    """Count the words of a text.

    Args:
        text: The text to count.
    """
    return str(len(text.split()))


async def main(client: AsyncOpenAI, model: str = "gpt-5", root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all([*file_tools(), word_count])
        tools = openai_chat.tool_definitions(registry.definitions())
        ctx = ToolContext(session_id="demo", working_dir=root)
        messages = [{"role": "user", "content": "How many words are in notes.txt?"}]
        for turn in range(1, 11):
            response = await client.chat.completions.create(
                model=model, messages=messages, tools=tools
            )
            messages.append(response.choices[0].message.model_dump(exclude_none=True))
            calls = openai_chat.parse_tool_calls(response)
            if not calls:
                return response.choices[0].message.content or ""
            # one batch per response: the budget is split across its calls
            turn_ctx = dataclasses.replace(ctx, current_turn=turn)
            outcomes = await registry.execute_parallel(calls, turn_ctx)
            messages += openai_chat.tool_result_messages(outcomes, tools=registry)
    return "no answer after ten turns"


if __name__ == "__main__":
    print(anyio.run(main, AsyncOpenAI()))

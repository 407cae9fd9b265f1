"""Try the LangChain tools without a key: langchain-core's fake chat model in create_agent."""

from __future__ import annotations

from typing import Any

import anyio
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from toolwire import ToolRegistry, create_backends
from toolwire.integrations.langchain import langchain_tools
from toolwire.toolbox import file_tools


class FakeToolModel(GenericFakeChatModel):
    """Replies with the scripted messages; its script already says which tools to call."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


async def main(root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all(file_tools())
        read = {"name": "read_file", "args": {"path": "notes.txt"}, "id": "c1"}
        model = FakeToolModel(messages=iter([AIMessage("", tool_calls=[read]), AIMessage("Done.")]))
        agent = create_agent(model, langchain_tools(registry, working_dir=root))
        state = await agent.ainvoke({"messages": [("user", "Read notes.txt")]})
        return str(state["messages"][-2].content)  # the tool's answer, as the model read it


if __name__ == "__main__":
    print(anyio.run(main))

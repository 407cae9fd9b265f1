"""The runnable examples of ``docs/integrations/`` and the README's quick start.

Each example is a file under ``docs/integrations/examples/``; its ``main`` runs here for real,
with a scripted model in place of the paid one (the hand-written loop talks to a scripted
Chat Completions server on 127.0.0.1 through the real ``openai`` client); the ``*_no_key``
examples bring their own, the framework's test model, and run as a user trying them would.
The pages show the files verbatim, each block marked ``<!-- tested: ... -->``; the last test
checks that every such block is still byte-identical to its file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from integration_helpers import ScriptedModel, ToolCallingFakeModel, asks, function_call, say
from langchain_core.messages import AIMessage
from openai import AsyncOpenAI
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import agents

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "integrations" / "examples"
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # the scripted Chat Completions server

from model_server import completion, running_model_server, tool_call  # noqa: E402

pytestmark = pytest.mark.anyio

NOTES = "one two three four five\n"
THIS_FILE = "tests/integrations/test_docs_examples.py"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"doc_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    return tmp_path


def script_steps() -> list[list[tuple[str, dict[str, Any], str]]]:
    """What the scripted model asks for: read the file, count its words, then answer."""
    return [
        [("read_file", {"path": "notes.txt"}, "read")],
        [("word_count", {"text": NOTES}, "count")],
    ]


async def test_the_pydantic_ai_example(root: Path) -> None:
    seen: list[str] = []
    steps = script_steps()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(
            str(part.content) for part in messages[-1].parts if hasattr(part, "tool_call_id")
        )
        if not steps:
            return ModelResponse(parts=[TextPart(f"{seen[-1].splitlines()[1]} words")])
        return ModelResponse(
            parts=[ToolCallPart(tool_name=n, args=a, tool_call_id=i) for n, a, i in steps.pop(0)]
        )

    answer = await load("pydantic_ai_agent").main(FunctionModel(respond), root=str(root))
    assert answer == "5 words"
    assert '<untrusted source="file:notes.txt" tool="read_file">' in seen[0]


async def test_the_openai_agents_example(root: Path) -> None:
    agents.set_tracing_disabled(True)
    model = ScriptedModel(
        *[[function_call(n, a, i) for n, a, i in step] for step in script_steps()],
        [say("5 words")],
    )
    answer = await load("openai_agents_agent").main(model, root=str(root))
    assert answer == "5 words"
    outputs = {
        item["call_id"]: item["output"]
        for sent in model.inputs
        if isinstance(sent, list)
        for item in sent
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }
    assert "one two three four five" in outputs["read"]
    assert "\n5\n" in outputs["count"]


async def test_the_langgraph_example(root: Path) -> None:
    replies = [asks(*step) for step in script_steps()] + [AIMessage("5 words")]
    model = ToolCallingFakeModel(messages=iter(replies))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # create_agent is LangGraph 1.x's way
        answer = await load("langgraph_agent").main(model, root=str(root))
    assert answer == "5 words"
    assert [t["function"]["name"] for t in model.bound][-1] == "word_count"


READ_NOTES = (
    "===TOOL_RESULT_START:read_file===\n"
    '<untrusted source="file:notes.txt" tool="read_file">\n'
    "# {root}/notes.txt (1 line)\n"
    f"{NOTES}"
    "</untrusted>\n"
    "===TOOL_RESULT_END==="
)


async def test_the_pydantic_ai_no_key_example(root: Path) -> None:
    answer = await load("pydantic_ai_no_key").main(root=str(root))
    assert json.loads(answer) == {
        "word_count": "===TOOL_RESULT_START:word_count===\n1\n===TOOL_RESULT_END==="
    }


async def test_the_openai_agents_no_key_example(root: Path) -> None:
    answer = await load("openai_agents_no_key").main(root=str(root))
    assert answer == READ_NOTES.format(root=root)


async def test_the_langgraph_no_key_example(root: Path) -> None:
    answer = await load("langgraph_no_key").main(root=str(root))
    assert answer == READ_NOTES.format(root=root)


async def test_the_amplifier_no_key_example(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = await load("amplifier_no_key").main(root=str(root))
    assert capsys.readouterr().out == "asked: Write hello.txt? ['Allow', 'Deny']\n"
    assert answer.startswith("===TOOL_RESULT_START:write_file===\nCreated ")
    assert (root / "hello.txt").read_text(encoding="utf-8") == "hello\n"


async def test_the_amplifier_example(root: Path) -> None:
    read, shell = await load("amplifier_module").main(root=str(root))
    assert "one two three four five" in read
    assert '<untrusted source="file:notes.txt" tool="read_file">' in read
    assert shell == "no shell in this session"


async def test_the_hand_written_loop(root: Path) -> None:
    async with running_model_server() as server:
        server.add(
            completion(None, tool_call("read_file", {"path": "notes.txt"}, "c1")),
            completion(None, tool_call("word_count", {"text": NOTES}, "c2")),
            completion("5 words"),
        )
        # closed here: left to the garbage collector, its connections were closed later on
        # another test's event loop, failing that test ("Event loop is closed")
        async with AsyncOpenAI(base_url=server.base_url, api_key="test-key") as client:
            answer = await load("hand_written_loop").main(client, model="test", root=str(root))
    assert answer == "5 words"
    first, second, third = server.requests
    assert "word_count" in first.tool_names
    [read] = second.tool_messages()
    assert '<untrusted source="file:notes.txt" tool="read_file">' in read["content"]
    count = third.tool_messages()[-1]
    assert count["content"] == "===TOOL_RESULT_START:word_count===\n5\n===TOOL_RESULT_END==="


async def test_the_openai_agents_mcp_client_example(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents.set_tracing_disabled(True)
    bin_dir = str(Path(sys.executable).parent)  # where the toolwire command is installed
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ.get('PATH', '')}")
    model = ScriptedModel(
        [function_call("read_file", {"path": "notes.txt", "end_line": 1}, "r")], [say("done")]
    )
    answer = await load("mcp_openai_agents").main(model, root=str(root))
    assert answer == "done"
    assert "read_file" in {tool.name for tool in model.tools}
    sent = [
        item["output"]
        for item in model.inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    [[block]] = sent  # MCP content: one text block
    assert "one two three four five" in block["text"]
    assert "===TOOL_RESULT_START:read_file===" in block["text"]


_MARKED = re.compile(
    r"<!-- tested: (?P<target>[^ ]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL
)
PAGES = {
    "docs/integrations/pydantic-ai.md": ["pydantic_ai_agent", "pydantic_ai_no_key"],
    "docs/integrations/openai-agents.md": ["openai_agents_agent", "openai_agents_no_key"],
    "docs/integrations/langgraph.md": ["langgraph_agent", "langgraph_no_key"],
    "docs/integrations/amplifier.md": ["amplifier_module", "amplifier_no_key"],
    "docs/integrations/index.md": ["mcp_openai_agents"],
    "README.md": ["hand_written_loop", "pydantic_ai_agent"],
}
TESTS = {
    "pydantic_ai_agent": "test_the_pydantic_ai_example",
    "openai_agents_agent": "test_the_openai_agents_example",
    "langgraph_agent": "test_the_langgraph_example",
    "amplifier_module": "test_the_amplifier_example",
    "hand_written_loop": "test_the_hand_written_loop",
    "mcp_openai_agents": "test_the_openai_agents_mcp_client_example",
    "pydantic_ai_no_key": "test_the_pydantic_ai_no_key_example",
    "openai_agents_no_key": "test_the_openai_agents_no_key_example",
    "langgraph_no_key": "test_the_langgraph_no_key_example",
    "amplifier_no_key": "test_the_amplifier_no_key_example",
}


@pytest.mark.parametrize(("page", "examples"), sorted(PAGES.items()))
def test_the_pages_show_the_tested_files_verbatim(page: str, examples: list[str]) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    shown = {m.group("target"): m.group("code") for m in _MARKED.finditer(text)}
    for example in examples:
        target = f"{THIS_FILE}::{TESTS[example]}"
        assert target in shown, f"{page} has no block marked <!-- tested: {target} -->"
        source = (EXAMPLES / f"{example}.py").read_text(encoding="utf-8").rstrip("\n")
        assert shown[target] == source, f"{page}: the {example} block differs from its file"

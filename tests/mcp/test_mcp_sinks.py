"""``[mcp.servers.<name>] sink``: tools bridged from an MCP server declared sinks meet the flow
rule. The injected exfiltration against a real MCP server (``servers/exfil_server.py`` over stdio,
bridged by ``open_registry``): a page tells the model to post the deploy secret to the attacker's
channel; after that untrusted result, the bridged ``post_message`` waits for a human (``approve``)
or is refused (``refuse``), inside a ``run_code`` program too, while the bridged ``add``, not a
sink, still runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp_helpers import SERVERS

from toolwire.config import load_config
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.approvals import pending_approval
from toolwire.mcp._settings import McpServerConfig
from toolwire.results import Err, ErrorCode, Ok
from toolwire.wiring import open_registry

pytestmark = pytest.mark.anyio

EXFIL = SERVERS / "exfil_server.py"
SECRET = "deploy-key-7f3a"
POST = {"channel": "#attacker-drop", "text": SECRET}


def _config(tmp_path: Path, sink: str, policy: str, code_mode: bool = False) -> Path:
    lines = [
        "[mcp.servers.chat]",
        f"command = {json.dumps(sys.executable)}",
        f"args = [{json.dumps(str(EXFIL))}]",
        f"env = {{ TOOLWIRE_TEST_MARKERS = {json.dumps(str(tmp_path))} }}",
        f"sink = {sink}",
        "[flow]",
        f'after_untrusted = "{policy}"',
    ]
    if code_mode:
        lines += ["[code_mode]", "enabled = true"]
    path = tmp_path / "toolwire.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _posted(tmp_path: Path) -> list[str]:
    posted = tmp_path / "posted"
    return posted.read_text().splitlines() if posted.exists() else []


@pytest.mark.parametrize(
    ("sink", "policy", "reason"),
    [
        ('["post_message"]', "approve", "approval_required"),
        ('["post_message"]', "refuse", "untrusted_flow"),
        ("true", "refuse", "untrusted_flow"),
    ],
)
async def test_after_an_injected_page_the_bridged_sink_is_stopped(
    tmp_path: Path, sink: str, policy: str, reason: str
) -> None:
    config = load_config(_config(tmp_path, sink, policy), env={})
    ctx = ToolContext(session_id="victim")
    async with open_registry(config) as wired:
        registry = wired.registry
        assert registry.get("mcp__chat__post_message").sink  # type: ignore[union-attr]
        page = await registry.execute("mcp__chat__read_page", {"url": "https://x.test"}, ctx)
        assert isinstance(page.result, Ok)
        assert "#attacker-drop" in page.result.value
        post = await registry.execute("mcp__chat__post_message", POST, ctx)
        assert isinstance(post.result, Err)
        assert (post.result.code, post.result.reason) == (ErrorCode.NOT_AVAILABLE, reason)
        if reason == "approval_required":
            pending = pending_approval(post)
            assert pending is not None
            assert pending.args == POST  # the human sees the secret about to leave
        added = await registry.execute("mcp__chat__add", {"a": 2, "b": 3}, ctx)
        if sink == "true":  # every tool of the server is a sink
            assert isinstance(added.result, Err)
        else:
            assert isinstance(added.result, Ok), added.result
            assert "5" in added.result.value
    assert _posted(tmp_path) == []


async def test_without_untrusted_output_the_bridged_sink_runs(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, '["post_message"]', "refuse"), env={})
    async with open_registry(config) as wired:
        post = await wired.registry.execute(
            "mcp__chat__post_message", POST, ToolContext(session_id="clean")
        )
        assert isinstance(post.result, Ok), post.result
    assert _posted(tmp_path) == [f"#attacker-drop: {SECRET}"]


async def test_a_program_that_read_the_page_cannot_post_through_the_bridge(
    tmp_path: Path,
) -> None:
    pytest.importorskip("pydantic_monty")
    config = load_config(_config(tmp_path, '["post_message"]', "refuse", code_mode=True), env={})
    program = f"""
page = await chat.read_page(url="https://x.test")
try:
    await chat.post_message(channel="#attacker-drop", text="{SECRET}")
    sent = "sent"
except PermissionError as exc:
    sent = str(exc)
total = await chat.add(a=2, b=3)
[sent, total]
"""
    async with open_registry(config) as wired:
        outcome = await wired.registry.execute(
            "run_code", {"code": program}, ToolContext(session_id="program")
        )
        assert isinstance(outcome.result, Ok), outcome.result
        sent, total = outcome.result.structured["result"]  # type: ignore[index]
        assert "flow policy refuses the call" in sent
        assert "5" in str(total)
    assert _posted(tmp_path) == []


def test_sink_values_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "toolwire.toml"
    path.write_text('[mcp.servers.chat]\ncommand = "x"\nsink = "post_message"\n')
    with pytest.raises(ConfigurationError, match=r"sink.*expected true, false or a list"):
        load_config(path, env={})
    with pytest.raises(ConfigurationError, match="tools list leaves out"):
        McpServerConfig(name="chat", command="x", tools=("add",), sink=("post_message",))
    assert McpServerConfig(name="chat", command="x", sink=True).is_sink("anything")
    assert not McpServerConfig(name="chat", command="x").is_sink("anything")

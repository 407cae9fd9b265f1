"""``toolwire serve --tools tools.py`` serves your tools to MCP clients, over stdio (the fast
path and the SDK's) and streamable HTTP, through the sandbox and the presenter; ``--reload``
picks up a changed tools file. Real ``toolwire`` processes, the MCP SDK's client and the MCP
Inspector."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from serve_helpers import START_TIMEOUT_S, WAIT_S, free_port, stop
from user_tools_project import TOOLWIRE, UNTRUSTED_OPEN, cli_env, make_tools_project

from service_checks import missing_here

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_tools_project(tmp_path)


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def _exercise(client: Client) -> None:
    """The tools are listed with their hints, and calls go through the pipeline and presenter."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"add", "first_line", "run", "read_file"} <= set(listed)
    assert listed["add"].input_schema["required"] == ["a", "b"]
    hints = listed["first_line"].annotations
    assert hints is not None
    assert (hints.title, hints.read_only_hint, hints.idempotent_hint) == ("First line", True, True)
    added = await client.call_tool("add", {"a": 1, "b": 2})
    assert _text(added) == "===TOOL_RESULT_START:add===\n3\n===TOOL_RESULT_END==="
    read = _text(await client.call_tool("first_line", {"path": "notes.txt"}))
    assert read.count(UNTRUSTED_OPEN) == 1
    assert '<untrusted source="notes.txt" tool="first_line">\nhello from notes\n' in read
    refused = await client.call_tool("first_line", {"path": "/etc/passwd"})
    assert refused.is_error
    assert "PATH_NOT_REACHABLE" in _text(refused)


@pytest.mark.parametrize("lean", ["1", "0"], ids=["fast-path", "sdk"])
async def test_serve_stdio_serves_your_tools(project: Path, lean: str) -> None:
    params = StdioServerParameters(
        command=TOOLWIRE,
        args=["serve", "--stdio", "--tools", "tools.py"],
        cwd=str(project),
        env=cli_env(TOOLWIRE_MCP_LEAN=lean),
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            await _exercise(client)


INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"
"""The MCP Inspector, whose command-line mode lists and calls tools as its web page does."""
SERVE_MINE = (TOOLWIRE, "serve", "--stdio", "--tools", "tools.py")


def _inspect(project: Path, *method: str) -> dict[str, Any]:
    npx = shutil.which("npx")
    if npx is None:
        missing_here("npx (Node.js) is not installed", "scripts/system-deps.sh installs node")
    done = subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", *SERVE_MINE, "--method", *method],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        env=cli_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_mcp_inspector_lists_and_calls_your_tools(project: Path) -> None:
    listed = _inspect(project, "tools/list")
    assert {"add", "first_line", "run"} <= {tool["name"] for tool in listed["tools"]}
    called = _inspect(
        project, "tools/call", "--tool-name", "first_line", "--tool-arg", "path=notes.txt"
    )
    text = called["content"][0]["text"]
    assert text.count(UNTRUSTED_OPEN) == 1
    assert "hello from notes" in text


def _serve_http(project: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path, str]:
    """``toolwire serve --http 127.0.0.1:<free> ARGS`` in ``project``; the process, its log
    (stderr) and the URL, once the banner lists a tool."""
    log = project / "serve.log"
    port = free_port()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [TOOLWIRE, "serve", "--http", f"127.0.0.1:{port}", *args],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=cli_env(),
        )
    _wait_for(process, log, "tool     add")
    return process, log, f"http://127.0.0.1:{port}/mcp"


def _wait_for(process: subprocess.Popen[bytes], log: Path, text: str, after: int = 0) -> None:
    """Wait until ``text`` is in the log past offset ``after`` (fail if the process ends)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        if text in log.read_text(errors="replace")[after:]:
            return
        time.sleep(0.05)
    stop(process)
    raise AssertionError(f"{text!r} never appeared:\n{log.read_text(errors='replace')}")


@pytest.fixture
def http_served(project: Path) -> Iterator[tuple[str, Path]]:
    process, log, url = _serve_http(project, "--tools", "tools.py")
    yield url, log
    stop(process)


async def test_serve_http_serves_your_tools_to_an_mcp_client(
    http_served: tuple[str, Path],
) -> None:
    url, log = http_served
    assert "  tool     first_line  [read-only, idempotent, open-world]\n" in log.read_text()
    with anyio.fail_after(60):
        async with Client(url) as client:
            await _exercise(client)


async def test_serve_reload_restarts_when_the_tools_file_changes(project: Path) -> None:
    process, log, url = _serve_http(project, "--tools", "tools.py", "--reload")
    try:
        with anyio.fail_after(60):
            async with Client(url) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
        assert "subtract" not in names
        seen = len(log.read_text(errors="replace"))
        with (project / "tools.py").open("a") as tools_py:
            tools_py.write(
                "\n\n@tool\ndef subtract(a: int, b: int) -> int:\n"
                "    '''Subtract b from a.'''\n    return a - b\n"
            )
        _wait_for(process, log, "tool     subtract", after=seen)
        assert "toolwire reloading: tools.py changed" in log.read_text()[seen:]
        with anyio.fail_after(60):
            async with Client(url) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                result = await client.call_tool("subtract", {"a": 5, "b": 3})
        assert {"add", "subtract"} <= names
        assert "\n2\n" in _text(result)
    finally:
        process.terminate()
        try:
            process.wait(15)
        finally:
            stop(process)
    assert process.returncode == 0
    assert "toolwire stopped on SIGTERM" in log.read_text()


async def test_serve_reload_waits_out_a_broken_tools_file(project: Path) -> None:
    process, log, url = _serve_http(project, "--tools", "tools.py", "--reload")
    good = (project / "tools.py").read_text()
    try:
        seen = len(log.read_text(errors="replace"))
        (project / "tools.py").write_text(good + "\ndef broken(:\n")
        _wait_for(process, log, "it starts again when a watched file changes", after=seen)
        assert "error: tools.py:" in log.read_text()[seen:]
        seen = len(log.read_text(errors="replace"))
        (project / "tools.py").write_text(good)
        _wait_for(process, log, "tool     add", after=seen)
        with anyio.fail_after(60):
            async with Client(url) as client:
                assert "add" in {tool.name for tool in (await client.list_tools()).tools}
    finally:
        stop(process)


def test_the_reloaded_server_dies_with_its_watcher(project: Path) -> None:
    process, _, _ = _serve_http(project, "--tools", "tools.py", "--reload")
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) == 1
    server = int(children[0])
    process.kill()  # no chance to stop its child: the kernel does (PR_SET_PDEATHSIG)
    process.wait(WAIT_S)
    deadline = time.monotonic() + WAIT_S
    while _state(server) not in ("gone", "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(server) in ("gone", "Z")


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_serve_reload_refuses_stdio(project: Path) -> None:
    done = subprocess.run(
        [TOOLWIRE, "serve", "--stdio", "--reload"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=cli_env(),
        check=False,
    )
    assert done.returncode == 2
    assert "--reload restarts an HTTP server" in done.stderr

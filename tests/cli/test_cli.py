"""The ``toolwire`` command: call and tools in-process, serve as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from typer.testing import CliRunner

from toolwire.cli.app import app

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with a file and a config using the in-memory store."""
    (tmp_path / "hello.txt").write_text("hello from the sandbox\n")
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLWIRE_CONFIG", raising=False)
    return tmp_path


def test_call_prints_the_presented_result(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", '{"path": "hello.txt"}'])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("===TOOL_RESULT_START:read_file===")
    assert "hello from the sandbox" in result.stdout


def test_call_exits_1_on_an_err(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", '{"path": "missing.txt"}'])
    assert result.exit_code == 1
    assert "file not found" in result.stdout


def test_call_exits_1_for_an_unknown_tool(project: Path) -> None:
    result = runner.invoke(app, ["call", "no_such_tool", "{}"])
    assert result.exit_code == 1
    assert result.stdout.strip() == "Unknown tool: no_such_tool"


def test_call_exits_2_on_arguments_that_are_not_json(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", "{path"])
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr


def test_call_exits_2_on_a_missing_argument(project: Path) -> None:
    assert runner.invoke(app, ["call"]).exit_code == 2


def test_call_json_output_is_machine_readable(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", '{"path": "missing.txt"}', "--json"])
    payload = json.loads(result.stdout)
    assert result.exit_code == 1
    assert payload["ok"] is False
    assert payload["code"] == "execution_failed"
    assert "file not found" in payload["presented"]


def test_a_bad_config_file_names_key_and_line_without_a_traceback(project: Path) -> None:
    (project / "toolwire.toml").write_text("[store]\nurl = 5\n")
    result = runner.invoke(app, ["tools"])
    assert result.exit_code == 2
    assert "toolwire.toml:2: store.url: expected a string" in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["tools"], ["call", "read_file", '{"path": "hello.txt"}']])
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('[tools]\ntoolsets = ["nope"]\n', "unknown toolset(s) ['nope']"),
        ('[store]\nurl = "bogus://x"\n', "unknown key-value URL scheme 'bogus'"),
        (
            '[sandbox]\nroots = ["missing-dir"]\n',
            "missing-dir does not exist (from [sandbox] roots)",
        ),
    ],
)
def test_a_config_the_registry_cannot_be_built_from_exits_2_without_a_traceback(
    project: Path, command: list[str], config: str, message: str
) -> None:
    (project / "toolwire.toml").write_text(config)
    result = runner.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


def test_a_sandbox_that_is_the_whole_disk_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "toolwire.toml").unlink()
    monkeypatch.chdir("/")
    result = runner.invoke(app, ["tools"])
    assert result.exit_code == 2
    assert "the sandbox root is /, the whole disk" in " ".join(result.stderr.split())


def test_a_sandbox_on_the_home_directory_is_a_warning_unless_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("TOOLWIRE_CONFIG", raising=False)
    monkeypatch.chdir(home)
    (home / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    warned = runner.invoke(app, ["tools", "--json"])
    assert warned.exit_code == 0, warned.output
    assert f"the sandbox root is your home directory {home}" in " ".join(warned.stderr.split())
    (home / "toolwire.toml").write_text('[store]\nurl = "memory://"\n[sandbox]\nroots = ["."]\n')
    named = runner.invoke(app, ["tools", "--json"])
    assert named.exit_code == 0, named.output
    assert "warning" not in named.stderr


def test_tools_lists_name_toolset_annotations_and_capabilities(project: Path) -> None:
    result = runner.invoke(app, ["tools"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    line = next(row for row in result.stdout.splitlines() if " read_file " in row)
    assert "file" in line
    assert "read-only, idempotent" in line
    assert "fs_reach" in line


def test_tools_json_lists_every_tool(project: Path) -> None:
    result = runner.invoke(app, ["tools", "--json"])
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)}
    assert tools["terminal"]["capabilities"] == ["fs_reach", "process"]
    assert tools["read_file"]["annotations"]["read_only"] is True


def test_serve_refuses_both_transports(project: Path) -> None:
    result = runner.invoke(app, ["serve", "--stdio", "--http", "127.0.0.1:1"])
    assert result.exit_code == 2


def test_serve_refuses_a_malformed_address(project: Path) -> None:
    result = runner.invoke(app, ["serve", "--http", "localhost"])
    assert result.exit_code == 2
    assert "HOST:PORT" in result.stderr


# -- real servers ----------------------------------------------------------------------------


@pytest.fixture
def http_serve(project: Path) -> Iterator[tuple[str, Path]]:
    """``python -m toolwire serve --http 127.0.0.1:0`` in the project; yields (url, log)."""
    log = project / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire", "serve", "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env={**os.environ, "COLUMNS": "200"},
        )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            text = log.read_text(errors="replace")
            if "streamable HTTP at " in text and "tool     read_file" in text:
                url = text.split("streamable HTTP at ", 1)[1].split()[0]
                yield url, log
                return
            time.sleep(0.05)
        raise AssertionError(f"toolwire serve did not start:\n{log.read_text(errors='replace')}")
    finally:
        process.terminate()
        process.wait(10)


def test_serve_prints_address_sandbox_store_and_tools(http_serve: tuple[str, Path]) -> None:
    url, log = http_serve
    banner = log.read_text()
    assert url.startswith("http://127.0.0.1:")
    assert url.endswith("/mcp")
    assert "sandbox" in banner
    assert "(read+write)" in banner
    assert "store    memory://" in banner
    assert "tool     terminal  [destructive, open-world]" in banner


@pytest.mark.anyio
async def test_serve_over_http_answers_an_mcp_client(http_serve: tuple[str, Path]) -> None:
    url, _ = http_serve
    with anyio.fail_after(20):
        async with Client(url) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("read_file", {"path": "hello.txt"})
    assert "read_file" in names
    text = "".join(b.text for b in result.content if isinstance(b, mt.TextContent))
    assert "hello from the sandbox" in text


@pytest.mark.anyio
async def test_serve_over_stdio_answers_an_mcp_client(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire", "serve", "--stdio"], cwd=str(project)
    )
    with anyio.fail_after(20):
        async with Client(params) as client:
            result = await client.call_tool("read_file", {"path": "hello.txt"})
    text = "".join(b.text for b in result.content if isinstance(b, mt.TextContent))
    assert "hello from the sandbox" in text

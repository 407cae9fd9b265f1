"""Every documented install works: the wheel, installed with each documented extra into a clean
venv, does what the docs say that extra enables, with no traceback anywhere.

The suite itself runs on ``.[test]`` (every extra), which hides a module that imports a package
only an extra brings: these venvs have nothing but the wheel and its declared dependencies.
A missing extra must be one line that names the ``pip install`` to run, never a traceback.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path

import pytest
from install_venvs import ROOT, Installer, installer_session

from doc_blocks import blocks
from subprocesses import stop_process

pytestmark = pytest.mark.installs

NOTES = "one two three four five\n"


@pytest.fixture(scope="session")
def installer() -> Iterator[Installer]:
    yield from installer_session()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory with a file to read (``HOME`` is its sibling ``home``)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text(NOTES, encoding="utf-8")
    return project


def first_example() -> str:
    """The README's first Python example (a tool and a batch)."""
    for block in blocks(ROOT / "README.md"):
        if block.language == "python" and "execute_parallel" in block.code:
            return block.code
    raise AssertionError("README.md has no Python example calling execute_parallel")


def test_the_wheel_ships_the_package_and_no_test_fixture(installer: Installer) -> None:
    """Regression (issue 24): the MCP conformance fixture was packaged as
    ``toolwire.mcp.conformance``; it is a test fixture and lives in ``tests/`` now."""
    with zipfile.ZipFile(installer.wheel) as wheel:
        names = wheel.namelist()
    assert "toolwire/__init__.py" in names
    assert all(name.startswith(("toolwire/", "toolwire-")) for name in names)
    assert [name for name in names if "conformance" in name] == []


def test_the_base_install_builds_backends_and_runs_the_readme_example(
    installer: Installer, project: Path
) -> None:
    venv = installer.get("base")
    venv.run(
        ["python", "-c", "from toolwire import ToolRegistry, create_backends, tool; "
         "create_backends()"],
        cwd=project,
    ).check()  # fmt: skip
    ran = venv.run(["python", "-c", first_example()], cwd=project).check()
    assert "c1 Ok(value='3'" in ran.stdout


def test_the_base_install_names_the_cli_extra_instead_of_a_traceback(
    installer: Installer, project: Path
) -> None:
    ran = installer.get("base").run(["toolwire", "tools"], cwd=project)
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 2
    assert "pip install 'toolwire[cli]'" in ran.stderr


@pytest.mark.parametrize("argv", [["serve", "--stdio"], ["serve"]])
def test_serving_without_the_mcp_extra_names_it(
    installer: Installer, project: Path, argv: list[str]
) -> None:
    venv = installer.get("cli")
    venv.run(["toolwire", "tools"], cwd=project).check()
    ran = venv.run(["toolwire", *argv], cwd=project)
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 2
    assert "pip install 'toolwire[mcp]'" in ran.stderr


def test_bridging_mcp_servers_without_the_mcp_extra_names_it(
    installer: Installer, project: Path
) -> None:
    (project / "toolwire.toml").write_text('[mcp.servers.files]\ncommand = "true"\n')
    ran = installer.get("cli").run(["toolwire", "call", "read_file", "{}"], cwd=project)
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 2
    assert "pip install 'toolwire[mcp]'" in " ".join(ran.stderr.split())  # rich wraps lines


def test_the_mcp_cli_install_lists_checks_and_calls(installer: Installer, project: Path) -> None:
    venv = installer.get("mcp-cli")
    assert "read_file" in venv.run(["toolwire", "tools"], cwd=project).check().stdout
    doctor = venv.run(["toolwire", "doctor"], cwd=project).check()
    assert "pip install 'toolwire[web]'" in doctor.stdout  # fetch_url's extra is named
    call = '{"path": "notes.txt"}'
    ran = venv.run(["toolwire", "call", "read_file", call], cwd=project).check()
    assert "one two three four five" in ran.stdout
    fetch = venv.run(["toolwire", "call", "fetch_url", '{"url": "http://x.invalid/"}'], cwd=project)
    assert "Traceback" not in fetch.stderr
    assert "fetch_url is not currently available" in fetch.stdout + fetch.stderr


def test_the_mcp_cli_install_serves_stdio(installer: Installer, project: Path) -> None:
    venv = installer.get("mcp-cli")
    server = subprocess.Popen(
        [venv.toolwire, "serve", "--stdio"],
        cwd=project,
        env=venv.env(project.parent / "home"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert server.stdin is not None
        assert server.stdout is not None
        answers = {}
        for message in _handshake_and_calls():
            server.stdin.write(json.dumps(message).encode() + b"\n")
            server.stdin.flush()
            if "id" in message:
                answer = json.loads(server.stdout.readline())
                answers[answer["id"]] = answer
        server.stdin.close()
        assert server.wait(30) == 0
        stderr = server.stderr.read().decode() if server.stderr else ""
    finally:
        stop_process(server)
    assert "Traceback" not in stderr
    assert answers[1]["result"]["serverInfo"]["name"] == "toolwire"
    assert "read_file" in {tool["name"] for tool in answers[2]["result"]["tools"]}
    assert "one two three four five" in json.dumps(answers[3]["result"])


def test_the_mcp_cli_install_serves_http(installer: Installer, project: Path) -> None:
    venv = installer.get("mcp-cli")
    port = _free_port()
    server = subprocess.Popen(
        [venv.toolwire, "serve", "--http", f"127.0.0.1:{port}"],
        cwd=project,
        env=venv.env(project.parent / "home"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        answer = _post_initialize(port, server)
        server.terminate()
        assert server.wait(30) == 0
        stderr = server.stderr.read().decode() if server.stderr else ""
    finally:
        stop_process(server)
    assert "Traceback" not in stderr
    assert answer["result"]["serverInfo"]["name"] == "toolwire"


def test_the_web_install_fetches_and_extracts_a_page(installer: Installer, project: Path) -> None:
    (project / "page.html").write_text(
        "<html><head><title>Notes</title></head><body><article><h1>Hello</h1>"
        "<p>The web extra turned this page into text.</p></article></body></html>",
        encoding="utf-8",
    )
    with _http_server(project) as port:
        script = _FETCH_SCRIPT.replace("URL", f"http://127.0.0.1:{port}/page.html")
        ran = installer.get("web").run(["python", "-c", script], cwd=project).check()
    assert "The web extra turned this page into text." in ran.stdout
    assert "Err(" not in ran.stdout


def test_the_pydantic_ai_install_runs_the_readme_quick_start(
    installer: Installer, project: Path
) -> None:
    example = ROOT / "docs" / "integrations" / "examples" / "pydantic_ai_agent.py"
    script = _PYDANTIC_AI_SCRIPT.replace("EXAMPLE", str(example))
    ran = installer.get("pydantic-ai").run(["python", "-c", script], cwd=project).check()
    assert ran.stdout.strip() == "5 words"


def test_every_extra_together_imports_every_module_adapter_and_example(
    installer: Installer, project: Path
) -> None:
    venv = installer.get("everything")
    ran = venv.run(["python", "-c", _IMPORT_ALL_SCRIPT], cwd=project).check()
    assert ran.stdout.strip() == "[]"
    examples = ROOT / "docs" / "integrations" / "examples"
    names = ["pydantic_ai_agent", "openai_agents_agent", "langgraph_agent", "amplifier_module"]
    script = _LOAD_EXAMPLES_SCRIPT.replace("EXAMPLES", str(examples)).replace("NAMES", repr(names))
    ran = venv.run(["python", "-c", script], cwd=project).check()
    assert ran.stdout.split() == names
    venv.run(["toolwire", "doctor"], cwd=project).check()


# -- helpers ---------------------------------------------------------------------------------


def _handshake_and_calls() -> list[dict[str, object]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "install-test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "notes.txt"}},
        },
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _post_initialize(port: int, server: subprocess.Popen[bytes]) -> dict[str, object]:
    """POST ``initialize`` once the server listens (it prints its banner first)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=json.dumps(_handshake_and_calls()[0]).encode(),
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        },
    )
    deadline = time.monotonic() + 60
    while True:
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                body = response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
            continue
        if body.startswith("{"):
            answer: dict[str, object] = json.loads(body)
            return answer
        data = [line[5:] for line in body.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])  # type: ignore[no-any-return]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _http_server(directory: Path) -> Iterator[int]:
    """A static file server on 127.0.0.1 for ``directory``, on its own thread; its port."""
    server = HTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


_FETCH_SCRIPT = """
import anyio
from toolwire import ToolContext, ToolRegistry, create_backends
from toolwire.toolbox import default_tools

async def main():
    backends = create_backends(network={"allow_private_urls": True})
    async with backends, ToolRegistry(backends=backends) as registry:
        registry.register_all([t for t in default_tools() if t.name == "fetch_url"])
        outcome = await registry.execute("fetch_url", {"url": "URL"}, ToolContext(session_id="s1"))
        print(outcome.result)

anyio.run(main)
"""

_PYDANTIC_AI_SCRIPT = """
import importlib.util
import anyio
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel

spec = importlib.util.spec_from_file_location("example", "EXAMPLE")
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
steps = [("read_file", {"path": "notes.txt"}), ("word_count", {"text": "one two three four five"})]
seen = []

def respond(messages, info):
    seen.extend(str(p.content) for p in messages[-1].parts if hasattr(p, "tool_call_id"))
    if not steps:
        return ModelResponse(parts=[TextPart(seen[-1].splitlines()[1] + " words")])
    name, args = steps.pop(0)
    return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args, tool_call_id=name)])

print(anyio.run(example.main, FunctionModel(respond), "."))
"""

_IMPORT_ALL_SCRIPT = """
import importlib, pkgutil, toolwire
failed = []
for module in pkgutil.walk_packages(toolwire.__path__, "toolwire.", onerror=failed.append):
    try:
        importlib.import_module(module.name)
    except Exception as exc:
        failed.append(f"{module.name}: {exc!r}")
print(failed)
"""

_LOAD_EXAMPLES_SCRIPT = """
import importlib, importlib.util
for adapter in ("pydantic_ai", "openai_agents", "langchain", "amplifier"):
    importlib.import_module("toolwire.integrations." + adapter)
for name in NAMES:
    spec = importlib.util.spec_from_file_location(name, f"EXAMPLES/{name}.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    print(name)
"""

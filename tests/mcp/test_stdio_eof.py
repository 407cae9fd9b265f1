"""Stdin's end on ``toolwire serve --stdio`` (`toolwire.mcp.server.fast_stdio.grace`): every request
written before the client closed stdin is answered before the process exits 0, on the lean loop,
after its handover to the SDK server and with the SDK serving from the start; a call still running
when the grace is over is aborted (its abort signal fires) and answered with an error.

Regression: a ``tools/call`` piped just before stdin closed got no answer (the lean loop and
the SDK's dispatcher both cancelled the calls in flight at EOF), and the process exited 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire.mcp.server.fast_stdio.grace import GRACE_ENV

TOOLS = '''
import os
from pathlib import Path

import anyio

from toolwire import define_tool, ok

OBJECT = {"type": "object"}


async def nap(args, ctx):
    """Sleep ``seconds``; when its abort signal fires, say so in the marker file ``tag``."""
    marker = Path(os.environ["EOF_MARKERS"]) / str(args.get("tag", "nap"))
    ctx.abort_signal.subscribe(lambda: marker.write_text(f"aborted: {ctx.abort_signal.reason}"))
    await anyio.sleep(float(args["seconds"]))
    return ok("napped")


async def peer_nap(args, ctx):
    """A nap that reaches for its client's peer: its calls are the SDK server's."""
    from toolwire.mcp import current_peer

    peer = current_peer()
    await nap(args, ctx)
    return ok("peer napped" if peer is not None else "no peer")


tools = [
    define_tool(name="nap", description="Nap.", schema=OBJECT, execute=nap),
    define_tool(name="peer_nap", description="Nap near the peer.", schema=OBJECT, execute=peer_nap),
]
'''

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "piped", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
WAIT_S = 90  # only a hang reaches it


def call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def tools_list(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}


def piped(
    project: Path, messages: list[dict[str, Any]], **env: str
) -> tuple[int, dict[Any, dict[str, Any]], str]:
    """``messages`` piped into ``toolwire serve --stdio``, then stdin closed: the exit code,
    the answers by id, and stderr."""
    (project / "eoftools.py").write_text(TOOLS)
    (project / "markers").mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "serve", "--stdio", "--tools", "eoftools.py"],
        cwd=project,
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
        env={**os.environ, "EOF_MARKERS": str(project / "markers"), **env},
    )
    said = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answers = {m["id"]: m for m in said if "id" in m and "method" not in m}
    return done.returncode, answers, done.stderr


def text_of(answer: dict[str, Any]) -> str:
    assert "result" in answer, answer
    text: str = answer["result"]["content"][0]["text"]
    return text


SERVED_BY = {"lean": {}, "sdk": {"TOOLWIRE_MCP_LEAN": "0"}}


@pytest.mark.parametrize("served_by", sorted(SERVED_BY))
def test_a_call_piped_before_stdin_closes_is_answered(tmp_path: Path, served_by: str) -> None:
    messages = [INITIALIZE, INITIALIZED, call(2, "nap", seconds=0.3), tools_list(3)]
    code, answers, stderr = piped(tmp_path, messages, **SERVED_BY[served_by])
    assert code == 0, stderr
    assert sorted(answers) == [1, 2, 3], stderr
    assert "napped" in text_of(answers[2])
    assert "nap" in {tool["name"] for tool in answers[3]["result"]["tools"]}


def test_every_request_is_answered_after_the_handover_to_the_sdk(tmp_path: Path) -> None:
    messages = [
        INITIALIZE,
        INITIALIZED,
        call(2, "nap", seconds=0.3),  # the lean loop's
        call(3, "peer_nap", seconds=0.3),  # the SDK server's: the handover
        tools_list(4),
        {"jsonrpc": "2.0", "id": 5, "method": "resources/list"},  # only the SDK answers it
    ]
    code, answers, stderr = piped(tmp_path, messages)
    assert code == 0, stderr
    assert sorted(answers) == [1, 2, 3, 4, 5], stderr
    assert "napped" in text_of(answers[2])
    assert "peer napped" in text_of(answers[3])
    assert "peer_nap" in {tool["name"] for tool in answers[4]["result"]["tools"]}
    assert "result" in answers[5] or "error" in answers[5]


@pytest.mark.parametrize(
    ("tool", "served_by"), [("nap", "lean"), ("peer_nap", "lean"), ("nap", "sdk")]
)
def test_a_call_still_running_after_the_grace_is_aborted_and_answered(
    tmp_path: Path, tool: str, served_by: str
) -> None:
    messages = [INITIALIZE, INITIALIZED, call(2, tool, seconds=600, tag="long"), tools_list(3)]
    env = {**SERVED_BY[served_by], GRACE_ENV: "0.5"}
    code, answers, stderr = piped(tmp_path, messages, **env)
    assert code == 0, stderr
    assert sorted(answers) == [1, 2, 3], stderr
    assert answers[2]["error"]["code"] == -32000  # Connection closed
    assert (tmp_path / "markers" / "long").read_text().startswith("aborted: ")


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_bad_grace_is_refused_at_start(tmp_path: Path, value: str) -> None:
    code, answers, stderr = piped(tmp_path, [INITIALIZE], **{GRACE_ENV: value})
    assert code == 2
    assert answers == {}
    assert GRACE_ENV in stderr


@pytest.mark.parametrize(
    ("tool", "served_by"), [("nap", "lean"), ("peer_nap", "lean"), ("nap", "sdk")]
)
def test_a_client_that_has_gone_gets_no_grace(tmp_path: Path, tool: str, served_by: str) -> None:
    """Nobody reads stdout any more (the client was killed): the call is aborted at once, not
    after the grace (600 s here: only a hang would reach it)."""
    (tmp_path / "eoftools.py").write_text(TOOLS)
    (tmp_path / "markers").mkdir()
    env = {**SERVED_BY[served_by], GRACE_ENV: "600", "EOF_MARKERS": str(tmp_path / "markers")}
    server = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "serve", "--stdio", "--tools", "eoftools.py"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )
    try:
        assert server.stdin is not None
        assert server.stdout is not None
        for message in [INITIALIZE, INITIALIZED, call(2, tool, seconds=600, tag="gone")]:
            server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.write(json.dumps(tools_list(3)).encode() + b"\n")
        server.stdin.flush()
        while json.loads(server.stdout.readline()).get("id") != 3:
            pass  # the call has been read (and started) by now
        server.stdout.close()  # the client goes away
        server.stdin.close()
        assert server.wait(timeout=WAIT_S) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert (tmp_path / "markers" / "gone").read_text().startswith("aborted: ")

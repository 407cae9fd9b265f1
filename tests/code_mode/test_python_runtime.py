"""``run_code(runtime="python")``: CPython in a real bubblewrap sandbox, its tool calls back
over the run's Unix socket through the pipeline."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest
from code_helpers import error_of, value_of
from python_helpers import ctx_in, python_registry, require_bwrap, run_py

from subprocesses import running_with
from toolwire.calls import ToolCall
from toolwire.decorator import tool
from toolwire.execution.approvals import pending_approval
from toolwire.results import ErrorCode, Ok
from toolwire.tool_options import ToolOptions

pytestmark = pytest.mark.anyio

RAN: list[str] = []


@pytest.fixture(autouse=True)
def _sandbox() -> None:
    require_bwrap()
    RAN.clear()


@tool
async def lookup(key: str) -> dict[str, str]:
    """Look a key up."""
    RAN.append(f"lookup:{key}")
    return {"key": key, "value": key.upper()}


@tool(options=ToolOptions(requires_approval=True))
async def send(to: str) -> str:
    """Send a message."""
    RAN.append(f"send:{to}")
    return f"sent to {to}"


async def test_calls_started_with_gather_reach_the_host_as_one_batch(tmp_path: Path) -> None:
    arrived: list[str] = []
    both = anyio.Event()

    @tool
    async def meet(name: str) -> str:
        """Wait until two calls are in flight at once."""
        arrived.append(name)
        if len(arrived) == 2:
            both.set()
        with anyio.fail_after(10):  # calls sent one by one would wait here forever
            await both.wait()
        return f"met {name}"

    registry = python_registry(tmp_path, [meet, lookup])
    code = """
import asyncio, json
pair = await asyncio.gather(meet(name="a"), meet("b"))
print(json.dumps(pair))
found = await lookup(key="k")
{"pair": pair, "found": found}
"""
    outcome = await run_py(registry, tmp_path, code)
    value = value_of(outcome)
    assert value == {"pair": ["met a", "met b"], "found": {"key": "k", "value": "K"}}
    assert isinstance(outcome.result, Ok)
    assert outcome.result.value.startswith('["met a", "met b"]\n')
    assert outcome.result.structured is not None
    assert outcome.result.structured["inner_calls"] == 3
    assert outcome.result.structured["runtime"] == "python"
    await registry.aclose()


async def test_a_program_reads_the_files_the_policy_grants_and_no_other(tmp_path: Path) -> None:
    registry = python_registry(tmp_path, [lookup])
    (tmp_path / "work" / "granted.txt").write_text("inside")
    (tmp_path / "secret.txt").write_text("outside")
    code = f"""
def read(path):
    try:
        return open(path).read()
    except OSError as exc:
        return type(exc).__name__
[read("granted.txt"), read({str(tmp_path / "secret.txt")!r})]
"""
    assert value_of(await run_py(registry, tmp_path, code)) == ["inside", "FileNotFoundError"]
    await registry.aclose()


async def test_a_program_cannot_call_a_tool_outside_the_callers_snapshot(tmp_path: Path) -> None:
    registry = python_registry(tmp_path, [lookup, send])
    code = """
import toolwire_tools
out = []
for attempt in (lambda: lookup(key="x"), lambda: toolwire_tools.call("run_code", code="1"),
                lambda: toolwire_tools.call("delete_everything")):
    try:
        out.append(await attempt())
    except Exception as exc:
        out.append(f"{type(exc).__name__}: {exc}")
out
"""
    call = ToolCall(id="c1", name="run_code", args={"code": code, "runtime": "python"})
    (outcome,) = await registry.execute_parallel(
        [call], ctx_in(tmp_path), filter_opts={"exclude_tools": ["lookup"]}
    )
    refused, itself, unknown = value_of(outcome)
    assert refused.startswith("PermissionError: lookup failed (not_available)")
    assert itself.startswith("NameError:")  # run_code is not a tool its programs may call
    assert unknown.startswith("NameError:")
    assert RAN == []
    await registry.aclose()


async def test_garbage_and_huge_frames_are_answered_and_the_host_serves_on(
    tmp_path: Path,
) -> None:
    registry = python_registry(tmp_path, [lookup], python_max_frame_bytes=64 * 1024)
    code = """
import json, os, socket, struct, toolwire_tools

def raw():
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["TOOLWIRE_TOOLS_SOCKET"])
    return s

def send(s, body):
    s.sendall(struct.pack(">I", len(body)) + body)

def answer(s):
    data = b""
    while len(data) < 4:
        try:
            chunk = s.recv(4 - len(data))
        except ConnectionResetError:  # closed with our unread bytes in its buffer
            return "closed"
        if not chunk:
            return "closed"
        data += chunk
    size = struct.unpack(">I", data)[0]
    body = b""
    while len(body) < size:
        body += s.recv(size - len(body))
    return json.loads(body)

seen = {}
s = raw()
send(s, json.dumps({"op": "hello", "token": "guessed"}).encode())
seen["bad token"] = answer(s)["error"]["code"]
seen["after bad token"] = answer(s)

s = raw()
send(s, json.dumps({"op": "hello", "token": toolwire_tools._LINK._token}).encode())
answer(s)
send(s, b"\\xff\\xfe not json")
seen["garbage"] = answer(s)["error"]["code"]
send(s, b"[1, 2]")
seen["not an object"] = answer(s)["error"]["code"]
send(s, json.dumps({"op": "call", "id": 7, "calls": [
    {"tool": "lookup", "args": [], "kwargs": {"key": "raw"}}, "nonsense"]}).encode())
seen["raw call"] = answer(s)["results"]
s.sendall(struct.pack(">I", 2**31) + b"x" * 100)
seen["huge"] = answer(s)["error"]["message"]
seen["after huge"] = answer(s)
seen["still served"] = await lookup(key="after")
seen
"""
    seen = value_of(await run_py(registry, tmp_path, code))
    assert seen["bad token"] == "unauthorized"
    assert seen["after bad token"] == "closed"
    assert seen["garbage"] == "bad_frame"
    assert seen["not an object"] == "bad_frame"
    ok, bad = seen["raw call"]
    assert ok == {"value": {"key": "raw", "value": "RAW"}}
    assert bad["error"]["type"] == "TypeError"
    assert "2147483648-byte frame" in seen["huge"]
    assert seen["after huge"] == "closed"
    assert seen["still served"] == {"key": "after", "value": "AFTER"}
    assert RAN == ["lookup:raw", "lookup:after"]
    await registry.aclose()


async def test_a_program_cannot_reach_the_socket_of_another_run(tmp_path: Path) -> None:
    paths: list[str] = []
    noted = anyio.Event()
    release = anyio.Event()

    @tool
    async def hold(path: str) -> str:
        """Note the run's socket path, then wait."""
        paths.append(path)
        noted.set()
        with anyio.fail_after(20):
            await release.wait()
        return "released"

    registry = python_registry(tmp_path, [hold, lookup])
    first = 'import os\nawait hold(path=os.environ["TOOLWIRE_TOOLS_SOCKET"])'
    results: list[object] = []

    async def run_first() -> None:
        results.append(value_of(await run_py(registry, tmp_path, first)))

    async with anyio.create_task_group() as group:
        group.start_soon(run_first)
        with anyio.fail_after(20):
            await noted.wait()
        other = paths[0]
        assert await anyio.Path(other).is_socket()  # on the host while the first run lives
        second = f"""
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect({other!r})
    reached = "connected"
except OSError as exc:
    reached = type(exc).__name__
reached
"""
        assert value_of(await run_py(registry, tmp_path, second)) == "FileNotFoundError"
        release.set()
    assert results == ["released"]
    assert not await anyio.Path(other).exists()  # one socket per run, removed after it
    assert not await anyio.Path(other).parent.exists()
    await registry.aclose()


async def test_at_the_time_limit_the_sandbox_dies_with_all_it_started(tmp_path: Path) -> None:
    registry = python_registry(tmp_path, [lookup], timeout_s=2.0)
    marker = f"300.{uuid.uuid4().int % 10**9:09d}"
    code = f"""
import subprocess, time
subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
time.sleep(60)
"""
    err = error_of(await run_py(registry, tmp_path, code))
    assert err.code is ErrorCode.EXECUTION_FAILED
    assert err.cause == "limit"
    assert running_with(f"sleep {marker}") == []
    await registry.aclose()


async def test_a_call_needing_approval_stops_the_program_and_reruns_once_approved(
    tmp_path: Path,
) -> None:
    registry = python_registry(tmp_path, [lookup, send])
    code = """
a = await lookup(key="before")
r = await send(to="bob")
print("after the send")
[a["value"], r]
"""
    stopped = await run_py(registry, tmp_path, code)
    err = error_of(stopped)
    assert err.code is ErrorCode.NOT_AVAILABLE
    assert err.reason == "approval_required"
    assert 'send({"to": "bob"})' in err.error
    assert "from the start" in err.error
    assert RAN == ["lookup:before"]  # stopped at the call: nothing after it ran
    pending = pending_approval(stopped)
    assert pending is not None
    approved = await run_py(registry, tmp_path, code, approvals=[pending.token])
    assert value_of(approved) == ["BEFORE", "sent to bob"]
    assert RAN == ["lookup:before", "lookup:before", "send:bob"]
    await registry.aclose()


async def test_limits_on_calls_and_output_and_errors_are_reported(tmp_path: Path) -> None:
    registry = python_registry(tmp_path, [lookup], max_inner_calls=3, max_output_chars=50)
    code = """
import asyncio
got = await asyncio.gather(*[lookup(key=str(i)) for i in range(5)], return_exceptions=True)
print("x" * 200)
[type(g).__name__ for g in got]
"""
    outcome = await run_py(registry, tmp_path, code)
    assert value_of(outcome) == ["dict", "dict", "dict", "RuntimeError", "RuntimeError"]
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured is not None
    assert outcome.result.structured["printed"] == "x" * 50 + "\n[output cut at 50 characters]"
    returned = await run_py(registry, tmp_path, "if True:\n    return 42\nprint('no')\n1")
    assert value_of(returned) == 42  # a top-level return, even inside a block, ends it
    err = error_of(await run_py(registry, tmp_path, "x = 1\nreturn x +"))
    assert err.code is ErrorCode.INPUT_INVALID
    assert "line 2" in err.error
    err = error_of(await run_py(registry, tmp_path, "def f():\n    return 1 / 0\nf()"))
    assert err.cause == "exception"
    assert "line 2, in f" in err.error
    assert "ZeroDivisionError" in err.error
    await registry.aclose()


async def test_a_program_has_no_network(tmp_path: Path) -> None:
    registry = python_registry(tmp_path, [lookup])
    async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        code = f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    reached = "connected"
except OSError as exc:
    reached = type(exc).__name__
reached
"""
        assert value_of(await run_py(registry, tmp_path, code)) == "ConnectionRefusedError"
    await registry.aclose()

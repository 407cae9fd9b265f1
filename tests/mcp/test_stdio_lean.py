"""The lean stdio loop (`toolwire.mcp.server.fast_stdio`): the same answers as the SDK server, the
SDK imported only when a message needs it, and a handover that loses nothing and answers nothing
twice; with raw JSON lines and with the SDK's own client, on both protocol generations."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import SERVERS, WAIT_S

from toolwire.mcp import revision
from toolwire.mcp.server.fast_stdio import _messages as messages

LEAN_SERVER = SERVERS / "lean_server.py"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Wire:
    """A lean_server.py process spoken to in raw JSON lines."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(LEAN_SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, **env},
        )
        self.seen: list[dict[str, Any]] = []
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self._lines.put(raw)
        self._lines.put(None)

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def handshake(self, version: str = "2025-06-18") -> None:
        """Send ``initialize`` (id 1) on ``version`` and ``notifications/initialized``."""
        self.send(initialize(version))
        self.send(INITIALIZED)

    def until(self, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message from now on for which ``found`` holds (all are kept in `seen`)."""
        while True:
            raw = self._lines.get(timeout=WAIT_S)
            if raw is None:
                raise AssertionError(f"the server exited; it said {self.seen}")
            message = json.loads(raw)
            self.seen.append(message)
            if found(message):
                return message

    def answer(self, request_id: int) -> dict[str, Any]:
        return self.until(lambda m: m.get("id") == request_id and "method" not in m)

    def finish(self) -> int:
        """Close stdin, read what is left; the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        while (raw := self._lines.get(timeout=WAIT_S)) is not None:
            self.seen.append(json.loads(raw))
        return self.process.wait(timeout=WAIT_S)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def wires(tmp_path: Path) -> Iterator[Callable[..., Wire]]:
    started: list[Wire] = []

    def start(**env: str) -> Wire:
        env.setdefault("TOOLWIRE_TEST_MARKERS", str(tmp_path))
        env.setdefault("TOOLWIRE_TEST_KV", str(tmp_path / "kv.sqlite"))
        wire = Wire(tmp_path, env)
        started.append(wire)
        return wire

    yield start
    for wire in started:
        wire.kill()


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize(version: str = "2025-06-18", request_id: int = 1) -> dict[str, Any]:
    return request(
        request_id,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    )


def call(request_id: int, name: str, modern: bool = False, **arguments: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if modern:
        params["_meta"] = ENVELOPE
    return request(request_id, "tools/call", params)


def text_of(answer: dict[str, Any]) -> str:
    """The text the tool said (inside the presenter's result markers)."""
    text = answer["result"]["content"][0]["text"]
    lines = text.split("\n")
    return "\n".join(lines[1:-1]) if lines[0].startswith("===TOOL_RESULT_START") else text


def legacy_script(version: str) -> list[dict[str, Any]]:
    return [
        initialize(version),
        INITIALIZED,
        request(2, "tools/list", {}),
        call(3, "echo", text="hi"),
        call(4, "structured"),
        call(5, "fail"),
        request(6, "ping"),
        call(7, "pictured"),
    ]


def modern_script() -> list[dict[str, Any]]:
    meta = {"_meta": ENVELOPE}
    return [
        request(1, "server/discover", meta),
        request(2, "tools/list", meta),
        call(3, "echo", modern=True, text="hi"),
        call(4, "structured", modern=True),
        call(5, "fail", modern=True),
        call(7, "pictured", modern=True),
    ]


def answers(start: Callable[..., Wire], script: list[dict[str, Any]], **env: str) -> list[Any]:
    wire = start(**env)
    for message in script:
        wire.send(message)
    got = [wire.answer(m["id"]) for m in script if "id" in m]
    modern = script[0]["method"] != "initialize"
    loaded = text_of(_ask(wire, call(99, "sdk_loaded", modern=modern)))
    return [got, loaded]


def _ask(wire: Wire, message: dict[str, Any]) -> dict[str, Any]:
    wire.send(message)
    return wire.answer(message["id"])


# -- the same answers as the SDK server ------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "identity", "handles"),
    [
        ("2024-11-05", "0", "1"),
        ("2025-03-26", "1", "0"),
        ("2025-06-18", "0", "0"),
        ("2025-11-25", "1", "1"),
        ("2099-01-01", "0", "0"),  # unknown: the latest handshake revision
    ],
)
def test_handshake_era_answers_are_the_sdk_servers(
    wires: Callable[..., Wire], version: str, identity: str, handles: str
) -> None:
    env = {"TEST_IDENTITY": identity, "TEST_HANDLES": handles}
    lean, lean_loaded = answers(wires, legacy_script(version), **env)
    sdk, sdk_loaded = answers(wires, legacy_script(version), TOOLWIRE_MCP_LEAN="0", **env)
    assert lean == sdk
    assert (lean_loaded, sdk_loaded) == ("False", "True")  # the lean loop answered them all


@pytest.mark.parametrize(("identity", "handles"), [("0", "0"), ("1", "1")])
def test_2026_answers_are_the_sdk_servers(
    wires: Callable[..., Wire], identity: str, handles: str
) -> None:
    env = {"TEST_IDENTITY": identity, "TEST_HANDLES": handles}
    lean, lean_loaded = answers(wires, modern_script(), **env)
    sdk, sdk_loaded = answers(wires, modern_script(), TOOLWIRE_MCP_LEAN="0", **env)
    assert lean == sdk
    assert (lean_loaded, sdk_loaded) == ("False", "True")


def test_the_switch_turns_the_lean_loop_off(wires: Callable[..., Wire]) -> None:
    wire = wires(TOOLWIRE_MCP_LEAN="0")
    wire.handshake()
    assert text_of(_ask(wire, call(2, "sdk_loaded"))) == "True"


# -- the handover ----------------------------------------------------------------------------


def test_a_message_it_does_not_answer_hands_over_with_nothing_answered_twice(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    wire.handshake()
    assert wire.answer(1)["result"]["protocolVersion"] == "2025-06-18"
    assert text_of(_ask(wire, call(2, "sdk_loaded"))) == "False"
    assert _ask(wire, request(3, "logging/setLevel", {"level": "info"}))["result"] == {}
    assert text_of(_ask(wire, call(4, "sdk_loaded"))) == "True"
    assert text_of(_ask(wire, call(5, "echo", text="after"))).count("after") == 1
    listed = _ask(wire, request(6, "tools/list"))["result"]["tools"]
    assert "echo" in {tool["name"] for tool in listed}
    assert wire.finish() == 0
    ids = [m.get("id") for m in wire.seen if "method" not in m]
    assert sorted(ids) == [1, 2, 3, 4, 5, 6]  # the replayed initialize was not answered again


@pytest.mark.parametrize(("odd", "handed_over"), [("date", "False"), ("object", "True")])
def test_odd_values_are_written_as_the_sdk_writes_them_or_left_to_it(
    wires: Callable[..., Wire], odd: str, handed_over: str
) -> None:
    lean = wires(TEST_ODD_SCHEMA=odd)
    sdk = wires(TEST_ODD_SCHEMA=odd, TOOLWIRE_MCP_LEAN="0")
    for wire in (lean, sdk):
        wire.handshake()
    listings = [_ask(wire, request(2, "tools/list")) for wire in (lean, sdk)]
    assert listings[0] == listings[1]  # a date as the SDK writes it; an object: its error
    assert text_of(_ask(lean, call(3, "sdk_loaded"))) == handed_over
    assert lean.finish() == 0
    assert [m.get("id") for m in lean.seen] == [1, 2, 3]


def test_an_unknown_tool_and_an_approval_go_to_the_sdk(wires: Callable[..., Wire]) -> None:
    wire = wires()
    wire.handshake("2025-11-25")
    unknown = _ask(wire, call(2, "nope"))
    assert unknown["result"]["isError"] is True
    assert "nope" in text_of(unknown)
    assert text_of(_ask(wire, call(3, "sdk_loaded"))) == "True"


@pytest.mark.parametrize("modern", [False, True])
def test_a_tool_that_talks_to_its_client_is_called_through_the_sdk(
    wires: Callable[..., Wire], modern: bool
) -> None:
    wire = wires()
    if not modern:
        wire.handshake()
    assert text_of(_ask(wire, call(2, "echo", modern=modern, text="x"))) == "x"
    assert text_of(_ask(wire, call(3, "talker", modern=modern))) == "peer"
    assert text_of(_ask(wire, call(4, "sdk_loaded", modern=modern))) == "True"


def test_a_2026_client_that_could_be_asked_is_served_by_the_sdk(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    message = call(2, "sdk_loaded", modern=True)
    capabilities = {"elicitation": {}}
    message["params"]["_meta"] = {
        **ENVELOPE,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    assert text_of(_ask(wire, message)) == "True"


def test_a_call_that_wants_progress_goes_to_the_sdk(wires: Callable[..., Wire]) -> None:
    wire = wires()
    wire.handshake()
    message = call(2, "echo", text="p")
    message["params"]["_meta"] = {"progressToken": "t1"}
    assert text_of(_ask(wire, message)).count("p") >= 1
    assert text_of(_ask(wire, call(3, "sdk_loaded"))) == "True"


def test_bad_json_goes_to_the_sdk_which_drops_it_and_serving_goes_on(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    wire.handshake()
    wire.answer(1)
    wire.send("{not json")
    assert "echo" in {t["name"] for t in _ask(wire, request(2, "tools/list"))["result"]["tools"]}
    assert text_of(_ask(wire, call(3, "sdk_loaded"))) == "True"
    assert wire.finish() == 0
    assert [m.get("id") for m in wire.seen] == [1, 2, 3]  # no error, no second initialize


def test_a_2026_request_on_a_handshake_connection_is_refused_by_the_sdk(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    wire.handshake()
    refused = _ask(wire, call(2, "echo", modern=True, text="x"))
    assert refused["error"]["code"] == -32600


# -- calls: cancellation, hang-up, tool changes ----------------------------------------------


def _marker(path: Path) -> str:
    deadline = WAIT_S
    while deadline > 0 and not (path.exists() and path.read_text()):
        threading.Event().wait(0.02)
        deadline -= 0.02
    return path.read_text()


def test_a_cancelled_lean_call_is_aborted_and_not_answered(
    wires: Callable[..., Wire], tmp_path: Path
) -> None:
    wire = wires()
    wire.handshake()
    wire.send(call(2, "slow", tag="cancelled"))
    wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    assert _marker(tmp_path / "cancelled").startswith("cancelled")
    assert text_of(_ask(wire, call(3, "echo", text="next"))).count("next") == 1
    assert text_of(_ask(wire, call(4, "sdk_loaded"))) == "False"
    assert wire.finish() == 0
    assert 2 not in [m.get("id") for m in wire.seen]


def test_a_lean_call_still_running_after_the_handover_can_be_cancelled(
    wires: Callable[..., Wire], tmp_path: Path
) -> None:
    wire = wires()
    wire.handshake()
    wire.send(call(2, "slow", tag="across"))
    assert _ask(wire, request(3, "logging/setLevel", {"level": "info"}))["result"] == {}
    wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    assert _marker(tmp_path / "across").startswith("cancelled")
    assert text_of(_ask(wire, call(4, "sdk_loaded"))) == "True"
    assert wire.finish() == 0
    assert 2 not in [m.get("id") for m in wire.seen]


def test_a_lean_call_finishes_after_the_handover_and_is_answered_once(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    wire.handshake()
    wire.send(call(2, "slow", seconds=0.5))
    wire.send(request(3, "logging/setLevel", {"level": "info"}))
    assert text_of(wire.answer(2)).count("slept") == 1
    assert wire.finish() == 0
    assert [m.get("id") for m in wire.seen].count(2) == 1


def test_the_client_going_away_aborts_lean_calls(
    wires: Callable[..., Wire], tmp_path: Path
) -> None:
    wire = wires(TOOLWIRE_STDIO_EOF_GRACE_S="0")  # no grace for calls in flight at EOF
    wire.handshake()
    wire.send(call(2, "slow", tag="gone"))
    wire.answer(1)
    threading.Event().wait(0.2)  # let the call start (the marker proves it ran and was aborted)
    assert wire.finish() == 0
    assert _marker(tmp_path / "gone").startswith("cancelled")
    closed = [m for m in wire.seen if m.get("id") == 2]  # answered (test_stdio_eof.py)
    assert [m["error"]["message"] for m in closed] == ["Connection closed"]


def test_a_change_of_the_tools_is_announced_after_the_handshake(
    wires: Callable[..., Wire],
) -> None:
    wire = wires()
    wire.handshake()
    grown = text_of(_ask(wire, call(2, "grow")))
    notice = wire.until(lambda m: m.get("method") == "notifications/tools/list_changed")
    assert "params" not in notice
    listed = _ask(wire, request(3, "tools/list"))["result"]["tools"]
    assert any(tool["name"] in grown for tool in listed if tool["name"].startswith("grown_"))
    assert text_of(_ask(wire, call(4, "sdk_loaded"))) == "False"


# -- the SDK's own client --------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_is_served_lean_then_handed_over(mode: str, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(LEAN_SERVER)],
        env={**os.environ, "TOOLWIRE_TEST_MARKERS": str(tmp_path)},
        cwd=str(tmp_path),
    )
    with anyio.fail_after(WAIT_S * 2):
        async with Client(params, mode=mode, read_timeout_seconds=WAIT_S) as client:
            assert (client.protocol_version == MODERN) is (mode == "auto")
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            echo = await client.call_tool("echo", {"text": "hello"})
            loaded_before = await client.call_tool("sdk_loaded", {})
            unknown = await client.call_tool("nope", {})  # the SDK answers: a handover
            loaded_after = await client.call_tool("sdk_loaded", {})
            again = await client.call_tool("echo", {"text": "again"})
            relisted = await client.list_tools()
    assert listed["echo"].title == "Echo"
    assert listed["echo"].annotations is not None
    assert listed["echo"].annotations.read_only_hint is True
    assert "hello" in echo.content[0].text  # type: ignore[union-attr]
    assert loaded_before.content[0].text.endswith("False\n===TOOL_RESULT_END===")  # type: ignore[union-attr]
    assert unknown.is_error is True
    assert loaded_after.content[0].text.endswith("True\n===TOOL_RESULT_END===")  # type: ignore[union-attr]
    assert "again" in again.content[0].text  # type: ignore[union-attr]
    assert {tool.name for tool in relisted.tools} == set(listed)


# -- what the stdio path imports -------------------------------------------------------------


def test_the_stdio_path_imports_no_sdk_and_no_http_stack() -> None:
    code = (
        "import sys, toolwire.cli.serve, toolwire.mcp.server.serving;"
        "import toolwire.mcp.server.fast_stdio._loop;"
        "print(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'mcp', 'mcp_types', 'starlette', 'uvicorn', 'httpx', 'sse_starlette'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# -- reading messages ------------------------------------------------------------------------


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@given(st.text(max_size=60) | JSON.map(json.dumps))
def test_any_line_is_read_or_left_to_the_sdk(line: str) -> None:
    message = messages.read_message(line)
    if message is not None:
        assert isinstance(message.method, str)
        assert isinstance(message.params, dict)


@given(
    st.dictionaries(st.sampled_from(["protocolVersion", "capabilities", "clientInfo", "x"]), JSON)
)
def test_odd_handshake_params_are_left_to_the_sdk(params: dict[str, Any]) -> None:
    version = messages.handshake_params(params)
    if version is not None:
        assert version in revision.HANDSHAKE_REVISIONS
        assert isinstance(params["clientInfo"]["name"], str)
        assert isinstance(params["capabilities"], dict)


@given(JSON)
def test_only_a_complete_envelope_is_modern(meta: Any) -> None:
    if messages.modern_meta({"_meta": meta}):
        assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert isinstance(meta["io.modelcontextprotocol/clientCapabilities"], dict)

"""A scripted model server for the sub-agent tests: the Chat Completions wire format over HTTP.

`running_model_server` starts uvicorn on 127.0.0.1 (a free port) with a tiny ASGI app that
answers ``POST /v1/chat/completions`` from a per-test script — a queue of replies — and records
every request (headers and JSON body), so a test asserts what the model was sent: the tools
offered, the tool results. It speaks non-streaming Chat Completions only (``choices[0].message``
with ``content`` and ``tool_calls``, and ``usage``), which is all the shipped runner uses.

A reply is a completion (a dict, answered 200), a `Reply` (any status, headers, raw bytes), or
an async function of the `Recorded` request that returns one — a test's way to hold a request
(until another arrives, or until the client goes away: `Recorded.disconnected`).
"""

from __future__ import annotations

import contextlib
import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import anyio
import uvicorn

__all__ = [
    "ModelServer",
    "Recorded",
    "Reply",
    "completion",
    "running_model_server",
    "tool_call",
]


@dataclass
class Recorded:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    disconnected: anyio.Event = field(default_factory=anyio.Event)

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered in this request."""
        return [t["function"]["name"] for t in self.body.get("tools", [])]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation sent."""
        messages: list[dict[str, Any]] = self.body["messages"]
        return messages

    def tool_messages(self) -> list[dict[str, Any]]:
        """The ``role: tool`` messages of this request."""
        return [m for m in self.messages if m["role"] == "tool"]


@dataclass
class Reply:
    """An HTTP answer: status, headers, and JSON (``json``) or raw bytes (``raw``)."""

    status: int = 200
    json: Any = None
    raw: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


Script: TypeAlias = (
    "dict[str, Any] | Reply | Callable[[Recorded], Awaitable[dict[str, Any] | Reply]]"
)


def tool_call(
    name: str, args: Mapping[str, Any] | str, call_id: str | None = None
) -> dict[str, Any]:
    """One ``tool_calls`` entry; ``args`` as a mapping (encoded) or the raw argument string."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {
        "id": call_id or f"call_{name}_{abs(hash(arguments)) % 10_000}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def completion(
    content: str | None = None,
    *calls: dict[str, Any],
    usage: tuple[int, int] | None = (100, 20),
    model: str = "test-model",
) -> dict[str, Any]:
    """A ``chat.completion`` object: text and/or tool calls, with ``usage`` (prompt, completion)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    data: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
    }
    if usage is not None:
        data["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return data


class ModelServer:
    """The ASGI app and its script; `base_url` is what a runner's ``base_url`` takes."""

    def __init__(self) -> None:
        self.script: deque[Script] = deque()
        self.requests: list[Recorded] = []
        self.arrived = anyio.Event()
        self._arrivals: list[anyio.Event] = []
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *replies: Script) -> None:
        """Queue replies, answered in order."""
        self.script.extend(replies)

    async def wait_for_requests(self, count: int) -> None:
        """Return once ``count`` requests have arrived."""
        while len(self.requests) < count:
            event = anyio.Event()
            self._arrivals.append(event)
            await event.wait()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        body = json.loads(b"".join(chunks) or b"{}")
        recorded = Recorded(path=scope["path"], headers=headers, body=body)
        self.requests.append(recorded)
        arrivals, self._arrivals = self._arrivals, []
        for event in arrivals:
            event.set()
        reply = await self._answer(recorded, receive)
        if reply is None:
            return
        await _send(send, reply)

    async def _answer(self, recorded: Recorded, receive: Any) -> Reply | None:
        if recorded.path != "/v1/chat/completions":
            return Reply(status=404, json={"error": {"message": f"no route {recorded.path}"}})
        if not self.script:
            return Reply(status=500, json={"error": {"message": "the test's script is exhausted"}})
        step = self.script.popleft()
        if not callable(step):
            return step if isinstance(step, Reply) else Reply(json=step)
        result: list[dict[str, Any] | Reply] = []

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                recorded.disconnected.set()
                group.cancel_scope.cancel()

            async def answer() -> None:
                result.append(await step(recorded))
                group.cancel_scope.cancel()

            group.start_soon(watch)
            group.start_soon(answer)
        if not result:
            return None  # the client went away while the reply was held
        value = result[0]
        return value if isinstance(value, Reply) else Reply(json=value)


async def _send(send: Any, reply: Reply) -> None:
    payload = reply.raw if reply.raw is not None else json.dumps(reply.json).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    headers += [(k.lower().encode(), v.encode()) for k, v in reply.headers.items()]
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class _QuietServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Any:  # the test runner keeps its own signal handlers
        yield


@contextlib.asynccontextmanager
async def running_model_server() -> AsyncIterator[ModelServer]:
    """A `ModelServer` listening on 127.0.0.1 for the duration of the block."""
    app = ModelServer()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="off",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    server = _QuietServer(config)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        with anyio.fail_after(30):  # a server that cannot start fails the test, never hangs it
            while not server.started:
                await anyio.sleep(0.005)
        app.port = server.servers[0].sockets[0].getsockname()[1]
        try:
            yield app
        finally:
            server.should_exit = True

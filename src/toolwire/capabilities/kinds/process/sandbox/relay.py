"""The in-sandbox relay in Python: a loopback TCP port forwarded to the egress proxy's Unix socket
(the fallback where the sandbox has no socat: see
`toolwire.capabilities.kinds.process.sandbox.relays`).

A sandbox has its own network namespace, so the only way out is the proxy's Unix socket,
bound into it. Programs expect a TCP proxy (``HTTP_PROXY=http://127.0.0.1:<port>``), so this
relay listens there and forwards every connection to the socket, both directions, half-close
respected (one side's end of data is passed on while the other keeps talking)::

    python3 relay.py --listen 127.0.0.1:3128 --connect /run/toolwire/egress.sock

It is run by a bare ``python3`` inside the sandbox, so it uses the standard library only
(Python 3.8 or later). It prints one ``ready`` line on stdout once it listens, and nothing
else on success; it exits on SIGTERM or SIGINT, and when its parent dies (it polls
``os.getppid()``: inside a PID namespace an orphan is re-parented, which changes it). Memory
is bounded: at most ``--max-connections`` connections, each holding at most a couple of
``--chunk-bytes`` buffers per direction (a slow reader slows its writer).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from typing import Any

__all__ = ["main", "parse_listen", "relay"]

_PARENT_POLL_S = 0.2
_NETWORK_ERRORS = (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError)


def parse_listen(text: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` → ``(host, port)``.

    Raises:
        ValueError: not that shape, or the port is not 0 to 65535.
    """
    host, colon, port_text = text.rpartition(":")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"--listen must be host:port, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port_text)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, chunk: int) -> None:
    """Copy until end of data, then half-close ``writer``; a network error propagates."""
    while True:
        data = await reader.read(chunk)
        if not data:
            break
        writer.write(data)
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        writer.close()


class _Relay:
    """The listening side: one task per accepted connection, at most ``limit`` at once."""

    def __init__(self, socket_path: str, chunk: int, limit: int) -> None:
        self.socket_path = socket_path
        self.chunk = chunk
        self.limit = limit
        self.tasks: set[asyncio.Task[Any]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is None or len(self.tasks) >= self.limit:
            _close(writer)
            return
        self.tasks.add(task)
        try:
            await self._forward(reader, writer)
        finally:
            self.tasks.discard(task)
            _close(writer)

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(
                self.socket_path, limit=self.chunk
            )
        except OSError:
            return  # the client sees its connection closed
        pipes = [
            asyncio.ensure_future(_pipe(reader, up_writer, self.chunk)),
            asyncio.ensure_future(_pipe(up_reader, writer, self.chunk)),
        ]
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for pipe in pipes:
                pipe.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            _close(up_writer)


async def _parent_gone(original: int, stop: asyncio.Event) -> None:
    while os.getppid() == original:
        await asyncio.sleep(_PARENT_POLL_S)
    stop.set()


async def relay(
    host: str, port: int, socket_path: str, *, chunk: int = 65536, limit: int = 256
) -> None:
    """Listen on ``host:port``, forward to ``socket_path`` until a signal or the parent's end."""
    parent = os.getppid()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    state = _Relay(socket_path, chunk, limit)
    server = await asyncio.start_server(state.handle, host, port, limit=chunk)
    watcher = asyncio.ensure_future(_parent_gone(parent, stop))
    with contextlib.suppress(OSError):
        print("ready", flush=True)
    try:
        await stop.wait()
    finally:
        watcher.cancel()
        server.close()
        for task in list(state.tasks):
            task.cancel()
        await asyncio.gather(watcher, *state.tasks, return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the relay; 0 on a normal stop, 2 on bad arguments."""
    parser = argparse.ArgumentParser(description="Forward a loopback TCP port to a Unix socket.")
    parser.add_argument("--listen", required=True, help="host:port to listen on")
    parser.add_argument("--connect", required=True, help="the Unix socket to forward to")
    parser.add_argument("--chunk-bytes", type=int, default=65536)
    parser.add_argument("--max-connections", type=int, default=256)
    args = parser.parse_args(argv)
    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        parser.error(str(exc))
    if args.chunk_bytes <= 0 or args.max_connections <= 0:
        parser.error("--chunk-bytes and --max-connections must be positive")
    try:
        asyncio.run(
            relay(host, port, args.connect, chunk=args.chunk_bytes, limit=args.max_connections)
        )
    except OSError as exc:
        print(f"relay: cannot listen on {args.listen}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

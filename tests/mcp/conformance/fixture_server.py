"""Serve the conformance fixture with toolwire's public API: ``python fixture_server.py``.

Run in a directory with a ``toolwire.toml``: the configured registry (`open_registry`, as ``toolwire
serve`` builds it), the fixture's tools beside the configured ones, and its resources, template,
subscriptions and completion added through ``ServeOptions.server_features``, served by
`serve_registry` over streamable HTTP on a free port of 127.0.0.1. Prints ``serving <url>`` on
stderr once it listens; SIGTERM or SIGINT stop it (the registry closes). The fixture lives in the
tests, not in the wheel: this script is what ``toolwire serve --conformance-fixture`` was.
"""

from __future__ import annotations

import signal
import sys

import anyio
from fixture import fixture_tools, with_fixture_features

from toolwire.config import load_config
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.wiring import open_registry

READY = "serving "
"""What the line on stderr that carries the URL begins with."""


async def serve_fixture() -> None:
    """Serve until SIGTERM or SIGINT (see the module doc)."""
    config = load_config()
    async with open_registry(config) as wired, anyio.create_task_group() as group:
        group.start_soon(_stop_on_signal, group.cancel_scope)
        wired.registry.register_all(fixture_tools())
        configured = ServeOptions(
            working_dir=config.base_dir, result_budget_chars=config.result_budget_chars
        )
        options = with_fixture_features(configured)
        await serve_registry(
            wired.registry,
            transport="http",
            host="127.0.0.1",
            port=0,
            options=options,
            on_ready=lambda url: print(READY + url, file=sys.stderr, flush=True),
        )


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


if __name__ == "__main__":
    anyio.run(serve_fixture)

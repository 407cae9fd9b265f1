"""The ``toolwire`` command: ``serve``, ``tools`` and ``call`` (see ``docs/cli.md``)."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``toolwire`` console script and ``python -m toolwire``."""
    import sys

    from toolwire.cli.extras import require_extra
    from toolwire.cli.stdio_fast import run, stdio_command

    stdio = stdio_command(sys.argv[1:])
    if stdio is not None:  # a spawned stdio server starts without typer and rich
        require_extra("mcp", "toolwire serve")
        run(stdio)
        return
    require_extra("cli", "the toolwire command")
    from toolwire.cli.app import app

    app()

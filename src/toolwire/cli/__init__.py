"""The ``toolwire`` command: ``serve``, ``tools`` and ``call`` (see ``docs/cli.md``)."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``toolwire`` console script and ``python -m toolwire``."""
    import sys

    from toolwire.cli.stdio_fast import run, stdio_command

    stdio = stdio_command(sys.argv[1:])
    if stdio is not None:  # a spawned stdio server starts without typer and rich
        run(stdio)
        return
    from toolwire.cli.app import app

    app()

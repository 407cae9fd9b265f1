"""The ``toolwire`` command: ``serve``, ``tools`` and ``call`` (see ``docs/cli.md``).

Rooms:

- ``app.py``: the typer app, its global options and commands; ``common.py``: shared plumbing;
- ``serve.py`` (``toolwire serve``), ``serving.py`` (serving without typer or rich),
  ``stdio_fast.py`` (``serve --stdio`` without typer), ``reloading.py`` (``serve --reload``);
- ``tools_cmd.py`` (``toolwire tools``), ``tool_words.py`` (a tool's annotations as words),
  ``call_cmd.py`` (``toolwire call``);
- ``doctor_cmd.py`` (``toolwire doctor``) and ``doctor_checks.py`` (what it checks);
- ``secret_cmd.py`` (the secrets vault), ``token_cmd.py`` (bearer tokens), ``mcp_cmd.py`` (pins);
- ``extras.py``: what a command needs beyond the base install, checked before it starts.
"""

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

"""``toolwire serve --stdio`` started without typer (and without rich for its own output).

An MCP client that spawns ``toolwire serve --stdio`` waits for the whole start-up before its
first answer; the command-line framework and the console library were a good part of it. So
`main` recognises exactly that command line (global ``--config``/``-c`` and ``--verbose``/
``-v`` before ``serve``, then ``--stdio`` with any ``--tools FILE_OR_MODULE``) and serves it
directly, with the same configuration errors and warnings, the same banner (plain text, as
rich prints it when stderr is not a terminal, which it never is for a spawned stdio server; on
a terminal the typer app serves) and the same exit codes. Any other command line, ``--help``
included, goes to the typer app.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from toolwire.wiring import Wired

__all__ = ["StdioCommand", "run", "stdio_command"]

EXIT_USAGE = 2
"""Bad command line or configuration (as `toolwire.cli.common.EXIT_USAGE`)."""


@dataclass(frozen=True, slots=True)
class StdioCommand:
    """A ``toolwire serve --stdio`` command line.

    Attributes:
        config: The ``--config`` file, if one was named.
        verbose: ``--verbose``: log to stderr at INFO.
        tools: The ``--tools`` files and modules, in order.
        quiet: ``--quiet``: only the banner's first line and its warnings.
    """

    config: Path | None = None
    verbose: bool = False
    tools: tuple[str, ...] = ()
    quiet: bool = False


def stdio_command(argv: list[str]) -> StdioCommand | None:
    """The command if ``argv`` (without the program name) is exactly a stdio serve, else
    ``None`` (the typer app handles it, as it does when stderr is a terminal: the banner
    keeps its colours there)."""
    if sys.stderr is None or sys.stderr.isatty():
        return None
    config: Path | None = None
    verbose = False
    rest = list(argv)
    while rest and rest[0] != "serve":
        option = rest.pop(0)
        if option in ("-v", "--verbose"):
            verbose = True
        elif option in ("-c", "--config") and rest and not rest[0].startswith("-"):
            config = Path(rest.pop(0))
        elif option.startswith("--config=") and len(option) > len("--config="):
            config = Path(option.removeprefix("--config="))
        else:
            return None
    options = rest[1:]
    quiet = any(option in ("-q", "--quiet") for option in options)
    options = [option for option in options if option not in ("-q", "--quiet")]
    tools = _tools(options) if rest[:1] == ["serve"] else None
    if tools is None:
        return None
    return StdioCommand(config=config, verbose=verbose, tools=tools, quiet=quiet)


def _tools(options: list[str]) -> tuple[str, ...] | None:
    """The ``--tools`` of ``serve``'s options if they are ``--stdio`` once and ``--tools``."""
    tools: list[str] = []
    stdio = 0
    rest = list(options)
    while rest:
        option = rest.pop(0)
        if option == "--stdio":
            stdio += 1
        elif option == "--tools" and rest and not rest[0].startswith("-"):
            tools.append(rest.pop(0))
        elif option.startswith("--tools=") and len(option) > len("--tools="):
            tools.append(option.removeprefix("--tools="))
        else:
            return None
    return tuple(tools) if stdio == 1 else None


def run(command: StdioCommand) -> None:
    """Serve as ``toolwire serve --stdio`` does (exit 2 on a configuration error)."""
    import anyio

    from toolwire.cli.serving import serve_until_stopped
    from toolwire.config import load_config
    from toolwire.errors import ConfigurationError
    from toolwire.tool_modules import command_line_modules

    logging.basicConfig(level=logging.INFO if command.verbose else logging.WARNING)
    try:
        config = load_config(command.config)
        added = command_line_modules(command.tools)  # after [tools] modules
    except ConfigurationError as exc:
        _fail(str(exc))
    config = replace(config, tool_modules=(*config.tool_modules, *added))
    for warning in config.warnings:
        _say(f"warning: {warning}")
    serve = partial(serve_until_stopped, banner=partial(_banner, quiet=command.quiet))
    try:
        stopped_by = anyio.run(serve, config, "stdio", config.http_host, config.http_port)
    except ConfigurationError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:  # Ctrl+C before the signal handlers were in place
        stopped_by = "SIGINT"
    if stopped_by is not None:
        _say(f"toolwire stopped on {stopped_by}")


def _banner(wired: Wired, address: str, *, quiet: bool = False) -> None:
    from toolwire.cli.serving import banner_lines

    for number, (line, loud) in enumerate(banner_lines(wired, address)):
        if number == 0 or loud or not quiet:
            _say(line)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _fail(message: str) -> NoReturn:
    _say(f"error: {message}")
    raise SystemExit(EXIT_USAGE)

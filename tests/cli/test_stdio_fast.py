"""``toolwire serve --stdio`` starts without typer or the MCP SDK
(`toolwire.cli.stdio_fast`), with the same errors, warnings and exit codes as the typer app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolwire.cli.stdio_fast import StdioCommand, stdio_command


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["serve", "--stdio"], StdioCommand()),
        (["-v", "serve", "--stdio"], StdioCommand(verbose=True)),
        (["-c", "t.toml", "serve", "--stdio"], StdioCommand(config=Path("t.toml"))),
        (
            ["--config=t.toml", "--verbose", "serve", "--stdio"],
            StdioCommand(config=Path("t.toml"), verbose=True),
        ),
        (["serve", "--stdio", "--tools", "t.py"], StdioCommand(tools=("t.py",))),
        (
            ["serve", "--tools=t.py", "--stdio", "--tools", "pkg.tools"],
            StdioCommand(tools=("t.py", "pkg.tools")),
        ),
        (["serve", "--stdio", "--quiet"], StdioCommand(quiet=True)),
        (["serve", "-q", "--stdio", "--tools", "t.py"], StdioCommand(tools=("t.py",), quiet=True)),
        (["serve", "--stdio", "--tools"], None),  # the app says what is missing
        (["serve", "--stdio", "--stdio"], None),
        (["serve", "--stdio", "--reload"], None),  # the app refuses it
        (["serve"], None),  # HTTP
        (["serve", "--stdio", "--insecure-no-auth"], None),  # an option the app handles
        (["serve", "--stdio", "--http", "127.0.0.1:1"], None),  # the app refuses it
        (["serve", "--help"], None),
        (["--version"], None),
        (["-c", "serve", "--stdio"], None),
        (["--config"], None),
        (["tools"], None),
        (["--unknown", "serve", "--stdio"], None),
    ],
)
def test_only_a_plain_stdio_serve_skips_the_app(
    argv: list[str], expected: StdioCommand | None
) -> None:
    assert stdio_command(argv) == expected


def _serve(project: Path, *args: str, argv_only: bool = False) -> subprocess.CompletedProcess[str]:
    """``toolwire ARGS serve --stdio`` (``ARGS`` alone with ``argv_only``), imports timed."""
    command = list(args) if argv_only else [*args, "serve", "--stdio"]
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolwire", *command],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _imported(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_a_stdio_server_starts_without_typer_or_the_sdk(tmp_path: Path) -> None:
    done = _serve(tmp_path)
    assert done.returncode == 0
    assert "toolwire serving" in done.stderr
    imported = _imported(done.stderr)
    assert "toolwire.wiring" in imported  # it did start
    cli = {"typer", "toolwire.cli.app", "toolwire.cli.common"}
    sdk = {"mcp", "mcp_types", "starlette", "uvicorn"}
    assert not imported & (cli | sdk)


def test_a_stdio_server_with_your_tools_starts_without_typer_or_the_sdk(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(
        'from toolwire import tool\n\n\n@tool\ndef ping() -> str:\n    """Pong."""\n'
        '    return "pong"\n'
    )
    done = _serve(tmp_path, "serve", "--stdio", "--tools", "mine.py", argv_only=True)
    assert done.returncode == 0, done.stderr
    assert "  tool     ping  [destructive, open-world]\n" in done.stderr  # tools/list's hints
    cli = {"typer", "toolwire.cli.app", "toolwire.cli.common"}
    sdk = {"mcp", "mcp_types", "starlette", "uvicorn"}
    assert not _imported(done.stderr) & (cli | sdk)


@pytest.mark.parametrize("fast", [True, False])
def test_quiet_prints_the_first_banner_line_and_the_warnings_only(
    tmp_path: Path, fast: bool
) -> None:
    """Regression (outside check, issue 23): the stdio banner wrote 44 lines into the client's
    log with no way to quiet it. With the fast path off (stderr a terminal), typer serves."""
    (tmp_path / "toolwire.toml").write_text('[sandbox]\nmode = "off"\n')  # a warning to keep
    full = _serve(tmp_path, "serve", "--stdio", argv_only=True)
    quiet = _serve(tmp_path, "serve", "--stdio", "--quiet", argv_only=True)
    if not fast:  # the typer app itself (as when stderr is a terminal)
        typer_app = "from toolwire.cli.app import app; app()"
        quiet = subprocess.run(
            [sys.executable, "-c", typer_app, "serve", "--stdio", "-q"],
            cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
    assert quiet.returncode == 0, quiet.stderr
    lines = [line for line in quiet.stderr.splitlines() if not line.startswith("import time:")]
    full_lines = [line for line in full.stderr.splitlines() if not line.startswith("import time:")]
    assert lines[0].startswith("toolwire serving")
    assert len(lines) < len(full_lines) / 3
    assert any("sandbox" in line.lower() for line in lines[1:])  # the warning stays


def test_a_bad_config_exits_2_naming_the_problem(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[toolwire\n")
    done = _serve(tmp_path, "--config", str(tmp_path / "bad.toml"))
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1
    assert "bad.toml" in errors[0]


def test_a_missing_config_file_exits_2(tmp_path: Path) -> None:
    done = _serve(tmp_path, "-c", str(tmp_path / "missing.toml"))
    assert done.returncode == 2
    assert any(line.startswith("error: ") for line in done.stderr.splitlines())

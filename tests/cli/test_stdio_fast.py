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
        (["serve"], None),  # HTTP
        (["serve", "--stdio", "--conformance-fixture"], None),
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


def _serve(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolwire", *args, "serve", "--stdio"],
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

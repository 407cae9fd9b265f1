"""The newcomer's commands: --version, tools NAME, call NAME -, the nearest names, and help
that shows flags as flags."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.cli.app import app
from toolwire.cli.common import nearest_names
from toolwire.version import __version__

runner = CliRunner()
MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with a file and a config using the in-memory store."""
    (tmp_path / "hello.txt").write_text("hello from stdin's call\n")
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLWIRE_CONFIG", raising=False)
    return tmp_path


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"toolwire {__version__}"


def test_tools_name_shows_the_description_and_the_schema(project: Path) -> None:
    result = runner.invoke(app, ["tools", "read_file"])
    assert result.exit_code == 0, result.output
    head, _, schema = result.stdout.partition("Parameters (JSON Schema):")
    assert head.startswith("read_file  (toolset file; read-only, idempotent")
    assert "capabilities: fs_reach" in head
    parsed = json.loads(schema)
    assert parsed["type"] == "object"
    assert "path" in parsed["properties"]


def test_tools_name_json_is_one_object_with_its_parameters(project: Path) -> None:
    result = runner.invoke(app, ["tools", "read_file", "--json"])
    payload = json.loads(result.stdout)
    assert payload["name"] == "read_file"
    assert "path" in payload["parameters"]["properties"]


def test_tools_with_an_unknown_name_suggests_the_nearest_and_exits_2(project: Path) -> None:
    result = runner.invoke(app, ["tools", "red_file"])
    assert result.exit_code == 2
    assert "did you mean: read_file" in " ".join(result.stderr.split())


def test_call_reads_the_arguments_from_stdin(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", "-"], input='{"path": "hello.txt"}')
    assert result.exit_code == 0, result.output
    assert "hello from stdin's call" in result.stdout


def test_call_refuses_stdin_that_is_not_a_json_object(project: Path) -> None:
    result = runner.invoke(app, ["call", "read_file", "-"], input="[1, 2]")
    assert result.exit_code == 2
    assert "must be a JSON object" in result.stderr


def test_call_of_an_unknown_tool_suggests_the_nearest_on_stderr(project: Path) -> None:
    result = runner.invoke(app, ["call", "write_fil", "{}"])
    assert result.exit_code == 1
    # what the model would read names the nearest too (issue 23)
    assert result.stdout.strip().startswith("Unknown tool: write_fil; did you mean: write_file")
    assert "did you mean: write_file" in result.stderr


def test_a_name_like_no_tool_points_at_the_list(project: Path) -> None:
    result = runner.invoke(app, ["call", "qqqqqq", "{}"])
    assert "`toolwire tools` lists them" in result.stderr


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("reed_file", ["read_file"]),
        ("terminl", ["terminal"]),
        ("process", ["process_list", "process_start"]),
        ("zzz", []),
    ],
)
def test_nearest_names(name: str, expected: list[str]) -> None:
    names = ["read_file", "write_file", "terminal", "process_start", "process_list"]
    assert nearest_names(name, names)[: len(expected)] == expected


@pytest.mark.parametrize("command", [[], ["call"], ["tools"], ["serve"], ["doctor"]])
def test_help_shows_boolean_options_as_flags(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    flags = re.findall(r"^\s+(--[a-z-]+)(.*)$", result.stdout, re.M)
    assert flags
    for flag, rest in flags:
        if flag in ("--json", "--stdio", "--verbose", "--strict", "--version", "--help"):
            assert not rest.lstrip().startswith("<"), f"{flag} takes no value: {rest!r}"


def _install_recipe(stamp: str) -> str:
    """The recipe that installs for ``stamp``, with the shared venv steps spelled out."""
    text = MAKEFILE.read_text()
    venv = text.split("define venv\n", 1)[1].split("endef", 1)[0]
    recipe = text.split(f"{stamp}: pyproject.toml\n", 1)[1].split("\n\n", 1)[0]
    return recipe.replace("\t$(venv)\n", venv)


@pytest.mark.parametrize("stamp", ["$(SERVE_STAMP)", "$(STAMP)"])
def test_make_run_shows_each_install_step(stamp: str) -> None:
    recipe = _install_recipe(stamp)
    assert " -q " not in recipe
    assert recipe.count("echo") >= 3
    assert "--progress-bar on" in recipe


def test_make_run_installs_what_serving_needs_and_not_the_test_tools() -> None:
    text = MAKEFILE.read_text()
    assert re.search(r"^run: \$\(SERVE_STAMP\)", text, re.M)
    serve = _install_recipe("$(SERVE_STAMP)")
    assert "[test]" not in serve
    assert "-e '.[$(SERVE_EXTRAS)]'" in serve
    assert re.search(r"^SERVE_EXTRAS := mcp,cli,web,browser$", text, re.M)
    assert "touch $(STAMP) $(SERVE_STAMP)" in _install_recipe("$(STAMP)")  # test ⊇ serve

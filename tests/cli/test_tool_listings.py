"""``toolwire tools``, the ``toolwire serve`` banner and MCP ``tools/list`` agree: the same tools
offered, the same ones withheld (each with why), the same annotation hints; and a call of a
withheld ``web_search`` tells the model which key to set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOOLWIRE = Path(sys.executable).with_name("toolwire")
CONFIG = '[store]\nurl = "memory://"\n\n[web_search]\nprovider = "brave"\n'
HINT_WORDS = {
    "readOnlyHint": "read-only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open-world",
}


@pytest.fixture
def keyless(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project whose web_search provider is Brave, and an environment without its key
    (a fresh home: no vault either)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "toolwire.toml").write_text(CONFIG)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLWIRE_", "BRAVE_"))}
    env.update(HOME=str(tmp_path / "home"), COLUMNS="300")
    return project, env


def _run(project: Path, env: dict[str, str], *args: str, stdin: str = "") -> Any:
    return subprocess.run(
        [str(TOOLWIRE), *args],
        cwd=project,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _mcp_session(project: Path, env: dict[str, str]) -> tuple[dict[int, Any], str]:
    """``toolwire serve --stdio``: initialize, tools/list, a call of web_search; the answers
    by id, and the banner (stderr)."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "web_search", "arguments": {"query": "toolwire"}},
        },
    ]
    done = _run(
        project, env, "serve", "--stdio", stdin="".join(json.dumps(r) + "\n" for r in requests)
    )
    answers = {}
    for line in done.stdout.splitlines():
        message = json.loads(line)
        if "id" in message:
            answers[message["id"]] = message
    return answers, done.stderr


def test_the_cli_the_banner_and_tools_list_offer_and_withhold_the_same_tools(
    keyless: tuple[Path, dict[str, str]],
) -> None:
    project, env = keyless
    answers, banner = _mcp_session(project, env)
    listed = {tool["name"]: tool for tool in answers[2]["result"]["tools"]}
    assert "web_search" not in listed  # no key: withheld from the model

    served = [line.split()[1] for line in banner.splitlines() if line.startswith("  tool ")]
    assert served == list(listed)
    assert f"toolwire serving {len(listed)} tools over stdio" in banner
    [withheld] = [line for line in banner.splitlines() if line.startswith("  withheld web_search")]
    assert "BRAVE_API_KEY" in withheld
    assert withheld.endswith("(missing_api_key)")

    cli = json.loads(_run(project, env, "tools", "--json").stdout)
    assert [t["name"] for t in cli if t["listed"]] == list(listed)
    [search] = [t for t in cli if t["name"] == "web_search"]
    assert search["listed"] is False
    assert search["withheld"]["reason"] == "missing_api_key"
    table = _run(project, env, "tools").stdout
    assert f"{len(listed)} tools" in table.splitlines()[0]
    assert "web_search: web_search: no API key for Brave" in table


def test_the_banner_and_the_cli_print_the_hints_tools_list_sends(
    keyless: tuple[Path, dict[str, str]],
) -> None:
    project, env = keyless
    answers, banner = _mcp_session(project, env)
    cli = {t["name"]: t for t in json.loads(_run(project, env, "tools", "--json").stdout)}
    lines = {line.split()[1]: line for line in banner.splitlines() if line.startswith("  tool ")}
    for tool in answers[2]["result"]["tools"]:
        hints = tool["annotations"]
        words = ", ".join(word for key, word in HINT_WORDS.items() if hints[key] is True)
        assert lines[tool["name"]] == f"  tool     {tool['name']}" + (f"  [{words}]" * bool(words))
        shown = cli[tool["name"]]["annotations"]
        assert (shown["read_only"], shown["destructive"]) == (
            hints["readOnlyHint"],
            hints["destructiveHint"],
        )
        assert (shown["idempotent"], shown["open_world"]) == (
            hints["idempotentHint"],
            hints["openWorldHint"],
        )


def test_a_call_of_a_keyless_web_search_names_the_key_to_set(
    keyless: tuple[Path, dict[str, str]],
) -> None:
    project, env = keyless
    answers, _ = _mcp_session(project, env)
    answer = answers[3]["result"]
    assert answer["isError"] is True
    text = answer["content"][0]["text"]
    assert "BRAVE_API_KEY" in text
    assert "toolwire secret set providers/brave/apiKey" in text
    done = _run(project, env, "call", "web_search", '{"query": "toolwire"}', "--json")
    assert done.returncode == 1
    refusal = json.loads(done.stdout)
    assert (refusal["code"], refusal["reason"]) == ("not_available", "missing_api_key")

"""``toolwire secret set|list|delete`` as real processes, and the secret reaching a tool of yours
through ``toolwire call --tools``: from the vault the command fills, from the ref's own
variable, from a ``[secrets.env]`` variable, and, when none has it, a message naming exactly
those ways."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

VALUE = "ghp_s3cr3t-value-0123456789"
DIGEST = hashlib.sha256(VALUE.encode()).hexdigest()[:16]
TOOLS = '''
import hashlib

from toolwire import ToolContext, tool
from toolwire.capabilities import secrets


@tool(capabilities=[secrets(["github_token"])])
async def token_digest(ctx: ToolContext) -> str:
    """The first 16 hex digits of the token's SHA-256."""
    assert ctx.secrets_resolver is not None
    token = await ctx.secrets_resolver.get("github_token")
    return "digest " + hashlib.sha256(token.encode()).hexdigest()[:16]
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a tool declaring ``github_token``; ``HOME`` (the vault's home) beside."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "tools.py").write_text(TOOLS, encoding="utf-8")
    (project / "toolwire.toml").write_text('[store]\nurl = "memory://"\n', encoding="utf-8")
    (tmp_path / "home").mkdir()
    return project


def toolwire(
    project: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``toolwire ARGS`` in ``project``, with ``HOME`` beside it and no secrets from outside."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TOOLWIRE_") and k not in ("GITHUB_TOKEN", "GH_PAT")
    }
    environ.update(HOME=str(project.parent / "home"), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *args],
        cwd=project,
        env=environ,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def vault(project: Path) -> Path:
    return project.parent / "home" / ".toolwire" / "secrets"


def test_set_list_delete_round_trip_never_shows_the_value(project: Path) -> None:
    stored = toolwire(project, "secret", "set", "github_token", stdin=VALUE + "\n")
    assert stored.returncode == 0, stored.stderr
    file = vault(project) / "github_token"
    assert file.read_text() == VALUE + "\n"
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    listed = toolwire(project, "secret", "list")
    assert listed.returncode == 0
    assert listed.stdout.split() == ["github_token"]
    assert toolwire(project, "secret", "list", "--json").stdout.strip() == '["github_token"]'
    deleted = toolwire(project, "secret", "delete", "github_token")
    assert deleted.returncode == 0
    assert not file.exists()
    assert toolwire(project, "secret", "list", "--json").stdout.strip() == "[]"
    again = toolwire(project, "secret", "delete", "github_token")
    assert again.returncode == 2
    assert "toolwire secret list" in again.stderr
    for done in (stored, listed, deleted, again):
        assert VALUE not in done.stdout + done.stderr


def test_a_value_is_never_taken_as_an_argument(project: Path) -> None:
    done = toolwire(project, "secret", "set", "github_token", VALUE)
    assert done.returncode == 2
    assert not vault(project).exists()


def test_an_empty_value_or_a_malformed_ref_stores_nothing(project: Path) -> None:
    empty = toolwire(project, "secret", "set", "github_token", stdin="\n")
    assert empty.returncode == 2
    assert "nothing was stored" in empty.stderr
    malformed = toolwire(project, "secret", "set", "../escape", stdin=VALUE)
    assert malformed.returncode == 2
    assert not vault(project).exists()


def test_a_secret_set_by_the_cli_reaches_a_tool_that_declares_it(project: Path) -> None:
    assert toolwire(project, "secret", "set", "github_token", stdin=VALUE).returncode == 0
    called = toolwire(project, "call", "--tools", "tools.py", "token_digest", "{}")
    assert called.returncode == 0, called.stderr
    assert f"digest {DIGEST}" in called.stdout


def test_the_refs_own_variable_reaches_the_tool(project: Path) -> None:
    env = {"TOOLWIRE_SECRET_GITHUB_TOKEN": VALUE}
    called = toolwire(project, "call", "--tools", "tools.py", "token_digest", "{}", env=env)
    assert called.returncode == 0, called.stderr
    assert f"digest {DIGEST}" in called.stdout


def test_a_secrets_env_variable_reaches_the_tool(project: Path) -> None:
    config = project / "toolwire.toml"
    config.write_text(config.read_text() + '\n[secrets.env]\ngithub_token = "GH_PAT"\n')
    called = toolwire(
        project, "call", "--tools", "tools.py", "token_digest", "{}", env={"GH_PAT": VALUE}
    )
    assert called.returncode == 0, called.stderr
    assert f"digest {DIGEST}" in called.stdout


def test_a_missing_secret_names_the_ways_that_work(project: Path) -> None:
    config = project / "toolwire.toml"
    config.write_text(config.read_text() + '\n[secrets.env]\ngithub_token = "GH_PAT"\n')
    called = toolwire(project, "call", "--tools", "tools.py", "token_digest", "{}")
    assert called.returncode == 1
    said = " ".join((called.stdout + called.stderr).split())
    assert "secret github_token is not configured" in said
    assert "run `toolwire secret set github_token`" in said
    assert "set the environment variable GH_PAT or TOOLWIRE_SECRET_GITHUB_TOKEN" in said

"""write_file and patch_file refuse the protected paths — toolwire's config, git's metadata, what
toolwire runs from — as spelled and as they resolve, with ``reason="host_protected_path"``
(issue 21)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from toolbox_helpers import error_of, ok_value, run

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.safety.protected_paths import ProtectedPaths, protected_paths
from toolwire.toolbox import file_tools
from toolwire.toolbox._protected import HOST_PROTECTED_REASON

pytestmark = pytest.mark.anyio

CONFIG = '[sandbox]\nmode = "required"\n'
PLANT = CONFIG + '\n[mcp.servers.x]\ncommand = "sh"\n'


def _registry(work: Path, protected: ProtectedPaths | None = None) -> ToolRegistry:
    backends = CapabilityBackends(
        fs_read=(str(work),), fs_write=(str(work),), protected_paths=protected
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(file_tools())
    return registry


def _refused(result: object, path: str) -> None:
    error = error_of(result)  # type: ignore[arg-type]
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.reason == HOST_PROTECTED_REASON
    assert path in error.error
    assert "protected path" in error.error


@pytest.fixture
def repo(work: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "toolwire.toml").write_text(CONFIG)
    return work


@pytest.mark.parametrize("path", ["toolwire.toml", ".git/config", ".git/hooks/pre-commit"])
async def test_write_file_refuses_what_the_host_runs(
    repo: Path, ctx: ToolContext, path: str
) -> None:
    before = (repo / path).read_bytes() if (repo / path).exists() else None
    result = await run(_registry(repo), ctx, "write_file", path=path, content=PLANT)
    _refused(result, str(repo / path))
    after = (repo / path).read_bytes() if (repo / path).exists() else None
    assert after == before


@pytest.mark.parametrize("path", ["toolwire.toml", ".git/config"])
async def test_patch_file_refuses_what_the_host_runs(
    repo: Path, ctx: ToolContext, path: str
) -> None:
    before = (repo / path).read_text()
    old = before.splitlines()[0]
    result = await run(
        _registry(repo), ctx, "patch_file", path=path, old_text=old, new_text=old + "\n[x]"
    )
    _refused(result, str(repo / path))
    assert (repo / path).read_text() == before


async def test_a_link_to_toolwire_toml_is_refused(repo: Path, ctx: ToolContext) -> None:
    (repo / "notes.txt").symlink_to(repo / "toolwire.toml")
    result = await run(_registry(repo), ctx, "write_file", path="notes.txt", content=PLANT)
    _refused(result, str(repo / "toolwire.toml"))
    assert (repo / "toolwire.toml").read_text() == CONFIG


async def test_a_link_to_the_config_file_in_use_is_refused_whatever_its_name(
    work: Path, ctx: ToolContext
) -> None:
    config = work / "agent-settings.toml"
    config.write_text(CONFIG)
    (work / "readme.txt").symlink_to(config)
    protected = protected_paths(config_files=[str(config)])
    result = await run(
        _registry(work, protected), ctx, "write_file", path="readme.txt", content=PLANT
    )
    _refused(result, str(config))
    assert config.read_text() == CONFIG


async def test_git_metadata_is_refused_at_any_depth(work: Path, ctx: ToolContext) -> None:
    result = await run(
        _registry(work), ctx, "write_file", path="vendor/lib/.git/hooks/post-merge", content="x"
    )
    _refused(result, str(work / "vendor/lib/.git/hooks/post-merge"))
    assert not (work / "vendor").exists()


async def test_the_virtualenv_toolwire_runs_from_is_refused_even_in_reach(ctx: ToolContext) -> None:
    venv = Path(sys.prefix)
    canary = venv / "bin" / f"toolwire-canary-{uuid.uuid4().hex}"
    try:
        result = await run(_registry(venv), ctx, "write_file", path=str(canary), content="x")
        _refused(result, str(canary))
        assert not canary.exists()
    finally:
        canary.unlink(missing_ok=True)  # only there if the test failed


async def test_configured_additions_are_refused_and_the_rest_is_writable(
    work: Path, ctx: ToolContext
) -> None:
    protected = protected_paths(add=["deploy"])
    registry = _registry(work, protected)
    _refused(
        await run(registry, ctx, "write_file", path="deploy/run.sh", content="x"),
        str(work / "deploy/run.sh"),
    )
    ok_value(await run(registry, ctx, "write_file", path="src/app.py", content="print(1)\n"))
    assert (work / "src/app.py").read_text() == "print(1)\n"


async def test_unprotected_names_become_writable(work: Path, ctx: ToolContext) -> None:
    protected = protected_paths(remove=[".vscode"])
    registry = _registry(work, protected)
    ok_value(await run(registry, ctx, "write_file", path=".vscode/settings.json", content="{}"))
    assert protected.removed == (".vscode",)

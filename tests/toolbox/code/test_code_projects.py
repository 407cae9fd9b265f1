"""Project detection through the file seam, and how the code tools are registered."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import write_tree

from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.capabilities.kinds.process.kind import PROCESS
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode
from toolwire.toolbox import default_tools
from toolwire.toolbox.code import code_tools, detect_project
from toolwire.toolbox.code._ecosystems import BINARIES, CheckKind

pytestmark = pytest.mark.anyio


async def test_the_nearest_directory_with_a_marker_is_the_root(tmp_path: Path) -> None:
    write_tree(tmp_path, {"repo/pyproject.toml": "", "repo/web/package.json": "{}"})
    deep = tmp_path / "repo/web/src/components"
    deep.mkdir(parents=True)
    fs = ReachScopedFs([str(tmp_path)], [])
    project = await detect_project(fs, str(deep))
    assert project is not None
    assert project.root == str(tmp_path / "repo/web")
    assert project.ecosystems == ("javascript",)
    outer = await detect_project(fs, str(tmp_path / "repo"))
    assert outer is not None
    assert outer.ecosystems == ("python",)


async def test_every_ecosystem_of_the_root_is_found_in_order(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"go.mod": "", "Cargo.toml": "", "tsconfig.json": "{}", "requirements.txt": ""},
    )
    project = await detect_project(ReachScopedFs([str(tmp_path)], []), str(tmp_path))
    assert project is not None
    assert project.ecosystems == ("python", "javascript", "rust", "go")
    assert project.has("go.mod")


async def test_markers_above_the_reach_are_not_seen(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": ""})
    inner = tmp_path / "inner"
    inner.mkdir()
    assert await detect_project(ReachScopedFs([str(inner)], []), str(inner)) is None


async def test_a_start_out_of_reach_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(CapabilityError):
        await detect_project(ReachScopedFs([str(tmp_path / "a")], []), str(tmp_path / "b"))


def test_default_tools_hold_the_code_toolset() -> None:
    tools = {t.name: t for t in default_tools()}
    for name in ("lint", "typecheck", "run_tests"):
        assert tools[name].toolset == "code"
        assert tools[name].output_is_untrusted


def test_each_code_tool_may_run_only_its_own_checkers() -> None:
    tools = {t.name: t for t in default_tools()}
    kinds: tuple[tuple[str, CheckKind], ...] = (
        ("lint", "lint"),
        ("typecheck", "typecheck"),
        ("run_tests", "tests"),
    )
    for name, kind in kinds:
        declared = tools[name].capabilities.get(PROCESS)
        assert declared is not None
        assert declared.allowed_binaries == BINARIES[kind]
        assert "bash" not in declared.allowed_binaries
        assert "*" not in declared.allowed_binaries


def test_the_schemas_take_only_the_documented_arguments() -> None:
    tools = {t.name: t for t in default_tools()}
    assert set(tools["lint"].schema["properties"]) == {"path", "fix"}
    assert set(tools["typecheck"].schema["properties"]) == {"path"}
    assert set(tools["run_tests"].schema["properties"]) == {"path", "selector"}
    assert not tools["lint"].schema.get("required")


@pytest.mark.parametrize("name", ["lint", "typecheck", "run_tests"])
async def test_without_backends_or_seams_the_code_tools_are_not_available(
    name: str, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"pyproject.toml": ""})
    ctx = ToolContext(session_id="s", working_dir=str(tmp_path))
    registry = ToolRegistry()
    registry.register_all(code_tools())
    refused = (await registry.execute(name, {}, ctx)).result
    assert isinstance(refused, Err)
    assert refused.code is ErrorCode.NOT_AVAILABLE
    tool = registry.get(name)
    assert tool is not None
    missing = await tool.execute({}, ctx)  # called directly: no seam was resolved
    assert isinstance(missing, Err)
    assert missing.code is ErrorCode.NOT_AVAILABLE
    assert "backends=create_backends()" in missing.error

"""The file seam refuses writes to protected paths (what the host later runs or reads as
configuration), as the write tools do: custom tools and downloads write through it too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.errors import PathNotReachableError
from toolwire.safety.protected_paths import protected_paths

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "target", [".git/hooks/pre-commit", ".git/config", "toolwire.toml", "sub/.git/hooks/x"]
)
async def test_a_write_to_a_protected_path_is_refused_and_nothing_is_written(
    tmp_path: Path, target: str
) -> None:
    """Regression (issue 21): a custom tool with write reach could plant a git hook or a
    ``[mcp.servers]`` entry that the host runs next."""
    fs = ReachScopedFs([str(tmp_path)], [str(tmp_path)], protected=protected_paths())
    with pytest.raises(PathNotReachableError, match="protected"):
        await fs.write(str(tmp_path / target), "[mcp.servers.x]\ncommand = 'sh'\n")
    assert not (tmp_path / target).exists()


async def test_a_link_to_a_protected_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text("# the user's\n")
    os.symlink(tmp_path / "toolwire.toml", tmp_path / "notes.txt")
    fs = ReachScopedFs([str(tmp_path)], [str(tmp_path)], protected=protected_paths())
    with pytest.raises(PathNotReachableError, match="protected"):
        await fs.write(str(tmp_path / "notes.txt"), "[sandbox]\nmode = 'off'\n")
    assert (tmp_path / "toolwire.toml").read_text() == "# the user's\n"


async def test_reads_and_other_writes_are_unchanged(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    fs = ReachScopedFs([str(tmp_path)], [str(tmp_path)], protected=protected_paths())
    assert await fs.read(str(tmp_path / ".git" / "config")) == "[core]\n"
    await fs.write(str(tmp_path / "src" / "app.py"), "print(1)\n")
    assert (tmp_path / "src" / "app.py").read_text() == "print(1)\n"

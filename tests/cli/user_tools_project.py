"""A project with a ``tools.py`` of its own, and the real ``toolwire`` command run in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOOLWIRE = str(Path(sys.executable).with_name("toolwire"))
"""The console script of the venv the tests run in."""

TOOLS_PY = '''\
from toolwire import ToolOptions, ToolAnnotations, ToolContext, tool
from toolwire.capabilities import fs_reach, process


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@tool(
    capabilities=[fs_reach(read="from-personality")],
    options=ToolOptions(
        output_is_untrusted=True,
        annotations=ToolAnnotations(title="First line", read_only=True, idempotent=True),
    ),
)
async def first_line(path: str, ctx: ToolContext) -> str:
    """The first line of a text file.

    Args:
        path: The file, relative to the working directory.
    """
    assert ctx.scoped_fs is not None
    return (await ctx.scoped_fs.read(path)).splitlines()[0]


@tool(capabilities=[process(["echo"])])
async def run(binary: str, ctx: ToolContext) -> str:
    """Run a binary with the argument 'hi'.

    Args:
        binary: The binary.
    """
    assert ctx.scoped_process is not None
    done = await ctx.scoped_process.spawn(binary, ["hi"])
    return done.stdout.strip()
'''
"""Three tools: a pure one, one that reads files (its output untrusted, its annotations
read-only and idempotent), one that runs echo."""

UNTRUSTED_OPEN = "<untrusted "


def make_tools_project(directory: Path, config: str = "") -> Path:
    """``directory`` with a ``toolwire.toml`` on the in-memory store (plus ``config``), the
    ``tools.py`` above and a ``notes.txt`` whose first line is ``hello from notes``."""
    (directory / "toolwire.toml").write_text('[store]\nurl = "memory://"\n\n' + config)
    (directory / "tools.py").write_text(TOOLS_PY)
    (directory / "notes.txt").write_text("hello from notes\nsecond line\n")
    return directory


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a ``toolwire`` subprocess: no inherited config, wide lines."""
    env = {**os.environ, "COLUMNS": "500", **extra}
    env.pop("TOOLWIRE_CONFIG", None)
    return env


def toolwire(
    cwd: Path, *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``toolwire ARGS`` in ``cwd`` to the end, with ``stdin`` as its input."""
    return subprocess.run(
        [TOOLWIRE, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=cli_env(**env),
        check=False,
    )

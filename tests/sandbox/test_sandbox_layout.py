"""The mount arguments of a sandbox (`mount_arguments`), checked without running one: parents
before children, the hidden paths last, nothing mounted from under a hidden path, read-write
exactly under the write roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.capabilities.kinds.process.sandbox import Confinement
from toolwire.capabilities.kinds.process.sandbox._layout import HostFiles, Layout, mount_arguments
from toolwire.safety.protected_paths import ProtectedPaths, protected_paths

TREE = ("a", "a/b", "a/b/c", "a/d", "e", "e/f", "a/.toolwire", "e/.ssh", "e/.netrc")


def _files(tmp: Path) -> HostFiles:
    (tmp / "empty").write_text("")
    (tmp / "passwd").write_text("me:x:0:0::/:/bin/sh\n")
    return HostFiles(empty_file=str(tmp / "empty"), passwd=str(tmp / "passwd"))


def _build(tmp: Path) -> Path:
    root = tmp / "tree"
    for item in TREE:
        path = root / item
        if item.endswith(".netrc"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("secret")
        else:
            path.mkdir(parents=True, exist_ok=True)
    return root


def _mounts(layout: Layout) -> list[tuple[str, str]]:
    """``(operation, destination)`` of every mount, in order; a bind of a stand-in file (not
    of the path itself) is ``--hide-file``."""
    args, out, i = list(layout.arguments), [], 0
    while i < len(args):
        op = args[i]
        if op in ("--bind", "--ro-bind", "--symlink"):
            same = args[i + 1] == args[i + 2] or op == "--symlink"
            out.append((op if same else "--hide-file", args[i + 2]))
            i += 3
        elif op in ("--tmpfs", "--proc", "--dev", "--dir", "--chdir", "--remount-ro"):
            out.append((op, args[i + 1]))
            i += 2
        else:
            raise AssertionError(f"unexpected argument {op}")
    return out


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def test_roots_are_bound_by_side_and_the_floor_and_state_hidden(tmp_path: Path) -> None:
    root = _build(tmp_path)
    home = str(root / "e")
    confinement = Confinement(
        read_roots=(str(root / "a"), str(root / "e")), write_roots=(str(root / "a" / "b"),)
    )
    layout = mount_arguments(confinement, cwd=str(root / "a"), files=_files(tmp_path), home=home)
    mounts = _mounts(layout)
    assert ("--ro-bind", str(root / "a")) in mounts
    assert ("--bind", str(root / "a" / "b")) in mounts
    assert ("--tmpfs", str(root / "a" / ".toolwire")) in mounts  # state, hidden
    assert ("--tmpfs", str(root / "e" / ".ssh")) in mounts  # the floor of this home
    assert ("--hide-file", str(root / "e" / ".netrc")) in mounts
    assert layout.writable == (str(root / "a" / "b"),)
    assert mounts[-1] == ("--chdir", str(root / "a"))


def test_a_root_under_a_hidden_path_is_not_mounted(tmp_path: Path) -> None:
    root = _build(tmp_path)
    confinement = Confinement(
        read_roots=(str(root / "a" / ".toolwire"),),
        write_roots=(str(root / "e" / ".ssh"),),
        deny=(str(root / "a" / "d"),),
    )
    layout = mount_arguments(
        Confinement(read_roots=(*confinement.read_roots, str(root / "a" / "d" / "x"))),
        cwd=str(tmp_path),
        files=_files(tmp_path),
        home=str(root / "e"),
    )
    assert layout.visible == ()
    with pytest.raises(PermissionError, match="hidden"):
        mount_arguments(
            confinement, cwd=str(root / "a" / ".toolwire"), files=_files(tmp_path), home=None
        )


def test_a_cwd_out_of_every_root_is_an_empty_directory(tmp_path: Path) -> None:
    layout = mount_arguments(
        Confinement(), cwd=str(tmp_path / "nowhere"), files=_files(tmp_path), home=None
    )
    assert _mounts(layout)[-2:] == [
        ("--dir", str(tmp_path / "nowhere")),
        ("--chdir", str(tmp_path / "nowhere")),
    ]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    reads=st.lists(st.sampled_from(TREE), max_size=5),
    writes=st.lists(st.sampled_from(TREE), max_size=4),
    denied=st.lists(st.sampled_from(TREE), max_size=2),
)
def test_any_roots_mount_parents_first_and_hide_last(
    tmp_path: Path, reads: list[str], writes: list[str], denied: list[str]
) -> None:
    root = tmp_path / "tree"
    if not root.exists():
        _build(tmp_path)
    confinement = Confinement(
        read_roots=tuple(str(root / r) for r in reads),
        write_roots=tuple(str(root / w) for w in writes),
        deny=tuple(str(root / d) for d in denied),
    )
    layout = mount_arguments(confinement, cwd="/", files=_files(tmp_path), home=str(root / "e"))
    mounts = [m for m in _mounts(layout) if str(root) in m[1]]
    binds = [dest for op, dest in mounts if op in ("--bind", "--ro-bind")]
    hidden = [dest for op, dest in mounts if op in ("--tmpfs", "--hide-file")]
    for i, dest in enumerate(binds):  # a parent is never bound over a child bound before it
        assert not any(_under(earlier, dest) and earlier != dest for earlier in binds[:i])
    positions = {dest: i for i, (_, dest) in enumerate(mounts)}
    for dest in hidden:  # every hidden path is laid over the roots, after them
        assert all(positions[dest] > positions[b] for b in binds if _under(dest, b))
    secret_places = [str(root / d) for d in denied] + [
        str(root / p) for p in ("a/.toolwire", "e/.ssh", "e/.netrc")
    ]
    for dest in binds:
        assert not any(_under(dest, s) for s in secret_places)  # nothing mounted from inside
        rw = any(_under(os.path.realpath(dest), str(root / w)) for w in writes)
        assert (dest in layout.writable) == rw


def test_protected_paths_are_bound_read_only_after_their_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "toolwire.toml").write_text("")
    (root / "src" / "pkg").mkdir(parents=True)
    protected = protected_paths(add=[str(root / "src" / "pkg")])
    confinement = Confinement(write_roots=(str(root),), protected=protected)
    layout = mount_arguments(confinement, cwd=str(root), files=_files(tmp_path), home=None)
    mounts = _mounts(layout)
    real = str(root.resolve())
    first = mounts.index(("--bind", real))
    # a repository: its hooks and config read-only, the rest writable (commits work)
    assert ("--ro-bind", f"{real}/.git") not in mounts
    assert mounts.index(("--bind", f"{real}/.git")) > first  # pinned: cannot be renamed away
    assert mounts.index(("--ro-bind", f"{real}/.git/hooks")) > first
    assert mounts.index(("--hide-file", f"{real}/.git/config")) > first  # missing: empty stand-in
    assert mounts.index(("--ro-bind", f"{real}/toolwire.toml")) > first
    assert mounts.index(("--bind", f"{real}/src")) < mounts.index(("--ro-bind", f"{real}/src/pkg"))
    assert ("--tmpfs", f"{real}/.vscode") in mounts  # missing: an empty read-only stand-in
    assert not any(dest.endswith(".mcp.json") for _, dest in mounts)  # missing: none


def test_a_root_without_a_repository_gets_no_git_directory_of_its_own(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    confinement = Confinement(write_roots=(str(root),), protected=protected_paths())
    layout = mount_arguments(confinement, cwd=str(root), files=_files(tmp_path), home=None)
    mounts = _mounts(layout)
    real = str(root.resolve())
    assert ("--tmpfs", f"{real}/.git") in mounts  # an empty read-only stand-in: no git init
    assert not any(dest.startswith(f"{real}/.git/") for _, dest in mounts)


def test_without_protected_paths_a_root_is_bound_alone(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".git").mkdir(parents=True)
    nothing = ProtectedPaths(names=(), home_names=(), paths=())
    confinement = Confinement(write_roots=(str(root),), protected=nothing)
    layout = mount_arguments(confinement, cwd=str(root), files=_files(tmp_path), home=None)
    assert not any(str(root.resolve()) + "/" in dest for _, dest in _mounts(layout))

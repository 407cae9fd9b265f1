"""The sensitive-path manifest: recomputed from $HOME, prefix-matched, link spellings included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolwire.safety.sensitive_paths import (
    HOME_SENSITIVE,
    SYSTEM_SENSITIVE,
    is_sensitive,
    sensitive_paths,
)


def test_manifest_expands_home_entries_against_the_home_given(tmp_path: Path) -> None:
    entries = sensitive_paths(str(tmp_path))
    for rel in HOME_SENSITIVE:
        assert f"{tmp_path}/{rel}" in entries


def test_manifest_uses_toolwire_state_not_ethos(tmp_path: Path) -> None:
    entries = sensitive_paths(str(tmp_path))
    assert f"{tmp_path}/.toolwire/secrets" in entries
    assert f"{tmp_path}/.toolwire/keys.json" in entries
    assert not any(".ethos" in entry for entry in entries)


def test_manifest_holds_every_system_entry(tmp_path: Path) -> None:
    entries = sensitive_paths(str(tmp_path))
    for path in SYSTEM_SENSITIVE:
        assert path in entries


def test_manifest_reads_home_from_the_environment_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "first"))
    first = sensitive_paths()
    monkeypatch.setenv("HOME", str(tmp_path / "second"))
    second = sensitive_paths()
    assert f"{tmp_path}/first/.ssh" in first
    assert f"{tmp_path}/second/.ssh" in second
    assert f"{tmp_path}/first/.ssh" not in second


def test_manifest_lists_the_real_home_when_home_is_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real-home"
    real.mkdir()
    link = tmp_path / "home-link"
    link.symlink_to(real)
    entries = sensitive_paths(str(link))
    assert f"{link}/.ssh" in entries
    assert f"{real}/.ssh" in entries


def test_manifest_has_no_duplicates(tmp_path: Path) -> None:
    entries = sensitive_paths(str(tmp_path))
    assert len(entries) == len(set(entries))


def test_a_root_home_contributes_no_home_entries() -> None:
    assert "/.ssh" not in sensitive_paths("/")


@pytest.mark.parametrize(
    "rel",
    [".ssh", ".ssh/id_rsa", ".aws/credentials", ".toolwire/secrets/providers%2Fx", ".netrc"],
)
def test_paths_at_or_below_home_entries_are_sensitive(tmp_path: Path, rel: str) -> None:
    assert is_sensitive(f"{tmp_path}/{rel}", home=str(tmp_path))


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/etc/shadow",
        "/etc/sudoers.d/90-cloud",
        "/root/.bashrc",
        "/boot/vmlinuz",
        "/sys/kernel",
        "/proc/sys/kernel/core_pattern",
        "/proc/self/environ",
        "/proc/1/environ",
        "/proc/4242/cmdline",
        "/proc/4242/task/4243/environ",
        "/proc/thread-self/mem",
        "//etc//passwd",
        "/etc/./shadow",
        "/tmp/../etc/passwd",
    ],
)
def test_system_paths_and_their_spellings_are_sensitive(tmp_path: Path, path: str) -> None:
    assert is_sensitive(path, home=str(tmp_path))


@pytest.mark.parametrize(
    "rel",
    [".sshx", ".ssh-backup/key", "project/.ssh-notes", ".aws/cli-cache", ".toolwire/state.db"],
)
def test_siblings_sharing_a_name_prefix_are_not_sensitive(tmp_path: Path, rel: str) -> None:
    assert not is_sensitive(f"{tmp_path}/{rel}", home=str(tmp_path))


@pytest.mark.parametrize("path", ["/etc/passwd-backup", "/rooted", "/proc/4242/status", "/bootx"])
def test_system_siblings_are_not_sensitive(tmp_path: Path, path: str) -> None:
    assert not is_sensitive(path, home=str(tmp_path))


def test_relative_paths_are_judged_against_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert is_sensitive(".ssh/id_rsa", home=str(tmp_path))
    assert not is_sensitive("notes.md", home=str(tmp_path))


def test_is_sensitive_touches_no_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / ".ssh"
    assert is_sensitive(str(missing), home=str(tmp_path / "nowhere"))
    assert not os.path.exists(missing)


# ---------------------------------------------------------------- other spellings (item 14)
# On a case-insensitive file system (the macOS default) `~/.SSH/id_rsa` opens `~/.ssh/id_rsa`.
# The floor is a deny list, so it compares case-insensitively everywhere: refusing another
# spelling of a protected entry is the safe side.


@pytest.mark.parametrize(
    "rel",
    [
        ".SSH/id_rsa",
        ".Ssh",
        ".Aws/credentials",
        ".aws/CREDENTIALS",
        ".GNUPG/private-keys-v1.d",
        ".Toolwire/Secrets/providers%2Fx",
        ".BASH_HISTORY",
        "library/keychains/login.keychain-db",
    ],
)
def test_other_letter_cases_of_home_entries_are_sensitive(tmp_path: Path, rel: str) -> None:
    assert is_sensitive(f"{tmp_path}/{rel}", home=str(tmp_path))


@pytest.mark.parametrize(
    "path", ["/ETC/shadow", "/etc/Passwd", "/Etc/Sudoers.d/x", "/PROC/self/environ", "/Root/x"]
)
def test_other_letter_cases_of_system_entries_are_sensitive(tmp_path: Path, path: str) -> None:
    assert is_sensitive(path, home=str(tmp_path))


def test_a_home_spelled_in_other_letter_cases_is_still_matched(tmp_path: Path) -> None:
    home = tmp_path / "Ann"
    assert is_sensitive(f"{str(home).upper()}/.ssh/id_rsa", home=str(home))


@pytest.mark.parametrize("rel", [".SSHX", ".Aws/cli-cache", "Project/.Ssh-notes"])
def test_other_letter_cases_of_siblings_are_still_not_sensitive(tmp_path: Path, rel: str) -> None:
    assert not is_sensitive(f"{tmp_path}/{rel}", home=str(tmp_path))

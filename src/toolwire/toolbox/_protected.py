"""Paths the write tools refuse whatever the reach: the sensitive floor, toolwire's state, and the
protected paths (what the host later runs or reads as configuration).

The sensitive-path floor (`toolwire.safety.sensitive_paths`) is refused by the file seam too;
the write tools check it first so the model reads why. toolwire's own state — any path with a
``.toolwire`` directory segment (``~/.toolwire/...``, ``<project>/.toolwire/state.db``,
``<project>/.toolwire/terminal-spill/...``), in any letter case — is refused so a model cannot
overwrite the store or forge spill files, keys or configuration. The protected paths
(`toolwire.safety.protected_paths`: ``toolwire.toml`` and the config files toolwire read, the
virtualenv, interpreter and code it runs from, ``.git``, editors' and agents' project settings,
shell start-up files in the home directory) are refused with ``reason="host_protected_path"``
and a message naming why: the host would run what was written there.

The write tools ask twice: about the path as spelled, before anything on disk is touched, and
about the path it resolves to (`toolwire.toolbox._file_stats.look`), so a symbolic link to the
state directory, or to a protected file, is refused like the file itself. A hard link cannot
reach it: writes are atomic renames, which replace the link, never the file behind it.
"""

from __future__ import annotations

from toolwire.results import Err, ErrorCode
from toolwire.safety.protected_paths import ProtectedPaths, is_protected
from toolwire.safety.sensitive_paths import is_sensitive

__all__ = [
    "HOST_PROTECTED_REASON",
    "STATE_DIR_NAME",
    "refuse_write",
    "write_refusal",
]

STATE_DIR_NAME = ".toolwire"
"""The directory name that holds toolwire's own state, at home and in a working directory."""

HOST_PROTECTED_REASON = "host_protected_path"
"""The ``reason`` of a refusal to write a protected path (stable: clients may branch on it)."""


def _refusal(path: str, protected: ProtectedPaths | None) -> tuple[str, str] | None:
    if is_sensitive(path):
        return (
            f"Writing to {path} is refused: it is on the sensitive-path floor (credentials, keys, "
            "shell histories and system files are never written by tools).",
            "protected_path",
        )
    if STATE_DIR_NAME in path.casefold().split("/"):
        return (
            f"Writing to {path} is refused: it is one of toolwire's own state files "
            f"(anything under a {STATE_DIR_NAME} directory).",
            "protected_path",
        )
    why = is_protected(path, protected)
    if why is not None:
        return (
            f"Writing to {path} is refused: it is a protected path, which the host runs or reads "
            f"as configuration outside the sandbox ({why}). Ask the user to change it.",
            HOST_PROTECTED_REASON,
        )
    return None


def write_refusal(path: str, protected: ProtectedPaths | None = None) -> str | None:
    """Why the write tools refuse the absolute ``path``, or ``None`` when they do not.

    Args:
        path: The path as spelled, or as it resolves.
        protected: The protected paths (the tool's ``ctx.seam(PROTECTED_PATHS)``); the
            defaults when ``None``.
    """
    found = _refusal(path, protected)
    return None if found is None else found[0]


def refuse_write(path: str, protected: ProtectedPaths | None = None) -> Err | None:
    """The ``not_available`` answer when `write_refusal` refuses ``path``, else ``None``; its
    ``reason`` is ``"protected_path"`` (the floor, toolwire's state) or `HOST_PROTECTED_REASON`."""
    found = _refusal(path, protected)
    if found is None:
        return None
    message, reason = found
    return Err(message, ErrorCode.NOT_AVAILABLE, reason=reason)

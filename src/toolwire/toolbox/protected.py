"""Paths the write tools refuse whatever the reach: the sensitive floor and toolwire's state.

The sensitive-path floor (`toolwire.safety.sensitive_paths`) is refused by the file seam too;
the write tools check it first so the model reads why. toolwire's own state — any path with a
``.toolwire`` directory segment (``~/.toolwire/...``, ``<project>/.toolwire/state.db``,
``<project>/.toolwire/terminal-spill/...``), in any letter case — is refused so a model cannot
overwrite the store or forge spill files, keys or configuration.

The write tools ask twice: about the path as spelled, before anything on disk is touched, and
about the path it resolves to (`toolwire.toolbox.file_stats.look`), so a symbolic link to the
state directory, or to a file in it, is refused like the state itself. A hard link cannot reach
it: writes are atomic renames, which replace the link, never the file behind it.
"""

from __future__ import annotations

from toolwire.results import Err, ErrorCode
from toolwire.safety.sensitive_paths import is_sensitive

__all__ = ["STATE_DIR_NAME", "refuse_write", "write_refusal"]

STATE_DIR_NAME = ".toolwire"
"""The directory name that holds toolwire's own state, at home and in a working directory."""


def write_refusal(path: str) -> str | None:
    """Why the write tools refuse the absolute ``path``, or ``None`` when they do not."""
    if is_sensitive(path):
        return (
            f"Writing to {path} is refused: it is on the sensitive-path floor (credentials, keys, "
            "shell histories and system files are never written by tools)."
        )
    if STATE_DIR_NAME in path.casefold().split("/"):
        return (
            f"Writing to {path} is refused: it is one of toolwire's own state files "
            f"(anything under a {STATE_DIR_NAME} directory)."
        )
    return None


def refuse_write(path: str) -> Err | None:
    """The ``not_available`` answer when `write_refusal` refuses ``path``, else ``None``."""
    reason = write_refusal(path)
    return None if reason is None else Err(reason, ErrorCode.NOT_AVAILABLE, reason="protected_path")

"""Paths the write tools refuse whatever the reach: the sensitive floor and toolwire's state.

The sensitive-path floor (`toolwire.safety.sensitive_paths`) is refused by the file seam too;
the write tools check it first so the model reads why. toolwire's own state — any path with a
``.toolwire`` directory segment (``~/.toolwire/...``, ``<project>/.toolwire/terminal-spill/...``)
— is refused so a model cannot forge spill files, keys or configuration.
"""

from __future__ import annotations

from toolwire.safety.sensitive_paths import is_sensitive

__all__ = ["STATE_DIR_NAME", "write_refusal"]

STATE_DIR_NAME = ".toolwire"
"""The directory name that holds toolwire's own state, at home and in a working directory."""


def write_refusal(path: str) -> str | None:
    """Why the write tools refuse the absolute ``path``, or ``None`` when they do not."""
    if is_sensitive(path):
        return (
            f"Writing to {path} is refused: it is on the sensitive-path floor (credentials, keys, "
            "shell histories and system files are never written by tools)."
        )
    if STATE_DIR_NAME in path.split("/"):
        return (
            f"Writing to {path} is refused: it is one of toolwire's own state files "
            f"(anything under a {STATE_DIR_NAME} directory)."
        )
    return None

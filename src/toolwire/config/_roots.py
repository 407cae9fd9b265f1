"""The sandbox roots a configuration names, checked before anything runs: never the whole disk,
never a path that is missing or not a directory, and a warning for the home directory taken
by default."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from toolwire.errors import ConfigurationError

__all__ = ["HasRoots", "check_sandbox"]


class HasRoots(Protocol):
    """What `check_sandbox` reads of a configuration."""

    @property
    def sandbox_roots(self) -> tuple[tuple[str, str], ...]:
        """``(path, "read+write" | "read")`` pairs."""
        ...


def check_sandbox(config: HasRoots, *, named: bool) -> tuple[str, ...]:
    """Refuse sandbox roots that cannot be meant; return the warnings for doubtful ones.

    Args:
        config: The configuration (a `toolwire.config.ToolwireConfig`).
        named: Whether the roots were named (file or ``$TOOLWIRE_SANDBOX_ROOTS``) rather than
            defaulted to the directory toolwire was started in.

    Raises:
        ConfigurationError: a root is ``/`` (the whole disk), does not exist, or is not a
            directory.
    """
    where = "[sandbox] roots" if named else "the directory toolwire was started in"
    for root, _ in config.sandbox_roots:
        path = Path(root)
        if path == Path(path.anchor):
            raise ConfigurationError(
                f"the sandbox root is {root}, the whole disk (from {where}); start toolwire in "
                "your project's directory, or name the directories tools may use in "
                "toolwire.toml under [sandbox] roots"
            )
        if not path.exists():
            raise ConfigurationError(
                f"sandbox root {root} does not exist (from {where}); create it or fix the path"
            )
        if not path.is_dir():
            raise ConfigurationError(f"sandbox root {root} is not a directory (from {where})")
    home = Path.home().resolve()
    if named or not any(Path(root) == home for root, _ in config.sandbox_roots):
        return ()
    return (
        f"the sandbox root is your home directory {home}, because toolwire was started there: "
        "tools can read and write all of it. Start toolwire in a project directory, or name "
        "the home directory in toolwire.toml under [sandbox] roots to keep it.",
    )

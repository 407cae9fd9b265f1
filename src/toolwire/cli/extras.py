"""What a command needs beyond the base install, checked before it starts.

The ``toolwire`` script is installed with the base package, but the command line needs the
``cli`` extra (typer, rich) and serving needs the ``mcp`` extra (the MCP SDK, httpx for OAuth,
PyJWT). A missing one is one line on stderr naming the ``pip install`` to run, and exit code 2,
never a traceback from deep inside an import.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping

__all__ = ["EXTRA_MODULES", "missing_module", "require_extra"]

EXTRA_MODULES: Mapping[str, tuple[str, ...]] = {
    "cli": ("typer", "rich"),
    "mcp": ("mcp", "httpx", "jwt"),
}
"""Extra → the top-level modules it brings that a command imports."""


def missing_module(extra: str) -> str | None:
    """The first module of ``extra`` this environment lacks, or ``None``; looked up without
    importing it."""
    for module in EXTRA_MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            return module
    return None


def require_extra(extra: str, feature: str) -> None:
    """Return when ``extra`` is installed; else say which and exit 2.

    Args:
        extra: A key of `EXTRA_MODULES`.
        feature: What needs it, as the user typed it (``toolwire serve``).
    """
    module = missing_module(extra)
    if module is None:
        return
    sys.stderr.write(
        f"error: {feature} needs the {extra} extra ({module} is not installed): "
        f"pip install 'toolwire[{extra}]'\n"
    )
    raise SystemExit(2)

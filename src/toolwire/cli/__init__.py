"""The ``toolwire`` command: ``serve``, ``tools`` and ``call`` (see ``docs/cli.md``)."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``toolwire`` console script and ``python -m toolwire``."""
    from toolwire.cli.app import app

    app()

"""``python -m toolwire``: the ``toolwire`` command."""

from __future__ import annotations

from toolwire.cli import main

if __name__ == "__main__":
    main()

"""The sandbox tests' fixtures: ``bwrap`` (bubblewrap can run here; skip without it on a
developer machine, fail in CI) — see `sandbox_helpers`."""

from __future__ import annotations

from sandbox_helpers import bwrap

__all__ = ["bwrap"]

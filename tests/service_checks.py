"""The machine's real services, for tests: reachable, or skip (fail with ``CI=true``).

Its own module, not ``conftest``: test folders have conftest files of their own, and
``from service_checks import ...`` picks whichever was imported first.
"""

from __future__ import annotations

import os
import socket
from typing import NoReturn

import pytest

__all__ = ["IN_CI", "missing_here", "require_service", "service_reachable"]

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def service_reachable(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether something accepts TCP connections at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def missing_here(message: str, ci_hint: str = "") -> NoReturn:
    """Something a test needs is missing: skip on a developer machine, fail in CI
    (``CI=true``), where the project's scripts must have provided it (``ci_hint`` says which)."""
    if IN_CI:
        pytest.fail(f"{message}; {ci_hint}" if ci_hint else message)
    pytest.skip(message)


def require_service(name: str, host: str, port: int) -> None:
    """Skip when a service is down on a developer machine; fail in CI (``CI=true``)."""
    if service_reachable(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if IN_CI:
        pytest.fail(f"{message}; .ci/run must start it")
    pytest.skip(f"{message} (start it: see README, 'Services')")

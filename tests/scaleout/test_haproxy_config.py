"""The HAProxy configurations: the one docs/scaling.md shows and the one the scale-out test
generates are both accepted by HAProxy itself (``haproxy -c``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from replica_cluster import haproxy_config

from service_checks import missing_here

SCALING_DOC = Path(__file__).resolve().parents[2] / "docs" / "scaling.md"


def _require_haproxy() -> None:
    if shutil.which("haproxy") is None:
        missing_here("haproxy is missing (scripts/system-deps.sh installs it: make sysdeps)")


def _check(config: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    return subprocess.run(
        ["haproxy", "-c", "-f", str(path)], capture_output=True, text=True, timeout=30
    )


def _documented_config() -> str:
    text = SCALING_DOC.read_text(encoding="utf-8")
    assert text.count("```haproxy\n") == 1, "docs/scaling.md shows one HAProxy configuration"
    return text.split("```haproxy\n", 1)[1].split("```", 1)[0]


def test_the_documented_haproxy_config_is_valid(tmp_path: Path) -> None:
    _require_haproxy()
    config = _documented_config()
    checked = _check(config, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "balance roundrobin" in config  # no stickiness
    assert "server/discover" in config  # the health check the test's proxy uses too


def test_the_generated_haproxy_config_is_valid(tmp_path: Path) -> None:
    _require_haproxy()
    config = haproxy_config(18765, [("r0", 18766), ("r1", 18767)], stats_socket=tmp_path / "s")
    checked = _check(config, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_broken_config_is_refused_so_the_check_means_something(tmp_path: Path) -> None:
    _require_haproxy()
    checked = _check("backend b\n  balance no-such-algorithm\n", tmp_path)
    assert checked.returncode != 0

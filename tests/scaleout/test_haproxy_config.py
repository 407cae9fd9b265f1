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


def test_the_documented_haproxy_config_starts_under_a_common_open_files_limit(
    tmp_path: Path,
) -> None:
    """Regression (outside check, issue 23): the example's ``maxconn 20000`` passed ``-c`` but
    HAProxy refused to start where the open-files limit is 20000. This one runs it."""
    _require_haproxy()
    import resource
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = _documented_config().replace("bind :8765", f"bind 127.0.0.1:{port}")
    config = config.replace("10.0.0.1", "127.0.0.1")  # the replicas: loopback, down is fine
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)

    def limit_open_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))

    proxy = subprocess.Popen(
        ["haproxy", "-db", "-f", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=limit_open_files,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TOOLWIRE_HEALTH_TOKEN": "t"},
    )
    try:
        listening = False
        for _ in range(100):  # up to 10 s for the listener; an exit ends the wait at once
            if proxy.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                listening = True
                break
            except OSError:
                time.sleep(0.1)
        assert listening, proxy.communicate(timeout=5)[0] if proxy.poll() is not None else ""
    finally:
        proxy.kill()
        proxy.wait(timeout=10)

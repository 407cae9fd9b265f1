"""The modes: ``auto`` sandboxes where bubblewrap runs and says loudly when it cannot,
``required`` refuses commands without it, ``off`` never sandboxes; and their settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_helpers import ctx_for, err, ok

from toolwire.capabilities.defaults import create_backends
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox import (
    BubblewrapProbe,
    SandboxLimits,
    SandboxSettings,
    probe_bubblewrap,
    sandbox_settings,
)
from toolwire.capabilities.kinds.process.sandbox._modes import (
    UnavailableProcessBackend,
    create_process_backend,
    sandbox_status,
)
from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.config import load_config
from toolwire.context import ProgressEvent
from toolwire.errors import ConfigurationError
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.toolbox import process_tools, terminal_tools

pytestmark = pytest.mark.anyio

NO_BWRAP = BubblewrapProbe(usable=False, reason="bwrap is not installed (a test says so)")


@pytest.fixture
def without_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one where bubblewrap cannot run (the probe's answer, not the binary)."""
    monkeypatch.setattr(
        "toolwire.capabilities.kinds.process.sandbox._modes.probe_bubblewrap", lambda: NO_BWRAP
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def registry_over(backends: CapabilityBackends) -> ToolRegistry:
    registry = ToolRegistry(backends=backends)
    registry.register_all([*terminal_tools(), *process_tools()])
    return registry


@pytest.mark.usefixtures("bwrap")
def test_the_probe_runs_bubblewrap_for_real_and_caches_it() -> None:
    probe = probe_bubblewrap()
    assert probe.usable
    assert probe.path is not None
    assert probe.version
    assert probe.reason == f"bubblewrap {probe.version} runs sandboxes here"
    assert probe_bubblewrap() is probe


@pytest.mark.usefixtures("bwrap")
async def test_auto_sandboxes_where_bubblewrap_runs(work: Path) -> None:
    async with create_backends(working_dir=str(work), kv_url=None, fetcher=None) as backends:
        assert isinstance(backends.processes, SandboxedProcessBackend)
        assert backends.processes.supports_background
        assert backends.sandbox_settings.mode == "auto"
        status = sandbox_status(backends.processes, "auto")
    assert status.sandboxed
    assert status.line.startswith("sandboxed by bubblewrap")
    assert isinstance(CapabilityBackends().processes, SandboxedProcessBackend)


@pytest.mark.usefixtures("without_bwrap")
async def test_auto_without_bubblewrap_runs_unsandboxed_and_warns_the_user_once(
    work: Path,
) -> None:
    backends = CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),))
    assert type(backends.processes) is LocalProcessBackend
    events: list[ProgressEvent] = []
    async with registry_over(backends) as registry:
        for _ in range(2):
            outcome = await registry.execute(
                "terminal", {"command": "echo ran"}, ctx_for(work, emit=events.append)
            )
            assert ok(outcome.result) == "ran"
    warnings = [e for e in events if e.audience == "user" and "UNSANDBOXED" in e.message]
    assert len(warnings) == 1
    assert "bwrap is not installed (a test says so)" in warnings[0].message
    status = sandbox_status(backends.processes, "auto")
    assert not status.sandboxed
    assert status.line == "UNSANDBOXED: bwrap is not installed (a test says so)"


@pytest.mark.usefixtures("without_bwrap")
async def test_required_without_bubblewrap_refuses_every_command(work: Path) -> None:
    marker = work / "ran"
    backends = create_backends(working_dir=str(work), kv_url=None, fetcher=None, sandbox="required")
    assert isinstance(backends.processes, UnavailableProcessBackend)
    async with registry_over(backends) as registry:
        ran = await registry.execute("terminal", {"command": f"touch {marker}"}, ctx_for(work))
        started = await registry.execute(
            "process_start", {"command": f"touch {marker}"}, ctx_for(work)
        )
        listed = await registry.execute("process_list", {}, ctx_for(work))
    for result in (ran.result, started.result, listed.result):
        refusal = err(result)
        assert refusal.code is ErrorCode.NOT_AVAILABLE
        assert refusal.error.startswith("SANDBOX_UNAVAILABLE: commands must run sandboxed")
        assert "bwrap is not installed" in refusal.error
    assert not marker.exists()
    assert sandbox_status(backends.processes, "required").line.startswith("REFUSED")


def test_off_never_sandboxes(work: Path) -> None:
    backends = create_backends(working_dir=str(work), kv_url=None, fetcher=None, sandbox="off")
    assert type(backends.processes) is LocalProcessBackend
    assert backends.processes.supports_background
    assert sandbox_status(backends.processes, "off").line == (
        'UNSANDBOXED ([sandbox] mode = "off")'
    )


def test_required_refuses_an_unsandboxed_backend_given_explicitly() -> None:
    with pytest.raises(ConfigurationError, match="runs commands unsandboxed"):
        CapabilityBackends(sandbox="required", processes=LocalProcessBackend())
    assert CapabilityBackends(sandbox="required", processes=None).processes is None


@pytest.mark.usefixtures("bwrap")
def test_limits_reach_the_backend(work: Path) -> None:
    backends = create_backends(
        working_dir=str(work),
        kv_url=None,
        fetcher=None,
        sandbox={"mode": "required", "max_processes": 7, "max_memory_mb": 0},
    )
    assert isinstance(backends.processes, SandboxedProcessBackend)
    assert backends.processes.limits == SandboxLimits(max_processes=7, max_memory_bytes=0)
    manager = ProcessManager(str(work / "logs"))
    direct = create_process_backend(SandboxSettings(mode="off"), manager)
    assert isinstance(direct, LocalProcessBackend)
    assert direct.manager is manager


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("strict", "not one of"),
        ({"mode": "auto", "max_procs": 3}, "unknown keys"),
        ({"max_processes": -1}, "whole number >= 0"),
        ({"max_cpu_s": True}, "whole number >= 0"),
        (3, "must be 'auto'"),
    ],
)
def test_bad_settings_say_how_to_fix_them(value: object, problem: str) -> None:
    with pytest.raises(ConfigurationError, match=problem):
        sandbox_settings(value)  # type: ignore[arg-type]


def test_the_config_file_and_environment_set_the_mode_and_limits(tmp_path: Path) -> None:
    config_file = tmp_path / "toolwire.toml"
    config_file.write_text(
        '[sandbox]\nmode = "required"\nmax_processes = 64\nmax_file_size_mb = 10\n'
    )
    config = load_config(config_file, env={})
    assert config.sandbox.mode == "required"
    assert config.sandbox.limits.max_processes == 64
    assert config.sandbox.limits.max_file_size_bytes == 10 * 1024 * 1024
    assert load_config(config_file, env={"TOOLWIRE_SANDBOX_MODE": "off"}).sandbox.mode == "off"
    assert load_config(tmp_path / "toolwire.toml", env={}).sandbox.limits.max_cpu_s == 3600
    with pytest.raises(ConfigurationError, match="TOOLWIRE_SANDBOX_MODE"):
        load_config(config_file, env={"TOOLWIRE_SANDBOX_MODE": "sometimes"})
    config_file.write_text('[sandbox]\nroots = ["."]\nmode = "sometimes"\n')
    with pytest.raises(ConfigurationError, match=r"toolwire.toml:3: sandbox.mode: expected one of"):
        load_config(config_file, env={})


@pytest.mark.usefixtures("bwrap")
def test_the_serve_banner_says_commands_are_sandboxed(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    banner = _banner_of(tmp_path)
    assert "  commands sandboxed by bubblewrap" in banner
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n[sandbox]\nmode = "off"\n')
    assert '  commands UNSANDBOXED ([sandbox] mode = "off")' in _banner_of(tmp_path)


def _banner_of(project: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "serve", "--stdio"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.stderr.decode()

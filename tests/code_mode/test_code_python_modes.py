"""When ``runtime="python"`` is offered and where it may run: never unsandboxed unless told."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_helpers import error_of, registry_with, value_of
from python_helpers import ctx_in, python_registry, run_py

from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process.sandbox._modes import UnavailableProcessBackend
from toolwire.decorator import tool
from toolwire.results import ErrorCode

pytestmark = pytest.mark.anyio


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return text


async def test_without_a_sandbox_the_python_runtime_is_refused(tmp_path: Path) -> None:
    for backend in (LocalProcessBackend(), UnavailableProcessBackend("no bwrap here")):
        registry = python_registry(tmp_path, [echo], processes=backend)
        err = error_of(await run_py(registry, tmp_path, "open('/etc/hostname').read()"))
        assert err.code is ErrorCode.NOT_AVAILABLE
        assert err.reason == "sandbox_unavailable"
        assert "runtime='monty'" in err.error
        await registry.aclose()


async def test_python_unsandboxed_lets_it_run_on_a_plain_backend(tmp_path: Path) -> None:
    registry = python_registry(
        tmp_path, [echo], processes=LocalProcessBackend(), python_unsandboxed=True
    )
    code = "import sys\nr = await echo('hi')\n[r, sys.executable]"
    assert value_of(await run_py(registry, tmp_path, code)) == ["hi", "/usr/bin/python3"]
    await registry.aclose()


async def test_without_a_process_backend_it_is_not_available(tmp_path: Path) -> None:
    from toolwire.code_mode import CodeModeSettings

    registry = registry_with([echo], tmp_path / "kv.db", CodeModeSettings(python_runtime=True))
    err = error_of(await run_py(registry, tmp_path, "1"))
    assert err.reason == "no_process_backend"
    await registry.aclose()


async def test_the_runtime_parameter_exists_only_when_the_python_runtime_is_on(
    tmp_path: Path,
) -> None:
    off = registry_with([echo], tmp_path / "kv.db")
    run_code = off.get("run_code")
    assert run_code is not None
    assert "runtime" not in run_code.schema["properties"]
    err = error_of(await run_py(off, tmp_path, "1"))
    assert err.code is ErrorCode.INPUT_INVALID
    await off.aclose()
    on = python_registry(tmp_path, [echo], processes=LocalProcessBackend())
    run_code = on.get("run_code")
    assert run_code is not None
    assert run_code.schema["properties"]["runtime"]["enum"] == ["monty", "python"]
    assert 'runtime="python"' in run_code.description
    monty = await on.execute("run_code", {"code": "1 + 1"}, ctx_in(tmp_path))
    assert value_of(monty) == 2  # the default is still Monty
    await on.aclose()


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_on_trio_the_python_runtime_runs_where_monty_cannot(tmp_path: Path) -> None:
    registry = python_registry(
        tmp_path, [echo], processes=LocalProcessBackend(), python_unsandboxed=True
    )
    assert value_of(await run_py(registry, tmp_path, "await echo('on trio')")) == "on trio"
    monty = await registry.execute("run_code", {"code": "1"}, ctx_in(tmp_path))
    assert error_of(monty).reason == "asyncio_only"
    await registry.aclose()

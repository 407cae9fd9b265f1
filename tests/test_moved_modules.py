"""Module paths that moved in 0.2 still import, as the same module, with a warning naming the new
path; every entry of the table leads to a module that exists, and no real module is shadowed."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from toolwire._moved import GONE_PACKAGES, MOVED, new_path


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_leads_to_a_module_that_exists(old: str) -> None:
    assert importlib.util.find_spec(MOVED[old]) is not None


def test_no_entry_shadows_a_module_that_exists_at_its_old_path() -> None:
    real = [old for old in MOVED if _real_spec(old)]
    assert real == []


def _real_spec(name: str) -> bool:
    from toolwire._moved import _FINDER

    sys.meta_path.remove(_FINDER)
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
    finally:
        sys.meta_path.insert(0, _FINDER)


def test_a_module_beneath_a_moved_package_follows_it() -> None:
    assert new_path("toolwire.backends.kv.sqlite") == "toolwire.stores._sqlite"
    assert new_path("toolwire.sandbox.egress.proxy") == (
        "toolwire.capabilities.kinds.process.sandbox.egress._proxy"
    )
    assert new_path("toolwire.registry") is None
    assert "toolwire.backends" in GONE_PACKAGES


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter: what an import does the first time, warnings as errors."""
    return subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_old_path_imports_the_same_module_and_warns_with_the_new_path() -> None:
    done = _run(
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    from toolwire.backends.kv import SqliteKeyValueBackend\n"
        "    import toolwire.sandbox.relay as old_relay\n"
        "    from toolwire.seams import ScopedFs\n"
        "import toolwire.stores, toolwire.capabilities.kinds.process.sandbox.relay as relay\n"
        "from toolwire.capabilities.seams import ScopedFs as NewScopedFs\n"
        "assert SqliteKeyValueBackend is toolwire.stores.SqliteKeyValueBackend\n"
        "assert old_relay is relay and ScopedFs is NewScopedFs\n"
        "print(sorted({str(w.message).split(' moved')[0] for w in seen}))\n"
        "print([str(w.message) for w in seen if 'toolwire.backends.kv ' in str(w.message)])\n"
    )
    assert done.returncode == 0, done.stderr
    names, kv_message = done.stdout.splitlines()
    # each old module warns once: the package on the way and the module asked for
    assert names == str(
        ["toolwire.backends.kv", "toolwire.sandbox", "toolwire.sandbox.relay", "toolwire.seams"]
    )
    assert "moved to toolwire.stores in toolwire 0.2" in kv_message


def test_with_warnings_as_errors_an_old_path_fails_loudly() -> None:
    done = _run("import toolwire.config_code")
    assert done.returncode != 0
    assert "toolwire.config_code moved to toolwire.config._code" in done.stderr


def test_the_new_packages_keep_the_names_the_old_modules_of_their_name_exported() -> None:
    done = _run(
        "from toolwire.mcp.client import McpProvider\n"
        "from toolwire.mcp.server import ServeOptions, create_mcp_server\n"
        "from toolwire.capabilities.kinds.process import ProcessCapability, process\n"
        "from toolwire.capabilities.kinds.network import network, NetworkPolicy\n"
        "print(McpProvider.__module__, process.__module__)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "toolwire.mcp.client._provider",
        "toolwire.capabilities.kinds.process.kind",
    ]

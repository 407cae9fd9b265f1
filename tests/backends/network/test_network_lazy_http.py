"""A `SafeFetcher` loads httpx on its first fetch, not when it is made: every ``toolwire
serve`` makes one, and a stdio session that never fetches paid about 0.3 s of its cold start
for httpx, httpcore and what they import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from toolwire.capabilities.kinds.network._fetcher import SafeFetcher

_PROBE = """
import sys
{prelude}
from toolwire.capabilities.defaults import create_backends
from toolwire.capabilities.kinds.network._fetcher import SafeFetcher
from toolwire.errors import ConfigurationError
try:
    fetcher = SafeFetcher()
except ConfigurationError:  # no httpx: said at creation (the next test)
    pass
backends = create_backends(kv_url=None, archive_url=None, secrets_vault_dir=None)
loaded = [sys.modules.get(name) is not None for name in ("httpx", "httpcore")]
print(*loaded, backends.fetcher is not None)
"""


def _probe(cwd: Path, prelude: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(prelude=prelude)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_making_fetchers_and_the_default_backends_loads_no_http_stack(tmp_path: Path) -> None:
    assert _probe(tmp_path) == "False False True"


def test_without_httpx_making_a_fetcher_says_what_to_install() -> None:
    script = (
        "import sys; sys.modules['httpx'] = None\n"
        "from toolwire.capabilities.kinds.network import SafeFetcher\n"
        "from toolwire.errors import ConfigurationError\n"
        "try:\n"
        "    SafeFetcher()\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "SafeFetcher needs httpx: pip install 'toolwire[web]'"


def test_without_httpx_the_default_backends_have_no_fetcher(tmp_path: Path) -> None:
    assert _probe(tmp_path, "sys.modules['httpx'] = None") == "False False False"


@pytest.mark.anyio
async def test_concurrent_first_fetches_make_one_exchange() -> None:
    """httpx is loaded in a worker thread on the first fetch; fetches starting together share
    the one connection pool it makes."""
    fetcher = SafeFetcher()
    made: list[object] = []

    async def first_fetch() -> None:
        made.append(await fetcher._http())

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(first_fetch)
    assert len(made) == 5
    assert len({id(exchange) for exchange in made}) == 1
    await fetcher.aclose()

"""A user's own sandboxed @tool answers a seam's refusal exactly as the built-in tools do.

The built-in tools catch a `CapabilityError` and answer ``not_available``
(``reason="capability_refused"``); a tool of yours that lets it propagate must get the same
answer, so a model (and a presenter, which shows ``not_available`` as a refusal) cannot tell
the difference. Exceptions from ``execute`` become results in ``execution/run.py``
(``_failure``).
"""

from __future__ import annotations

import pytest

from toolwire import ToolContext, tool
from toolwire.capabilities import fs_reach, network, process
from toolwire.errors import BinaryNotAllowedError, HostNotAllowedError, PathNotReachableError
from toolwire.results import Err, ErrorCode
from toolwire.testing import ToolHarness

pytestmark = pytest.mark.anyio


@tool(capabilities=[fs_reach(read="from-personality")])
async def peek(path: str, ctx: ToolContext) -> str:
    """Read a file through the file seam.

    Args:
        path: The file.
    """
    assert ctx.scoped_fs is not None
    return await ctx.scoped_fs.read(path)


@tool(capabilities=[process(["git"])])
async def list_dir(ctx: ToolContext) -> str:
    """Run ls, which is not declared."""
    assert ctx.scoped_process is not None
    done = await ctx.scoped_process.spawn("ls", ["-la"])
    return done.stdout


@tool(capabilities=[network(["example.com"])])
async def fetch_other(ctx: ToolContext) -> str:
    """Fetch a host that is not declared."""
    assert ctx.scoped_fetch is not None
    response = await ctx.scoped_fetch.fetch("https://not-declared.example.org/")
    return response.text


@tool
def sync_refusal(kind: str) -> str:
    """A sync tool (it runs in a worker thread) that raises a refusal itself.

    Args:
        kind: path, binary or host.
    """
    errors = {
        "path": PathNotReachableError("PATH_NOT_REACHABLE: /etc/shadow is outside the reach"),
        "binary": BinaryNotAllowedError("BINARY_NOT_ALLOWED: rm is not declared"),
        "host": HostNotAllowedError("HOST_NOT_ALLOWED: evil.test is not allowed"),
    }
    raise errors[kind]


TOOLS = [peek, list_dir, fetch_other, sync_refusal]


def _refusal(result: object, prefix: str) -> None:
    assert isinstance(result, Err)
    assert result.code is ErrorCode.NOT_AVAILABLE
    assert result.reason == "capability_refused"
    assert result.error.startswith(prefix)


async def test_a_path_refusal_answers_like_read_file() -> None:
    async with ToolHarness(*TOOLS, builtins=True) as harness:
        mine = (await harness.call("peek", path="/etc/hostname")).result
        builtin = (await harness.call("read_file", path="/etc/hostname")).result
    _refusal(mine, "PATH_NOT_REACHABLE")
    assert isinstance(builtin, Err)
    assert (mine.code, mine.reason) == (builtin.code, builtin.reason)


async def test_a_binary_refusal_is_not_available() -> None:
    async with ToolHarness(*TOOLS) as harness:
        _refusal((await harness.call("list_dir")).result, "BINARY_NOT_ALLOWED")


async def test_a_host_refusal_is_not_available() -> None:
    async with ToolHarness(*TOOLS) as harness:
        _refusal((await harness.call("fetch_other")).result, "HOST_NOT_ALLOWED")


@pytest.mark.parametrize(
    ("kind", "prefix"),
    [
        ("path", "PATH_NOT_REACHABLE"),
        ("binary", "BINARY_NOT_ALLOWED"),
        ("host", "HOST_NOT_ALLOWED"),
    ],
)
async def test_a_refusal_raised_in_a_worker_thread_is_not_available(kind: str, prefix: str) -> None:
    async with ToolHarness(*TOOLS) as harness:
        _refusal((await harness.call("sync_refusal", kind=kind)).result, prefix)

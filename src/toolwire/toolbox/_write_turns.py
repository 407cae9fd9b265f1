"""How every write tool takes its turn at a file: `write_turn`.

``write_file`` and ``patch_file`` do the same four things before they change a file:

1. refuse toolwire's own state, the sensitive floor and the protected paths (the call's
   ``ctx.seam(PROTECTED_PATHS)``) as the path is spelled, before anything on disk is touched,
   then as it resolves (`look`: a link into ``.toolwire/`` or to ``toolwire.toml`` is refused
   like what it leads to);
2. take the write lock of the resolved path (`toolwire.toolbox._locks`), so writes of one file
   take turns and never fall between a read and the record it leaves;
3. look at the file again under the lock;
4. refuse with STALE_WRITE when it changed since it was read (`toolwire.toolbox._stale`).

The tool then writes, verifies and refreshes the record while still holding the turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from toolwire.capabilities.kinds.protected_paths.kind import PROTECTED_PATHS
from toolwire.capabilities.seams import ScopedFs
from toolwire.context import ToolContext
from toolwire.results import Err
from toolwire.toolbox._file_stats import PathStat, look
from toolwire.toolbox._locks import FILE_LOCKS
from toolwire.toolbox._protected import refuse_write
from toolwire.toolbox._stale import check_not_stale, fetch_records

__all__ = ["WriteTurn", "write_turn"]


@dataclass(frozen=True, kw_only=True, slots=True)
class WriteTurn:
    """A write tool's turn at a file: the refusal to answer, or the look that passed."""

    refusal: Err | None
    before: PathStat


@contextlib.asynccontextmanager
async def write_turn(ctx: ToolContext, fs: ScopedFs, target: str) -> AsyncIterator[WriteTurn]:
    """Steps 1-4 of the module docstring for ``target``; the lock is held for the body when
    ``refusal`` is ``None``.

    Raises:
        CapabilityError: the seam refused the path.
        OSError: the file system failed.
    """
    nothing = PathStat(path=target)
    protected = ctx.seam(PROTECTED_PATHS)
    refusal = refuse_write(target, protected)
    if refusal is not None:
        yield WriteTurn(refusal=refusal, before=nothing)
        return
    where = await look(fs, target)
    refusal = refuse_write(where.path, protected)
    if refusal is not None:
        yield WriteTurn(refusal=refusal, before=where)
        return
    async with FILE_LOCKS.writing(where.path):
        before = await look(fs, target)
        await fetch_records(ctx, before)  # records on a shared store (replicas)
        yield WriteTurn(refusal=check_not_stale(ctx, target, before), before=before)

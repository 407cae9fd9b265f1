"""ReachScopedFs under the check-then-use race: a directory in reach keeps being swapped with a
link to an outside directory by another process, while thousands of calls go through the seam.

Whatever the timing, no call may read, list or describe the outside directory, or create a file
(or a temporary file) in it: each call either works inside the root or is refused.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from pathlib import Path

import pytest

from link_swaps import created_outside, swapping
from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.errors import PathNotReachableError

pytestmark = pytest.mark.anyio

ATTEMPTS = 2000
WRITE_EVERY = 5  # a write fsyncs twice: the slowest call by far
INSIDE = b"inside the root"
CANARY = b"OUTSIDE CANARY"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``root/d/canary.txt`` in reach; ``outside/canary.txt`` and ``outside/only-outside.txt``
    out of it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "canary.txt").write_bytes(INSIDE)
    outside.mkdir()
    (outside / "canary.txt").write_bytes(CANARY)
    (outside / "only-outside.txt").write_bytes(CANARY)
    return root, outside


async def test_a_directory_swapped_for_an_outside_link_never_lets_a_call_out(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    fs = ReachScopedFs([str(root)], [str(root)])
    canary, new_file = str(root / "d" / "canary.txt"), str(root / "d" / "new.txt")
    escapes: list[str] = []
    inside = refused = 0
    with swapping(root / "d", root / ".parked", outside) as swaps:
        for attempt in range(ATTEMPTS):
            try:
                data = await fs.read_bytes(canary)
                escapes += ["read the outside canary"] if data == CANARY else []
                inside += data == INSIDE
            except PathNotReachableError:
                refused += 1
            except OSError:
                pass
            if attempt % WRITE_EVERY == 0:
                with contextlib.suppress(OSError):  # PathNotReachableError is one
                    await fs.write(new_file, f"write {attempt}")
            try:
                names = await fs.list(str(root / "d"))
                escapes += ["listed the outside directory"] if "only-outside.txt" in names else []
                info = await fs.stat(canary)
                escapes += ["described the outside canary"] if info.size == len(CANARY) else []
            except (PathNotReachableError, OSError):
                pass
    escapes += ["created a file outside"] * len(created_outside(outside))
    assert (outside / "canary.txt").read_bytes() == CANARY
    assert escapes == [], f"escapes in {ATTEMPTS} attempts: {Counter(escapes)}"
    # The race really ran: the swapper swapped, and calls met both the directory and the link.
    assert swaps.count > 0
    assert inside > 0
    assert refused > 0


async def test_a_file_swapped_for_a_link_to_an_outside_file_never_lets_a_call_out(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    os.utime(outside / "canary.txt", (1_000_000, 1_000_000))
    fs = ReachScopedFs([str(root)], [str(root)])
    canary = str(root / "d" / "canary.txt")
    escapes: list[str] = []
    inside = refused = 0
    with swapping(root / "d" / "canary.txt", root / "d" / ".parked", outside / "canary.txt"):
        for _ in range(ATTEMPTS // 2):
            try:
                data = await fs.read_bytes(canary)
                escapes += ["read the outside canary"] if data == CANARY else []
                inside += data == INSIDE
            except PathNotReachableError:
                refused += 1
            except OSError:
                pass
            with contextlib.suppress(OSError):  # PathNotReachableError is one
                size, mtime = await fs.size(canary), await fs.mtime(canary)
                escapes += ["sized the outside canary"] if size == len(CANARY) else []
                escapes += ["dated the outside canary"] if mtime == 1_000_000 else []
    escapes += ["created a file outside"] * len(created_outside(outside))
    assert (outside / "canary.txt").read_bytes() == CANARY
    assert escapes == [], f"escapes in {ATTEMPTS // 2} attempts: {Counter(escapes)}"
    assert inside > 0
    assert refused > 0

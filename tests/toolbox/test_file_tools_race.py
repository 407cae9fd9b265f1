"""The file tools through a ToolRegistry under the check-then-use race: a directory in reach
keeps being swapped with a link to an outside directory by another process.

No ``read_file``, ``search_files``, ``write_file`` or ``patch_file`` call may read the outside
canary, change it, or create a file (or a temporary file) beside it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from toolbox_helpers import file_registry, run

from link_swaps import created_outside, swapping
from toolwire.context import ToolContext
from toolwire.results import Ok

pytestmark = pytest.mark.anyio

ATTEMPTS = 300
INSIDE = "inside the root\n"
CANARY = "OUTSIDE CANARY\n"


async def test_file_tools_never_escape_a_directory_swapped_for_an_outside_link(
    work: Path, outside: Path
) -> None:
    (work / "d").mkdir()
    (work / "d" / "canary.txt").write_text(INSIDE)
    (outside / "canary.txt").write_text(CANARY)
    (outside / "only-outside.txt").write_text(CANARY)
    registry = file_registry([str(work)], [str(work)])
    ctx = ToolContext(session_id="race", working_dir=str(work))
    escapes: list[str] = []
    inside = refused = 0
    with swapping(work / "d", work / ".parked", outside) as swaps:
        for attempt in range(ATTEMPTS):
            read = await run(registry, ctx, "read_file", path="d/canary.txt")
            if isinstance(read, Ok):
                escapes += ["read_file read the outside canary"] if "OUTSIDE" in read.value else []
                inside += "inside the root" in read.value
            else:
                refused += "PATH_NOT_REACHABLE" in read.error
            found = await run(registry, ctx, "search_files", pattern="CANARY", path="d")
            if isinstance(found, Ok) and "No matches" not in found.value:
                escapes += ["search_files found the outside canary"]
            await run(registry, ctx, "write_file", path=f"d/new-{attempt % 8}.txt", content="new")
            await run(
                registry, ctx, "patch_file", path="d/canary.txt", old_text="root", new_text="root"
            )
    escapes += ["created a file outside"] * len(created_outside(outside))
    escapes += [] if (outside / "canary.txt").read_text() == CANARY else ["patched the canary"]
    assert escapes == [], f"escapes in {ATTEMPTS} attempts: {Counter(escapes)}"
    assert swaps.count > 0
    assert inside > 0
    assert refused > 0

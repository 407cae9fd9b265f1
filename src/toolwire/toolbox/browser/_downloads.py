"""Downloads: saved through the file seam under ``<working dir>/downloads``, or refused.

Chromium hands a download to Playwright, which keeps it in a temporary file until the browser
context closes. The next answer of a browser tool of the session moves it: read back, written with
``ctx.scoped_fs`` (the personality's write reach) to ``downloads/<name>`` under the call's working
directory, then the temporary file is deleted. A call without file reach, a download over
`BrowserLimits.max_download_bytes`, a target outside the write reach or a download that failed is
refused, and the answer says so.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import TYPE_CHECKING

import anyio

from toolwire.capabilities.seams import ScopedFs
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.toolbox._common import display_path, resolve_path

if TYPE_CHECKING:
    from playwright.async_api import Download

    from toolwire.capabilities.kinds.browser.seam import BrowserLimits, BrowserTab

__all__ = ["DOWNLOAD_DIR", "land_downloads", "safe_name"]

DOWNLOAD_DIR = "downloads"
"""Where downloads land, relative to the call's working directory."""
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:]+")


def safe_name(suggested: str) -> str:
    """A file name from a page's suggestion: no separators, control characters or leading dot."""
    name = _UNSAFE.sub("_", os.path.basename(suggested.replace("\\", "/"))).strip(" .")
    return name[:120] or "download"


async def land_downloads(ctx: ToolContext, tab: BrowserTab, settings: BrowserLimits) -> list[str]:
    """Save (or refuse) the tab's finished downloads; one note per download."""
    notes: list[str] = []
    while tab.downloads:
        download = tab.downloads.popleft()
        try:
            notes.append(await _land(ctx, download, settings))
        finally:
            with anyio.CancelScope(shield=True):
                await _discard(download)
    return notes


async def _land(ctx: ToolContext, download: Download, settings: BrowserLimits) -> str:
    name = safe_name(download.suggested_filename)
    fs = ctx.scoped_fs
    if fs is None:
        return f"download of {name!r} refused (this call has no file reach to save it)"
    with anyio.move_on_after(settings.navigation_timeout_s):
        failure = await download.failure()
        if failure is not None:
            return f"download of {name!r} failed ({failure})"
        temporary = await download.path()
        size = (await anyio.Path(temporary).stat()).st_size
        limit = settings.max_download_bytes
        if size > limit:
            return f"download of {name!r} refused: {size:,} bytes, over the {limit:,} saved"
        data = await anyio.Path(temporary).read_bytes()
        folder = resolve_path(DOWNLOAD_DIR, ctx.working_dir)
        try:
            await fs.mkdir(folder)
            target = await _free_name(fs, folder, name)
            await fs.write(target, data)
        except CapabilityError as exc:
            return f"download of {name!r} refused: {exc}"
        except OSError as exc:
            return f"download of {name!r} could not be saved ({exc.strerror or exc})"
        return f"downloaded {name!r} to {display_path(target, ctx.working_dir)} ({size:,} bytes)"
    return f"download of {name!r} refused: not finished after {settings.navigation_timeout_s:g}s"


async def _free_name(fs: ScopedFs, folder: str, name: str) -> str:
    stem, dot, suffix = name.rpartition(".")
    if not stem:
        stem, dot, suffix = name, "", ""
    candidate = os.path.join(folder, name)
    number = 1
    while await fs.exists(candidate):
        candidate = os.path.join(folder, f"{stem}-{number}{dot}{suffix}")
        number += 1
    return candidate


async def _discard(download: Download) -> None:
    with contextlib.suppress(Exception):  # the context is gone, and the file with it
        await download.cancel()
        await download.delete()

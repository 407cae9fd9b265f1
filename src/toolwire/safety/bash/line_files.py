"""The files one command line downloads, writes and runs, so the walker can join them up.

``curl -o x.sh URL && bash x.sh`` downloads a file and runs it; ``echo 'rm -rf ~' > x.sh && sh
x.sh`` writes a file whose text the line says and runs it. `LineFiles` remembers, by basename
(conservatively: ``/tmp/x.sh`` and ``x.sh`` are the same file), what a downloader fetched (its
operands, the URLs' last parts, its redirections, a ``tee`` after it), what an ``echo``,
``printf``, ``cat`` or ``tee`` of known text wrote, and what the line ran.
"""

from __future__ import annotations

from toolwire.safety.bash.flows import is_downloader, printed_text
from toolwire.safety.bash.model import Segment

__all__ = ["LineFiles", "basename"]


def basename(path: str) -> str:
    """The last part of ``path`` or of a URL (query and fragment dropped)."""
    return path.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class LineFiles:
    """What one line downloads, writes and runs (see the module docstring)."""

    def __init__(self) -> None:
        self._downloads: set[str] = set()
        self._written: dict[str, str] = {}
        self._ran: list[tuple[str, str]] = []

    def record(self, segment: Segment) -> None:
        """Remember the files ``segment`` downloads or writes known text to."""
        operands = [arg for arg in segment.argv[1:] if not arg.startswith("-")]
        writes = [r.target for r in segment.redirects if r.writes]
        if segment.program == "tee":
            writes.extend(operands)
        text = printed_text(segment)
        if text is None and segment.program in ("cat", "tee") and segment.stdin.kind == "data":
            text = segment.stdin.text
        if text is not None:
            for target in writes:
                self._written[basename(target)] = text
        fetched = is_downloader(segment)
        if fetched:
            self._downloads.update(basename(arg) for arg in operands)
        if fetched or segment.stdin.kind == "download":
            self._downloads.update(basename(target) for target in writes)

    def ran(self, path: str, shown: str) -> str | None:
        """Note that the line runs ``path`` (``shown`` names the command); the text written to
        it earlier in the line, if any, comes back once, to be judged as code."""
        name = basename(path)
        self._ran.append((name, shown))
        return self._written.pop(name, None)

    def downloaded_and_run(self) -> tuple[str, str] | None:
        """The first file the line both downloads and runs, with the command that runs it."""
        for name, shown in self._ran:
            if name in self._downloads:
                return name, shown
        return None

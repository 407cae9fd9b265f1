"""The files one command line downloads, writes and runs, so the walker can join them up.

``curl -o x.sh URL && bash x.sh`` downloads a file and runs it; ``echo 'rm -rf ~' > x.sh && sh
x.sh`` writes a file whose text the line says and runs it; ``base64 -d blob > x.sh; . x.sh``
writes decoded text nobody has read and runs it. `LineFiles` remembers, by basename
(conservatively: ``/tmp/x.sh`` and ``x.sh`` are the same file), what a downloader fetched (its
operands, the URLs' last parts, its redirections, a ``tee`` after it), what an ``echo``,
``printf``, ``cat`` or ``tee`` of known text, or a decoder of known text (``echo ... | base64
-d``), wrote, which files got encoded or transformed text (a decoder of unknown input, a
transformation of known text: `toolwire.safety.bash._flows.emits`), and what the line ran. A
file downloaded, or written encoded, and run in the same line is refused (`foreign_run`); a
file whose text is known is judged by that text; one written by any other program is run as
a script already on disk would be (not read).
"""

from __future__ import annotations

from toolwire.safety.bash._flows import emits, is_downloader, printed_text
from toolwire.safety.bash._model import Segment

__all__ = ["LineFiles", "basename"]


def basename(path: str) -> str:
    """The last part of ``path`` or of a URL (query and fragment dropped)."""
    return path.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class LineFiles:
    """What one line downloads, writes and runs (see the module docstring)."""

    def __init__(self) -> None:
        self._downloads: set[str] = set()
        self._encoded: set[str] = set()
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
        output = emits(segment, segment.stdin) if writes and text is None else None
        if output is not None and output.kind == "data":
            text = output.text  # decoded here: echo ... | base64 -d > x.sh
        if text is not None:
            for target in writes:
                self._written[basename(target)] = text
        if output is not None and output.kind == "encoded":
            self._encoded.update(basename(target) for target in writes)
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

    def foreign_run(self) -> tuple[str, str, str] | None:
        """The first file the line both downloads (or writes encoded text to) and runs: the
        rule it breaks, the reason and the command that runs it."""
        for name, shown in self._ran:
            if name in self._downloads:
                return "download-exec", f"running {name}, downloaded in the same command", shown
        for name, shown in self._ran:
            if name in self._encoded:
                reason = f"running {name}, written with encoded or transformed text in the same "
                return "obfuscated-exec", reason + "command", shown
        return None

"""What the diagram generators beside it share: the colours, the SVG document around the drawn
parts (size, title, arrow marker, white card), and writing the file or checking it is current."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["MUTED", "TEXT", "document", "write_or_check"]

TEXT, MUTED = "#18181b", "#52525b"


def document(*, width: int, height: float, label: str, title: str, parts: Sequence[str]) -> str:
    """The whole SVG: ``parts`` on a white card, with the ``arrow`` marker they may use."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:g}" '
        f'viewBox="0 0 {width} {height:g}" role="img" aria-label="{label}">'
    )
    defs = (
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{MUTED}"/>'
        "</marker></defs>"
    )
    background = f'<rect width="{width}" height="{height:g}" rx="12" fill="#ffffff"/>'
    return "\n".join([head, f"<title>{title}</title>", defs, background, *parts, "</svg>"]) + "\n"


def write_or_check(render: Callable[[], str], output: Path, script: str, argv: list[str]) -> int:
    """Write what ``render`` draws to ``output``, or with ``--check`` say whether it is current."""
    drawn = render()
    if "--check" in argv:
        current = output.read_text(encoding="utf-8") if output.exists() else ""
        if current != drawn:
            print(f"{output} is out of date: run python {Path(script).name}", file=sys.stderr)
            return 1
        return 0
    output.write_text(drawn, encoding="utf-8")
    print(f"wrote {output}")
    return 0

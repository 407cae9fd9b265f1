"""Draw docs/layers.svg: the rooms of ``src/toolwire``, in the layers their imports respect.

``python docs/diagrams/layers.py`` writes the picture; ``--check`` exits 1 when the committed SVG
differs from what this script draws. The boxes come from the source tree (every top-level module
and package of ``src/toolwire``, and every kind folder of ``capabilities/kinds/``), placed by
`LAYERS`; a room `LAYERS` does not place is drawn in a red "not placed" band, and
``tests/test_docs_layers.py`` fails until it is placed. The same test reads the real import graph:
a module imports only its own layer and the layers below it, except for the edges `EXCEPTIONS`
names with a reason. No dependency: the SVG is written by hand, the same on every machine.
"""

from __future__ import annotations

import sys
from itertools import pairwise
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helpers beside it
from svg_document import MUTED, TEXT, document, write_or_check

__all__ = ["EXCEPTIONS", "LAYERS", "OUTPUT", "kinds", "layer_of", "render", "rooms"]

OUTPUT = Path(__file__).resolve().parents[1] / "layers.svg"
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "toolwire"

# Bottom to top: a module may import its own layer and every layer below it.
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "contract",
        "what a tool is and what it answers",
        (
            "errors",
            "results",
            "context",
            "calls",
            "tools",
            "principals",
            "availability",
            "decorator",
            "tool_options",
            "docstrings",
            "hints",
            "tool_params",
            "typeschema",
            "schema",
            "threads",
            "cleanups",
            "lazy",
            "version",
            "_moved",
        ),
    ),
    (
        "world",
        "the only way a tool touches the world: capability kinds, stores, the deny floor",
        ("capabilities", "stores", "safety"),
    ),
    (
        "pipeline",
        "a batch of calls run, reduced and presented; which tools a model sees",
        (
            "registry",
            "registry_settings",
            "execution",
            "reducers",
            "presenting",
            "providers",
            "definitions_cache",
            "deferred_tools",
            "tool_search",
        ),
    ),
    (
        "surfaces",
        "built-in tools, and the ways in and out: MCP, formats, frameworks, CLI, config",
        (
            "toolbox",
            "code_mode",
            "mcp",
            "formats",
            "integrations",
            "cli",
            "config",
            "wiring",
            "tool_modules",
            "replicas",
            "telemetry",
            "testing",
            "__main__",
            "__init__",
        ),
    ),
)

# Imports that go up a layer on purpose: (importer prefix, imported prefix) → why.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("toolwire.context", "toolwire.capabilities"): (
        "a ToolContext carries the seams the kinds declare (their protocols live in the kinds)"
    ),
    ("toolwire.tools", "toolwire.capabilities"): "a Tool carries its ToolCapabilities declaration",
    ("toolwire.decorator", "toolwire.capabilities"): "@tool takes the capability declaration",
    ("toolwire.tool_options", "toolwire.capabilities"): "ToolOptions holds the declaration too",
    ("toolwire.capabilities.kinds.subagent", "toolwire."): (
        "a sub-agent is an agent loop: its backend runs a registry of its own, with the toolbox"
    ),
    ("toolwire.capabilities.kinds.process.background", "toolwire.replicas.owners"): (
        "a background process lives on one replica: its id names its owner"
    ),
    ("toolwire.capabilities.kinds.browser.backend", "toolwire.replicas.claims"): (
        "a session's browser lives on one replica, claimed on the shared store"
    ),
    ("toolwire.execution.quota_tables", "toolwire.config.files"): (
        "[[quotas]] is read with the config file's line-numbered errors"
    ),
}

WIDTH = 960
MARGIN = 20
PAD = 14
ARROW_W = 70
CHAR_W = 7.3  # 12 px monospace
ROOM_H = 26
KIND_H = 22
ROW_GAP = 8

SANS = "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace"
COLOURS = {
    "contract": ("#f4f4f5", "#52525b"),
    "world": ("#ecf8ef", "#2f8a4c"),
    "pipeline": ("#eef3fd", "#3a64c8"),
    "surfaces": ("#fdf3e7", "#c2741a"),
    "not placed": ("#fdecec", "#c0392b"),
}


def rooms(package: Path = PACKAGE) -> list[str]:
    """The top-level rooms of the package: modules by stem, packages by name, sorted."""
    found = []
    for path in package.iterdir():
        if path.suffix == ".py":
            found.append(path.stem)
        elif (path / "__init__.py").is_file():
            found.append(path.name)
    return sorted(found)


def kinds(package: Path = PACKAGE) -> list[str]:
    """The capability kinds: the folders of ``capabilities/kinds/``."""
    base = package / "capabilities" / "kinds"
    return sorted(p.name for p in base.iterdir() if (p / "__init__.py").is_file())


def layer_of(module: str) -> int | None:
    """The index in `LAYERS` of a module (``toolwire.x.y``), or None when no layer places it."""
    parts = module.split(".")
    room = parts[1] if len(parts) > 1 else "__init__"
    for index, (_, _, members) in enumerate(LAYERS):
        if room in members:
            return index
    return None


def allowed(importer: str, imported: str) -> bool:
    """Whether an import edge keeps to the layers (or is one of the `EXCEPTIONS`)."""
    low, high = layer_of(importer), layer_of(imported)
    if low is None or high is None or high <= low:
        return True
    return any(importer.startswith(a) and imported.startswith(b) for a, b in EXCEPTIONS)


def _text(x: float, y: float, text: str, *, size: int, font: str = SANS, **extra: str) -> str:
    attributes = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in extra.items())
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="{font}" font-size="{size}"'
        f"{attributes}>{escape(text)}</text>"
    )


def _box(x: float, y: float, w: float, h: float, fill: str, line: str, rx: int = 6) -> str:
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx}" fill="{fill}" '
        f'stroke="{line}" stroke-width="1.5"/>'
    )


def _label(name: str, is_package: bool) -> str:
    return name + "/" if is_package else name + ".py"


def _flow(
    items: list[tuple[str, float]], left: float, width: float, top: float, height: float
) -> tuple[list[tuple[str, float, float, float]], float]:
    """Place boxes of the given widths in rows from ``left``; the places and the bottom edge."""
    placed, x, y = [], left, top
    for label, w in items:
        if x + w > left + width and x > left:
            x, y = left, y + height + ROW_GAP
        placed.append((label, x, y, w))
        x += w + ROW_GAP
    return placed, y + height


def _band(
    name: str, caption: str, members: list[str], top: float, package: Path
) -> tuple[list[str], float]:
    """One layer: its title, caption and room boxes (``capabilities`` with its kinds inside)."""
    fill, line = COLOURS[name]
    left, width = MARGIN + ARROW_W, WIDTH - 2 * MARGIN - ARROW_W
    inner_left, inner_width = left + PAD, width - 2 * PAD
    parts: list[str] = []
    y = top + 48
    if "capabilities" in members:
        kind_items = [(k + "/", len(k + "/") * CHAR_W + 16) for k in kinds(package)]
        kind_boxes, kinds_bottom = _flow(
            kind_items, inner_left + PAD, inner_width - 2 * PAD, y + 30, KIND_H
        )
        parts.append(_box(inner_left, y, inner_width, kinds_bottom + PAD - y, "#ffffff", line))
        parts.append(
            _text(
                inner_left + PAD,
                y + 19,
                "capabilities/",
                size=13,
                font=MONO,
                fill=TEXT,
                font_weight="600",
            )
        )
        parts.append(
            _text(
                inner_left + PAD + 110,
                y + 19,
                "kinds/ — one folder per kind: declaration, seam, backends",
                size=11,
                fill=MUTED,
            )
        )
        for label, x, ky, w in kind_boxes:
            parts.append(_box(x, ky, w, KIND_H, fill, line, rx=4))
            parts.append(
                _text(
                    x + w / 2, ky + 15, label, size=11, font=MONO, fill=TEXT, text_anchor="middle"
                )
            )
        y = kinds_bottom + PAD + ROW_GAP
    others = [m for m in members if m != "capabilities"]
    packages = [m for m in others if (package / m / "__init__.py").is_file()]
    modules = [m for m in others if m not in packages]
    items = [(_label(m, True), len(m + "/") * CHAR_W + 18) for m in packages]
    items += [(_label(m, False), len(m + ".py") * CHAR_W + 18) for m in modules]
    boxes, bottom = _flow(items, inner_left, inner_width, y, ROOM_H)
    for label, x, by, w in boxes:
        weight = "600" if label.endswith("/") else "400"
        parts.append(_box(x, by, w, ROOM_H, "#ffffff", line, rx=4))
        parts.append(
            _text(
                x + w / 2,
                by + 17,
                label,
                size=12,
                font=MONO,
                fill=TEXT,
                font_weight=weight,
                text_anchor="middle",
            )
        )
    height = bottom + PAD - top
    head = [
        _box(left, top, width, height, fill, line, rx=10),
        _text(left + PAD, top + 24, name, size=16, fill=TEXT, font_weight="700"),
        _text(left + PAD + 90, top + 24, caption, size=12, fill=MUTED, font_style="italic"),
    ]
    return head + parts, height


def render(package: Path = PACKAGE) -> str:
    """The SVG, as text (deterministic for a given source tree)."""
    present = rooms(package)
    bands: list[tuple[str, str, list[str]]] = [
        (name, caption, [m for m in members if m in present]) for name, caption, members in LAYERS
    ]
    placed = {m for _, _, members in LAYERS for m in members}
    unplaced = [m for m in present if m not in placed]
    if unplaced:
        bands.append(
            ("not placed", "add these rooms to LAYERS in docs/diagrams/layers.py", unplaced)
        )
    parts: list[str] = []
    top = MARGIN
    tops: list[tuple[float, float]] = []
    for name, caption, members in reversed(bands):  # the top layer first
        drawn, height = _band(name, caption, members, top, package)
        parts += drawn
        tops.append((top, height))
        top += height + 28
    # Imports point down: each layer may use the layers below it.
    x = MARGIN + ARROW_W / 2
    for (upper, upper_h), (lower, _) in pairwise(tops):
        parts.append(
            f'<line x1="{x:g}" y1="{upper + upper_h / 2:g}" x2="{x:g}" y2="{lower + 18:g}" '
            f'stroke="{MUTED}" stroke-width="2" marker-end="url(#arrow)"/>'
        )
    parts.append(
        _text(
            MARGIN,
            top - 6,
            "imports point down; the few that go up are EXCEPTIONS in docs/diagrams/layers.py,"
            " each with its reason",
            size=11,
            fill=MUTED,
            font_style="italic",
        )
    )
    height = top + 6
    return document(
        width=WIDTH,
        height=height,
        label="The layers of toolwire",
        title="The layers of toolwire: each imports only the layers below it",
        parts=parts,
    )


def main(argv: list[str]) -> int:
    """Write the SVG, or with ``--check`` say whether the committed one is up to date."""
    return write_or_check(render, OUTPUT, __file__, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

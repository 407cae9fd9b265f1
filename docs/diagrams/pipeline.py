"""Draw docs/pipeline.svg: one batch of tool calls through toolwire, stage by stage.

``python docs/diagrams/pipeline.py`` writes the picture; ``--check`` exits 1 when the committed
SVG differs from what this script draws. No dependency: the SVG is written by hand, so the output
is the same on every machine. ``tests/test_docs_diagram.py`` checks that the picture is up to
date and that every stage module of ``src/toolwire/execution/`` is either drawn here (``STAGES``)
or named as a helper (``HELPERS``): a new stage cannot be left out of the picture silently.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the helpers beside it
from svg_document import MUTED, TEXT, document, write_or_check

__all__ = ["HELPERS", "OUTPUT", "STAGES", "render"]

OUTPUT = Path(__file__).resolve().parents[1] / "pipeline.svg"

WIDTH = 900
MARGIN = 20
GAP = 24
COLUMNS = 6
BOX_W = (WIDTH - 2 * MARGIN - (COLUMNS - 1) * GAP) // COLUMNS  # 123

SANS = "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace"


@dataclass(frozen=True, kw_only=True, slots=True)
class Stage:
    """One box of the pipeline rows: a module (or modules) of ``toolwire.execution``."""

    title: str
    modules: tuple[str, ...]
    caption: tuple[str, str]


# Per call, in the order the pipeline runs them (docs/pipeline.md's table).
STAGES: tuple[Stage, ...] = (
    Stage(title="admit", modules=("admit",), caption=("snapshot, allowlist,", "availability")),
    Stage(
        title="validate", modules=("validate",), caption=("compiled schema;", "names bad fields")
    ),
    Stage(title="before", modules=("before",), caption=("hooks: deny or", "replace arguments")),
    Stage(title="dry_run", modules=("dry_run",), caption=("shows the call,", "never runs it")),
    Stage(
        title="approvals", modules=("approvals",), caption=("a token bound to", "this call, once")
    ),
    Stage(title="cache", modules=("cache",), caption=("opt-in; a hit", "skips to finish")),
    Stage(title="budget", modules=("budget",), caption=("turn budget ÷ N,", "capped per tool")),
    Stage(
        title="dispatch",
        modules=("quotas", "tasks", "effects"),
        caption=("quotas · tasks ·", "effects (act once)"),
    ),
    Stage(title="resolve", modules=("resolve",), caption=("only the declared", "seams, scoped")),
    Stage(title="run", modules=("run",), caption=("timeout + abort;", "nothing escapes")),
    Stage(title="finish", modules=("finish",), caption=("reducer, trim,", "after hooks")),
    Stage(title="handles", modules=("handles",), caption=("full text kept:", "read_result(…)")),
)

# Modules of toolwire.execution that are not a stage of their own in the picture.
HELPERS: dict[str, str] = {
    "__init__": "the package",
    "pipeline": "runs the stages; splits the budget once per batch",
    "batch": "one batch's shared state",
    "settings": "what a registry fixes once",
    "gates": "allowlist and filter rules (admit, definitions)",
    "hooks": "HookRegistry (before, finish)",
    "interrupts": "timeouts and aborts (run)",
    "deadlines": "one timer per batch (run)",
    "dispatch": "drawn as the dispatch box",
    "quota_slots": "part of quotas",
    "quota_tables": "quotas from toolwire.toml",
    "task_records": "part of tasks",
    "task_runner": "part of tasks",
    "flow": "the sink rule after untrusted output (approvals)",
    "tracing": "OpenTelemetry wraps the batch and each call",
}

BACKENDS: tuple[tuple[str, str, str], ...] = (
    ("files", "declared reach,", "sensitive paths hidden"),
    ("network", "allowed hosts; private", "addresses refused"),
    ("processes", "bubblewrap sandbox,", "egress proxy only"),
    ("secrets", "declared refs", "only"),
    ("key-value", "SQLite · Redis ·", "PostgreSQL"),
)

STAGE_FILL, STAGE_LINE = "#eef3fd", "#3a64c8"
IO_FILL, IO_LINE = "#f4f4f5", "#52525b"
SEAM_FILL, SEAM_LINE = "#ecf8ef", "#2f8a4c"
OUT_FILL, OUT_LINE = "#fdf3e7", "#c2741a"


def _text(x: float, y: float, text: str, *, size: int, font: str = SANS, **extra: str) -> str:
    attributes = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in extra.items())
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="{font}" font-size="{size}"'
        f"{attributes}>{escape(text)}</text>"
    )


def _box(x: float, y: float, w: float, h: float, fill: str, line: str, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="8" fill="{fill}" '
        f'stroke="{line}" stroke-width="1.5"{dash}/>'
    )


def _arrow(points: list[tuple[float, float]], colour: str = MUTED, dashed: bool = False) -> str:
    path = " ".join(f"{x:g},{y:g}" for x, y in points)
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    return (
        f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"{dash} '
        f'marker-end="url(#arrow)"/>'
    )


def _labelled(
    x: float,
    y: float,
    w: float,
    h: float,
    title: str,
    lines: tuple[str, ...],
    colours: tuple[str, str],
) -> list[str]:
    """A box with a monospace title and small caption lines, centred."""
    fill, line = colours
    centre = x + w / 2
    parts = [_box(x, y, w, h, fill, line)]
    parts.append(
        _text(
            centre,
            y + 22,
            title,
            size=14,
            font=MONO,
            fill=TEXT,
            font_weight="600",
            text_anchor="middle",
        )
    )
    for index, caption in enumerate(lines):
        parts.append(
            _text(centre, y + 40 + 14 * index, caption, size=11, fill=MUTED, text_anchor="middle")
        )
    return parts


def _column_x(index: int) -> int:
    return MARGIN + index * (BOX_W + GAP)


def render() -> str:
    """The SVG, as text (deterministic)."""
    parts: list[str] = []
    row_a, row_b, row_c, row_d, row_e = 16, 112, 232, 352, 488
    stage_h = 70

    # Row A: the batch comes in.
    parts += _labelled(
        _column_x(0),
        row_a,
        BOX_W,
        60,
        "model",
        ("or MCP client,", "a batch of calls"),
        (IO_FILL, IO_LINE),
    )
    wide = 2 * BOX_W + GAP
    parts += _labelled(
        _column_x(1),
        row_a,
        wide,
        60,
        "ToolCall[]",
        ("name + the model's JSON args,", "one batch per response"),
        (IO_FILL, IO_LINE),
    )
    parts += _labelled(
        _column_x(3),
        row_a,
        3 * BOX_W + 2 * GAP,
        60,
        "execute_parallel",
        (
            "the turn's output budget split across the batch;",
            "calls run concurrently, each on its own",
        ),
        (STAGE_FILL, STAGE_LINE),
    )
    parts.append(_arrow([(_column_x(1) - GAP + 2, row_a + 30), (_column_x(1) - 3, row_a + 30)]))
    parts.append(_arrow([(_column_x(3) - GAP + 2, row_a + 30), (_column_x(3) - 3, row_a + 30)]))
    fan_y = row_a + 60 + 18
    exec_centre = _column_x(3) + (3 * BOX_W + 2 * GAP) / 2
    parts.append(
        _arrow(
            [
                (exec_centre, row_a + 60),
                (exec_centre, fan_y),
                (_column_x(0) + BOX_W / 2, fan_y),
                (_column_x(0) + BOX_W / 2, row_b - 3),
            ]
        )
    )
    parts.append(
        _text(
            WIDTH - MARGIN,
            fan_y - 5,
            "per call, in this order",
            size=11,
            fill=MUTED,
            text_anchor="end",
            font_style="italic",
        )
    )

    # Rows B and C: the stages, per call.
    for index, stage in enumerate(STAGES):
        row, column = (row_b, index) if index < COLUMNS else (row_c, index - COLUMNS)
        x = _column_x(column)
        parts += _labelled(
            x, row, BOX_W, stage_h, stage.title, stage.caption, (STAGE_FILL, STAGE_LINE)
        )
        if column > 0:
            parts.append(_arrow([(x - GAP + 2, row + stage_h / 2), (x - 3, row + stage_h / 2)]))
    turn_y = row_b + stage_h + 25
    parts.append(
        _arrow(
            [
                (_column_x(5) + BOX_W / 2, row_b + stage_h),
                (_column_x(5) + BOX_W / 2, turn_y),
                (_column_x(0) + BOX_W / 2, turn_y),
                (_column_x(0) + BOX_W / 2, row_c - 3),
            ]
        )
    )
    parts.append(
        _text(
            _column_x(0) + BOX_W / 2 + 8,
            row_b + stage_h + 16,
            "an early answer (unknown tool, bad arguments, denied) skips to the outcome",
            size=11,
            fill=MUTED,
            font_style="italic",
        )
    )

    # Row D: the capability backends, which resolve hands out and run uses.
    seams_x, seams_w = _column_x(0), 5 * BOX_W + 4 * GAP
    parts.append(_box(seams_x, row_d, seams_w, 100, SEAM_FILL, SEAM_LINE, dashed=True))
    parts.append(
        _text(
            seams_x + 12,
            row_d + 20,
            "capability backends: only what the tool declared, scoped to the call",
            size=12,
            fill=TEXT,
            font_weight="600",
        )
    )
    item_w = (seams_w - 24 - 4 * 10) / 5
    for index, (name, first, second) in enumerate(BACKENDS):
        x = seams_x + 12 + index * (item_w + 10)
        parts.append(_box(x, row_d + 32, item_w, 58, "#ffffff", SEAM_LINE))
        parts.append(
            _text(
                x + item_w / 2,
                row_d + 50,
                name,
                size=13,
                font=MONO,
                fill=TEXT,
                font_weight="600",
                text_anchor="middle",
            )
        )
        parts.append(
            _text(x + item_w / 2, row_d + 66, first, size=11, fill=MUTED, text_anchor="middle")
        )
        parts.append(
            _text(x + item_w / 2, row_d + 80, second, size=11, fill=MUTED, text_anchor="middle")
        )
    for column in (2, 3):  # resolve scopes them, run uses them
        centre = _column_x(column) + BOX_W / 2
        parts.append(
            _arrow([(centre, row_c + stage_h), (centre, row_d - 3)], SEAM_LINE, dashed=True)
        )

    # Row E: the outcomes go out, presented.
    out_y = row_e
    last = _column_x(5) + BOX_W / 2
    parts.append(_arrow([(last, row_c + stage_h), (last, out_y - 3)]))
    parts += _labelled(
        _column_x(4),
        out_y,
        2 * BOX_W + GAP,
        60,
        "CallOutcome[]",
        ("one per call, in input order;", "never raises"),
        (OUT_FILL, OUT_LINE),
    )
    parts += _labelled(
        _column_x(1),
        out_y,
        3 * BOX_W + 2 * GAP,
        60,
        "presenter",
        ("secrets redacted, output capped,", "untrusted output wrapped in <untrusted>"),
        (OUT_FILL, OUT_LINE),
    )
    parts += _labelled(
        _column_x(0), out_y, BOX_W, 60, "model", ("reads the", "results"), (IO_FILL, IO_LINE)
    )
    parts.append(_arrow([(_column_x(4) - 2, out_y + 30), (_column_x(4) - GAP + 3, out_y + 30)]))
    parts.append(_arrow([(_column_x(1) - 2, out_y + 30), (_column_x(0) + BOX_W + 3, out_y + 30)]))

    height = out_y + 60 + 16
    return document(
        width=WIDTH,
        height=height,
        label="One batch of tool calls through the toolwire pipeline",
        title="One batch of tool calls through the toolwire pipeline",
        parts=parts,
    )


def main(argv: list[str]) -> int:
    """Write the SVG, or with ``--check`` say whether the committed one is up to date."""
    return write_or_check(render, OUTPUT, __file__, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Package-install reduction: keep what was added or removed, the warnings and the errors.

Only real install commands are recognised: ``pip install`` (``pip3``, ``python -m pip``,
``uv pip install``), ``uv tool install``, ``poetry install``, ``npm install`` (and its aliases
``npm i`` / ``npm ci``), ``pnpm install`` (``pnpm i``) and ``yarn install``. A bare ``yarn``,
``yarn add``, ``yarn build`` or ``yarn test`` is *not* an install (a bug of the system we port),
and is reduced by the generic rules instead. Download progress, resolution chatter and
"Requirement already satisfied" lines are dropped, and warnings that differ only in quoted text
and numbers are kept twice (errors are always kept).
"""

from __future__ import annotations

from toolwire.reducers._lines import (
    is_warning_line,
    render_kept,
    select_lines,
    thin_similar_warnings,
)
from toolwire.safety.linear_regex import linear

__all__ = ["is_install_command", "reduce_install_output"]

_OPTS = r"(?:\s+-{1,2}[\w-]+(?:=\S+)?)*"
_INSTALL_COMMAND = linear(
    r"(?:^|[\s;&|(/])(?:"
    rf"(?:python[\d.]*{_OPTS}\s+-m\s+)?pip[\d.]*{_OPTS}\s+install"
    rf"|uv{_OPTS}\s+(?:pip|tool){_OPTS}\s+install"
    rf"|poetry{_OPTS}\s+install"
    rf"|npm{_OPTS}\s+(?:install|i|ci)"
    rf"|pnpm{_OPTS}\s+(?:install|i)"
    rf"|yarn{_OPTS}\s+install"
    r")(?:$|[\s;&|)])"  # the verb ends there (consumed: only whether it matches counts)
)
_KEEP = (
    linear(
        r"(?i)\b(?:added|removed|changed|updated|audited|installed|uninstalled|resolved|prepared)"
        r" \d+|\bup to date\b|\bvulnerabilit|\bfound \d+|\bdone in [\d.]+m?s\b"
    ),
    linear(r"^(?:Successfully (?:installed|uninstalled|built)|Would install) "),
    linear(r"^\s*[+-] [\w.@/-]+(?:==| )"),  # uv / pnpm added and removed packages
    linear(r"^Package operations: |^\s*- (?:Installing|Updating|Removing|Downgrading) "),
    linear(r"^Packages: [+-]|^(?:dependencies|devDependencies|optionalDependencies):$"),
    linear(r"^success "),
)


def is_install_command(command: str) -> bool:
    """Whether ``command`` runs one of the install commands listed in the module docstring."""
    return bool(_INSTALL_COMMAND.search(command))


def reduce_install_output(output: str) -> str | None:
    """Keep added/removed summaries, warnings and errors; ``None`` when none was found."""
    lines = output.split("\n")
    marks = select_lines(lines, keep=_KEEP)
    for index, line in enumerate(lines):
        if is_warning_line(line):
            marks[index] = True
    thin_similar_warnings(lines, marks)
    if not any(marks):
        return None
    return render_kept(lines, marks).strip("\n")

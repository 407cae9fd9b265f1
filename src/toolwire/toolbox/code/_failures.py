"""The code tools' error answers, each with a stable code and reason or cause.

| situation | code | reason / cause |
| --- | --- | --- |
| ``path`` is in no project | ``input_invalid`` (field ``path``) | |
| the project has no checker of this kind (JavaScript without ``tsconfig.json``...) |
``not_available`` | ``no_checker`` |
| the checker is not installed, or a sandbox cannot start it | ``not_available`` |
``tool_not_installed`` |
| the checker crashed (an exit code it never uses for findings) | ``execution_failed`` |
``tool_crashed`` |
| its report could not be read | ``execution_failed`` | ``output_unreadable`` |
| it ran out of time | ``execution_failed`` | ``timeout`` |
| the call was aborted | ``execution_failed`` | ``aborted`` |

A seam's refusal (``PATH_NOT_REACHABLE: ...``, ``BINARY_NOT_ALLOWED: ...``) is answered as every
built-in tool answers it (`toolwire.toolbox._common.refused`).
"""

from __future__ import annotations

from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err, ErrorCode

__all__ = [
    "ABORTED",
    "NO_CHECKER",
    "OUTPUT_UNREADABLE",
    "SANDBOX_SHOWS",
    "TIMEOUT",
    "TOOL_CRASHED",
    "TOOL_NOT_INSTALLED",
    "aborted",
    "crashed",
    "no_checker",
    "no_project",
    "not_installed",
    "not_visible",
    "output_tail",
    "timed_out",
    "unreadable",
]

TOOL_NOT_INSTALLED = "tool_not_installed"
NO_CHECKER = "no_checker"
TOOL_CRASHED = "tool_crashed"
OUTPUT_UNREADABLE = "output_unreadable"
TIMEOUT = "timeout"
ABORTED = "aborted"

_TAIL_CHARS = 3000
SANDBOX_SHOWS = (
    "the system (/usr, /bin, /lib*, /etc, /opt), the call's file reach, toolwire's own Python "
    "and the checkers' directories found when the tools were built"
)
"""What a sandboxed checker can see, as the error messages say it."""


def output_tail(result: ProcessResult, limit: int = _TAIL_CHARS) -> str:
    """The end of a child's stdout and stderr (where a crash says why), at most ``limit``."""
    text = "\n".join(p.rstrip() for p in (result.stdout, result.stderr) if p.strip())
    if len(text) <= limit:
        return text
    return "[…]\n" + text[-limit:]


def no_project(path: str) -> Err:
    """``path`` lies in no Python, JavaScript/TypeScript, Rust or Go project."""
    return Err(
        f"No project found at or above {path}: looked for pyproject.toml, setup.cfg, setup.py, "
        "requirements.txt, package.json, tsconfig.json, Cargo.toml and go.mod within reach. "
        "Pass path= inside a project.",
        ErrorCode.INPUT_INVALID,
        field="path",
    )


def no_checker(what: str) -> Err:
    """The project has nothing this tool can run."""
    return Err(what, ErrorCode.NOT_AVAILABLE, reason=NO_CHECKER)


def not_installed(tool: str, hint: str) -> Err:
    """``tool`` was not found where checkers are looked for."""
    return Err(
        f"{tool} is not installed for this project ({hint}).",
        ErrorCode.NOT_AVAILABLE,
        reason=TOOL_NOT_INSTALLED,
    )


def not_visible(tool: str, found: str, why: str, hidden: tuple[str, ...]) -> Err:
    """``tool`` is installed at ``found`` on the host but could not start where the command
    runs (a sandbox, which shows only the system, the call's reach and the checkers' own
    directories); ``hidden``: what it needs that every sandbox hides."""
    text = (
        f"{tool} is installed at {found} but could not be started in the sandbox ({why}). "
        f"A sandboxed command sees only {SANDBOX_SHOWS}."
    )
    if hidden:
        text += (
            f" It may need {', '.join(hidden)}, which every sandbox hides (the sensitive floor, "
            "docs/sandbox.md): install the toolchain under /usr/local or /opt, or in the "
            "project's .venv with an interpreter outside it."
        )
    else:
        text += " Install it in the project's .venv or node_modules, or under /usr/local or /opt."
    return Err(text, ErrorCode.NOT_AVAILABLE, reason=TOOL_NOT_INSTALLED)


def crashed(tool: str, result: ProcessResult, why: str = "") -> Err:
    """``tool`` ended without producing a result (a usage error, a crash, a bad config)."""
    reason = why or f"exited with code {result.exit_code} without a report"
    tail = output_tail(result)
    return Err(
        f"{tool} failed: {reason}" + (f"\n{tail}" if tail else ""),
        cause=TOOL_CRASHED,
    )


def unreadable(tool: str, why: str) -> Err:
    """``tool``'s report could not be read."""
    return Err(f"{tool}'s report could not be read: {why}", cause=OUTPUT_UNREADABLE)


def timed_out(tool: str, limit_s: float, result: ProcessResult) -> Err:
    """``tool`` was killed at its deadline."""
    tail = output_tail(result)
    return Err(
        f"{tool} timed out after {limit_s:g} s and was killed (with every process it started)"
        + (f"\n{tail}" if tail else ""),
        cause=TIMEOUT,
    )


def aborted(tool: str) -> Err:
    """The call was aborted while ``tool`` ran."""
    return Err(f"aborted: {tool} and every process it started were killed", cause=ABORTED)

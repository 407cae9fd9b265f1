"""The flow the three code tools share: path → project → each ecosystem's checker → result.

1. ``path`` (default: the working directory) is resolved and must exist in read reach;
2. the project is detected from it (`toolwire.toolbox.code._projects`);
3. write reach over the project root is probed (``ScopedFs.mkdir`` of the existing root):
   ``lint(fix=True)`` and ``run_tests`` need it and are refused without it (the seam's
   ``PATH_NOT_REACHABLE: ...``); without it the checkers are told not to write caches;
4. each of the project's ecosystems runs its checker; one whose checker is not installed, or
   that has none of this kind, is skipped with a line saying so; the call fails only when
   nothing ran (with that ecosystem's error) or a checker crashed, timed out or was aborted;
5. the runs become the compact text (`toolwire.toolbox.code._rendering`) and ``structured``.

``structured`` = ``{kind, project: {root, ecosystems}, target, clean | passed, counts,
diagnostics: [...], runs: [...], skipped: [...]}`` plus ``tests`` and ``test_counts`` for
``run_tests`` and ``fixed`` for ``lint(fix=True)``. Every diagnostic and test is there, however
much of the text was trimmed.
"""

from __future__ import annotations

import os
from typing import Any

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ScopedFs
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox._common import missing_seam, refused, resolve_target
from toolwire.toolbox.code._diagnostics import CheckRun, count_outcomes, count_severities
from toolwire.toolbox.code._ecosystems import CHECKS, CheckKind
from toolwire.toolbox.code._projects import Project, detect_project
from toolwire.toolbox.code._rendering import render_runs
from toolwire.toolbox.code._running import CheckRequest
from toolwire.toolbox.code._toolchains import Toolchains

__all__ = ["run_check"]

_NAMES: dict[CheckKind, str] = {"lint": "lint", "typecheck": "typecheck", "tests": "run_tests"}
_SKIPPABLE = (failures.TOOL_NOT_INSTALLED, failures.NO_CHECKER)


async def run_check(
    ctx: ToolContext,
    kind: CheckKind,
    path: str | None,
    *,
    toolchains: Toolchains,
    timeout_s: float,
    fix: bool = False,
    selector: str | None = None,
) -> ToolResult:
    """Run the ``kind`` checkers of the project at ``path``; see the module docstring."""
    name = _NAMES[kind]
    process, fs = ctx.scoped_process, ctx.scoped_fs
    if process is None:
        return missing_seam(name, "running processes")
    if fs is None:
        return missing_seam(name, "file access")
    if selector is not None and (not selector.strip() or selector.lstrip().startswith("-")):
        return Err(
            "selector must be a test name, pattern or node id; it cannot be empty or start "
            "with '-' (the test runner would read it as an option)",
            ErrorCode.INPUT_INVALID,
            field="selector",
        )
    located = await _locate(fs, ctx, path)
    if isinstance(located, Err):
        return located
    project, target, target_is_dir = located
    writable = await _writable(fs, project.root)
    if (fix or kind == "tests") and not writable:
        why = "fix changes files" if fix else "running tests writes caches, builds and a report"
        return Err(
            f'PATH_NOT_REACHABLE: write of "{project.root}" is not permitted ({name}: {why})',
            ErrorCode.NOT_AVAILABLE,
            reason="capability_refused",
        )
    request = CheckRequest(
        ctx=ctx,
        process=process,
        fs=fs,
        project=project,
        target=target,
        target_is_dir=target_is_dir,
        toolchains=toolchains,
        dirs=toolchains.dirs(project.root),
        writable=writable,
        timeout_s=timeout_s,
        fix=fix,
        selector=selector,
    )
    return await _run_ecosystems(request, kind)


async def _locate(
    fs: ScopedFs, ctx: ToolContext, path: str | None
) -> tuple[Project, str | None, bool] | Err:
    """The project, the target relative to its root (``None``: all of it) and whether the
    target is a directory."""
    target = resolve_target(path, ctx.working_dir) if path else ctx.working_dir
    if isinstance(target, Err):
        return target
    try:
        if not await fs.exists(target):
            return Err(f"{target} does not exist", ErrorCode.INPUT_INVALID, field="path")
        try:
            await fs.list_entries(target)
            is_dir = True
        except NotADirectoryError:
            is_dir = False
        project = await detect_project(fs, target if is_dir else os.path.dirname(target))
    except CapabilityError as exc:
        return refused(exc)
    except OSError as exc:
        return Err(f"{target}: {exc.strerror or exc}", ErrorCode.INPUT_INVALID, field="path")
    if project is None:
        return failures.no_project(target)
    relative = None if path is None or target == project.root else project.relative(target)
    if relative is not None and relative.startswith("-"):
        relative = "./" + relative  # never read as an option by the checker
    return project, relative, is_dir


async def _writable(fs: ScopedFs, root: str) -> bool:
    try:
        await fs.mkdir(root)  # the root exists: this only asks the seam about write reach
    except (CapabilityError, OSError):
        return False
    return True


async def _run_ecosystems(request: CheckRequest, kind: CheckKind) -> ToolResult:
    runs: list[CheckRun] = []
    skipped: list[tuple[str, Err]] = []
    for ecosystem in request.project.ecosystems:
        if request.ctx.abort_signal.aborted:
            return failures.aborted(_NAMES[kind])
        outcome = await CHECKS[ecosystem].check(kind)(request)
        if isinstance(outcome, CheckRun):
            runs.append(outcome)
        elif outcome.reason in _SKIPPABLE:
            skipped.append((ecosystem, outcome))
        else:
            return outcome
    if not runs:
        return skipped[0][1] if skipped else failures.no_checker("nothing to run")
    lines = [f"{ecosystem}: {answer.error}" for ecosystem, answer in skipped]
    text = render_runs(runs, lines, request.ctx.result_budget_chars, fix_hint=kind == "lint")
    return Ok(text, structured=_structured(request, kind, runs, skipped))


def _structured(
    request: CheckRequest, kind: CheckKind, runs: list[CheckRun], skipped: list[tuple[str, Err]]
) -> dict[str, Any]:
    diagnostics = [d for run in runs for d in run.diagnostics]
    data: dict[str, Any] = {
        "kind": kind,
        "project": {"root": request.root, "ecosystems": list(request.project.ecosystems)},
        "target": request.target,
        "counts": count_severities(diagnostics),
        "diagnostics": [d.as_dict() for d in diagnostics],
        "runs": [run.as_dict() for run in runs],
        "skipped": [
            {"ecosystem": eco, "reason": answer.reason, "message": answer.error}
            for eco, answer in skipped
        ],
    }
    if kind == "tests":
        tests = [(run.tool, t) for run in runs for t in run.tests]
        data["tests"] = [{**t.as_dict(), "tool": tool} for tool, t in tests]
        data["test_counts"] = count_outcomes([t for _, t in tests])
        data["passed"] = all(run.status == "passed" for run in runs)
    else:
        data["clean"] = not any(d.severity == "error" for d in diagnostics) and all(
            run.status != "build_failed" for run in runs
        )
    if request.fix:
        data["fixed"] = [d.as_dict() for run in runs for d in run.fixed]
        data["changed_files"] = sorted({d.file for run in runs for d in run.fixed})
    return data

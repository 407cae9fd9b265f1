"""`CheckRequest`: one tool call's project, seams and search path; running a checker with it.

Checkers run through the call's process seam (``ctx.scoped_process``), so whatever wraps the
process backend (a sandbox) covers them, with the call's abort signal and a timeout: on either
the checker and every process it started are killed. They run in the project root, by bare
name, with the ``PATH`` of `toolwire.toolbox.code._toolchains`.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult, ScopedFs, ScopedProcess
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.results import Err
from toolwire.threads import run_in_worker
from toolwire.toolbox._common import refused
from toolwire.toolbox.code._projects import Project
from toolwire.toolbox.code._toolchains import Toolchains
from toolwire.toolbox.code.sandbox_roots import hidden_needs

__all__ = ["CheckRequest"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CheckRequest:
    """What one call of ``lint``, ``typecheck`` or ``run_tests`` checks, and with what.

    Attributes:
        ctx: The call's context.
        process: Its process seam.
        fs: Its file seam.
        project: The detected project.
        target: The path asked for, relative to the root; ``None`` for the whole project.
        target_is_dir: Whether ``target`` is a directory.
        toolchains: Where checkers are looked for.
        dirs: The resolved search path (the project's own directories first).
        writable: Whether the project root is in the call's write reach (caches, reports and
            fixes need it).
        timeout_s: Seconds each checker may run.
        fix: ``lint(fix=True)``.
        selector: ``run_tests(selector=...)``.
    """

    ctx: ToolContext
    process: ScopedProcess
    fs: ScopedFs
    project: Project
    target: str | None
    target_is_dir: bool
    toolchains: Toolchains
    dirs: tuple[str, ...]
    writable: bool
    timeout_s: float
    fix: bool = False
    selector: str | None = None

    @property
    def root(self) -> str:
        """The project root."""
        return self.project.root

    async def which(self, name: str) -> str | None:
        """Where ``name`` would be found (the first match of the search path), or ``None``."""
        return await run_in_worker(lambda: self.toolchains.which(name, self.dirs))

    async def run(
        self,
        label: str,
        binary: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> ProcessResult | Err:
        """Run ``binary args`` in the project root; the result, or the answer that ends the
        call (refused, not installed, timed out, aborted).

        Args:
            label: The checker's name in messages (``cargo clippy``).
            binary: A declared binary name, looked up in the search path.
            args: Its arguments.
            env: Variables on top of the toolchain environment.
            timeout_s: Seconds (default: the request's).
        """
        limit = timeout_s if timeout_s is not None else self.timeout_s
        try:
            result = await self.process.spawn(
                binary,
                list(args),
                cwd=self.root,
                env=self.toolchains.env(self.dirs, env),
                timeout=limit,
            )
        except CapabilityError as exc:
            return refused(exc)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.EACCES, errno.ENOEXEC):
                return await self._not_started(label, binary, str(exc))
            return Err(f"{label} could not be started: {exc.strerror or exc}", cause="OSError")
        if result.aborted:
            return failures.aborted(label)
        if result.timed_out:
            return failures.timed_out(label, limit, result)
        unstarted = _not_started(result, binary)
        if unstarted is not None:
            return await self._not_started(label, binary, unstarted)
        return result

    async def _not_started(self, label: str, binary: str, why: str) -> Err:
        """``not_installed``, saying where the checker is on the host when it is there (so
        what stopped it is the sandbox) and what the sandbox shows."""
        found = await self.which(binary)
        if found is None:
            return failures.not_installed(label, f"{binary} could not be started: {why}")
        hidden = await run_in_worker(lambda: hidden_needs(binary, self.dirs))
        return failures.not_visible(label, found, why, hidden)


def _not_started(result: ProcessResult, binary: str) -> str | None:
    """Why ``binary`` never ran, when a wrapping backend (a sandbox) reports it that way: its
    ``execvp`` failed (the binary is not there, or not visible inside the sandbox)."""
    if result.exit_code not in (1, 126, 127) or result.stdout.strip():
        return None
    match = re.search(rf"execvp {re.escape(binary)}: ([^\n]+)", result.stderr)
    return match[1].strip() if match else None

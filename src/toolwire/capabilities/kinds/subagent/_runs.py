"""Driving one sub-agent run: the runner under the timeout and the abort signals.

`drive` runs the runner and says how it ended. Aborting the parent aborts the child's own
signal, which cancels the runner (its HTTP request and its running tool calls, whose processes
the child signal kills); the deadline cancels it too. Whatever ends the run, a bare
`SubagentReport` comes back: nothing the runner or the endpoint does escapes as an exception.
"""

from __future__ import annotations

import logging

import anyio

from toolwire.capabilities.kinds.subagent._runner import (
    SubagentJob,
    SubagentRunner,
    SubagentStopped,
)
from toolwire.capabilities.kinds.subagent.seam import SubagentReport, SubagentStop
from toolwire.context import AbortSignal
from toolwire.safety._redaction import redact_secrets

__all__ = ["DEFAULT_SYSTEM_PROMPT", "describe", "drive"]

logger = logging.getLogger("toolwire.capabilities.kinds.subagent")

DEFAULT_SYSTEM_PROMPT = (
    "You are a sub-agent. Another agent gave you the task below; you cannot ask it questions. "
    "Use the tools you have to do the task, then answer with your findings in full: your final "
    "message is all the other agent will see."
)
"""The sub-agents' system message when the host sets none."""


async def drive(
    runner: SubagentRunner,
    job: SubagentJob,
    signal: AbortSignal,
    parent_signal: AbortSignal | None,
    timeout_s: float,
) -> SubagentReport:
    """Run ``runner`` under the timeout and the abort signals; the outcome as a bare report
    (description, text, stop, error: the tally holds the rest)."""
    stop: SubagentStop = "final"
    error: str | None = None
    text = ""
    unlink = (
        parent_signal.subscribe(lambda: signal.abort(parent_signal.reason or "cancelled"))
        if parent_signal is not None
        else _noop
    )
    try:
        with anyio.CancelScope(deadline=anyio.current_time() + timeout_s) as scope:
            unwatch = signal.subscribe(scope.cancel)
            try:
                text = await runner.run(job)
            except SubagentStopped as exc:
                stop, error = ("max_turns" if exc.stop == "max_turns" else "failed"), exc.message
            except Exception as exc:
                logger.warning("toolwire: a sub-agent runner failed", exc_info=True)
                stop, error = "failed", f"the sub-agent's runner failed: {describe(exc)}"
            finally:
                unwatch()
        if scope.cancelled_caught:
            if signal.aborted:
                stop, error = "aborted", f"aborted: {signal.reason}"
            else:
                stop, error = "timeout", f"timed out after {timeout_s:g} s"
    finally:
        unlink()
        signal.abort("the sub-agent's run ended")  # stops whatever its tools left running
    if stop != "final":
        text = job.tally.last_text
    return SubagentReport(
        description=job.description,
        text=text if isinstance(text, str) else str(text),
        stop=stop,
        error=None if error is None else redact_secrets(error).text,
    )


def describe(exc: BaseException) -> str:
    """``<type>: <message>`` of an exception (its type alone when it has no message)."""
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _noop() -> None:
    """Nothing to unlink."""

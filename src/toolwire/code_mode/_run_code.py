"""``run_code`` (toolset ``code``): a Python program that calls the tools, run in Monty.

`run_code_tool` builds the tool for a registry: every other tool the registry holds is an
``async`` function of the program (its stubs are in the tool's description), every call it
makes is a real call through the pipeline (`toolwire.code_mode.inner_calls`), and the value of
its last expression together with what it printed is the result:

* the program ends → ``Ok(<printed>\\n<value as JSON>, structured={result, printed,
  inner_calls}, cost_usd=<the inner calls' sum>)``;
* not valid Python for the sandbox → ``input_invalid`` naming the line;
* an uncaught exception, a limit (time, memory, recursion), a crashed worker →
  ``execution_failed`` with the traceback (``cause`` = ``exception``, ``limit``, ``crashed``);
* an inner call needs approval → ``not_available`` (``reason="approval_required"``) naming the
  call and its arguments, with its approval token. The program is kept (`states`); the same
  ``run_code`` call sent again with ``approvals=[token]`` resumes it where it stopped, once.

Programs run on asyncio (Monty's async pool); on another event loop the call is answered
``not_available``. With ``python_runtime`` on, ``runtime="python"`` runs the program in CPython
in the command sandbox instead (`toolwire.code_mode._python_runtime`).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Sequence
from functools import partial
from typing import Any

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.code_mode._description import run_code_description, run_code_schema
from toolwire.code_mode._flow import FlowState
from toolwire.code_mode._programs import Finished, Paused, Program, failure, finished_result
from toolwire.code_mode._settings import CodeModeSettings
from toolwire.code_mode._states import (
    PROGRAMS_SCOPE,
    PROGRAMS_TOOL,
    PausedProgram,
    ProgramStates,
    program_key,
)
from toolwire.code_mode._stubs import CallableTool, callable_tools, render_stubs
from toolwire.code_mode._turns import TurnTaint
from toolwire.code_mode._workers import MontyWorkers, load_monty
from toolwire.code_mode.catalogue import attach_catalogue
from toolwire.code_mode.inner_calls import Approval, InnerCalls
from toolwire.context import ToolContext
from toolwire.execution.admit import Admission
from toolwire.execution.approvals import waiting_call
from toolwire.execution.batch import current_batch, track_current_batch
from toolwire.execution.flow import FLOW_SCOPE, FLOW_TOOL, RecordsOwnTaint
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["CodeMode", "run_code_tool"]

_NO_LOOP = "run_code runs programs on asyncio only (Monty's async worker pool)"


class CodeMode(RecordsOwnTaint):
    """``run_code`` for one registry: its workers, its paused programs, its tool.

    ``run_code``'s result is untrusted (the presenter wraps it), but it taints the session
    only when its program read untrusted output: the pipeline records the program's inner
    calls as they run, and the program marks the session itself.

    Args:
        registry: The registry whose tools programs call (``run_code`` itself excluded).
        settings: Limits and the flow policy.
        name: The tool's name.
    """

    def __init__(
        self, registry: ToolRegistry, settings: CodeModeSettings, name: str = "run_code"
    ) -> None:
        load_monty()  # fail at set-up, not at the first program, when the extra is missing
        track_current_batch()  # inner calls run under the admission of run_code's batch
        self.registry = registry
        self.settings = settings
        self.name = name
        self.workers = MontyWorkers(settings)
        registry.add_cleanup(self.workers.aclose)

    def entries(self) -> dict[str, CallableTool]:
        """The tools a program may call now, by the name it calls them by."""
        return callable_tools(t for t in self.registry.available() if t.name != self.name)

    def stubs(self) -> str:
        """The stubs a model reads (the part of the description below the header); deferred
        tools are left out, as from the definitions (`toolwire.tool_search` finds them)."""
        deferred = self.registry.deferred_names
        shown = {k: e for k, e in self.entries().items() if e.tool.name not in deferred}
        return render_stubs(shown)

    def stubs_of(self, names: Sequence[str]) -> str:
        """The stubs of the tools ``names`` (what ``tool_search`` shows of the tools it found)."""
        wanted = set(names)
        return render_stubs({k: e for k, e in self.entries().items() if e.tool.name in wanted})

    def tool(self) -> Tool:
        """The ``run_code`` tool (its description lists the tools registered now; past
        ``max_stub_chars``, the tool search finds the rest: `toolwire.code_mode.catalogue`)."""
        searching = attach_catalogue(
            self.registry, self.name, self.settings.max_stub_chars, self.stubs, self.stubs_of
        )
        return Tool(
            name=self.name,
            description=run_code_description(
                self.stubs(), python_runtime=self.settings.python_runtime, searching=searching
            ),
            schema=run_code_schema(python_runtime=self.settings.python_runtime),
            execute=self.execute,
            toolset="code",
            output_is_untrusted=True,  # what tools returned flows into what the program prints
            timeout_s=self.settings.timeout_s + 10,
            annotations=ToolAnnotations(title="Run a program", open_world=True),
        )

    def _store(self) -> AtomicKeyValueStore | None:
        backends = self.registry.backends
        if backends is None or backends.kv_store_factory is None:
            return None
        store = backends.kv_store_factory(PROGRAMS_TOOL, PROGRAMS_SCOPE)
        return store if isinstance(store, AtomicKeyValueStore) else None

    def _states(self) -> ProgramStates | None:
        store = self._store()
        return None if store is None else ProgramStates(store, self.settings.state_ttl_s)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run (or resume) the program in ``args["code"]``."""
        if args.get("runtime") == "python" and self.settings.python_runtime:
            return await self._run_python(str(args["code"]), ctx)
        if asyncio._get_running_loop() is None:  # trio runs no asyncio loop
            return Err(_NO_LOOP, ErrorCode.NOT_AVAILABLE, reason="asyncio_only")
        code = str(args["code"])
        batch = current_batch()
        admission = batch.admission if batch is not None else Admission()
        states = self._states()
        key = program_key(ctx, code)
        paused: PausedProgram | None = None
        if states is not None:
            found = await states.peek(key)
            if found is not None:
                state, stored = found
                approved = bool({w.token for w in stored.waiting} & set(admission.approvals))
                if state == "done":
                    if approved:
                        return _spent()
                elif not approved:
                    if state == "paused":
                        return _approval_required(stored.waiting)
                    return _busy()
                else:
                    taken = await states.take(key)
                    if taken is None or taken == "busy":  # gone meanwhile: expired or resumed
                        return _busy()
                    paused = taken
        return await self._run(code, ctx, admission, states, key, paused)

    async def _run_python(self, code: str, ctx: ToolContext) -> ToolResult:
        from toolwire.code_mode._python_runtime import run_python

        batch = current_batch()
        return await run_python(
            registry=self.registry,
            settings=self.settings,
            entries=self.entries(),
            code=code,
            ctx=ctx,
            admission=batch.admission if batch is not None else Admission(),
            program_id=_program_id(program_key(ctx, code), ctx),
            tool_name=self.name,
        )

    async def _run(
        self,
        code: str,
        ctx: ToolContext,
        admission: Admission,
        states: ProgramStates | None,
        key: str,
        paused: PausedProgram | None,
    ) -> ToolResult:
        monty = load_monty()
        entries = self.entries()
        namespaces = sorted({e.namespace for e in entries.values() if e.namespace})
        modules = {
            space: monty.ExternalModule(
                {
                    e.python_name.split(".", 1)[1]: _placeholder
                    for e in entries.values()
                    if e.namespace == space
                }
            )
            for space in namespaces
        }
        prelude = f"import {', '.join(namespaces)}\n" if namespaces else ""
        offset = 1 if namespaces else 0
        program_id = paused.program_id if paused else _program_id(key, ctx)
        backends = self.registry.backends
        factory = backends.kv_store_factory if backends is not None else None
        turns = TurnTaint(factory(FLOW_TOOL, FLOW_SCOPE)) if factory is not None else None
        tainted = paused.untrusted_from if paused else None
        if paused is None and turns is not None:
            tainted = await turns.source(ctx)  # untrusted output read earlier in the session
        flow = FlowState(untrusted_from=tainted)
        inner = InnerCalls(
            registry=self.registry,
            ctx=ctx,
            admission=admission,
            settings=self.settings,
            prefix=program_id,
            flow=flow,
        )
        if paused is not None:
            inner.cost_usd = paused.cost_usd
        program = Program(
            entries=entries,
            inner=inner,
            settings=self.settings,
            calls=paused.calls if paused else 0,
            output=paused.output if paused else "",
        )
        ended = await self._drive(program, modules, prelude + code, paused, offset)
        if turns is not None and flow.untrusted_from is not None:
            await turns.mark(ctx, flow.untrusted_from)
        if isinstance(ended, Err):
            await self._ended(states, key, paused)
            return ended
        if isinstance(ended, Paused):
            if states is None:
                return Err(
                    "A call of the program needs approval, but no store is configured to keep "
                    "the program while it waits",
                    ErrorCode.NOT_AVAILABLE,
                    reason="approval_store_missing",
                )
            await states.pause(
                key,
                PausedProgram(
                    program_id=program_id,
                    snapshot=ended.snapshot,
                    waiting=ended.waiting,
                    settled=ended.settled,
                    calls=program.calls,
                    cost_usd=inner.cost_usd,
                    untrusted_from=flow.untrusted_from,
                    output=program.output,
                ),
            )
            return _approval_required(ended.waiting)
        await self._ended(states, key, paused)
        return _finished(ended, program, inner.cost_usd)

    async def _drive(
        self,
        program: Program,
        modules: dict[str, Any],
        source: str,
        paused: PausedProgram | None,
        offset: int,
    ) -> Finished | Paused | Err:
        """Run the program (or resume it) in a worker, under the wall-clock limit."""
        monty = load_monty()
        try:
            async with self.workers.checkout(modules) as worker:
                session = worker.session
                with anyio.fail_after(self.settings.timeout_s):
                    if paused is None:
                        start = partial(session.feed_start, source, print_callback=program.printed)
                        return await program.drive(worker, start)
                    program.restore(paused.waiting)
                    start = partial(
                        session.load_snapshot, paused.snapshot, print_callback=program.printed
                    )
                    return await program.drive(worker, start, paused.settled)
        except TimeoutError:
            return Err(
                f"The program ran longer than {self.settings.timeout_s:g} s (its inner calls "
                "included) and was stopped",
                ErrorCode.EXECUTION_FAILED,
                cause="limit",
            )
        except monty.MontyError as exc:
            return failure(exc, offset)
        except (RuntimeError, ValueError, OSError) as exc:  # a damaged snapshot, a lost worker
            return Err(
                f"The program's interpreter failed: {exc}",
                ErrorCode.EXECUTION_FAILED,
                cause=type(exc).__name__,
            )

    @staticmethod
    async def _ended(states: ProgramStates | None, key: str, paused: PausedProgram | None) -> None:
        """A resumed program ended (or failed): its approvals are spent."""
        if states is not None and paused is not None:
            await states.finish(key, paused)


def _program_id(key: str, ctx: ToolContext) -> str:
    """The same for the same call (a retried ``run_code`` call makes the same inner call ids,
    so the effect journal answers what already ran); fresh otherwise."""
    call_id = ctx.tool_call_id or secrets.token_hex(8)
    digest = hashlib.sha256(f"{key}\0{call_id}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"prog-{digest[:16]}"


def _placeholder(**kwargs: Any) -> None:
    """Stands for a namespaced tool in its module; never called (calls are answered by hand)."""


def _finished(ended: Finished, program: Program, cost_usd: float | None) -> ToolResult:
    return finished_result(ended.value, program.output, program.calls, cost_usd)


def _approval_required(waiting: tuple[Approval, ...]) -> Err:
    lines = [
        waiting_call(
            item.call.tool_name,
            item.call.args,
            item.token,
            " after the program read untrusted output" if item.why == "untrusted_to_sink" else "",
        )
        for item in waiting
    ]
    return Err(
        "The program is paused: its "
        + "; ".join(lines)
        + " requires approval before it runs; the user must approve it, then the same "
        "run_code call resumes the program where it stopped",
        ErrorCode.NOT_AVAILABLE,
        reason="approval_required",
    )


def _spent() -> Err:
    return Err(
        "This program was already resumed with this approval and has ended; an approved "
        "program resumes once (run it again for a new run)",
        ErrorCode.NOT_AVAILABLE,
        reason="approval_used",
    )


def _busy() -> Err:
    return Err(
        "This program is being resumed by another call; wait for that call's result",
        ErrorCode.NOT_AVAILABLE,
        reason="program_resuming",
    )


def run_code_tool(
    registry: ToolRegistry, settings: CodeModeSettings | None = None, *, name: str = "run_code"
) -> Tool:
    """The ``run_code`` tool for ``registry``; register it after the tools it should call
    (its description lists them): ``registry.register(run_code_tool(registry))``.

    Raises:
        ConfigurationError: ``pydantic-monty`` is not installed (the ``code-mode`` extra).
    """
    return CodeMode(registry, settings or CodeModeSettings(), name).tool()

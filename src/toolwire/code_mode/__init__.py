"""Code mode: ``run_code`` runs a Python program whose tool calls are real pipeline calls.

See ``docs/code-mode.md``. The interpreter (Monty, the ``code-mode`` extra) is imported only
when a ``run_code`` tool is built.

Rooms: ``_run_code.py`` (the tool), ``_description.py`` (its description and schema),
``_settings.py`` (`CodeModeSettings`), ``_stubs.py`` (the tools as typed ``async`` stubs),
``_workers.py`` (`MontyWorkers`: the interpreter pool), ``_programs.py`` (`Program`: one program,
call by call), ``inner_calls.py`` (its calls through the pipeline), ``_flow.py`` (untrusted data
does not drive sinks), ``_turns.py`` (the session's taint), ``_states.py`` (paused programs in the
key-value store), ``catalogue.py`` (a large catalogue's stubs found through ``tool_search``);
``runtime="python"``: ``_python_runtime.py`` (CPython in the command sandbox), ``python_bridge.py``
(the run's Unix socket, each call frame one batch) and ``toolwire_tools.py`` (the stdlib-only client
and runner copied into the sandbox).
"""

from __future__ import annotations

from toolwire.code_mode._flow import FlowState, flow_verdict
from toolwire.code_mode._run_code import CodeMode, run_code_tool
from toolwire.code_mode._settings import AfterUntrusted, CodeModeSettings
from toolwire.code_mode._stubs import callable_tools, render_stubs

__all__ = [
    "AfterUntrusted",
    "CodeMode",
    "CodeModeSettings",
    "FlowState",
    "callable_tools",
    "flow_verdict",
    "render_stubs",
    "run_code_tool",
]

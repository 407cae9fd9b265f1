"""Code mode: ``run_code`` runs a Python program whose tool calls are real pipeline calls.

See ``docs/code-mode.md``. The interpreter (Monty, the ``code-mode`` extra) is imported only
when a ``run_code`` tool is built.

Rooms: ``run_code.py`` (the tool), ``description.py`` (its description and schema), ``settings.py``
(`CodeModeSettings`), ``stubs.py`` (the tools as typed ``async`` stubs), ``workers.py``
(`MontyWorkers`: the interpreter pool), ``programs.py`` (`Program`: one program, call by call),
``inner_calls.py`` (its calls through the pipeline), ``flow.py`` (untrusted data does not drive
sinks), ``turns.py`` (the session's taint), ``states.py`` (paused programs in the key-value store),
``catalogue.py`` (a large catalogue's stubs found through ``tool_search``); ``runtime="python"``:
``python_runtime.py`` (CPython in the command sandbox), ``python_bridge.py`` (the run's Unix socket,
each call frame one batch) and ``toolwire_tools.py`` (the stdlib-only client and runner copied into
the sandbox).
"""

from __future__ import annotations

from toolwire.code_mode.flow import FlowState, flow_verdict
from toolwire.code_mode.run_code import CodeMode, run_code_tool
from toolwire.code_mode.settings import AfterUntrusted, CodeModeSettings
from toolwire.code_mode.stubs import callable_tools, render_stubs

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

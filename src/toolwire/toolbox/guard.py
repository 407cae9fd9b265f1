"""The command guard as a ``before_tool_call`` hook for ``terminal`` and ``process_start``.

```python
registry = ToolRegistry(create_backends())
registry.register_all(default_tools())
command_guard_hook(registry.hooks)  # refuse `rm -rf ~`, `ls && dd of=/dev/sda`, ...
```

The hook runs `toolwire.safety.command_guard.check_command_async` on the ``command`` argument:
the line is parsed with a real bash parser and **every** command it would run is judged (lists,
pipelines, substitutions, here-docs, ``bash -c``, inline interpreter code, wrappers such as
``sudo`` or ``xargs``), a long command in a worker thread. The call's ``cwd`` and ``env``
arguments are taken into account (``rm -rf *`` with ``cwd="/"``). A refused call is answered
``not_available`` with ``Command blocked: <reason>. This operation requires explicit human
approval before proceeding.`` and never runs. The guard is the second layer: the sandbox
(``docs/sandbox.md``) is what contains a command.
"""

from __future__ import annotations

from collections.abc import Callable

from toolwire.execution.hooks import BeforeCall, BeforeDecision, HookRegistry, deny
from toolwire.safety.command_guard import check_command_async

__all__ = ["GUARDED_TOOLS", "GUARD_PRIORITY", "command_guard_hook", "guard_command_call"]

GUARDED_TOOLS: tuple[str, ...] = ("terminal", "process_start")
"""The tools whose ``command`` argument the guard checks."""

GUARD_PRIORITY = 1_000_000
"""Runs after ordinary hooks: it checks the command as they left it, the one that would run."""


async def guard_command_call(call: BeforeCall) -> BeforeDecision | None:
    """Deny ``call`` when its ``command`` argument trips the hardline catalogue."""
    command = call.args.get("command")
    if not isinstance(command, str):
        return None
    cwd = call.args.get("cwd")
    env = call.args.get("env")
    verdict = await check_command_async(
        command,
        cwd=cwd if isinstance(cwd, str) else None,
        env=env if isinstance(env, dict) else None,
    )
    return None if verdict is None else deny(verdict.message)


def command_guard_hook(
    hooks: HookRegistry, tools: tuple[str, ...] = GUARDED_TOOLS
) -> Callable[[], None]:
    """Register the command guard on ``hooks`` for ``tools``; returns its remover.

    Args:
        hooks: Usually ``registry.hooks``.
        tools: The tool names to guard (each must take a ``command`` argument).
    """
    return hooks.before_tool_call(
        guard_command_call, priority=GUARD_PRIORITY, tools=tools, name="command_guard"
    )

"""The built-in tools. Each reaches the world only through its `ToolContext` seams.

```python
from toolwire import ProcessManager, ToolRegistry, create_backends
from toolwire.toolbox import command_guard_hook, default_tools

manager = ProcessManager("/var/lib/agent/processes")
async with ToolRegistry(backends=create_backends()) as registry:
    registry.register_all(default_tools(process_manager=manager))
    registry.add_cleanup(manager.aclose)  # no background process outlives the registry
    command_guard_hook(registry.hooks)
```

| toolset | tools |
| --- | --- |
| ``file`` | ``read_file``, ``write_file``, ``patch_file``, ``search_files`` |
| ``terminal`` | ``terminal`` |
| ``process`` | ``process_start``, ``process_list``, ``process_logs``, ``process_stop``, ``process_wait``, ``process_watch`` |

Without capability backends every one of them is refused ``not_available``; with backends but
no reach for a path, the seam refuses (``PATH_NOT_REACHABLE: ...``, also ``not_available``).
"""  # noqa: E501

from __future__ import annotations

from toolwire.backends.background import ProcessManager
from toolwire.toolbox.files import read_file, write_file
from toolwire.toolbox.guard import command_guard_hook
from toolwire.toolbox.patching import patch_file
from toolwire.toolbox.processes import process_tools
from toolwire.toolbox.search import search_files
from toolwire.toolbox.terminal import terminal
from toolwire.tools import Tool

__all__ = [
    "command_guard_hook",
    "default_tools",
    "file_tools",
    "process_tools",
    "terminal_tools",
]


def file_tools() -> list[Tool]:
    """``read_file``, ``write_file``, ``patch_file`` and ``search_files`` (toolset ``file``)."""
    return [read_file, write_file, patch_file, search_files]


def terminal_tools() -> list[Tool]:
    """``terminal`` (toolset ``terminal``); install `command_guard_hook` alongside it."""
    return [terminal]


def default_tools(*, process_manager: ProcessManager | None = None) -> list[Tool]:
    """The file and terminal tools, plus the process tools when a manager is given.

    Args:
        process_manager: The manager the process tools use; the caller owns and closes it.
    """
    tools = [*file_tools(), *terminal_tools()]
    if process_manager is not None:
        tools.extend(process_tools(process_manager))
    return tools

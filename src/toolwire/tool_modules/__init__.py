"""Tool modules: your own tools, served and called like the built-in ones.

A tool module is a Python file (``tools.py``, ``src/more_tools.py``) or an importable module
(``pkg.tools``), named in ``toolwire.toml``'s ``[tools] modules`` (files relative to the config
file) or with ``--tools`` on ``toolwire serve``, ``call`` and ``tools`` (relative to the current
directory). An entry that ends in ``.py`` or holds a ``/`` is a file; anything else is a dotted
module name.

- **A file** is imported under a name of its own (``toolwire_tools_<stem>_<hash>``, so two
  ``tools.py`` never collide) with its directory first on ``sys.path``, as ``python tools.py``
  would have it: ``import helpers`` finds the ``helpers.py`` beside it.
- **A module name** is imported with the config file's directory (or, for ``--tools``, the
  current one) first on ``sys.path``, as ``python -m`` would have it.

What a module contributes: exactly its ``tools`` attribute when it has one — a list (or tuple)
of `Tool`, a `ToolRegistry` (its registered tools) or a `ToolProvider` (listed once, at start,
with an empty `ProviderContext`) — otherwise every `Tool` bound at its top level, in the order
they were bound (a `Tool` imported from elsewhere and bound at top level counts too; list
``tools`` explicitly to leave it out). The tools are registered as they are: their
capabilities, annotations and ``output_is_untrusted`` go through the same pipeline, sandbox,
presenter and authentication as the built-in tools.

Whatever goes wrong is a `ConfigurationError` naming the file and the line: a syntax error, a
failed import, an exception raised while importing, a malformed ``tools`` attribute, a module
with no tools, two tools of one name.

``specs`` says what names a tool module (`ToolModule`, ``[tools]``, ``--tools``), ``importing``
imports one (and knows which files the host ran doing it), ``collecting`` gathers and registers
the tools.
"""

from __future__ import annotations

from toolwire.tool_modules.collecting import (
    defined_at,
    host_files,
    load_tools,
    register_user_tools,
)
from toolwire.tool_modules.specs import (
    ToolModule,
    command_line_modules,
    tool_module,
    tools_table,
    watched_files,
)

__all__ = [
    "ToolModule",
    "command_line_modules",
    "defined_at",
    "host_files",
    "load_tools",
    "register_user_tools",
    "tool_module",
    "tools_table",
    "watched_files",
]

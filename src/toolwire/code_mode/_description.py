"""What a model reads of ``run_code``: its description (the stubs under a header) and its schema."""

from __future__ import annotations

from typing import Any

from toolwire.code_mode.catalogue import SEARCH_NOTE

__all__ = ["run_code_description", "run_code_schema"]

_HEADER = """Run a Python program that calls the tools below, and get what it prints and \
the value it returns (a top-level `return`, or its last expression). Every tool is an async \
function: `await` it, and start independent calls together with `asyncio.gather(...)` (they \
run as one batch). Results are Python data (dicts for tools with a result type, text \
otherwise); a failed call raises an exception you can catch. Filter and summarise in the \
program and print only what you need. The sandbox has no files, network or environment; \
`import asyncio`, `json`, `re`, `math`, `datetime` work.

{runtime}```python
{stubs}```"""
_PYTHON = """With `runtime="python"` the program runs in real CPython (the whole standard \
library and installed packages) in the command sandbox: it can read and write the files \
you may, and nothing else; the tools are the same async functions (also in the module \
`toolwire_tools`). It cannot pause for an approval: a call that needs one stops it. \
Use it only when the default sandbox lacks what the program needs.

"""


def run_code_description(stubs: str, *, python_runtime: bool, searching: bool) -> str:
    """The description: the header, the python runtime's paragraph when it is offered, the
    stubs, and the tool-search note when a large catalogue is found through ``tool_search``."""
    header = _HEADER.format(stubs=stubs, runtime=_PYTHON if python_runtime else "")
    return header + (SEARCH_NOTE if searching else "")


def run_code_schema(*, python_runtime: bool) -> dict[str, Any]:
    """The arguments: ``code``, and ``runtime`` when the python runtime is offered."""
    properties: dict[str, Any] = {
        "code": {"type": "string", "description": "The Python program to run."}
    }
    if python_runtime:
        properties["runtime"] = {
            "type": "string",
            "enum": ["monty", "python"],
            "default": "monty",
            "description": "monty (the default): a sandboxed interpreter that can pause "
            "for approvals; python: CPython in the command sandbox, for libraries.",
        }
    return {
        "type": "object",
        "properties": properties,
        "required": ["code"],
        "additionalProperties": False,
    }

"""Run the Python blocks of one Markdown document, in order, in one namespace.

``python docs_runner.py DOC.md`` in the directory the blocks may write to. A block with a
top-level ``await`` runs on its own event loop. The first block that raises prints
``DOC:LINE`` and the traceback, and the runner exits 1.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import sys
import traceback
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from doc_blocks import RUN, blocks


def run(document: Path) -> int:
    module = types.ModuleType("docs_example")  # a real module: dataclasses look it up
    sys.modules[module.__name__] = module
    namespace: dict[str, Any] = module.__dict__
    for block in blocks(document):
        if block.language not in RUN or block.fragment or block.tested:
            continue
        source = block.setup + block.code
        try:
            code = compile(source, f"{block.where}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, namespace)
            if inspect.iscoroutine(result):
                asyncio.run(result)
        except BaseException:
            print(f"{block.where}: this block failed", file=sys.stderr)
            traceback.print_exc()
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1])))

"""The shape of `toolwire.execution`: one module per stage, each function short."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import toolwire.execution

STAGES = ("admit", "validate", "before", "dry_run", "cache", "budget", "resolve", "run", "finish")
PACKAGE = Path(toolwire.execution.__file__).parent


def test_every_stage_of_the_diagram_is_a_module_that_names_itself() -> None:
    for number, stage in enumerate(STAGES, start=1):
        module = importlib.import_module(f"toolwire.execution.{stage}")
        assert module.__doc__ is not None
        assert module.__doc__.startswith(f"Stage {number}, "), stage


def test_the_pipeline_docstring_lists_the_stages_in_order() -> None:
    from toolwire.execution import pipeline

    assert pipeline.__doc__ is not None
    diagram = " → ".join(stage.replace("_", "-") for stage in STAGES).replace(
        "before", "before-hooks"
    )
    assert diagram in pipeline.__doc__


def test_no_function_in_execution_is_longer_than_60_lines() -> None:
    long = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60:
                    long.append(f"{path.name}:{node.name} ({length} lines)")
    assert long == []

"""docs/pipeline.svg is what docs/diagrams/pipeline.py draws, and it draws every stage.

The picture is generated from a source in the repository; a stale SVG, or a new module of
``toolwire.execution`` that is neither drawn nor named a helper, fails here.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "docs" / "diagrams" / "pipeline.py"
EXECUTION = ROOT / "src" / "toolwire" / "execution"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pipeline_diagram", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_committed_svg_is_what_the_generator_draws() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr + "(run python docs/diagrams/pipeline.py)"


def test_the_svg_is_well_formed_xml() -> None:
    root = ET.fromstring((ROOT / "docs" / "pipeline.svg").read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_every_module_of_execution_is_drawn_or_named_a_helper() -> None:
    diagram = _generator()
    drawn = {module for stage in diagram.STAGES for module in stage.modules}
    modules = {path.stem for path in EXECUTION.glob("*.py")}
    assert drawn.isdisjoint(diagram.HELPERS)
    assert sorted(modules - drawn - set(diagram.HELPERS)) == [], "draw it or name it a helper"
    assert sorted((drawn | set(diagram.HELPERS)) - modules) == [], "drawn but no such module"


def test_every_drawn_stage_is_named_in_the_picture() -> None:
    diagram = _generator()
    text = " ".join(
        node.text or ""
        for node in ET.fromstring(diagram.render()).iter("{http://www.w3.org/2000/svg}text")
    )
    missing = [
        m for stage in diagram.STAGES for m in (stage.title, *stage.modules) if m not in text
    ]
    assert missing == []

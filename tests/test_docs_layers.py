"""docs/layers.svg is what docs/diagrams/layers.py draws, and the imports keep to its layers.

The layer table (``LAYERS``) in the generator is the single source: the picture is drawn from it
and from the source tree, and the real import graph (``tests/test_import_graph.py``) is checked
against it here. A new room that no layer places, a stale picture, or an import from a lower
layer into a higher one that ``EXCEPTIONS`` does not name with a reason, fails.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

from test_import_graph import import_graph

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "docs" / "diagrams" / "layers.py"
SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers_diagram", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _words(svg: str) -> set[str]:
    return {node.text or "" for node in ET.fromstring(svg).iter(SVG_TEXT)}


def test_the_committed_svg_is_what_the_generator_draws() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr + "(run python docs/diagrams/layers.py)"


def test_every_top_level_room_and_kind_is_drawn() -> None:
    diagram = _generator()
    words = _words((ROOT / "docs" / "layers.svg").read_text(encoding="utf-8"))
    package = ROOT / "src" / "toolwire"
    missing = [
        room for room in diagram.rooms() if f"{room}/" not in words and f"{room}.py" not in words
    ]
    missing += [kind for kind in diagram.kinds() if f"{kind}/" not in words]
    assert missing == []
    assert (package / "capabilities" / "kinds" / "process").is_dir()  # the kinds are read here


def test_every_room_is_in_one_layer() -> None:
    diagram = _generator()
    members = [m for _, _, layer in diagram.LAYERS for m in layer]
    assert len(members) == len(set(members)), "a room in two layers"
    assert sorted(set(diagram.rooms()) - set(members)) == [], "place it in LAYERS"
    assert sorted(set(members) - set(diagram.rooms())) == [], "no such room"


def test_a_new_room_shows_up_unplaced(tmp_path: Path) -> None:
    diagram = _generator()
    (tmp_path / "capabilities" / "kinds" / "clock").mkdir(parents=True)
    for init in ("capabilities", "capabilities/kinds", "capabilities/kinds/clock", "gizmos"):
        (tmp_path / init).mkdir(parents=True, exist_ok=True)
        (tmp_path / init / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "errors.py").write_text("", encoding="utf-8")
    words = _words(diagram.render(tmp_path))
    assert {"gizmos/", "clock/", "errors.py", "not placed"} <= words


def test_no_module_imports_a_higher_layer_unless_named_an_exception() -> None:
    diagram = _generator()
    graph = import_graph()
    upward = sorted(
        f"{module} -> {imported}"
        for module, edges in graph.items()
        for imported in edges
        if not diagram.allowed(module, imported)
    )
    assert upward == [], "import downwards, or name the edge in EXCEPTIONS with its reason"


def test_the_check_sees_an_upward_import() -> None:
    diagram = _generator()
    assert not diagram.allowed("toolwire.errors", "toolwire.registry")
    assert not diagram.allowed("toolwire.stores._sqlite", "toolwire.toolbox._files")
    assert diagram.allowed("toolwire.toolbox._files", "toolwire.stores._sqlite")


def test_every_exception_is_still_an_upward_edge_of_the_code() -> None:
    diagram = _generator()
    graph = import_graph()
    unused = [
        (a, b)
        for a, b in diagram.EXCEPTIONS
        if not any(
            module.startswith(a)
            and imported.startswith(b)
            and diagram.layer_of(imported) > diagram.layer_of(module)
            for module, edges in graph.items()
            for imported in edges
        )
    ]
    assert unused == [], "the code no longer needs these exceptions: remove them"

"""Every code block in README.md and docs/ runs, parses, or says why it does not.

See ``doc_blocks.py`` for the rules and the markers. New documents are picked up
automatically; a block of a language we cannot run needs a ``fragment`` or ``tested`` marker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from doc_blocks import PARSED, ROOT, RUN, TEXT, Block, blocks, documents
from service_checks import require_service

RUNNER = Path(__file__).resolve().parent / "docs_runner.py"
SERVICES = {"redis": ("Redis", 6379), "postgres": ("PostgreSQL", 5432)}
ALL_BLOCKS = [block for document in documents() for block in blocks(document)]


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _runnable(document: Path) -> list[Block]:
    return [b for b in blocks(document) if b.language in RUN and not b.fragment and not b.tested]


@pytest.mark.parametrize("document", documents(), ids=_id)
def test_the_python_blocks_run(document: Path, tmp_path: Path) -> None:
    runnable = _runnable(document)
    if not runnable:
        pytest.skip("no Python block to run")
    for block in runnable:
        for service in block.requires:
            name, port = SERVICES[service]
            require_service(name, "127.0.0.1", port)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(document)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.language in PARSED], ids=str)
def test_the_data_blocks_parse(block: Block) -> None:
    if block.fragment:
        pytest.skip("a fragment")
    if block.language == "json":
        json.loads(block.code)
    else:
        tomllib.loads(block.code)


def test_every_other_block_says_why_it_does_not_run() -> None:
    unmarked = [
        f"{b.where} ({b.language})"
        for b in ALL_BLOCKS
        if b.language not in RUN | TEXT | PARSED and not b.fragment and not b.tested
    ]
    assert unmarked == [], "mark these <!-- fragment --> or <!-- tested: ... -->"


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.tested], ids=str)
def test_a_tested_marker_names_a_test_that_exists(block: Block) -> None:
    assert block.tested is not None
    file, _, name = block.tested.partition("::")
    path = ROOT / file
    assert path.is_file(), f"{block.where}: {file} does not exist"
    if name:
        assert re.search(rf"^(async )?def {re.escape(name)}\(", path.read_text(), re.M), (
            f"{block.where}: {file} has no test {name}"
        )


def test_the_markers_are_read(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "<!-- fragment -->\n```python\nx\n```\n\n"
        "<!-- setup\nregistry = 1\n-->\n<!-- requires: redis -->\n\n```python\nregistry\n```\n"
        "```python fragment\ny\n```\n"
        "<!-- tested: tests/test_readme.py -->\n```sh\nmake run\n```\n"
    )
    first, second, third, fourth = blocks(doc)
    assert first.fragment
    assert (second.fragment, second.setup, second.requires) == (False, "registry = 1\n", ("redis",))
    assert third.fragment
    assert fourth.tested == "tests/test_readme.py"

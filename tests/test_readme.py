"""The README's example runs as written and prints what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_and_answers_both_calls(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(block for block in blocks if "execute_parallel" in block)
    script = tmp_path / "example.py"
    script.write_text(example)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    assert "c1 Ok(value='3'" in done.stdout
    assert "c2 Err(" in done.stdout
    assert "input_invalid" in done.stdout
    assert "'name': 'add'" in done.stdout


def test_the_first_screen_says_what_how_to_install_and_shows_both_examples() -> None:
    lines = README.read_text().splitlines()
    first_screen = "\n".join(lines[:40])
    assert "pip install 'toolwire[mcp,cli]'" in first_screen
    assert "execute_parallel" in first_screen  # the example, not only a link to it
    assert "toolwire serve --tools tools.py" in "\n".join(lines[:60])
    example = next(b for b in re.findall(r"```python\n(.*?)```", "\n".join(lines), re.S))
    assert len(example.strip().splitlines()) <= 16

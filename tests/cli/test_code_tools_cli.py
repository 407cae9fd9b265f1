"""The code tools through the real ``toolwire`` command, in a project outside the checkout: the
sandbox shows them the checkers beside toolwire, ``[code]`` sets their timeouts, and what they
answer is labelled with what they checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service_checks import missing_here
from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap

TOOLWIRE = Path(sys.executable).with_name("toolwire")
PYPROJECT = '[project]\nname = "outside"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F"]\n'
PYTEST_OPTIONS = (  # the pytest beside toolwire has amplifier-core's plugin: off, as in tests/
    '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-p no:amplifier_module"\n'
)


def _toolwire(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("TOOLWIRE_CONFIG", None)
    return subprocess.run(
        [str(TOOLWIRE), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _project(directory: Path, config: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "toolwire.toml").write_text('[store]\nurl = "memory://"\n\n' + config)
    (directory / "pyproject.toml").write_text(PYPROJECT + PYTEST_OPTIONS)
    (directory / "a.py").write_text("import os\n")
    return directory


@pytest.fixture
def ruff_beside_toolwire() -> Path:
    ruff = TOOLWIRE.with_name("ruff")
    if not ruff.is_file():
        missing_here("ruff is not installed beside toolwire", "pip install -e '.[dev]' installs it")
    return ruff


def test_lint_in_the_sandbox_runs_the_ruff_beside_toolwire(
    tmp_path: Path, ruff_beside_toolwire: Path
) -> None:
    probe = probe_bubblewrap()
    if not probe.usable:
        missing_here(f"the sandbox cannot run here: {probe.reason}", "system-deps.sh")
    project = _project(tmp_path / "outside", '[sandbox]\nmode = "required"\n')
    done = _toolwire(project, "call", "lint", "{}")
    assert "is not installed" not in done.stdout, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    assert "F401" in done.stdout
    assert '<untrusted source="lint:." tool="lint">' in done.stdout


def test_the_untrusted_label_names_the_path_that_was_checked(
    tmp_path: Path, ruff_beside_toolwire: Path
) -> None:
    project = _project(tmp_path / "outside", '[sandbox]\nmode = "off"\n')
    done = _toolwire(project, "call", "lint", '{"path": "a.py"}')
    assert '<untrusted source="lint:a.py" tool="lint">' in done.stdout, done.stdout


def test_code_timeouts_come_from_the_code_table(tmp_path: Path) -> None:
    if not TOOLWIRE.with_name("pytest").is_file():
        missing_here("pytest is not installed beside toolwire")
    config = '[sandbox]\nmode = "off"\n\n[code]\ntests_timeout_s = 1\n'
    project = _project(tmp_path / "slow", config)
    (project / "test_slow.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(120)\n"
    )
    done = _toolwire(project, "call", "run_tests", "{}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pytest timed out after 1 s and was killed" in done.stdout


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("[code]\nlint_timeout_s = 0\n", "code.lint_timeout_s: expected seconds above 0"),
        ('[code]\ntests_timeout_s = "long"\n', "code.tests_timeout_s: expected seconds"),
        ("[code]\nlint_timeout = 10\n", "code.lint_timeout"),
    ],
)
def test_a_bad_code_table_names_its_line(tmp_path: Path, table: str, problem: str) -> None:
    project = _project(tmp_path / "bad", table)
    done = _toolwire(project, "tools")
    assert done.returncode != 0
    assert f"toolwire.toml:5: {problem}" in done.stderr, done.stderr

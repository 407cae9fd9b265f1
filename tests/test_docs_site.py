"""The documentation site builds with ``mkdocs build --strict``: no broken link or anchor, no
page left out of the nav; and the README's links work on the site as on GitHub."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from service_checks import missing_here

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "scripts" / "mkdocs_hooks.py"


def _mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        missing_here(
            "mkdocs-material is not installed (pip install -e '.[docs]')",
            "the test extra installs it",
        )


def _hooks() -> ModuleType:
    _mkdocs()
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", HOOKS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    # no -q: a quiet build does not count warnings, and --strict would pass a broken link
    command = [sys.executable, "-m", "mkdocs", "build", "--strict"]
    return subprocess.run(
        [*command, "--config-file", str(config), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    _mkdocs()
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "pip install" in index  # the README is the front page
    assert (tmp_path / "site" / "pipeline.svg").is_file()
    assert (tmp_path / "site" / "changelog" / "index.html").is_file()


@pytest.mark.parametrize(
    ("target", "source", "expected"),
    [
        ("docs/pipeline.md", "README.md", "pipeline.md"),
        ("docs/integrations/index.md", "README.md", "integrations/index.md"),
        ("docs/pipeline.svg", "README.md", "pipeline.svg"),
        ("benchmarks/README.md", "README.md", "benchmarks.md"),
        ("CHANGELOG.md", "README.md", "changelog.md"),
        ("../CHANGELOG.md", "benchmarks/README.md", "changelog.md"),
        ("https://example.com/x", "README.md", "https://example.com/x"),
        (
            "Makefile",
            "README.md",
            "https://github.com/toolwire/toolwire/blob/main/Makefile",
        ),
    ],
)
def test_links_outside_docs_point_where_the_site_has_them(
    target: str, source: str, expected: str
) -> None:
    assert _hooks().site_link(target, source, ROOT) == expected


def test_a_rewrite_keeps_the_anchor_and_rewrites_images_too() -> None:
    text = "[p](docs/pipeline.md#per-call-in-this-order) and ![x](docs/pipeline.svg)"
    assert _hooks().rewrite(text, "README.md", ROOT) == (
        "[p](pipeline.md#per-call-in-this-order) and ![x](pipeline.svg)"
    )


def test_a_broken_anchor_fails_the_build(tmp_path: Path) -> None:
    _mkdocs()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[there](other.md#no-such-heading)\n")
    (docs / "other.md").write_text("# Other\n")
    config = tmp_path / "mkdocs.yml"
    site_config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    validation = site_config[site_config.index("validation:") : site_config.index("nav:")]
    config.write_text(f"site_name: t\n{validation}nav:\n  - index.md\n  - other.md\n")
    done = _build(config, tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-heading" in done.stderr

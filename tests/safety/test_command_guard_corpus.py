"""The guard's corpus: every catastrophic shape is refused, every safe look-alike passes.

The commands live in ``guard_corpus/corpus.json`` (``catastrophic``: category → commands;
``safe``: commands that merely look dangerous). `benchmarks/bench_guard.py` times the same
corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolwire.safety.command_guard import check_command

CORPUS = json.loads((Path(__file__).parent / "guard_corpus" / "corpus.json").read_text("utf-8"))
CATASTROPHIC: dict[str, list[str]] = CORPUS["catastrophic"]
SAFE: list[str] = CORPUS["safe"]
CATEGORIES = {
    "rm-root", "chains", "wrappers", "nested-code", "interpreters", "download-exec",
    "obfuscation", "paths", "stdin-targets", "disks", "system-writes", "permissions",
    "fork-bomb", "destroyers", "secrets", "sql", "parse-errors",
}  # fmt: skip


def test_the_corpus_is_as_large_as_the_issue_asks() -> None:
    assert set(CATASTROPHIC) == CATEGORIES
    assert sum(len(commands) for commands in CATASTROPHIC.values()) >= 150
    assert all(len(commands) >= 5 for commands in CATASTROPHIC.values())
    assert len(SAFE) >= 60
    every = [c for commands in CATASTROPHIC.values() for c in commands]
    assert len(set(every)) == len(every)
    assert len(set(SAFE)) == len(SAFE)
    assert not set(every) & set(SAFE)


@pytest.mark.parametrize(
    ("category", "command"),
    [(category, command) for category, commands in CATASTROPHIC.items() for command in commands],
)
def test_catastrophic_shapes_are_refused(category: str, command: str) -> None:
    verdict = check_command(command)
    assert verdict is not None, f"{category}: {command!r} passed"
    assert verdict.message.startswith("Command blocked: ")


@pytest.mark.parametrize("command", SAFE)
def test_safe_look_alikes_pass(command: str) -> None:
    verdict = check_command(command)
    assert verdict is None, f"{command!r} refused: {verdict}"

"""``[tools] defer`` in ``toolwire.toml``: names and patterns deferred by the default assembly."""

from __future__ import annotations

from pathlib import Path

import pytest
from ts_helpers import make

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.tool_search import DeferralRules
from toolwire.wiring import create_registry


def _config(tmp_path: Path, tools_table: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "toolwire.toml"
    path.write_text(f'[store]\nurl = "memory://"\n\n[tools]\n{tools_table}\n', encoding="utf-8")
    return load_config(path, env={})


def test_tools_defer_leaves_the_named_tools_out_of_the_definitions(tmp_path: Path) -> None:
    config = _config(tmp_path, 'toolsets = ["file", "kanban"]\ndefer = ["kanban_*", "write_file"]')
    assert config.deferred_tools == ("kanban_*", "write_file")
    registry = create_registry(config)
    names = [d["name"] for d in registry.definitions()]
    assert "read_file" in names
    assert "tool_search" in names
    assert not [n for n in names if n.startswith("kanban_") or n == "write_file"]
    assert "kanban_move" in registry.deferred_names


def test_without_tools_defer_nothing_is_deferred(tmp_path: Path) -> None:
    registry = create_registry(_config(tmp_path, 'toolsets = ["file"]'))
    assert registry.deferred_names == frozenset()
    assert "tool_search" not in [d["name"] for d in registry.definitions()]


def test_tools_defer_must_be_a_list_of_names(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="defer"):
        _config(tmp_path, 'defer = "kanban_move"')


def test_patterns_match_whole_names() -> None:
    rules = DeferralRules(names=["mcp__jira__*", "exact"])
    tools = [
        make("mcp__jira__jira_get_issue", "J."),
        make("mcp__jiraz__x", "X."),
        make("exact", "E."),
        make("exactly", "E."),
    ]
    plain = [make(t.name, t.description, defer=False) for t in tools]
    assert rules(plain) == {"mcp__jira__jira_get_issue", "exact"}

"""`[agents]` in toolwire.toml: sub-agents wired into the registry, or ``task`` left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import ToolwireConfig, load_config
from toolwire.errors import ConfigurationError
from toolwire.wiring import builtin_tools, create_registry

AGENTS = """
[agents]
toolsets = ["file"]
max_depth = 1

[agents.runner]
base_url = "http://127.0.0.1:9/v1"
model = "test-model"
"""


def _config(tmp_path: Path, text: str) -> ToolwireConfig:
    (tmp_path / "toolwire.toml").write_text(text)
    return load_config(tmp_path / "toolwire.toml", env={})


def test_without_an_agents_table_task_is_left_out(tmp_path: Path) -> None:
    config = _config(tmp_path, "")
    names = {tool.name for tool in builtin_tools(config)}
    assert "task" not in names
    assert "read_file" in names


def test_naming_delegation_without_an_agents_table_says_what_to_add(tmp_path: Path) -> None:
    config = _config(tmp_path, '[tools]\ntoolsets = ["file", "delegation"]\n')
    with pytest.raises(ConfigurationError, match=r"no \[agents\] table"):
        builtin_tools(config)


@pytest.mark.anyio
async def test_an_agents_table_wires_task_to_a_delegation_sharing_the_registrys_hooks(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, AGENTS)
    async with create_registry(config) as registry:
        assert "task" in {tool.name for tool in registry}
        assert registry.backends is not None
        delegation = registry.backends.kind_backends["subagent"]
        assert delegation.child_settings().hooks is registry.hooks  # type: ignore[attr-defined]
        assert delegation.max_depth == 1  # type: ignore[attr-defined]


def test_a_bad_agents_table_is_refused_when_the_registry_is_built(tmp_path: Path) -> None:
    config = _config(tmp_path, '[agents]\ntoolsets = ["file"]\n')  # no runner
    with pytest.raises(ConfigurationError, match="runner"):
        create_registry(config)


def test_an_agents_value_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text('agents = "yes"\n')
    with pytest.raises(ConfigurationError, match="expected a table"):
        load_config(tmp_path / "toolwire.toml", env={})

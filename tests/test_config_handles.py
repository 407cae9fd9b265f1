"""``[result_handles]`` in toolwire.toml turns result handles on in `create_registry`."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.execution.handles import ResultHandles
from toolwire.wiring import create_registry


def _config(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "toolwire.toml"
    file.write_text('[store]\nurl = "memory://"\n[sandbox]\nmode = "off"\n' + text)
    return file


def test_the_table_turns_handles_on_with_its_settings(tmp_path: Path) -> None:
    file = _config(tmp_path, "[result_handles]\nttl_s = 60\nmax_chars_per_session = 1000\n")
    config = load_config(file, env={})
    assert config.result_handles == ResultHandles(ttl_s=60.0, max_chars_per_session=1000)
    registry = create_registry(config)
    assert registry.settings.result_handles == config.result_handles
    assert "read_result" in registry


def test_an_empty_table_uses_the_defaults_and_no_table_leaves_them_off(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path, "[result_handles]\n"), env={}).result_handles == (
        ResultHandles()
    )
    config = load_config(_config(tmp_path, ""), env={})
    assert config.result_handles is None
    assert create_registry(config).settings.result_handles is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ttl_s = 0", "ttl_s"),
        ("max_chars_per_session = 0", "max_chars_per_session"),
        ("keep = true", "keep"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_config(_config(tmp_path, f"[result_handles]\n{text}\n"), env={})

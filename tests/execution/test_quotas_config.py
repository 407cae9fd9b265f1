"""``[[quotas]]`` in toolwire.toml: parsed into `Quotas`, refused with the line and the fix when
wrong, and enforced by the registry `create_registry` builds (so by ``toolwire serve``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import load_config
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.quotas import Quota, Quotas
from toolwire.results import Err
from toolwire.wiring import create_registry

pytestmark = pytest.mark.anyio

QUOTAS = """
[[quotas]]
name = "reads"
tools = ["read_file"]
calls = 0

[[quotas]]
name = "spend"
scope = "personality"
cost_usd = 2.5
window_s = 86400
"""


def _config(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "toolwire.toml"
    file.write_text(text + '\n[store]\nurl = "memory://"\n[sandbox]\nmode = "off"\n')
    return file


def test_the_tables_become_quotas(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, QUOTAS), env={})
    assert config.quotas == Quotas(
        [
            Quota(name="reads", tools=frozenset({"read_file"}), calls=0),
            Quota(name="spend", scope="personality", cost_usd=2.5, window_s=86400),
        ]
    )
    assert load_config(_config(tmp_path, ""), env={}).quotas is None


async def test_the_registry_of_the_config_enforces_them(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, QUOTAS), env={})
    async with create_registry(config) as registry:
        assert registry.settings.quotas == config.quotas
        ctx = ToolContext(session_id="s1", working_dir=str(tmp_path))
        outcome = await registry.execute("read_file", {"path": "x.txt"}, ctx)
    assert isinstance(outcome.result, Err)
    assert outcome.result.reason == "quota_exceeded"
    assert "quota 'reads' allows 0 calls" in outcome.result.error


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("quotas = 3\n", "expected an array of tables"),
        ("[quotas]\nname = 'x'\n", "expected an array of tables"),
        ("[[quotas]]\nname = 'x'\ncals = 3\n", "quotas.0.cals: unknown key"),
        ("[[quotas]]\nname = 'x'\ncalls = '3'\n", "quotas.0.calls: expected an integer"),
        ("[[quotas]]\nname = 'x'\ntools = 'read_file'\ncalls = 1\n", "expected a list of names"),
        ("[[quotas]]\nname = 'x'\ncost_usd = true\n", "expected a number"),
        ("[[quotas]]\nname = 'x'\n", "sets no limit"),
        ("[[quotas]]\ncalls = 1\n", "name"),
        ("[[quotas]]\nname = 'x'\ncalls = 1\nscope = 'team'\n", "scope"),
    ],
)
def test_a_bad_table_is_refused_with_the_fix(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as refused:
        load_config(_config(tmp_path, text), env={})
    assert "toolwire.toml" in str(refused.value)


def test_a_quota_key_error_names_the_file_line_and_the_nearest_key(tmp_path: Path) -> None:
    """Regression (outside check, issue 23): ``[[quotas]]`` errors had no line number."""
    config = tmp_path / "toolwire.toml"
    config.write_text(
        '[[quotas]]\nname = "a"\ncalls = 1\n\n[[quotas]]\nname = "b"\ncals = 5\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError) as raised:
        load_config(config)
    message = str(raised.value)
    assert message.startswith(f"{config}:7: quotas.1.cals: unknown key; did you mean 'calls'?")


def test_an_unknown_section_key_names_the_nearest(tmp_path: Path) -> None:
    config = tmp_path / "toolwire.toml"
    config.write_text('[sandbox]\nmod = "off"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        load_config(config)
    assert f"{config}:2: sandbox.mod: unknown key; did you mean 'mode'?" in str(raised.value)

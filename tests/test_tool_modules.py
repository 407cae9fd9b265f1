"""`toolwire.tool_modules` in-process: what names a module, the ``[tools]`` keys, where a tool
was defined, which files the host ran and which files a reload watches. (The command-line
behaviour is in tests/cli/test_user_tools*.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.tool_modules import (
    command_line_modules,
    defined_at,
    host_files,
    load_tools,
    tool_module,
    watched_files,
)
from toolwire.wiring import create_registry

_TOOL = (
    'from toolwire import tool\n\n\n@tool\ndef {name}() -> str:\n    """Say {name}."""\n'
    '    return "{name}"\n'
)


def _config(directory: Path, tools_table: str) -> Path:
    file = directory / "toolwire.toml"
    file.write_text(f'[store]\nurl = "memory://"\n\n[tools]\n{tools_table}')
    return file


def test_a_py_file_or_a_path_is_a_file_anything_else_a_module(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.py").write_text(_TOOL.format(name="mine"))
    named = tool_module("sub/mine.py", base_dir=str(tmp_path), origin="test")
    assert named.is_file
    assert named.target == str(tmp_path / "sub" / "mine.py")
    assert named.search_dir == str(tmp_path / "sub")
    dotted = tool_module("pkg.tools", base_dir=str(tmp_path), origin="test")
    assert not dotted.is_file
    assert (dotted.target, dotted.search_dir) == ("pkg.tools", str(tmp_path))


def test_command_line_files_are_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mine.py").write_text(_TOOL.format(name="mine"))
    monkeypatch.chdir(tmp_path)
    (module,) = command_line_modules(["mine.py"])
    assert module.target == str(tmp_path / "mine.py")
    assert module.origin == "--tools"


def test_config_modules_are_relative_to_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(_TOOL.format(name="mine"))
    config = load_config(_config(tmp_path, 'modules = ["mine.py"]\nbuiltin = false\n'), env={})
    assert [m.target for m in config.tool_modules] == [str(tmp_path / "mine.py")]
    assert config.builtin_tools is False
    registry = create_registry(config)
    assert registry.names == ["mine"]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("builtin = 0\n", "toolwire.toml:5: tools.builtin: expected true or false"),
        ('modules = "mine.py"\n', "toolwire.toml:5: tools.modules: expected a list"),
        ('modules = ["gone.py"]\n', "toolwire.toml:5: tools.modules: tools file gone.py does not"),
        ('modules = ["no good"]\n', "toolwire.toml:5: tools.modules: 'no good' is neither"),
    ],
)
def test_a_bad_tools_table_names_the_key_and_line(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        load_config(_config(tmp_path, table), env={})
    assert message in str(raised.value)


def test_defined_at_names_the_decorator_line(tmp_path: Path) -> None:
    (tmp_path / "where.py").write_text(_TOOL.format(name="where"))
    (found,) = load_tools([tool_module("where.py", base_dir=str(tmp_path), origin="test")])
    assert defined_at(found).endswith("where.py:4")


def test_host_files_are_the_module_and_what_of_yours_it_imports(tmp_path: Path) -> None:
    (tmp_path / "helper_for_host.py").write_text("VALUE = 1\n")
    (tmp_path / "unrelated.py").write_text("VALUE = 2\n")
    (tmp_path / "hosted.py").write_text(
        "import json\nimport helper_for_host\n" + _TOOL.format(name="hosted")
    )
    module = tool_module("hosted.py", base_dir=str(tmp_path), origin="test")
    files = host_files([module])
    assert set(files) == {str(tmp_path / "hosted.py"), str(tmp_path / "helper_for_host.py")}


def test_a_reload_watches_a_file_and_its_siblings_or_a_package(tmp_path: Path) -> None:
    (tmp_path / "watched.py").write_text(_TOOL.format(name="watched"))
    (tmp_path / "beside.py").write_text("")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("__init__.py", "tools.py", "sub/deep.py"):
        (tmp_path / "pkg" / name).write_text("")
    modules = [
        tool_module("watched.py", base_dir=str(tmp_path), origin="test"),
        tool_module("pkg.tools", base_dir=str(tmp_path), origin="test"),
    ]
    assert {str(p.relative_to(tmp_path)) for p in watched_files(modules)} == {
        "watched.py",
        "beside.py",
        "pkg/__init__.py",
        "pkg/tools.py",
        "pkg/sub/deep.py",
    }

"""Your own tools with ``toolwire call`` and ``toolwire tools``: ``--tools FILE_OR_MODULE``,
``[tools] modules`` and ``[tools] builtin``, the forms a module's tools take, and the errors a
broken module gives (exit 2, file and line, no traceback). Real ``toolwire`` processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from user_tools_project import UNTRUSTED_OPEN, make_tools_project, toolwire


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_tools_project(tmp_path)


def test_call_prints_the_presented_result_of_your_tool(project: Path) -> None:
    done = toolwire(project, "call", "--tools", "tools.py", "add", '{"a": 1, "b": 2}')
    assert done.returncode == 0, done.stderr
    assert done.stdout == "===TOOL_RESULT_START:add===\n3\n===TOOL_RESULT_END===\n"


def test_untrusted_output_is_wrapped_exactly_once(project: Path) -> None:
    done = toolwire(project, "call", "--tools", "tools.py", "first_line", '{"path": "notes.txt"}')
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(UNTRUSTED_OPEN) == 1
    assert '<untrusted source="notes.txt" tool="first_line">\nhello from notes\n' in done.stdout


def test_your_tool_reads_only_through_its_declared_reach(project: Path) -> None:
    done = toolwire(project, "call", "--tools", "tools.py", "first_line", '{"path": "/etc/passwd"}')
    assert done.returncode == 1
    assert "PATH_NOT_REACHABLE" in done.stdout


def test_your_tool_runs_only_its_declared_binaries(project: Path) -> None:
    ran = toolwire(project, "call", "--tools", "tools.py", "run", '{"binary": "echo"}')
    assert ran.returncode == 0, ran.stderr
    assert "\nhi\n" in ran.stdout
    refused = toolwire(project, "call", "--tools", "tools.py", "run", '{"binary": "cat"}')
    assert refused.returncode == 1
    assert "BINARY_NOT_ALLOWED" in refused.stdout


def test_tools_lists_your_tools_with_their_capabilities_beside_the_builtins(
    project: Path,
) -> None:
    done = toolwire(project, "tools", "--tools", "tools.py", "--json")
    assert done.returncode == 0, done.stderr
    listed = {entry["name"]: entry for entry in json.loads(done.stdout)}
    assert {"add", "first_line", "run", "read_file"} <= set(listed)
    assert listed["first_line"]["capabilities"] == ["fs_reach"]
    assert listed["first_line"]["output_is_untrusted"] is True
    hints = listed["first_line"]["annotations"]
    assert (hints["title"], hints["read_only"], hints["idempotent"]) == ("First line", True, True)
    assert listed["run"]["capabilities"] == ["process"]
    assert listed["add"]["parameters"]["required"] == ["a", "b"]


def test_config_modules_resolve_against_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    project = make_tools_project(tmp_path / "project", '[tools]\nmodules = ["tools.py"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = str(project / "toolwire.toml")
    done = toolwire(elsewhere, "--config", config, "call", "add", '{"a": 2, "b": 3}')
    assert done.returncode == 0, done.stderr
    assert "\n5\n" in done.stdout


def test_a_module_name_is_imported_from_the_current_directory(project: Path) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "tools.py").write_text((project / "tools.py").read_text())
    done = toolwire(project, "call", "--tools", "pkg.tools", "add", '{"a": 4, "b": 5}')
    assert done.returncode == 0, done.stderr
    assert "\n9\n" in done.stdout


def test_a_tools_file_imports_its_siblings(project: Path) -> None:
    (project / "helpers.py").write_text("GREETING = 'hello from a sibling'\n")
    (project / "greet.py").write_text(
        "from helpers import GREETING\nfrom toolwire import tool\n\n\n"
        "@tool\ndef greet() -> str:\n    '''Greet.'''\n    return GREETING\n"
    )
    done = toolwire(project, "call", "--tools", "greet.py", "greet")
    assert done.returncode == 0, done.stderr
    assert "hello from a sibling" in done.stdout


def test_the_code_the_host_runs_is_protected_from_the_write_tools(project: Path) -> None:
    """tools.py and the sibling it imports run on the host at the next start: no tool writes
    them. A sibling it does not import stays writable."""
    (project / "helpers.py").write_text("GREETING = 'hello'\n")
    (project / "unused.py").write_text("x = 1\n")
    (project / "tools.py").write_text("import helpers\n" + (project / "tools.py").read_text())
    for name, refused in (("tools.py", True), ("helpers.py", True), ("unused.py", False)):
        args = json.dumps({"path": name, "content": "import os\n"})
        done = toolwire(project, "call", "--tools", "tools.py", "write_file", args)
        assert (done.returncode == 1) is refused, done.stdout
        assert ("is a protected path" in done.stdout) is refused
    assert (project / "helpers.py").read_text() == "GREETING = 'hello'\n"


_SECRET_TOOLS = '''\
from toolwire import ToolContext, tool
from toolwire.capabilities import secrets


@tool(capabilities=[secrets(["acme/apiKey"])])
async def acme_key(ctx: ToolContext) -> str:
    """Whether the ACME key is stored, and its length."""
    assert ctx.secrets_resolver is not None
    key = await ctx.secrets_resolver.get("acme/apiKey")
    return f"{len(key)} characters" if key else "none"


@tool(capabilities=[secrets(["acme/apiKey"])])
async def other_key(ctx: ToolContext) -> str:
    """Asks for a secret it did not declare."""
    assert ctx.secrets_resolver is not None
    return str(await ctx.secrets_resolver.get("github_token"))
'''


def test_a_secret_set_with_toolwire_secret_reaches_the_tool_that_declares_it(project: Path) -> None:
    home = project / "home"
    home.mkdir()
    (project / "secret_tools.py").write_text(_SECRET_TOOLS)
    for ref, value in (("acme/apiKey", "sk-acme-0123456789"), ("github_token", "ghp-not-yours")):
        stored = toolwire(project, "secret", "set", ref, stdin=value, HOME=str(home))
        assert stored.returncode == 0, stored.stderr
    tools = ("--tools", "secret_tools.py")
    done = toolwire(project, "call", *tools, "acme_key", HOME=str(home))
    assert done.returncode == 0, done.stderr
    assert "\n18 characters\n" in done.stdout
    refused = toolwire(project, "call", *tools, "other_key", HOME=str(home))
    assert refused.returncode == 1
    assert "SECRET_NOT_DECLARED" in refused.stdout
    assert "ghp-" not in refused.stdout


_FORMS = {
    "list": "tools = [add]",
    "registry": "from toolwire import ToolRegistry\ntools = ToolRegistry()\ntools.register(add)",
    "provider": (
        "class Mine:\n    id = 'mine'\n\n    def list(self, ctx):\n        return [add]\n\n\n"
        "tools = Mine()"
    ),
}


@pytest.mark.parametrize("form", sorted(_FORMS))
def test_a_tools_attribute_gives_exactly_its_tools(project: Path, form: str) -> None:
    (project / "chosen.py").write_text(
        "from toolwire import tool\n\n\n"
        "@tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b\n\n\n"
        "@tool\ndef hidden() -> str:\n    '''Not listed.'''\n    return 'no'\n\n\n"
        f"{_FORMS[form]}\n"
    )
    done = toolwire(project, "tools", "--tools", "chosen.py", "--json")
    assert done.returncode == 0, done.stderr
    names = [entry["name"] for entry in json.loads(done.stdout)]
    assert "add" in names
    assert "hidden" not in names


def test_builtin_false_serves_only_your_tools(project: Path) -> None:
    (project / "toolwire.toml").write_text(
        '[store]\nurl = "memory://"\n\n[tools]\nmodules = ["tools.py"]\nbuiltin = false\n'
    )
    done = toolwire(project, "tools", "--json")
    assert done.returncode == 0, done.stderr
    assert [entry["name"] for entry in json.loads(done.stdout)] == ["add", "first_line", "run"]


_BROKEN = {
    "syntax error": ("x = 1\ndef f(:\n", "broken.py:2", "SyntaxError"),
    "import error": (
        "import os\nimport no_such_package_here\n",
        "broken.py:2",
        "ModuleNotFoundError",
    ),
    "raises at import": (
        "x = 1\n\nraise RuntimeError('boom')\n",
        "broken.py:3",
        "RuntimeError: boom",
    ),
    "bad tool": (
        "from toolwire import tool\n\n\n@tool\ndef f(x: int) -> int:\n    return x\n",
        "broken.py:4",
        "has no description",
    ),
    "bad tools attribute": ("x = 1\ntools = ['add']\n", "broken.py:2", "tools[0] is str"),
    "no tools": ("x = 1\n", "broken.py", "defines no tools"),
    "raises in a sibling": ("import sibling\n", "broken.py:1", "raised at sibling.py:2"),
}


@pytest.mark.parametrize("case", sorted(_BROKEN))
def test_a_broken_tools_file_exits_2_naming_file_and_line(project: Path, case: str) -> None:
    source, where, what = _BROKEN[case]
    (project / "sibling.py").write_text("x = 1\n1 / 0\n")
    (project / "broken.py").write_text(source)
    for command in (["call", "--tools", "broken.py", "add"], ["tools", "--tools", "broken.py"]):
        done = toolwire(project, *command)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"error: {where}"), done.stderr
        assert what in done.stderr
        assert "Traceback" not in done.stderr


def test_a_broken_module_named_in_the_config_names_its_file(project: Path) -> None:
    (project / "broken.py").write_text("x = 1\n\nraise RuntimeError('boom')\n")
    (project / "toolwire.toml").write_text(
        '[store]\nurl = "memory://"\n\n[tools]\nmodules = ["broken.py"]\n'
    )
    done = toolwire(project, "tools")
    assert done.returncode == 2
    assert done.stderr.startswith("error: broken.py:3: RuntimeError: boom")
    assert "[tools] modules in " in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("missing.py", "tools file missing.py does not exist"),
        ("no_such.module", "no module named 'no_such.module'"),
        ("not a module", "is neither a .py file nor a module name"),
    ],
)
def test_a_tools_option_naming_nothing_exits_2(project: Path, spec: str, message: str) -> None:
    done = toolwire(project, "call", "--tools", spec, "add")
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_file_in_the_config_names_the_key_and_line(project: Path) -> None:
    (project / "toolwire.toml").write_text(
        '[store]\nurl = "memory://"\n\n[tools]\nmodules = ["missing.py"]\n'
    )
    done = toolwire(project, "tools")
    assert done.returncode == 2
    assert "toolwire.toml:5: tools.modules: tools file missing.py does not exist" in done.stderr


def test_a_tool_named_like_a_builtin_names_both(project: Path) -> None:
    (project / "clash.py").write_text(
        "from toolwire import tool\n\n\n"
        "@tool\ndef read_file(path: str) -> str:\n    '''Mine.'''\n    return path\n"
    )
    done = toolwire(project, "tools", "--tools", "clash.py")
    assert done.returncode == 2
    assert "your tool 'read_file' (clash.py:4) has the name of the built-in tool" in done.stderr
    assert "[tools] builtin = false" in done.stderr


def test_two_of_your_tools_with_one_name_name_both_files(project: Path) -> None:
    (project / "again.py").write_text(
        "from toolwire import tool\n\n\n"
        "@tool\ndef add(a: int) -> int:\n    '''Again.'''\n    return a\n"
    )
    done = toolwire(project, "tools", "--tools", "tools.py", "--tools", "again.py")
    assert done.returncode == 2
    assert "two tools are named 'add': tools.py:5 and again.py:4" in done.stderr

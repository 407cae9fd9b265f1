"""No framework is imported until its adapter is used; a missing one names the extra to install.

Each check runs in a fresh interpreter, so what this test process imported does not count.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

FRAMEWORKS = ("pydantic_ai", "agents", "langchain_core", "langgraph", "amplifier_core")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_importing_toolwire_and_its_integrations_imports_no_framework() -> None:
    done = run_python(
        f"""
        import sys
        import toolwire, toolwire.integrations
        dir(toolwire.integrations)
        toolwire.integrations.ToolBinding
        loaded = [m for m in {FRAMEWORKS!r} if m in sys.modules]
        print(loaded)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("attribute", "framework", "extra"),
    [
        ("ToolwireToolset", "pydantic_ai", "pydantic-ai"),
        ("function_tools", "agents", "openai-agents"),
        ("langchain_tools", "langchain_core", "langgraph"),
        ("mount", "amplifier_core", "amplifier"),
    ],
)
def test_a_missing_framework_is_a_configuration_error_naming_the_extra(
    attribute: str, framework: str, extra: str
) -> None:
    done = run_python(
        f"""
        import sys
        sys.modules[{framework!r}] = None  # as if it were not installed
        import toolwire.integrations
        from toolwire.errors import ConfigurationError
        try:
            getattr(toolwire.integrations, {attribute!r})
        except ConfigurationError as exc:
            print(exc)
        """
    )
    assert done.returncode == 0, done.stderr
    assert f"pip install 'toolwire[{extra}]'" in done.stdout
    assert framework in done.stdout

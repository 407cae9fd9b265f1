"""The curated public API: sorted, complete and importable."""

from __future__ import annotations

import subprocess
import sys
import types

import toolwire


def test_all_is_sorted_and_unique() -> None:
    assert list(toolwire.__all__) == sorted(set(toolwire.__all__))


def test_every_name_in_all_resolves() -> None:
    missing = [name for name in toolwire.__all__ if not hasattr(toolwire, name)]
    assert missing == []


def test_every_public_name_defined_in_the_package_is_in_all() -> None:
    public = {
        name
        for name, value in vars(toolwire).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", "")).startswith("toolwire")
    }
    assert public - set(toolwire.__all__) == set()


def test_the_issue_api_names_are_exported() -> None:
    for name in (
        "ToolRegistry",
        "ToolCall",
        "ToolContext",
        "tool",
        "ok",
        "err",
        "Ok",
        "Err",
        "ErrorCode",
    ):
        assert name in toolwire.__all__


def test_error_codes_compare_equal_to_their_wire_strings() -> None:
    assert toolwire.ErrorCode.STALE_WRITE == "STALE_WRITE"
    assert {code.value for code in toolwire.ErrorCode} == {
        "input_invalid",
        "not_available",
        "execution_failed",
        "STALE_WRITE",
    }


def test_lazy_names_load_on_first_use() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, toolwire\n"
            "print('toolwire.presenting' in sys.modules)\n"
            "print(toolwire.Presenter.__module__, 'toolwire.presenting' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "toolwire", "True"]
    assert "Presenter" in dir(toolwire)


def test_the_exception_tree_is_exported_from_the_root() -> None:
    from toolwire import errors

    assert set(errors.__all__) <= set(toolwire.__all__)
    for name in ("PeerUnavailableError", "PolicyRefusal"):
        assert issubclass(getattr(toolwire, name), toolwire.ToolwireError)

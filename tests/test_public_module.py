"""The root's names carry the path users import (``toolwire.X``), and still pickle and resolve.

`toolwire.lazy.publish` rewrites ``__module__`` as httpx does; these check what that could break:
pickling by reference, `typing.get_type_hints` (which looks names up in ``__module__``), and the
lazy names, which are published when the root first hands them out.
"""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys
import typing
from collections.abc import Mapping

import pytest

import toolwire
from toolwire.lazy import lazy_exports, publish

_NEVER_RESOLVED = {"CapabilityBackends", "ServeOptions", "ToolwireConfig"}
"""Annotated with names imported only under ``TYPE_CHECKING``: their hints never resolved."""


def _classes_and_functions() -> list[str]:
    return [
        name
        for name in toolwire.__all__
        if inspect.isclass(getattr(toolwire, name)) or inspect.isfunction(getattr(toolwire, name))
    ]


def test_every_root_class_and_function_reports_the_root_module() -> None:
    elsewhere = {
        name: getattr(toolwire, name).__module__
        for name in _classes_and_functions()
        if getattr(toolwire, name).__module__ != "toolwire"
    }
    assert elsewhere == {}


def test_reprs_show_the_public_path() -> None:
    assert repr(toolwire.ToolRegistry) == "<class 'toolwire.ToolRegistry'>"
    assert repr(toolwire.ToolwireError) == "<class 'toolwire.ToolwireError'>"
    assert str(toolwire.ToolResult) == "toolwire.Ok | toolwire.Err"


@pytest.mark.parametrize(
    "value",
    [
        toolwire.ok("done", structured={"n": 1}),
        toolwire.err("no such file", toolwire.ErrorCode.INPUT_INVALID, field="path"),
        toolwire.ToolCall(id="c1", name="read", args={"path": "a"}),
        toolwire.ErrorCode.STALE_WRITE,
        toolwire.ToolwireError("plain"),
        toolwire.ConfigurationError("bad key"),
        toolwire.SecretNotConfiguredError("API_KEY has no value"),
    ],
    ids=repr,
)
def test_values_pickle_round_trip(value: object) -> None:
    data = pickle.dumps(value)
    assert b"toolwire.results" not in data
    again = pickle.loads(data)
    assert type(again) is type(value)
    assert str(again) == str(value)
    if not isinstance(value, BaseException):
        assert again == value


def test_exceptions_with_their_own_arguments_pickle_round_trip() -> None:
    aborted = pickle.loads(pickle.dumps(toolwire.AbortedError("user hit stop")))
    assert (str(aborted), aborted.reason) == ("aborted: user hit stop", "user hit stop")
    failed = pickle.loads(pickle.dumps(toolwire.ProviderError("timed out", provider_id="mcp:x")))
    assert (str(failed), failed.provider_id) == ("timed out", "mcp:x")
    refused = pickle.loads(pickle.dumps(toolwire.PolicyRefusal("10.0.0.1", "private-address")))
    assert (refused.code, refused.reason) == ("private-address", "10.0.0.1")


def test_type_hints_resolve_as_before_the_rewrite() -> None:
    hints = typing.get_type_hints(toolwire.ToolCall)
    assert hints["args"] == str | Mapping[str, typing.Any]  # Mapping is not in toolwire
    for name in _classes_and_functions():  # a function's hints use its __globals__: unchanged
        value = getattr(toolwire, name)
        if not inspect.isclass(value) or name in _NEVER_RESOLVED:
            continue
        typing.get_type_hints(value)


def test_a_lazy_name_is_published_on_first_use() -> None:
    code = (
        "import toolwire.providers as p, toolwire\n"
        "print(p.ToolProvider.__module__)\n"
        "toolwire.ToolProvider\n"
        "print(p.ToolProvider.__module__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["toolwire.providers._base", "toolwire"]


def test_publish_leaves_aliases_constants_and_foreign_objects_alone() -> None:
    publish(typing.Mapping, "toolwire")
    publish(pickle.dumps, "toolwire")
    publish(toolwire.Audience, "toolwire")
    assert typing.Mapping.__module__ == "typing"
    assert pickle.dumps.__module__ == "_pickle"


def test_lazy_exports_without_public_module_keeps_the_defining_module() -> None:
    namespace: dict[str, object] = {}
    getattr_, _ = lazy_exports("pkg", {"dumps": "json"}, namespace)
    assert getattr_("dumps").__module__ == "json"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr_("nope")

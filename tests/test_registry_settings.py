"""RegistrySettings: a registry's settings as one value, and the keywords that override it."""

from __future__ import annotations

import warnings
from dataclasses import FrozenInstanceError, replace
from pathlib import Path
from typing import Any

import pytest

from toolwire import RegistrySettings, ToolRegistry
from toolwire.context import ToolContext
from toolwire.errors import RegistrationError
from toolwire.execution.hooks import HookRegistry
from toolwire.results import Ok, ToolResult
from toolwire.testing import create_test_backends, make_context
from toolwire.tools import define_tool


async def _echo_text(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok(str(args.get("text", "")))


def _echo() -> Any:
    return define_tool(
        name="echo",
        description="Echo.",
        schema={"type": "object", "properties": {"text": {"type": "string"}}},
        execute=_echo_text,
        cache=True,
    )


def test_the_value_and_the_keywords_build_the_same_registry() -> None:
    by_value = ToolRegistry(
        settings=RegistrySettings(
            default_timeout_s=5, max_concurrency=2, definition_order="sorted", provider_id="p"
        )
    )
    by_keywords = ToolRegistry(
        default_timeout_s=5, max_concurrency=2, definition_order="sorted", provider_id="p"
    )
    for registry in (by_value, by_keywords):
        assert registry.settings.default_timeout_s == 5
        assert registry.settings.max_concurrency == 2
        assert registry.settings.definition_order == "sorted"
        assert registry.id == "p"


def test_a_keyword_overrides_that_field_of_the_value() -> None:
    registry = ToolRegistry(
        settings=RegistrySettings(max_concurrency=2, default_timeout_s=9), max_concurrency=4
    )
    assert registry.settings.max_concurrency == 4
    assert registry.settings.default_timeout_s == 9


def test_backends_are_the_first_positional_argument(tmp_path: Path) -> None:
    backends = create_test_backends(tmp_path)
    registry = ToolRegistry(backends, settings=RegistrySettings(reducers=None))
    assert registry.backends is backends
    assert registry.settings.reducers is None


def test_one_value_with_the_defaults_builds_independent_registries() -> None:
    shared = RegistrySettings(reducers=None)
    first, second = ToolRegistry(settings=shared), ToolRegistry(settings=shared)
    assert first.hooks is not second.hooks
    assert first.tasks is not second.tasks
    assert first.settings.result_cache is not second.settings.result_cache
    assert shared.hooks is None  # the value given is never changed


def test_an_instance_in_the_value_is_shared_on_purpose() -> None:
    hooks = HookRegistry()
    settings = RegistrySettings(hooks=hooks)
    assert ToolRegistry(settings=settings).hooks is hooks
    assert ToolRegistry(settings=settings).hooks is hooks


def test_registry_settings_are_resolved() -> None:
    registry = ToolRegistry()
    assert registry.settings.hooks is registry.hooks
    assert registry.settings.tasks is registry.tasks
    assert registry.settings.reducers is not None  # the built-in ones
    redactor = registry.settings.dry_run_redactor
    assert redactor is not None
    assert "sk-ant-" not in redactor("key sk-ant-api03-" + "a" * 90)


@pytest.mark.anyio
async def test_a_sibling_built_from_resolved_settings_shares_its_cache(tmp_path: Path) -> None:
    first = ToolRegistry(reducers=None)
    first.register(_echo())
    sibling = ToolRegistry(settings=replace(first.settings, hooks=None, tasks=None))
    sibling.register(_echo())
    await first.execute("echo", {"text": "x"}, make_context(tmp_path))
    assert len(sibling.settings.result_cache or ()) == 1


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("max_concurrency", 0, "max_concurrency must be >= 1"),
        ("default_timeout_s", -1.0, "default_timeout_s must be positive"),
        ("definition_order", "random", "definition_order must be"),
        ("provider_id", "", "provider_id must be a non-empty string"),
    ],
)
def test_the_value_refuses_a_setting_out_of_range(field: str, value: Any, match: str) -> None:
    with pytest.raises(RegistrationError, match=match):
        RegistrySettings(**{field: value})
    with pytest.raises(RegistrationError, match=match):
        replace(RegistrySettings(), **{field: value})


def test_an_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="max_concurency"):
        ToolRegistry(max_concurency=2)  # type: ignore[call-arg]


def test_the_value_is_frozen_and_the_keywords_are_not_deprecated() -> None:
    settings = RegistrySettings()
    with pytest.raises(FrozenInstanceError):
        settings.max_concurrency = 3  # type: ignore[misc]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolRegistry(reducers=None, max_concurrency=3)

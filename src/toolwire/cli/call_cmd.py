"""``toolwire call NAME 'JSON'``: one call through the full pipeline, presented."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from toolwire.calls import CallOutcome
from toolwire.cli.common import (
    EXIT_ERR,
    ToolsOption,
    did_you_mean,
    fail_usage,
    load,
    run_configured,
    stderr,
)
from toolwire.config import ToolwireConfig
from toolwire.context import ToolContext
from toolwire.results import Err, Ok, result_to_dict
from toolwire.wiring import open_registry

__all__ = ["call"]


def call(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The tool's name (see `toolwire tools`).")],
    arguments: Annotated[
        str,
        typer.Argument(
            help='The arguments as a JSON object, e.g. \'{"path": "x"}\'; - reads them from stdin.'
        ),
    ] = "{}",
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    tools: ToolsOption = None,
) -> None:
    """Run NAME with ARGUMENTS; print what the model would read. Exit 1 when it fails."""
    parsed = _arguments(sys.stdin.read() if arguments == "-" else arguments)
    config = load(ctx, tools)
    outcome, text, hint = run_configured(_run, config, name, parsed)
    if hint is not None:
        stderr.print(hint, markup=False)
    if as_json:
        payload: dict[str, Any] = {
            "name": outcome.name,
            **result_to_dict(outcome.result),
            "presented": text,
            "duration_ms": round(outcome.duration_ms, 3),
        }
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        typer.echo(text)
    if not isinstance(outcome.result, Ok):
        raise typer.Exit(EXIT_ERR)


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        fail_usage(f"ARGUMENTS is not valid JSON: {exc}")
    if not isinstance(parsed, dict):
        fail_usage("ARGUMENTS must be a JSON object, e.g. '{}'")
    return parsed


async def _run(
    config: ToolwireConfig, name: str, args: dict[str, Any]
) -> tuple[CallOutcome, str, str | None]:
    """The outcome, what the model reads, and a hint for a human when the tool is unknown."""
    from toolwire.presenting import Presenter, PresenterOptions

    tool_ctx = ToolContext(
        session_id="cli",
        platform="cli",
        working_dir=config.base_dir,
        result_budget_chars=config.result_budget_chars,
    )
    async with open_registry(config) as wired:
        registry = wired.registry
        outcome = await registry.execute(name, args, tool_ctx, call_id="cli")
        presenter = Presenter(PresenterOptions(ingestion_cap_chars=config.result_budget_chars + 64))
        text = presenter.present(outcome, registry.get(name), args=args).text
        result = outcome.result
        unknown = isinstance(result, Err) and result.reason == "unknown_tool"
        hint = did_you_mean(name, registry.names) if unknown else None
    return outcome, text, hint

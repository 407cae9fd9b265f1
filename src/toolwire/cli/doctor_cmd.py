"""``toolwire doctor``: what is usable here, and how to fix what is not."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from toolwire.cli.common import EXIT_ERR, load, run_configured
from toolwire.cli.doctor_checks import Check, run_checks

__all__ = ["doctor"]

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def doctor(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on warnings too, not only on failures.")
    ] = False,
) -> None:
    """Check the store, the sandbox, Chromium, node and search keys; say how to fix each.
    Exit 1 when something the configuration needs does not work (with --strict, when
    anything is missing)."""
    config = load(ctx)
    checks = run_configured(run_checks, config)
    if as_json:
        typer.echo(json.dumps([asdict(check) for check in checks], indent=2))
    else:
        for check in checks:
            typer.echo(_line(check))
    bad = {"fail", "warn"} if strict else {"fail"}
    if any(check.status in bad for check in checks):
        raise typer.Exit(EXIT_ERR)


def _line(check: Check) -> str:
    line = f"{_MARK[check.status]}  {check.name:<9} {check.detail}"
    if check.fix is not None:
        line += f"\n{'':17}fix: {check.fix}"
    return line

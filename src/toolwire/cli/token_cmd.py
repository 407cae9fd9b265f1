"""``toolwire token create|list|revoke``: bearer tokens for ``toolwire serve --http``.

The token is printed once, alone on stdout (``TOKEN=$(toolwire token create ...)``); the store keeps
only its hash (`toolwire.mcp.server.auth.tokens`). Tokens live in the configured store (``[store]
url``), so every server reading that store accepts them: turn them on with ``[auth] tokens = true``.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Annotated

import typer

from toolwire.cli.common import fail_usage, list_records, load_persistent, run_configured, stderr
from toolwire.config import ToolwireConfig
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.tokens import IssuedToken, TokenRecord, TokenStore

__all__ = ["parse_expiry", "token_app"]

_LOST = "which forgets a token when this command exits"
"""What a ``memory://`` store would lose (see `load_persistent`)."""

token_app = typer.Typer(
    help="Bearer tokens for `toolwire serve --http` ([auth] tokens = true).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
_DURATION = re.compile(r"^(\d+)([smhdw])$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_expiry(value: str, now: float) -> float:
    """Unix time from ``90m``, ``12h``, ``30d``, ``2w`` (from ``now``) or an ISO 8601 date or
    time (``2026-12-31``, ``2026-12-31T18:00:00+01:00``; UTC when no offset is given)."""
    match = _DURATION.match(value.strip())
    if match is not None:
        return now + int(match.group(1)) * _UNIT_S[match.group(2)]
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        fail_usage(f"--expires takes 30d, 12h, 90m or an ISO date like 2026-12-31 (got {value!r})")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def _names(values: list[str] | None) -> list[str]:
    """``--toolsets file,web --toolsets process`` → ``["file", "web", "process"]``."""
    return [item.strip() for value in values or () for item in value.split(",") if item.strip()]


@token_app.command("create")
def create(
    ctx: typer.Context,
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="A label: ci, alice-laptop, ...")
    ],
    toolsets: Annotated[
        list[str] | None,
        typer.Option(
            "--toolsets", metavar="A,B", help="Toolsets it may list and call (comma-separated)."
        ),
    ] = None,
    tools: Annotated[
        list[str] | None,
        typer.Option(
            "--tools", metavar="X,Y", help="Single tools it may list and call (comma-separated)."
        ),
    ] = None,
    every_tool: Annotated[bool, typer.Option("--all", help="Every tool.")] = False,
    expires: Annotated[
        str | None,
        typer.Option(
            "--expires", metavar="WHEN", help="30d, 12h, 90m, or an ISO date (default: never)."
        ),
    ] = None,
) -> None:
    """Make a token; print it once (only its hash is stored)."""
    config = load_persistent(ctx, _LOST)
    sets = _names(toolsets) + (["*"] if every_tool else [])
    grant = Grant.of(toolsets=sets, tools=_names(tools))
    expires_at = parse_expiry(expires, time.time()) if expires is not None else None
    issued = run_configured(_create, config, name, grant, expires_at)
    typer.echo(issued.token)
    record = issued.record
    stderr.print(
        f"token {record.name!r} (id {record.id}) opens {grant.describe()}; "
        f"{_expiry(record)}. It is shown only now: store it in a secret manager.",
        markup=False,
        soft_wrap=True,
    )
    if not config.auth.tokens:
        stderr.print(
            "note: servers accept it once toolwire.toml has [auth] tokens = true "
            "(or TOOLWIRE_AUTH_TOKENS=true)",
            markup=False,
            style="yellow",
        )


@token_app.command("list")
def list_tokens(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the live tokens (id, name, what they open, expiry); never the tokens themselves."""
    config = load_persistent(ctx, _LOST)
    list_records(
        run_configured(_list, config),
        as_json=as_json,
        as_dict=_as_dict,
        line=_line,
        none="no tokens; `toolwire token create --name NAME --toolsets ...`",
    )


def _line(record: TokenRecord) -> str:
    return f"{record.id}  {record.name}  {record.grant.describe()}  ({_expiry(record)})"


@token_app.command("revoke")
def revoke(
    ctx: typer.Context,
    token: Annotated[str, typer.Argument(help="The token's id or name (from `token list`).")],
) -> None:
    """Revoke a token: servers refuse it from now on (within [auth] token_cache_s)."""
    config = load_persistent(ctx, _LOST)
    record = run_configured(_revoke, config, token)
    if record is None:
        fail_usage(f"no token with id or name {token!r}; `toolwire token list` shows them")
    stderr.print(f"revoked token {record.name!r} (id {record.id})", markup=False)


async def _create(
    config: ToolwireConfig, name: str, grant: Grant, expires_at: float | None
) -> IssuedToken:
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await TokenStore(backend).create(name, grant, expires_at=expires_at)


async def _list(config: ToolwireConfig) -> list[TokenRecord]:
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await TokenStore(backend).list()


async def _revoke(config: ToolwireConfig, id_or_name: str) -> TokenRecord | None:
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await TokenStore(backend).revoke(id_or_name)


def _when(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _expiry(record: TokenRecord) -> str:
    if record.expires_at is None:
        return "never expires"
    return f"expires {_when(record.expires_at)}"


def _as_dict(record: TokenRecord) -> dict[str, object]:
    return {
        "id": record.id,
        "name": record.name,
        "toolsets": sorted(record.grant.toolsets),
        "tools": sorted(record.grant.tools),
        "all": record.grant.everything,
        "created_at": _when(record.created_at),
        "expires_at": _when(record.expires_at) if record.expires_at is not None else None,
    }

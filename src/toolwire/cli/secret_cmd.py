"""``toolwire secret set|list|delete``: the secrets vault that tools' declared refs resolve from.

The vault is the one `create_backends` reads first (``~/.toolwire/secrets``, one ``0600`` file per
ref: `toolwire.capabilities.kinds.secrets._resolvers.VaultSecretsResolver`), so a secret set here
reaches ``toolwire serve`` and ``toolwire call`` run by the same user. A value is never an argument
(it would sit in the shell history and in ``ps``): ``set`` reads it from stdin when stdin is not a
terminal, else asks for it twice without echo. Nothing here prints a value.
"""

from __future__ import annotations

import getpass
import json
import sys
from typing import Annotated

import anyio
import typer

from toolwire.capabilities.kinds.secrets._env import secret_env_name
from toolwire.capabilities.kinds.secrets._resolvers import (
    DEFAULT_VAULT_DIR,
    VaultSecretsResolver,
)
from toolwire.capabilities.kinds.secrets.seam import validate_ref
from toolwire.cli.common import fail_usage, stderr

__all__ = ["read_value", "secret_app"]

secret_app = typer.Typer(
    help="Secrets for tools that declare them (the vault at ~/.toolwire/secrets).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

RefArgument = Annotated[
    str, typer.Argument(metavar="REF", help="The ref a tool declares: github_token, a/b/key.")
]


@secret_app.command("set")
def set_secret(ref: RefArgument) -> None:
    """Store REF's value: from stdin when piped, else asked for twice, without echo."""
    vault = _vault()
    _check(ref)
    value = read_value(ref)
    try:
        anyio.run(vault.set, ref, value)
    except (OSError, ValueError) as exc:
        fail_usage(f"cannot store {ref!r}: {exc}")
    stderr.print(
        f"stored {ref} in the vault {vault.directory}; tools that declare it get it (the "
        f"vault is read before the environment: ${secret_env_name(ref)} is not needed)",
        markup=False,
        soft_wrap=True,
    )


@secret_app.command("list")
def list_secrets(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the refs stored in the vault; never their values."""
    refs = anyio.run(_vault().refs)
    if as_json:
        typer.echo(json.dumps(refs))
        return
    if not refs:
        stderr.print("no secrets in the vault; `toolwire secret set REF` stores one", markup=False)
        return
    for ref in refs:
        typer.echo(ref)


@secret_app.command("delete")
def delete_secret(ref: RefArgument) -> None:
    """Remove REF from the vault."""
    vault = _vault()
    _check(ref)
    if ref not in anyio.run(vault.refs):
        fail_usage(f"no secret {ref!r} in the vault; `toolwire secret list` shows them")
    anyio.run(vault.delete, ref)
    stderr.print(f"deleted {ref} from the vault {vault.directory}", markup=False)


def read_value(ref: str) -> str:
    """The value for ``ref``: all of stdin (one trailing newline dropped) when it is not a
    terminal, else typed twice at a prompt without echo; an empty value exits 2."""
    if sys.stdin is None or not sys.stdin.isatty():
        value = sys.stdin.read() if sys.stdin is not None else ""
        value = value.removesuffix("\n").removesuffix("\r")
    else:
        value = getpass.getpass(f"value of {ref}: ")
        if getpass.getpass("again, to confirm: ") != value:
            fail_usage("the two values differ; nothing was stored")
    if not value:
        fail_usage(f"empty value; nothing was stored (to remove {ref}: toolwire secret delete)")
    return value


def _vault() -> VaultSecretsResolver:
    return VaultSecretsResolver(DEFAULT_VAULT_DIR)


def _check(ref: str) -> None:
    try:
        validate_ref(ref)
    except ValueError as exc:
        fail_usage(str(exc))

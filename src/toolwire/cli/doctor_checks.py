"""What ``toolwire doctor`` checks: each part toolwire may use here, and how to fix it.

Every check answers a `Check`: ``ok``, ``warn`` (an optional part is missing: the tools that
need it are unavailable), ``fail`` (something the configuration asks for does not work) or
``skip`` (not configured). A check never raises: what breaks is its answer.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit

import anyio

from toolwire.capabilities.kinds.secrets._resolvers import DEFAULT_ENV_SECRETS, EnvSecretsResolver
from toolwire.config import ToolwireConfig

__all__ = [
    "Check",
    "Status",
    "check_chromium",
    "check_node",
    "check_protected",
    "check_sandbox",
    "check_search",
    "check_store",
    "run_checks",
]  # fmt: skip

Status = Literal["ok", "warn", "fail", "skip"]
_STORE_TIMEOUT_S = 5.0
_COMMAND_TIMEOUT_S = 10.0
_MIN_NODE_MAJOR = 18


@dataclass(frozen=True, kw_only=True, slots=True)
class Check:
    """One part's answer.

    Attributes:
        name: ``store``, ``sandbox``, ``protected``, ``chromium``, ``node`` or ``search``.
        status: ``ok``, ``warn``, ``fail`` or ``skip``.
        detail: What was found.
        fix: How to fix it (``None`` when there is nothing to fix).
    """

    name: str
    status: Status
    detail: str
    fix: str | None = None


async def run_checks(config: ToolwireConfig) -> list[Check]:
    """Every check, in a fixed order; the blocking ones run in worker threads."""
    checks = [await check_store(config.store_url)]
    blocking_checks = (
        check_sandbox, check_protected, check_web, check_chromium, check_node, check_search,
    )  # fmt: skip
    for blocking in blocking_checks:
        checks.append(await anyio.to_thread.run_sync(blocking, config))
    return checks


# -- the store -------------------------------------------------------------------------------


def shown_url(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


async def check_store(url: str) -> Check:
    """The configured store: opened, and a key written, read and deleted."""
    shown = shown_url(url)
    scheme = urlsplit(url).scheme.lower()
    if scheme == "memory":
        return Check(name="store", status="ok", detail=f"{shown} (state is lost on exit)")
    if scheme == "sqlite":
        to_create = await anyio.to_thread.run_sync(_sqlite_to_create, shown, urlsplit(url).path)
        if to_create is not None:
            return to_create
    try:
        with anyio.fail_after(_STORE_TIMEOUT_S):
            await _round_trip(url)
    except TimeoutError:
        return Check(
            name="store",
            status="fail",
            detail=f"{shown}: no answer within {_STORE_TIMEOUT_S:g} s",
            fix=_store_fix(scheme),
        )
    except Exception as exc:  # every way a store fails is this check's answer
        return Check(
            name="store", status="fail", detail=f"{shown}: {_reason(exc)}", fix=_store_fix(scheme)
        )
    return Check(name="store", status="ok", detail=f"{shown} (reachable: write, read, delete)")


def _sqlite_to_create(shown: str, file: str) -> Check | None:
    """The answer for a database file that does not exist yet (``None`` when it does)."""
    path = Path(file)
    if path.exists():
        return None
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if os.access(ancestor, os.W_OK | os.X_OK):
        return Check(name="store", status="ok", detail=f"{shown} (created on first use)")
    return Check(
        name="store",
        status="fail",
        detail=f"{shown}: {ancestor} is not writable, so the database cannot be created",
        fix="choose a writable path in [store] url, or make the directory writable",
    )


async def _round_trip(url: str) -> None:
    from toolwire.stores import create_kv_backend

    backend = create_kv_backend(url)
    try:
        store = backend.scoped("toolwire_doctor", "tool:toolwire_doctor", ttl_seconds_default=60)
        await store.set("probe", "ok")
        if await store.get("probe") != "ok":
            raise RuntimeError("a key written could not be read back")
        await store.delete("probe")
    finally:
        await backend.aclose()


def _store_fix(scheme: str) -> str:
    if scheme in ("redis", "rediss"):
        return (
            "start Redis (`make services` in a checkout, or `redis-server`), check the URL in "
            "[store] url, and install the driver: pip install 'toolwire[redis]'"
        )
    if scheme in ("postgresql", "postgres"):
        return (
            "start PostgreSQL (`make services` in a checkout), check the URL, user and database "
            "in [store] url, and install the driver: pip install 'toolwire[postgres]'"
        )
    return "check [store] url (or TOOLWIRE_STORE_URL); memory:// needs nothing"


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


# -- the sandbox -----------------------------------------------------------------------------

_BWRAP_FIX = "sudo apt-get install bubblewrap (Debian/Ubuntu; `make sysdeps` in a checkout)"


def check_sandbox(config: ToolwireConfig) -> Check:
    """Whether commands can run in the bubblewrap sandbox here."""
    mode = config.sandbox.mode  # "auto", "required" or "off" ([sandbox] mode)
    if mode == "off":
        return Check(name="sandbox", status="skip", detail="off in the configuration")
    usable, reason = _probe_bubblewrap()
    if usable:
        return Check(name="sandbox", status="ok", detail=reason)
    if mode == "required":
        return Check(
            name="sandbox", status="fail", detail=f"required, but {reason}", fix=_BWRAP_FIX
        )
    detail = f"{reason}; commands run without a sandbox (mode {mode})"
    return Check(name="sandbox", status="warn", detail=detail, fix=_BWRAP_FIX)


def check_protected(config: ToolwireConfig) -> Check:
    """The protected paths: what no command or write tool may change inside a write root
    (``warn`` when ``[sandbox] unprotect`` removed some)."""
    from toolwire.safety.protected_paths import protected_paths

    protected = protected_paths(
        config_files=(config.source,) if config.source else (),
        add=config.sandbox.protected,
        remove=config.sandbox.unprotect,
    )
    detail = "read-only, and refused by the write tools: " + "; ".join(protected.describe())
    if not protected.removed:
        return Check(name="protected", status="ok", detail=detail)
    removed = ", ".join(protected.removed)
    return Check(
        name="protected",
        status="warn",
        detail=f"UNPROTECTED by [sandbox] unprotect: {removed}; {detail}",
        fix="remove them from [sandbox] unprotect unless commands must write them",
    )


def _probe_bubblewrap() -> tuple[bool, str]:
    """`toolwire.capabilities.kinds.process.sandbox.probe_bubblewrap`: bubblewrap tried once (cached
    for the process)."""
    from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap

    probe = probe_bubblewrap()
    return probe.usable, probe.reason


# -- Chromium, node --------------------------------------------------------------------------


def check_web(config: ToolwireConfig) -> Check:
    """The ``web`` extra, without which ``fetch_url`` is unavailable."""
    from toolwire.toolbox.web._fetch import web_extra_installed

    if web_extra_installed():
        return Check(name="web", status="ok", detail="the web extra is installed (fetch_url)")
    return Check(
        name="web",
        status="warn",
        detail="the web extra is not installed: fetch_url is unavailable",
        fix="pip install 'toolwire[web]'",
    )


def check_chromium(config: ToolwireConfig) -> Check:
    """The Chromium the browser tools drive (``$TOOLWIRE_CHROMIUM``, else ``chromium`` or
    ``chromium-browser`` on PATH, as the browser backend looks for it), and Playwright."""
    from toolwire.capabilities.kinds.browser._settings import CHROMIUM_ENV, find_chromium

    playwright = importlib.util.find_spec("playwright") is not None
    found = find_chromium()
    if found is None:
        named = os.environ.get(CHROMIUM_ENV)
        detail = (
            f"${CHROMIUM_ENV} names {named!r}, which is not an executable"
            if named
            else "no Chromium found: the browser tools are unavailable"
        )
        return Check(
            name="chromium",
            status="warn",
            detail=detail,
            fix=(
                "sudo apt-get install chromium (Debian) or chromium-browser (Ubuntu), or "
                f"point ${CHROMIUM_ENV} at a Chromium executable"
            ),
        )
    version = _first_line([found, "--version"]) or found
    if not playwright:
        return Check(
            name="chromium",
            status="warn",
            detail=f"{version}, but Playwright is not installed: the browser tools are unavailable",
            fix="pip install playwright (no browser download needed: the system Chromium is used)",
        )
    return Check(name="chromium", status="ok", detail=f"{version} ({found}), Playwright installed")


def check_node(config: ToolwireConfig) -> Check:
    """Node.js, for MCP servers launched with npx and JavaScript checks."""
    needed = [s.name for s in config.mcp_servers if (s.command or "") in ("npx", "node")]
    path = shutil.which("node")
    if path is None:
        if needed:
            return Check(
                name="node",
                status="fail",
                detail=f"not installed, and MCP servers {needed} are launched with it",
                fix=f"install Node.js >= {_MIN_NODE_MAJOR} (sudo apt-get install nodejs npm)",
            )
        return Check(
            name="node",
            status="warn",
            detail="not installed: MCP servers launched with npx cannot start",
            fix=f"install Node.js >= {_MIN_NODE_MAJOR} (sudo apt-get install nodejs npm)",
        )
    version = _first_line([path, "--version"]) or "unknown version"
    major = re.match(r"v?(\d+)", version)
    if major is not None and int(major.group(1)) < _MIN_NODE_MAJOR:
        return Check(
            name="node",
            status="warn",
            detail=f"{version} is older than {_MIN_NODE_MAJOR}: npx MCP servers may not start",
            fix=f"install Node.js >= {_MIN_NODE_MAJOR}",
        )
    return Check(name="node", status="ok", detail=f"{version} ({path})")


# -- search ----------------------------------------------------------------------------------

_KEYLESS = {"duckduckgo": "", "searxng": ""}
_PROVIDER_ENV = "TOOLWIRE_WEB_SEARCH_PROVIDER"


def check_search(config: ToolwireConfig) -> Check:
    """The configured web-search provider: its key (environment or vault), or its URL."""
    table: Mapping[str, Any] = getattr(config, "web_search", None) or {}
    provider = str(os.environ.get(_PROVIDER_ENV) or table.get("provider") or "").lower()
    if not provider:
        return Check(
            name="search",
            status="skip",
            detail="no [web_search] provider configured (DuckDuckGo is the default: no key)",
        )
    if provider == "searxng" and not (
        os.environ.get("TOOLWIRE_WEB_SEARCH_URL") or table.get("url")
    ):
        return Check(
            name="search",
            status="fail",
            detail="searxng is configured without its URL",
            fix="set [web_search] url to your SearXNG instance (or TOOLWIRE_WEB_SEARCH_URL)",
        )
    if provider in _KEYLESS:
        return Check(name="search", status="ok", detail=f"{provider} (needs no key)")
    ref = str(table.get("key_ref") or f"providers/{provider}/apiKey")
    table_env = {**DEFAULT_ENV_SECRETS, **(getattr(config, "secrets_env", None) or {})}
    variables = EnvSecretsResolver(table_env).variables(ref)
    if any(os.environ.get(name) for name in variables) or _in_vault(ref):
        return Check(name="search", status="ok", detail=f"{provider}: key found ({ref})")
    where = f"export {variables[0]}=..., or " if variables else ""
    return Check(
        name="search",
        status="fail",
        detail=f"{provider} is configured but its key ({ref}) is missing",
        fix=f"{where}store it in the vault: toolwire secret set {shlex.quote(ref)}",
    )


def _in_vault(ref: str) -> bool:
    """Whether the default vault holds ``ref`` (named as `VaultSecretsResolver` names it)."""
    return (Path.home() / ".toolwire" / "secrets" / quote(ref, safe="")).is_file()


# -- helpers ---------------------------------------------------------------------------------


def _run(argv: list[str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_COMMAND_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _first_line(argv: list[str]) -> str | None:
    done = _run(argv)
    if done is None or done.returncode != 0:
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else None

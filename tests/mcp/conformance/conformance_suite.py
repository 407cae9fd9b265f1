"""The official MCP conformance suite (npm, on Node 22), installed by
``scripts/conformance-setup.sh``, and the fixture to run it on (``fixture_server.py``: the fixture's
tools and resources served by `serve_registry`).

Every scenario the suite lists is in exactly one of `SERVER_SCENARIOS`/`CLIENT_SCENARIOS`
(must pass), `KNOWN_FAILING` (applies, fails today) or `NOT_APPLICABLE` (the reasons are in
``docs/mcp.md``), so a suite version with new scenarios is noticed rather than passed over.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from service_checks import missing_here

__all__ = [
    "BASELINE",
    "CLIENT_COMMAND",
    "CLIENT_SCENARIOS",
    "KNOWN_FAILING",
    "NOT_APPLICABLE",
    "SERVER_SCENARIOS",
    "Served",
    "Suite",
    "require_suite",
    "serve_fixture",
    "stop_fixture",
]

REPO = Path(__file__).resolve().parents[3]
SETUP = REPO / "scripts" / "conformance-setup.sh"
BASELINE = Path(__file__).with_name("expected_failures.yml")
"""The suite's expected-failures file: `KNOWN_FAILING` and `NOT_APPLICABLE`."""
HERE = Path(__file__).resolve().parent
FIXTURE_SERVER = HERE / "fixture_server.py"
"""The script that serves the fixture (its directory, and so the fixture, first on sys.path)."""
CLIENT_COMMAND = f"{sys.executable} {HERE / 'fixture' / 'client.py'}"
"""What the suite runs for a client scenario (it appends the URL of its test server)."""
SUITE_TIMEOUT_S = 600
START_TIMEOUT_S = 60

SERVER_SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-multiple-streams",
    "server-sse-polling",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "dns-rebinding-protection",
)
"""The server scenarios toolwire's server (`serve_registry`) must pass."""
CLIENT_SCENARIOS = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
"""The client scenarios McpProvider must pass."""
KNOWN_FAILING: tuple[str, ...] = ()
"""Server scenarios that apply and fail today (docs/mcp.md says why); in the baseline too."""
NOT_APPLICABLE = {
    "server": (
        "prompts-list",
        "prompts-get-simple",
        "prompts-get-with-args",
        "prompts-get-embedded-resource",
        "prompts-get-with-image",
    ),
    "client": (
        "auth/metadata-default",
        "auth/metadata-var1",
        "auth/metadata-var2",
        "auth/metadata-var3",
        "auth/basic-cimd",
        "auth/scope-from-www-authenticate",
        "auth/scope-from-scopes-supported",
        "auth/scope-omitted-when-undefined",
        "auth/scope-step-up",
        "auth/scope-retry-limit",
        "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post",
        "auth/token-endpoint-auth-none",
        "auth/pre-registration",
        "auth/2025-03-26-oauth-metadata-backcompat",
        "auth/2025-03-26-oauth-endpoint-fallback",
        "auth/resource-mismatch",
        "auth/offline-access-scope",
        "auth/offline-access-not-supported",
        "auth/client-credentials-jwt",
        "auth/client-credentials-basic",
        "auth/cross-app-access-complete-flow",
    ),
}
"""The scenarios that cannot apply (docs/mcp.md, Conformance, says why)."""


@dataclass(frozen=True)
class Suite:
    """The installed suite: ``node`` (22) and the suite's CLI script."""

    node: Path
    cli: Path

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """Run the suite's CLI with ``args`` in ``cwd``; its output is in the result."""
        return subprocess.run(
            [str(self.node), str(self.cli), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=SUITE_TIMEOUT_S,
            check=False,
        )

    def listed(self, cwd: Path) -> dict[str, set[str]]:
        """The scenarios ``list`` names, as ``{"server": ..., "client": ...}``."""
        output = self.run("list", cwd=cwd).stdout
        found: dict[str, set[str]] = {"server": set(), "client": set()}
        side = ""
        for line in output.splitlines():
            if line.startswith("Server scenarios"):
                side = "server"
            elif line.startswith("Client scenarios"):
                side = "client"
            match = re.match(r"\s+- (\S+)", line)
            if match and side:
                found[side].add(match.group(1))
        return found


def require_suite() -> Suite:
    """The suite, installed if needed; skip without it (fail with ``CI=true``)."""
    setup = subprocess.run(
        ["bash", str(SETUP)], capture_output=True, text=True, timeout=900, check=False
    )
    where = Path(setup.stdout.strip()) if setup.returncode == 0 and setup.stdout.strip() else None
    node = where / "node_modules" / ".bin" / "node" if where else None
    cli = where / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    if where is None or node is None or not node.exists() or not cli.exists():
        missing_here(f"the MCP conformance suite is not installed: {setup.stderr.strip()}")
    return Suite(node=node, cli=cli)


@dataclass(frozen=True)
class Served:
    """The fixture served (``fixture_server.py``): its endpoint and process."""

    url: str
    process: subprocess.Popen[str]


def serve_fixture(workdir: Path) -> Served:
    """Start the fixture on a free port of 127.0.0.1 in ``workdir`` (never the repository)."""
    (workdir / "toolwire.toml").write_text('[tools]\ntoolsets = ["file"]\n')
    log = workdir / "serve.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, str(FIXTURE_SERVER)],
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        match = re.search(r"^serving (http://127\.0\.0\.1:\d+/mcp)$", log.read_text(), re.M)
        if match:
            return Served(url=match.group(1), process=process)
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise AssertionError("the conformance fixture did not start:\n" + log.read_text())


def stop_fixture(served: Served) -> None:
    """SIGTERM, then wait (kill if it does not stop)."""
    served.process.send_signal(signal.SIGTERM)
    try:
        served.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()

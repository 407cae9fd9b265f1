"""`make bench`: every benchmark, each against a baseline measured in the same run.

1. W1–W5 of the peer tool-execution harness (kept outside this repository: ``TOOLWIRE_PEER_BENCH``,
   by default ``shared/peer-bench`` beside the checkout), toolwire beside the
   raw-Python baseline — and beside the peers when their environment exists (see README).
2. Key-value stores against their raw drivers (``bench_kv.py``).
3. Reducers: characters before/after on the captured outputs (``bench_reducers.py``).
4. The MCP server against the SDK's ``MCPServer`` (``bench_mcp.py``), and under load with
   ``wrk`` on both revisions plus its stdio cold start (``bench_mcp_load.py``).
5. Regular expressions: the worst time per KiB of every pattern that meets untrusted text, on
   adversarial input, beside Python's ``re`` (``bench_regex.py``).
6. The command guard: time per command on its corpus beside tree-sitter's parse alone, and time
   per KiB on long commands (``bench_guard.py``).
7. ``fetch_url``'s HTML → Markdown extractor beside the alternatives on real saved pages:
   characters, ms per page, main text kept (``bench_extract.py``; downloads its corpus once).
8. Result handles and approvals on W1 when configured but not triggered
   (``bench_stages_handles.py``).
9. Quotas, tasks and the effect journal on W1 when configured but not triggered, and what they
   cost once they act (``bench_stages_quotas.py``).
10. A command in the bubblewrap sandbox (without network, with it through socat and through
    relay.py) beside the same command unsandboxed; network/no-network against the 2x target
    (``bench_sandbox.py``).
11. The browser tools through the egress proxy beside Playwright driving the same Chromium
    directly, and snapshot characters before/after (``bench_browser.py``).
12. ``toolwire serve`` replicas behind HAProxy on Redis and PostgreSQL: calls/s with one, two
    and three, and the store operations per call (``bench_replicas.py``).
13. Resumable SSE streams: storing an event and replaying a stream, beside the store's bare
    ``set`` (``bench_event_store.py``).
14. The stdio cold start of ``serve_registry`` and ``toolwire serve --stdio``, with and without
    the lean loop, beside the SDK's ``MCPServer`` (``bench_stdio_cold_start.py``).
15. Tool search: recall@1/@5 and MRR on real MCP servers' tools beside FTS5, pydantic-ai,
    bm25s and FastMCP; 10,000 deferred tools: index, search p50, definitions sent
    (``bench_tool_search.py``).
16. Code mode: characters entering the model's context, direct calls beside one program; 100
    calls from a program beside ``execute_parallel``; the worker checkout
    (``bench_code_mode.py``).

Each prints a markdown table. Options: ``--repeats N``, and ``--only`` with a comma-separated
list of ``w,kv,reducers,mcp,load,regex,guard,extract,handles,quotas,sandbox,browser,replicas,``
``events,cold,toolsearch,code``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HARNESS = Path(os.environ.get("TOOLWIRE_PEER_BENCH", ROOT.parent / "shared" / "peer-bench"))
PEERS_PYTHON = Path(
    os.environ.get("TOOLWIRE_PEERS_PYTHON", HARNESS / ".venv-peers" / "bin" / "python")
)
PEERS = "pydantic-ai,openai-agents,mcp-direct,lc-tool,smolagents"


def _run(label: str, argv: list[str], cwd: Path) -> int:
    print(f"\n## {label}\n", flush=True)
    return subprocess.call(argv, cwd=cwd)


def _peer_harness(repeats: int) -> int:
    if not (HARNESS / "run.py").exists():
        print(
            f"\n## W1-W5\n\nskipped: the shared harness is not at {HARNESS} "
            "(set TOOLWIRE_PEER_BENCH to its folder)"
        )
        return 0
    python = sys.executable
    adapters = "baseline,toolwire"
    if PEERS_PYTHON.exists():
        python, adapters = str(PEERS_PYTHON), f"{adapters},{PEERS}"
    out = HERE / "results" / "peer-bench.json"
    out.parent.mkdir(exist_ok=True)
    return _run(
        "W1-W5: the shared tool-execution harness",
        [
            python,
            "run.py",
            "--repeats",
            str(repeats),
            "--out",
            str(out),
            "--adapter-file",
            f"toolwire={HERE / 'peer_adapter.py'}:Toolwire",
            "--adapters",
            adapters,
        ],
        HARNESS,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--only",
        default=(
            "w,kv,reducers,mcp,load,regex,guard,extract,handles,quotas,sandbox,browser,replicas,"
            "events,cold,toolsearch,code"
        ),
    )
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    status = 0
    if "w" in wanted:
        status |= _peer_harness(args.repeats)
    for key, script, label in (
        ("kv", "bench_kv.py", "Key-value stores against their raw drivers"),
        ("reducers", "bench_reducers.py", "Reducers: characters before and after"),
        ("mcp", "bench_mcp.py", "MCP server against the SDK's MCPServer"),
        (
            "load",
            "bench_mcp_load.py",
            "MCP server under load (wrk) and cold start, beside the SDK's",
        ),
        ("regex", "bench_regex.py", "Regular expressions: worst µs per KiB on adversarial input"),
        ("guard", "bench_guard.py", "Command guard: µs per command and per KiB"),
        ("extract", "bench_extract.py", "fetch_url's extractor: HTML → Markdown on real pages"),
        ("handles", "bench_stages_handles.py", "Handles and approvals on W1, not triggered"),
        ("quotas", "bench_stages_quotas.py", "Quotas, tasks, effect journal on W1, not triggered"),
        ("sandbox", "bench_sandbox.py", "Sandboxed commands beside unsandboxed ones"),
        ("browser", "bench_browser.py", "Browser tools: proxy cost and snapshot reduction"),
        ("replicas", "bench_replicas.py", "Replicas behind HAProxy: calls/s, store ops per call"),
        ("events", "bench_event_store.py", "Resumable SSE streams: event store beside bare set"),
        ("cold", "bench_stdio_cold_start.py", "stdio cold start beside the SDK's MCPServer"),
        ("toolsearch", "bench_tool_search.py", "Tool search: recall on MCP tools, cost at 10k"),
        ("code", "bench_code_mode.py", "Code mode: context saved, calls from a program"),
    ):
        if key in wanted and (HERE / script).exists():
            status |= _run(label, [sys.executable, str(HERE / script)], ROOT)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

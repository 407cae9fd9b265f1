"""Tool search: ranking quality on real MCP servers' tools, and what deferral costs and saves.

Quality. ``data/tool_search_tools.json`` holds the tool definitions of public MCP servers
(GitHub, GitLab, Slack, Linear, Jira, Confluence, Notion, filesystem, Postgres, SQLite,
Sentry, Stripe, git, memory, browsers, maps, Gmail, Asana, ...: several "create issue",
"search", "send message"), bridged as ``mcp__<server>__<tool>``;
``data/tool_search_queries.json`` holds natural requests written without the tools' own
wording, each with the tools that answer it, and requests no tool answers (the synonym table
and the weights were tuned on it). ``data/tool_search_queries_heldout.json`` and
``data/tool_search_queries_fresh.json`` were written later and never used to pick a word of
the table (their totals were seen while the scoring weights were chosen). Per engine: recall@1 and
recall@5 (an expected tool among the first 1 or 5), MRR, and on the no-match requests the
share answered with nothing. Engines: toolwire's `BM25Index` (with and without synonym
expansion), SQLite FTS5 ``bm25()`` on the same words, pydantic-ai's keyword search
(``keywords_search_fn``) when importable, and — when ``TOOL_SEARCH_PEERS_PYTHON`` names a
Python with them installed — ``bm25s`` and FastMCP's BM25 search transform, run in that
interpreter over the same files.

Cost. 10,000 deferred tools (the real set repeated under new server names): time to register
them, to build the index, the p50/p95 latency of a search, and the JSON characters sent per
request with everything deferred (``tool_search`` only) against every definition.

Run: ``python benchmarks/bench_tool_search.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolwire import ToolRegistry
from toolwire.context import ToolContext
from toolwire.results import ok
from toolwire.tool_search import BM25Index, DeferralRules, FTS5Index, ToolSearch, document_of
from toolwire.tools import Tool

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
PEERS_SCRIPT = HERE / "tool_search_peers.py"


async def _noop(args: dict[str, Any], ctx: ToolContext) -> Any:
    return ok("done")


def load_tools(suffix: str = "") -> list[Tool]:
    """The data set's tools as bridged MCP tools (``suffix`` renames the servers)."""
    data = json.loads((DATA / "tool_search_tools.json").read_text())
    tools: list[Tool] = []
    for server, entries in data["servers"].items():
        for entry in entries:
            name = f"mcp__{server}{suffix}__{entry['name']}"
            if len(name) > 64:  # a copy's longer server name: shorten the server part
                name = f"mcp__{server[:3]}{suffix}__{entry['name']}"
            tools.append(
                Tool(
                    name=name,
                    description=entry["description"],
                    schema=entry["inputSchema"],
                    execute=_noop,
                    defer_loading=True,
                )
            )
    return tools


def load_queries(file: str = "tool_search_queries.json") -> list[tuple[str, set[str]]]:
    """``(query, expected tool names)``; an empty set for a request no tool answers."""
    data = json.loads((DATA / file).read_text())
    out: list[tuple[str, set[str]]] = []
    for item in data["queries"]:
        expected = {"mcp__{}__{}".format(*name.split("/", 1)) for name in item["expected"]}
        out.append((item["query"], expected))
    return out


Ranker = Callable[[str], list[str]]


def score(ranker: Ranker, queries: Sequence[tuple[str, set[str]]]) -> dict[str, float]:
    """recall@1, recall@5, MRR over the answerable queries; the no-match share answered
    with nothing; the share of answerable queries answered with nothing."""
    hits1 = hits5 = 0
    reciprocal = 0.0
    answerable = unanswerable = silent_ok = silent_wrong = 0
    for query, expected in queries:
        ranked = ranker(query)
        if not expected:
            unanswerable += 1
            silent_ok += not ranked
            continue
        answerable += 1
        silent_wrong += not ranked
        for rank, name in enumerate(ranked[:10], start=1):
            if name in expected:
                reciprocal += 1.0 / rank
                hits1 += rank == 1
                hits5 += rank <= 5
                break
    return {
        "r@1": hits1 / answerable,
        "r@5": hits5 / answerable,
        "mrr": reciprocal / answerable,
        "none_ok": silent_ok / unanswerable if unanswerable else 1.0,
        "none_wrong": silent_wrong / answerable,
    }


def toolwire_ranker(index: Any, tools: Sequence[Tool]) -> Ranker:
    index.build([document_of(tool) for tool in tools])
    return lambda query: [hit.name for hit in index.search(query, 10)]


def pydantic_ai_ranker(tools: Sequence[Tool]) -> Ranker | None:
    try:
        from pydantic_ai.tools import ToolDefinition
        from pydantic_ai.toolsets._tool_search import keywords_search_fn
    except ImportError:
        return None
    definitions = [
        ToolDefinition(
            name=t.name, description=t.description, parameters_json_schema=dict(t.schema)
        )
        for t in tools
    ]
    return lambda query: keywords_search_fn(None, [query], definitions)[:10]  # type: ignore[arg-type]


def peer_rankings(queries: Sequence[tuple[str, set[str]]]) -> dict[str, dict[str, list[str]]]:
    """Rankings from the peers' interpreter (``TOOL_SEARCH_PEERS_PYTHON``), if set."""
    python = os.environ.get("TOOL_SEARCH_PEERS_PYTHON")
    if not python:
        return {}
    done = subprocess.run(
        [python, str(PEERS_SCRIPT), str(DATA)],
        input=json.dumps([q for q, _ in queries]),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"(peers failed: {done.stderr.strip()[-300:]})", file=sys.stderr)
        return {}
    result: dict[str, dict[str, list[str]]] = json.loads(done.stdout)
    return result


def quality(file: str, title: str) -> None:
    tools = load_tools()
    queries = load_queries(file)
    answerable = sum(1 for _, e in queries if e)
    servers = len({t.mcp_server for t in tools})
    print(
        f"\n{title}: {len(tools)} tools from {servers} MCP servers; {answerable} requests with "
        "an answer, "
        f"{len(queries) - answerable} without\n"
    )
    engines: list[tuple[str, Ranker]] = [
        ("toolwire BM25 + synonyms (default)", toolwire_ranker(BM25Index(), tools)),
        ("toolwire BM25, no synonyms", toolwire_ranker(BM25Index(synonyms=False), tools)),
        ("SQLite FTS5 bm25() + synonyms", toolwire_ranker(FTS5Index(), tools)),
        ("SQLite FTS5 bm25(), no synonyms", toolwire_ranker(FTS5Index(synonyms=False), tools)),
    ]
    pydantic_ai = pydantic_ai_ranker(tools)
    if pydantic_ai is not None:
        engines.append(("pydantic-ai keywords_search_fn", pydantic_ai))
    for label, ranked in peer_rankings(queries).items():
        engines.append((label, lambda query, ranked=ranked: ranked.get(query, [])))
    print(
        "| engine | recall@1 | recall@5 | MRR | no-match answered empty "
        "| answerable answered empty |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, ranker in engines:
        m = score(ranker, queries)
        print(
            f"| {label} | {m['r@1']:.3f} | {m['r@5']:.3f} | {m['mrr']:.3f} | "
            f"{m['none_ok']:.2f} | {m['none_wrong']:.2f} |"
        )


def cost(total: int, searches: int) -> None:
    base = load_tools()
    copies = -(-total // len(base))
    tools = [t for i in range(copies) for t in load_tools(suffix=f"-{i}")][:total]
    queries = [q for q, _ in load_queries()]
    started = time.perf_counter()
    registry = ToolRegistry()
    registry.register_all(tools)
    registered = time.perf_counter() - started
    search = registry.tool_search
    if not isinstance(search, ToolSearch):
        search = ToolSearch(registry, rules=DeferralRules())
    started = time.perf_counter()
    search.search("warm the index up", 5)
    indexed = time.perf_counter() - started
    latencies: list[float] = []
    for i in range(searches):
        query = queries[i % len(queries)]
        started = time.perf_counter()
        search.search(query, 5)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(len(latencies) * 0.95)]
    shown = len(json.dumps(registry.definitions()))
    everything = len(
        json.dumps(
            [{"name": t.name, "description": t.description, "parameters": t.schema} for t in tools]
        )
    )
    session = asyncio.run(_found_and_called(registry, search))
    print(f"\n{total} deferred tools ({copies} copies of the set under new server names)\n")
    print("| measure | value |")
    print("| --- | ---: |")
    print(f"| register {total} tools | {registered * 1000:.0f} ms |")
    print(f"| build the BM25 index | {indexed * 1000:.0f} ms |")
    print(f"| search p50 | {p50:.2f} ms |")
    print(f"| search p95 | {p95:.2f} ms |")
    print(f"| definitions JSON, everything deferred | {shown:,} chars |")
    print(f"| definitions JSON, nothing deferred | {everything:,} chars |")
    print(f"| ratio | {shown / everything:.4%} |")
    print(f"| found, then offered and called in the session | {session} |")


async def _found_and_called(registry: ToolRegistry, search: ToolSearch) -> str:
    """tool_search in a session, then the session's snapshot offers and runs what it found."""
    from toolwire.providers._base import ProviderContext

    ctx = ToolContext(session_id="bench")
    outcome = await registry.execute("tool_search", {"query": "open a Jira ticket"}, ctx)
    structured = getattr(outcome.result, "structured", None) or {}
    names = [t["name"] for t in structured.get("tools", [])]
    snapshot = await search.snapshot(ProviderContext(session_id="bench"))
    offered = [d["name"] for d in registry.definitions(snapshot=snapshot)]
    call = {"id": "c1", "name": names[0], "args": {}} if names else None
    if call is None:
        return "nothing found"
    ran = await registry.execute_parallel([call], ctx, snapshot=snapshot)
    return f"{len(offered)} offered, {names[0]} → {'ok' if ran[0].result.ok else 'refused'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=2_000)
    parser.add_argument("--quality-only", action="store_true")
    args = parser.parse_args()
    quality("tool_search_queries.json", "Tuning set")
    quality("tool_search_queries_heldout.json", "Held-out set (not used to draw the table)")
    quality("tool_search_queries_fresh.json", "Late set (written when the table was final)")
    if not args.quality_only:
        cost(args.tools, args.searches)


if __name__ == "__main__":
    main()

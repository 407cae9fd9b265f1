"""The peers' rankings for ``bench_tool_search.py``, run in an interpreter that has them.

Reads the queries (a JSON list) on stdin and the tool set from the data directory given as the
argument; prints ``{engine: {query: [tool names, best first]}}``. Engines, each when
importable: ``bm25s`` (a maintained BM25 library, its own tokenizer and English stop words) and
FastMCP's ``BM25SearchTransform`` (its search over the same tool objects it would serve).

Set up: ``python -m venv /tmp/ts-peers && /tmp/ts-peers/bin/pip install bm25s fastmcp``, then
``TOOL_SEARCH_PEERS_PYTHON=/tmp/ts-peers/bin/python python benchmarks/bench_tool_search.py``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any


def _tools(data: Path) -> list[dict[str, Any]]:
    servers = json.loads((data / "tool_search_tools.json").read_text())["servers"]
    return [
        {
            "name": f"mcp__{server}__{entry['name']}",
            "description": entry["description"],
            "parameters": entry["inputSchema"],
        }
        for server, entries in servers.items()
        for entry in entries
    ]


def _text(tool: dict[str, Any]) -> str:
    parts = [tool["name"], tool["description"]]
    for name, spec in tool["parameters"].get("properties", {}).items():
        parts += [name, spec.get("description", "")]
    return " ".join(parts)


def bm25s_rankings(tools: list[dict[str, Any]], queries: list[str]) -> dict[str, list[str]]:
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([_text(t) for t in tools], stopwords="en", show_progress=False),
        show_progress=False,
    )
    out: dict[str, list[str]] = {}
    for query in queries:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        try:
            docs, scores = retriever.retrieve(tokens, k=10, show_progress=False)
        except Exception:
            out[query] = []
            continue
        out[query] = [
            tools[int(i)]["name"] for i, s in zip(docs[0], scores[0], strict=True) if s > 0
        ]
    return out


def fastmcp_rankings(tools: list[dict[str, Any]], queries: list[str]) -> dict[str, list[str]]:
    from fastmcp.server.transforms.search.bm25 import BM25SearchTransform
    from fastmcp.tools.base import Tool

    objects = [
        Tool(name=t["name"], description=t["description"], parameters=t["parameters"])
        for t in tools
    ]
    transform = BM25SearchTransform(max_results=10)

    async def run() -> dict[str, list[str]]:
        return {q: [t.name for t in await transform._search(objects, q)] for q in queries}

    return asyncio.run(run())


def main() -> None:
    data = Path(sys.argv[1])
    queries = json.loads(sys.stdin.read())
    tools = _tools(data)
    result: dict[str, dict[str, list[str]]] = {}
    for label, engine in (
        ("bm25s (BM25 library)", bm25s_rankings),
        ("FastMCP BM25SearchTransform", fastmcp_rankings),
    ):
        try:
            result[label] = engine(tools, queries)
        except ImportError:
            continue
    print(json.dumps(result))


if __name__ == "__main__":
    main()

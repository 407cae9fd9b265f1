"""The browser tools: what the egress proxy costs a page, and what the snapshot reduction saves.

Local pages (a form, an article, a long list, a page with 30 sub-resources) served on
127.0.0.1. For each: the median milliseconds of ``browser_navigate`` (navigation, snapshot and
answer, every request through the egress proxy) beside the baseline measured in the same run,
the same Chromium driven by Playwright directly, without the proxy (``page.goto`` +
``aria_snapshot``); and the characters of the raw snapshot beside the answer the model reads.
Also the time Chromium takes to start (the first browser call of a process).

Run: ``python benchmarks/bench_browser.py`` (``--repeat N``). Needs Chromium and Playwright.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.capabilities.kinds.browser import BrowserBackend, chromium_args, find_chromium  # noqa: E402
from toolwire.capabilities.resolver import CapabilityBackends  # noqa: E402
from toolwire.capabilities.seams import NetworkPolicy  # noqa: E402
from toolwire.context import ToolContext  # noqa: E402
from toolwire.registry import ToolRegistry  # noqa: E402
from toolwire.results import Ok  # noqa: E402
from toolwire.toolbox.browser import browser_tools  # noqa: E402

PAGES = {
    "/form": "<title>Form</title><form>"
    + "".join(f"<label>Field {i} <input name=f{i}></label>" for i in range(20))
    + "<button>Send</button></form>",
    "/article": "<title>Article</title><nav>"
    + "".join(f"<a href=/n{i}>Section {i}</a>" for i in range(40))
    + "</nav><main>"
    + "".join(f"<p>{'Paragraph text that goes on. ' * 30}</p>" for _ in range(30))
    + "</main>",
    "/list": "<title>List</title><ul>"
    + "".join(f"<li><a href=/i{i}>Item {i}</a></li>" for i in range(2000))
    + "</ul>",
    "/assets": "<title>Assets</title>"
    + "".join(f"<img src=/img{i}.svg alt='image {i}'>" for i in range(30)),
}
SVG = b"<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.endswith(".svg"):
            body, kind = SVG, "image/svg+xml"
        else:
            body, kind = PAGES.get(self.path, "<title>x</title>").encode(), "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


async def direct(port: int, repeat: int) -> dict[str, float]:
    """Baseline: Playwright's own goto + aria snapshot, no proxy."""
    from playwright.async_api import async_playwright

    times: dict[str, float] = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_chromium(),
            args=[a for a in chromium_args() if not a.startswith("--host-resolver-rules")],
        )
        page = await (await browser.new_context()).new_page()
        for path in PAGES:
            samples = []
            for _ in range(repeat + 1):
                start = time.perf_counter()
                await page.goto(f"http://127.0.0.1:{port}{path}", wait_until="domcontentloaded")
                await page.aria_snapshot(mode="ai")
                samples.append((time.perf_counter() - start) * 1000)
            times[path] = statistics.median(samples[1:])
        await browser.close()
    return times


async def tools(port: int, repeat: int) -> tuple[float, dict[str, tuple[float, int, int]]]:
    """The browser tools: start-up, then per page ms, raw snapshot chars, answer chars."""
    backend = BrowserBackend()
    policy = NetworkPolicy(allow=(f"127.0.0.1:{port}",), allow_private_urls=True)
    registry = ToolRegistry(
        CapabilityBackends(
            processes=None, network_policy=policy, kind_backends={"browser": backend}
        )
    )
    registry.register_all(browser_tools())
    ctx = ToolContext(session_id="bench")
    start = time.perf_counter()
    await registry.execute("browser_navigate", {"url": "about:blank"}, ctx)
    startup = (time.perf_counter() - start) * 1000
    results: dict[str, tuple[float, int, int]] = {}
    for path in PAGES:
        samples, answer = [], ""
        for _ in range(repeat + 1):
            begin = time.perf_counter()
            outcome = await registry.execute(
                "browser_navigate", {"url": f"http://127.0.0.1:{port}{path}"}, ctx
            )
            samples.append((time.perf_counter() - begin) * 1000)
            assert isinstance(outcome.result, Ok), outcome.result
            answer = outcome.result.value
        session = backend.existing("bench")
        assert session is not None
        raw = await (await session.tab()).page.aria_snapshot(mode="ai")
        results[path] = (statistics.median(samples[1:]), len(raw), len(answer))
    await backend.aclose()
    return startup, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    if find_chromium() is None:
        print("skipped: no Chromium (apt-get install chromium)")
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = int(server.server_address[1])
    baseline = asyncio.run(direct(port, options.repeat))
    startup, measured = asyncio.run(tools(port, options.repeat))
    print(f"Chromium start (first browser call): {startup:.0f} ms\n")
    print(
        "| page | browser_navigate ms | Playwright direct ms | raw snapshot chars | answer chars |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    for path, (ms, raw, answer) in measured.items():
        print(f"| {path} | {ms:.0f} | {baseline[path]:.0f} | {raw:,} | {answer:,} |")
    server.shutdown()


if __name__ == "__main__":
    main()

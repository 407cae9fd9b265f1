"""The browser's pure parts, without Chromium: URL schemes, snapshot reduction, settings, the
executable search, the kind's wiring."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.browser import (
    CHROMIUM_ENV,
    BrowserBackend,
    BrowserSettings,
    chromium_args,
    find_chromium,
    navigation_refusal,
)
from toolwire.capabilities.kinds.browser.seam import REFUSAL_HEADER_NAME
from toolwire.capabilities.kinds.process.sandbox.egress import REFUSAL_HEADER
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode
from toolwire.toolbox.browser import browser_tools
from toolwire.toolbox.browser._downloads import safe_name
from toolwire.toolbox.browser._snapshots import MAX_LINE_CHARS, reduce_snapshot

SCHEMES = st.from_regex(r"[a-z][a-z0-9+.-]{0,12}", fullmatch=True)


@given(scheme=SCHEMES, rest=st.text(max_size=40))
def test_only_http_https_and_about_blank_open(scheme: str, rest: str) -> None:
    refusal = navigation_refusal(f"{scheme}:{rest}")
    if scheme not in ("http", "https"):
        assert refusal is not None
    assert navigation_refusal("about:blank") is None


@pytest.mark.parametrize(
    "url",
    ["https://example.com/", "http://127.0.0.1:8080/a?b=c#d", "  HTTPS://Example.com  "],
)
def test_web_urls_open(url: str) -> None:
    assert navigation_refusal(url) is None


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "chrome://settings",
        "devtools://devtools/bundled/inspector.html",
        "about:config",
        "data:text/html,hi",
        "blob:https://x.com/uuid",
        "javascript:alert(1)",
        "view-source:https://x.com/",
        "filesystem:https://x.com/temporary/a",
        "http:example.com",
        "http:\\\\example.com",
        "http://exa\tmple.com/",
        "example.com",
    ],
)
def test_local_and_odd_urls_are_refused(url: str) -> None:
    assert navigation_refusal(url) is not None


LINES = st.lists(
    st.builds(
        lambda depth, role, name, n: f'{"  " * depth}- {role} "{name}" [ref=e{n}]',
        st.integers(0, 6),
        st.sampled_from(["link", "button", "heading", "textbox", "paragraph"]),
        st.text(st.characters(blacklist_characters='\n"'), max_size=400),
        st.integers(1, 10_000),
    ),
    max_size=200,
)


@given(lines=LINES, budget=st.integers(200, 20_000))
def test_a_reduced_snapshot_fits_and_keeps_whole_lines(lines: list[str], budget: int) -> None:
    text = "\n".join(lines)
    reduced, cut = reduce_snapshot(text, budget)
    body = reduced.split("\n[snapshot cut:")[0]
    assert len(body) <= budget
    assert cut == ("\n[snapshot cut:" in reduced)
    kept = body.split("\n") if body else []
    for line in kept:
        assert len(line) <= MAX_LINE_CHARS
    full = reduce_snapshot(text, 10**9)[0].split("\n")
    assert kept == full[: len(kept)]  # a prefix of whole lines: every kept ref is intact
    if not cut:
        assert kept == full or not text


def test_pointer_hints_go_and_refs_stay() -> None:
    text = '- link "Home" [ref=e3] [cursor=pointer]:\n  - /url: /'
    reduced, cut = reduce_snapshot(text, 1000)
    assert reduced == '- link "Home" [ref=e3]:\n  - /url: /'
    assert not cut


def test_settings_refuse_nonsense() -> None:
    with pytest.raises(ConfigurationError, match="navigation_timeout_s"):
        BrowserSettings(navigation_timeout_s=0)
    with pytest.raises(ConfigurationError, match="viewport"):
        BrowserSettings(viewport=(0, 10))


def test_chromium_is_found_by_the_variable_or_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "my-chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(CHROMIUM_ENV, str(fake))
    assert find_chromium() == str(fake)
    assert find_chromium(str(tmp_path / "missing")) is None
    monkeypatch.delenv(CHROMIUM_ENV)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium() is None
    (tmp_path / "chromium").write_text("#!/bin/sh\n")
    (tmp_path / "chromium").chmod(0o755)
    assert find_chromium() == os.path.join(str(tmp_path), "chromium")


def test_chromium_sends_nothing_by_itself() -> None:
    args = chromium_args(("--lang=fr",))
    assert "--disable-quic" in args
    assert "--disable-background-networking" in args
    assert any(a.startswith("--host-resolver-rules=MAP * ~NOTFOUND") for a in args)
    assert ("--no-sandbox" in args) == (os.geteuid() == 0)
    assert args[-1] == "--lang=fr"


def test_the_refusal_header_is_the_proxys() -> None:
    assert REFUSAL_HEADER.lower() == REFUSAL_HEADER_NAME


@pytest.mark.anyio
async def test_without_a_browser_backend_the_tools_are_not_available() -> None:
    registry = ToolRegistry(backends=CapabilityBackends(processes=None))
    registry.register_all(browser_tools())
    outcome = await registry.execute(
        "browser_navigate", {"url": "https://example.com/"}, ToolContext(session_id="s")
    )
    assert isinstance(outcome.result, Err)
    assert outcome.result.code is ErrorCode.NOT_AVAILABLE
    assert all(tool.output_is_untrusted for tool in browser_tools())
    assert {tool.toolset for tool in browser_tools()} == {"browser"}


@pytest.mark.anyio
async def test_a_closed_backend_says_so() -> None:
    backend = BrowserBackend()
    await backend.aclose()
    with pytest.raises(ConfigurationError, match="closed"):
        await backend.session("s", None)


def test_tool_names_match_the_playwright_mcp_style() -> None:
    assert all(re.fullmatch(r"browser_[a-z_]+", tool.name) for tool in browser_tools())
    assert len(browser_tools()) == 12


@pytest.mark.parametrize(
    ("suggested", "name"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        (".bashrc", "bashrc"),
        ("a\x00b\nc.txt", "a_b_c.txt"),
        ("", "download"),
        ("..", "download"),
    ],
)
def test_a_download_name_cannot_leave_the_folder(suggested: str, name: str) -> None:
    assert safe_name(suggested) == name


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_on_trio_the_browser_says_it_needs_asyncio(anyio_backend: str) -> None:
    with pytest.raises(ConfigurationError, match="asyncio"):
        await BrowserBackend().session("s", None)

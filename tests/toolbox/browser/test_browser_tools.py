"""The browser tools against real pages served by the test, in the system Chromium, every
request through the egress proxy."""

from __future__ import annotations

import base64
import logging
import re
from pathlib import Path

import anyio
import pytest
from browser_site import Site

from toolwire.capabilities.kinds.browser import BrowserBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.context import AbortSignal, ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox.browser import browser_tools
from toolwire.toolbox.browser._common import ACTION_SNAPSHOT_CHARS

pytestmark = pytest.mark.anyio

FORM = """<title>Order</title><h1>Order form</h1>
<form action="/echo"><label>Name <input name="name"></label>
<select name="color" aria-label="Color"><option>red</option><option>blue</option></select>
<button>Send</button></form>
<a href="/second" target="_blank">Open second</a> <a href="file:///etc/passwd">Local file</a>"""
SEARCH = """<title>Search</title><form action="/echo"><input name="q" aria-label="Query"></form>"""
SECOND = "<title>Second</title><h1>Second page</h1>"
REACHING = """<title>Reaching</title><h1>Reaching out</h1>
<img src="{elsewhere}/img.png" alt="pixel">
<iframe src="http://10.9.9.9/"></iframe>
<script>
fetch("http://169.254.169.254/latest/meta-data/").catch(() => {{}});
new WebSocket("ws://127.0.0.1:{elsewhere_port}/ws");
const ws = new WebSocket("ws://127.0.0.1:{port}/ws");
ws.onmessage = (event) => {{ document.getElementById("got").textContent = event.data; }};
</script><p id="got">waiting</p>"""
CONSOLE = """<title>Console</title><script>console.log("hello-console");
setTimeout(() => {{ throw new Error("boom-error"); }}, 0);</script><p>logged</p>"""
KEYS = """<title>Keys</title><input aria-label="Box" autofocus onkeydown="if (event.key === 'Enter')
 setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Key seen</p>'), 300)">"""
BIG = (
    "<title>Big</title><ul>"
    + "".join(f"<li><a href='/item{i}'>Item number {i}</a></li>" for i in range(3000))
    + "</ul>"
)
DOWNLOAD = """<title>Files</title><a href="/file.bin" download>Get the file</a>
<script>setTimeout(() => alert("hello-dialog"), 0);</script>"""
COOKIE = "<title>Set</title><script>document.cookie = 'sid=secret42; path=/';</script><p>set</p>"


@pytest.fixture(scope="module", autouse=True)
def pages(site: Site, elsewhere: Site) -> None:
    site.pages.update(
        {
            "/form": FORM,
            "/search": SEARCH,
            "/second": SECOND,
            "/reaching": REACHING.format(
                elsewhere=elsewhere.url("").rstrip("/"),
                elsewhere_port=elsewhere.port,
                port=site.port,
            ),
            "/console": CONSOLE.replace("{{", "{").replace("}}", "}"),
            "/keys": KEYS,
            "/big": BIG,
            "/setcookie": COOKIE,
            "/download": DOWNLOAD,
        }
    )


async def call(
    registry: ToolRegistry, name: str, session: str = "s1", **args: object
) -> ToolResult:
    outcome = await registry.execute(name, dict(args), ToolContext(session_id=session))
    return outcome.result


async def ok(registry: ToolRegistry, name: str, session: str = "s1", **args: object) -> Ok:
    result = await call(registry, name, session, **args)
    assert isinstance(result, Ok), result
    return result


def ref(text: str, role: str, name: str | None = None) -> str:
    """The ref of the first ``role`` (named ``name``) in a snapshot."""
    named = rf' "{re.escape(name)}"' if name is not None else ""
    found = re.search(rf"- {role}{named}[^\n]*?\[ref=([a-z0-9]+)\]", text)
    assert found, f"no {role} {name!r} in:\n{text}"
    return found.group(1)


async def test_a_form_is_filled_selected_and_submitted(
    browser_registry: ToolRegistry, site: Site
) -> None:
    page = await ok(browser_registry, "browser_navigate", url=site.url("/form"))
    assert "Page: Order" in page.value
    await ok(browser_registry, "browser_type", ref=ref(page.value, "textbox", "Name"), text="Ada")
    snapshot = (await ok(browser_registry, "browser_snapshot")).value
    chosen = await ok(
        browser_registry, "browser_select_option", ref=ref(snapshot, "combobox"), values=["blue"]
    )
    assert chosen.structured is not None
    assert chosen.structured["selected"] == ["blue"]
    sent = await ok(browser_registry, "browser_click", ref=ref(chosen.value, "button", "Send"))
    assert "name=Ada" in sent.value
    assert "color=blue" in sent.value
    assert "/echo?name=Ada&color=blue" in site.hits
    back = await ok(browser_registry, "browser_back")
    assert back.structured is not None
    assert back.structured["url"] == site.url("/form")


async def test_typing_with_submit_sends_the_form(
    browser_registry: ToolRegistry, site: Site
) -> None:
    page = await ok(browser_registry, "browser_navigate", url=site.url("/search"))
    typed = await ok(
        browser_registry,
        "browser_type",
        ref=ref(page.value, "textbox", "Query"),
        text="chromium proxy",
        submit=True,
    )
    assert "q=chromium proxy" in typed.value
    assert typed.structured is not None
    assert "/echo?q=chromium+proxy" in typed.structured["url"]


async def test_a_ref_not_in_the_latest_snapshot_is_refused(
    browser_registry: ToolRegistry, site: Site
) -> None:
    await ok(browser_registry, "browser_navigate", url=site.url("/search"))
    stale = await call(browser_registry, "browser_click", ref="e999")
    assert isinstance(stale, Err)
    assert stale.code is ErrorCode.INPUT_INVALID
    assert "latest snapshot" in stale.error
    junk = await call(browser_registry, "browser_click", ref="button")
    assert isinstance(junk, Err)
    assert junk.field == "ref"


async def test_a_link_opening_a_tab_then_tabs_list_select_and_close(
    browser_registry: ToolRegistry, site: Site
) -> None:
    page = await ok(browser_registry, "browser_navigate", session="tabs", url=site.url("/form"))
    clicked = await ok(
        browser_registry,
        "browser_click",
        session="tabs",
        ref=ref(page.value, "link", "Open second"),
    )
    assert clicked.structured is not None
    assert clicked.structured["tab"] == 0
    with anyio.fail_after(15):  # the new tab registers when Chromium reports it
        while True:
            listed = await ok(browser_registry, "browser_tabs", session="tabs")
            assert listed.structured is not None
            if len(listed.structured["tabs"]) == 2:
                break
            await anyio.sleep(0.05)
    chosen = await ok(browser_registry, "browser_tabs", session="tabs", action="select", index=1)
    assert 'heading "Second page"' in chosen.value
    opened = await ok(
        browser_registry, "browser_tabs", session="tabs", action="new", url=site.url("/search")
    )
    assert opened.structured is not None
    assert len(opened.structured["tabs"]) == 3
    closed = await ok(browser_registry, "browser_tabs", session="tabs", action="close", index=0)
    assert closed.structured is not None
    assert [t["url"] for t in closed.structured["tabs"]] == [
        site.url("/second"),
        site.url("/search"),
    ]
    missing = await call(browser_registry, "browser_tabs", session="tabs", action="select", index=7)
    assert isinstance(missing, Err)
    assert missing.code is ErrorCode.INPUT_INVALID


async def test_every_request_of_the_page_goes_through_the_policy(
    browser_registry: ToolRegistry, site: Site, elsewhere: Site, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolwire.egress")
    expected = [
        f"allowed CONNECT 127.0.0.1:{site.port}",  # the WebSocket's tunnel
        f"refused GET 127.0.0.1:{elsewhere.port} not-on-allow-list",  # the image
        "refused GET 10.9.9.9:80 not-on-allow-list",  # the iframe
        "refused GET 169.254.169.254:80 metadata",  # the script's fetch
        f"refused CONNECT 127.0.0.1:{elsewhere.port} not-on-allow-list",  # the other WebSocket
    ]
    page = await ok(
        browser_registry, "browser_navigate", session="reach", url=site.url("/reaching")
    )
    waited = await ok(browser_registry, "browser_wait_for", session="reach", text="hello over ws")
    assert "hello over ws" in waited.value  # the allowed WebSocket went through the proxy
    blocked = {b["host"] for answer in (page, waited) for b in (answer.structured or {})["blocked"]}
    with anyio.fail_after(15):  # the page's requests are decided while it loads
        while not all(line in caplog.text for line in expected) or len(blocked) < 2:
            await anyio.sleep(0.05)
            later = await ok(browser_registry, "browser_snapshot", session="reach")
            blocked |= {b["host"] for b in (later.structured or {})["blocked"]}
    assert {f"127.0.0.1:{elsewhere.port}", "10.9.9.9"} <= blocked  # reported to the model
    assert elsewhere.hits == []  # nothing of the page reached the other site


async def test_local_schemes_are_refused(browser_registry: ToolRegistry, site: Site) -> None:
    for url in (
        "file:///etc/passwd",
        "chrome://version",
        "data:text/html,<b>x</b>",
        "javascript:alert(1)",
        "about:config",
        "view-source:http://x.com/",
        "/relative",
    ):
        refused = await call(browser_registry, "browser_navigate", url=url)
        assert isinstance(refused, Err), url
        assert refused.code is ErrorCode.INPUT_INVALID, url
    page = await ok(browser_registry, "browser_navigate", url=site.url("/form"))
    await call(browser_registry, "browser_click", ref=ref(page.value, "link", "Local file"))
    state = await ok(browser_registry, "browser_snapshot")
    assert state.structured is not None
    assert state.structured["url"].startswith("http://")


async def test_a_host_the_policy_refuses_is_not_available(
    browser_registry: ToolRegistry, elsewhere: Site
) -> None:
    refused = await call(browser_registry, "browser_navigate", url=elsewhere.url("/"))
    assert isinstance(refused, Err)
    assert refused.code is ErrorCode.NOT_AVAILABLE
    assert refused.reason == "network_policy"
    assert "not-on-allow-list" in refused.error
    tunnel = await call(browser_registry, "browser_navigate", url="https://10.1.2.3/")
    assert isinstance(tunnel, Err)
    assert tunnel.cause == "tunnel_refused"  # https goes by CONNECT, refused by the proxy
    metadata = await call(browser_registry, "browser_navigate", url="http://169.254.169.254/")
    assert isinstance(metadata, Err)
    assert "(metadata)" in metadata.error
    assert elsewhere.hits == []


async def test_sessions_share_no_cookies(browser_registry: ToolRegistry, site: Site) -> None:
    await ok(browser_registry, "browser_navigate", session="alice", url=site.url("/setcookie"))
    mine = await ok(browser_registry, "browser_navigate", session="alice", url=site.url("/cookie"))
    assert "sid=secret42" in mine.value
    theirs = await ok(browser_registry, "browser_navigate", session="bob", url=site.url("/cookie"))
    assert "cookie: none" in theirs.value
    closed = await ok(browser_registry, "browser_close", session="alice")
    assert closed.structured == {"closed": True}
    fresh = await ok(browser_registry, "browser_navigate", session="alice", url=site.url("/cookie"))
    assert "cookie: none" in fresh.value  # closing forgot the session's cookies


async def test_screenshot_and_console(browser_registry: ToolRegistry, site: Site) -> None:
    await ok(browser_registry, "browser_navigate", url=site.url("/console"))
    shot = await ok(browser_registry, "browser_screenshot")
    assert shot.structured is not None
    image = base64.b64decode(shot.structured["image"]["data"])
    assert image.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(image) == shot.structured["bytes"]
    console = await ok(browser_registry, "browser_console_messages")
    assert "[log] hello-console" in console.value
    assert "boom-error" in console.value
    errors = await ok(browser_registry, "browser_console_messages", level="error", clear=True)
    assert "boom-error" in errors.value
    assert "hello-console" not in errors.value
    after = await ok(browser_registry, "browser_console_messages")
    assert "No console messages" in after.value


async def test_press_key_then_wait_for_the_text(browser_registry: ToolRegistry, site: Site) -> None:
    await ok(browser_registry, "browser_navigate", url=site.url("/keys"))
    await ok(browser_registry, "browser_press_key", key="Enter")
    waited = await ok(browser_registry, "browser_wait_for", text="Key seen")
    assert "Key seen" in waited.value
    gone = await ok(browser_registry, "browser_wait_for", text_gone="Nothing like this")
    assert "is gone" in gone.value
    unknown = await call(browser_registry, "browser_press_key", key="NoSuchKey")
    assert isinstance(unknown, Err)
    assert unknown.code is ErrorCode.INPUT_INVALID


async def test_a_big_page_is_cut_and_a_part_can_be_read(
    browser_registry: ToolRegistry, site: Site
) -> None:
    page = await ok(browser_registry, "browser_navigate", url=site.url("/big"))
    assert "[snapshot cut:" in page.value
    assert len(page.value) < ACTION_SNAPSHOT_CHARS + 1000
    whole = await ok(browser_registry, "browser_snapshot", max_chars=2000)
    assert whole.structured is not None
    assert whole.structured["cut"] is True
    part = await ok(
        browser_registry, "browser_snapshot", ref=ref(whole.value, "list"), max_chars=2000
    )
    assert "Item number 0" in part.value


async def test_abort_stops_a_navigation(browser_registry: ToolRegistry, site: Site) -> None:
    signal = AbortSignal()
    ctx = ToolContext(session_id="stall", abort_signal=signal)
    outcome = None

    async def navigate() -> None:
        nonlocal outcome
        outcome = await browser_registry.execute(
            "browser_navigate", {"url": site.url("/stall")}, ctx
        )

    async with anyio.create_task_group() as group:
        group.start_soon(navigate)
        await anyio.to_thread.run_sync(site.stalled.wait, 30)
        signal.abort("user stopped it")
    assert outcome is not None
    assert isinstance(outcome.result, Err)
    assert "aborted" in outcome.result.error
    after = await ok(browser_registry, "browser_navigate", session="stall", url=site.url("/second"))
    assert "Second page" in after.value


async def test_closing_the_registry_closes_chromium(site: Site) -> None:
    backend = BrowserBackend()
    registry = ToolRegistry(
        backends=CapabilityBackends(processes=None, kind_backends={"browser": backend})
    )
    registry.add_cleanup(backend.aclose)
    registry.register_all(browser_tools())
    assert not backend.started  # nothing starts before a tool needs it
    refused = await call(registry, "browser_navigate", url=site.url("/second"))
    assert isinstance(refused, Err)
    assert "private-address" in refused.error
    assert backend.started
    assert backend.sessions() == ("s1",)
    await registry.aclose()
    assert not backend.started
    assert backend.sessions() == ()


async def test_downloads_without_file_reach_are_refused_and_dialogs_dismissed(
    browser_registry: ToolRegistry, site: Site
) -> None:
    page = await ok(
        browser_registry, "browser_navigate", session="files", url=site.url("/download")
    )
    with anyio.fail_after(15):  # the dialog opens once the page runs its script
        while "alert dialog dismissed: 'hello-dialog'" not in page.value:
            page = await ok(browser_registry, "browser_snapshot", session="files")
    link = ref(page.value, "link", "Get the file")
    clicked = await ok(browser_registry, "browser_click", session="files", ref=link)
    notes = clicked.value
    with anyio.fail_after(15):
        while "download of 'file.bin' refused" not in notes:
            notes = (await ok(browser_registry, "browser_snapshot", session="files")).value
    assert clicked.structured is not None
    assert clicked.structured["url"] == site.url("/download")  # the page stayed


async def test_the_call_timeout_stops_a_navigation(
    backend: BrowserBackend, policy: NetworkPolicy, site: Site
) -> None:
    backends = CapabilityBackends(
        processes=None, network_policy=policy, kind_backends={"browser": backend}
    )
    registry = ToolRegistry(backends=backends, default_timeout_s=2)
    registry.register_all(browser_tools())
    stalled = await call(registry, "browser_navigate", session="slow", url=site.url("/stall"))
    assert isinstance(stalled, Err)
    assert "timed out" in stalled.error or "timeout" in stalled.error.lower()
    after = await ok(registry, "browser_navigate", session="slow", url=site.url("/second"))
    assert "Second page" in after.value


async def test_a_new_policy_gets_a_new_context(
    browser_registry: ToolRegistry, backend: BrowserBackend, site: Site
) -> None:
    await ok(browser_registry, "browser_navigate", session="moving", url=site.url("/setcookie"))
    first = backend.existing("moving")
    closed = NetworkPolicy(allow=("nothing.invalid",))
    ctx = ToolContext(session_id="moving", network_policy=closed)
    outcome = await browser_registry.execute("browser_navigate", {"url": site.url("/cookie")}, ctx)
    assert isinstance(outcome.result, Err)
    assert outcome.result.reason == "network_policy"  # the new context's listener refused
    assert first is not None
    assert first.closed  # the old context (and its cookies) went with the old policy


async def test_a_download_lands_in_the_write_root(
    backend: BrowserBackend, policy: NetworkPolicy, site: Site, tmp_path: Path
) -> None:
    backends = CapabilityBackends(
        processes=None,
        network_policy=policy,
        kind_backends={"browser": backend},
        fs_read=(str(tmp_path),),
        fs_write=(str(tmp_path),),
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(browser_tools())
    ctx = ToolContext(session_id="saver", working_dir=str(tmp_path))

    async def run(name: str, **args: object) -> Ok:
        result = (await registry.execute(name, dict(args), ctx)).result
        assert isinstance(result, Ok), result
        return result

    page = await run("browser_navigate", url=site.url("/download"))
    notes = (await run("browser_click", ref=ref(page.value, "link", "Get the file"))).value
    with anyio.fail_after(15):  # the download finishes after the click
        while "downloaded 'file.bin' to downloads/file.bin (4 bytes)" not in notes:
            notes = (await run("browser_snapshot")).value
    assert (tmp_path / "downloads" / "file.bin").read_bytes() == b"\x00\x01\x02\x03"

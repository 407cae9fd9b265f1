"""The parts of ``fetch_url``: paging, charsets, content sniffing and conversion, settings."""

from __future__ import annotations

import codecs
import json

import pytest
from fetch_site import ARTICLE_HTML, PDF_LINES, pdf_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ConfigurationError
from toolwire.toolbox.web._charsets import declared_charset, decode_body, looks_binary
from toolwire.toolbox.web._documents import UnsupportedContent, content_kind, convert_body
from toolwire.toolbox.web._html import html_to_markdown
from toolwire.toolbox.web._paging import page_text
from toolwire.toolbox.web._settings import DEFAULT_USER_AGENT, FetchSettings

# --- paging ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n\u00e9\u4e2d"), max_size=400), st.integers(1, 60))
def test_windows_join_up_to_the_whole_text(text: str, max_chars: int) -> None:
    pieces, start = [], 0
    while True:
        window = page_text(text, start, max_chars)
        assert len(window.text) <= max_chars
        assert window.start == start
        assert window.text == text[window.start : window.end]
        pieces.append(window.text)
        if window.next_start is None:
            assert window.remaining == 0
            assert window.footer() == ""
            break
        assert window.next_start > start
        assert f"start_index={window.next_start}" in window.footer()
        start = window.next_start
    assert "".join(pieces) == text


def test_a_window_ends_at_a_line_break_when_one_is_near() -> None:
    text = "x" * 90 + "\n" + "y" * 200
    window = page_text(text, 0, 100)
    assert window.text == "x" * 90 + "\n"
    assert window.footer() == (
        "[200 more characters (shown 0-91 of 291): call fetch_url with start_index=91 to continue]"
    )


@pytest.mark.parametrize(("start", "limit"), [(-1, 10), (5, 10), (0, 0)])
def test_bad_windows_are_refused(start: int, limit: int) -> None:
    with pytest.raises(ValueError, match=r"start_index|max_chars"):
        page_text("abcde", start, limit)


def test_an_empty_text_has_one_empty_window() -> None:
    window = page_text("", 0, 10)
    assert (window.text, window.next_start) == ("", None)


# --- charsets -------------------------------------------------------------------------------

RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 10


def test_a_bom_wins_over_the_header() -> None:
    decoded = decode_body(
        codecs.BOM_UTF16_LE + "hé".encode("utf-16-le"), "text/plain; charset=ascii"
    )
    assert (decoded.text, decoded.source) == ("hé", "bom")


def test_a_header_charset_that_fits_is_used() -> None:
    decoded = decode_body(RUSSIAN.encode("koi8-r"), 'text/plain; charset="KOI8-R"')
    assert (decoded.text, decoded.encoding, decoded.source) == (RUSSIAN, "koi8-r", "header")


def test_without_a_label_the_encoding_is_detected() -> None:
    decoded = decode_body(RUSSIAN.encode("cp1251"), "text/plain")
    assert decoded.text == RUSSIAN
    assert decoded.source == "detected"


def test_a_meta_charset_is_read_for_html_only() -> None:
    body = '<meta charset="iso-8859-7"><p>Καλημέρα κόσμε</p>'.encode("iso-8859-7")
    assert decode_body(body, "text/html", html=True).source == "meta"
    assert "Καλημέρα" in decode_body(body, "text/html", html=True).text


def test_declared_charset_and_binary_sniffing() -> None:
    assert declared_charset("text/html; Charset = 'utf-8'") == "utf-8"
    assert declared_charset("text/html") is None
    assert looks_binary(b"\x00\x01\x02binary")
    assert not looks_binary(b"plain words\n")


# --- content kinds and conversion ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("text/html; charset=utf-8", b"", "html"),
        ("application/xhtml+xml", b"", "html"),
        ("application/problem+json", b"{}", "json"),
        ("text/csv", b"a,b", "text"),
        ("application/rss+xml", b"<rss/>", "text"),
        ("image/webp", b"", "image"),
        ("", b"%PDF-1.7 ...", "pdf"),
        ("application/octet-stream", b"\x89PNG\r\n\x1a\n....", "image"),
        ("", b"  <!DOCTYPE html><html></html>", "html"),
        ("", b'[{"a": 1}]', "json"),
        ("", b"just words", "text"),
        ("application/octet-stream", b"\x00\x01\x02\x03", None),
    ],
)
def test_content_kind(content_type: str, body: bytes, kind: str | None) -> None:
    assert content_kind(content_type, body) == kind


def test_invalid_json_is_shown_as_text() -> None:
    converted = convert_body(b'{"a": 1,', "application/json", "http://x.test/")
    assert converted.text == '{"a": 1,'
    assert converted.details["json_error"] == "not valid JSON; shown as text"


def test_raw_json_is_kept_as_sent() -> None:
    body = json.dumps({"b": [1, 2]}).encode()
    assert convert_body(body, "application/json", "http://x.test/", raw=True).text == body.decode()


def test_a_pdf_without_content_type_is_read() -> None:
    converted = convert_body(pdf_bytes(PDF_LINES), "", "http://x.test/r")
    assert converted.kind == "pdf"
    assert PDF_LINES[1] in converted.text


def test_a_broken_pdf_is_unsupported() -> None:
    with pytest.raises(UnsupportedContent, match="PDF cannot be read"):
        convert_body(b"%PDF-1.4\nnot really", "application/pdf", "http://x.test/r")


def test_an_article_is_extracted_as_main_content() -> None:
    page = html_to_markdown(ARTICLE_HTML, base_url="https://site.test/a/b.html")
    assert page.method == "main-content"
    assert page.title == "Rebuilding Saint-Malo"
    assert "[the ramparts](https://site.test/ramparts)" in page.text


def test_an_index_of_links_is_converted_whole_with_its_links() -> None:
    items = "".join(f'<li><a href="/lib/m{n}.html">module {n}</a></li>' for n in range(40))
    html = (
        "<html><head><title>Library index</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<div><h2>Modules</h2><ul>{items}</ul></div></body></html>"
    )
    page = html_to_markdown(html, base_url="https://docs.test/lib/")
    assert page.method == "whole-page"
    assert page.text.startswith("# Library index\n\n## Modules")
    assert "- [module 39](https://docs.test/lib/m39.html)" in page.text


def test_a_short_page_keeps_its_title_and_text() -> None:
    html = (
        "<html><head><title>Hours</title></head><body><div>Opening hours</div>"
        "<div>Mon 9-5</div><span>Closed on Sundays</span></body></html>"
    )
    page = html_to_markdown(html)
    assert page.text == "# Hours\n\nOpening hours\n\nMon 9-5\n\nClosed on Sundays"


# --- settings -------------------------------------------------------------------------------


def test_settings_from_the_environment() -> None:
    assert FetchSettings.from_env({}) == FetchSettings()
    assert FetchSettings().user_agent == DEFAULT_USER_AGENT
    custom = FetchSettings.from_env(
        {"TOOLWIRE_FETCH_USER_AGENT": "bot/1", "TOOLWIRE_FETCH_IGNORE_ROBOTS": "yes"}
    )
    assert (custom.user_agent, custom.respect_robots) == ("bot/1", False)


def test_settings_from_a_config_table_then_the_environment() -> None:
    table = {"user_agent": "table/1", "ignore_robots_txt": True, "timeout_s": 5, "max_bytes": 99}
    settings = FetchSettings.from_table(table, {})
    assert settings == FetchSettings(
        user_agent="table/1", respect_robots=False, timeout_s=5, max_bytes=99
    )
    overridden = FetchSettings.from_table(
        table, {"TOOLWIRE_FETCH_USER_AGENT": "env/2", "TOOLWIRE_FETCH_IGNORE_ROBOTS": "0"}
    )
    assert (overridden.user_agent, overridden.respect_robots) == ("env/2", True)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"useragent": "x"}, "unknown key"),
        ({"max_bytes": "5"}, "max_bytes must be an integer"),
        ({"max_bytes": True}, "max_bytes must be an integer"),
        ({"ignore_robots_txt": "yes"}, "ignore_robots_txt must be true or false"),
    ],
)
def test_a_bad_config_table_is_refused(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        FetchSettings.from_table(table, {})


@pytest.mark.parametrize(
    "make",
    [
        lambda: FetchSettings.from_env({"TOOLWIRE_FETCH_IGNORE_ROBOTS": "maybe"}),
        lambda: FetchSettings(user_agent="two\nlines"),
        lambda: FetchSettings(max_bytes=0),
        lambda: FetchSettings(max_image_bytes=-1),
    ],
)
def test_bad_settings_say_what_to_fix(make: object) -> None:
    with pytest.raises(ConfigurationError):
        make()  # type: ignore[operator]

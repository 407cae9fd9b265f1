"""The JUnit report parser refuses what makes XML dangerous, and reads what pytest writes."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.toolbox.code._junit import parse_junit
from toolwire.toolbox.code._safe_xml import MAX_DEPTH, UnsafeXmlError, parse_xml

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<testsuites><testcase name="&lol3;"/></testsuites>"""

EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<testsuites><testcase name="&secret;"/></testsuites>"""

PARAMETER = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;]>
<testsuites/>"""


@pytest.mark.parametrize(
    ("document", "why"),
    [
        (BOMB, "document type"),
        (EXTERNAL, "document type"),
        (PARAMETER, "document type"),
        (b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>', "document type"),
        (b"<r>&undeclared;</r>", "not well-formed"),
        (b"<r><unclosed></r>", "not well-formed"),
        (b"", "not well-formed"),
    ],
)
def test_dangerous_or_broken_documents_are_refused(document: bytes, why: str) -> None:
    with pytest.raises(UnsafeXmlError, match=why):
        parse_xml(document)


def test_nesting_deeper_than_the_cap_is_refused() -> None:
    deep = b"<a>" * (MAX_DEPTH + 1) + b"</a>" * (MAX_DEPTH + 1)
    with pytest.raises(UnsafeXmlError, match="nests"):
        parse_xml(deep)
    fine = b"<a>" * MAX_DEPTH + b"</a>" * MAX_DEPTH
    assert parse_xml(fine).tag == "a"


def test_the_predefined_entities_and_character_references_still_work() -> None:
    root = parse_xml(b'<r a="&lt;x&gt; &amp; &#10;y">&quot;ok&apos;</r>')
    assert root.get("a") == "<x> & \ny"
    assert root.text == "\"ok'"


def test_a_junit_report_becomes_tests_with_node_ids_and_outcomes() -> None:
    report = b"""<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.sub.test_c.TestK" name="test_m" file="tests/sub/test_c.py" line="1"
 time="0.25"><failure message="ValueError: boom">tb line
E ValueError: boom</failure></testcase>
<testcase classname="tests.test_a" name="test_ok[1-2]" file="tests/test_a.py" line="2"
 time="0.001"/>
<testcase classname="" name="tests.test_b" file="tests/test_b.py" time="0.000"><error
 message="collection failure">ImportError</error></testcase>
<testcase classname="test_d" name="test_x" file="tests/test_d.py" line="0" time="0">
<skipped message="later">skip</skipped></testcase>
</testsuite></testsuites>"""
    tests = {t.name: t for t in parse_junit(report)}
    assert set(tests) == {
        "tests/sub/test_c.py::TestK::test_m",
        "tests/test_a.py::test_ok[1-2]",
        "tests/test_b.py",
        "tests/test_d.py::test_x",
    }
    failed = tests["tests/sub/test_c.py::TestK::test_m"]
    assert (failed.outcome, failed.line, failed.duration_s) == ("failed", 2, 0.25)
    assert failed.message == "ValueError: boom"
    assert failed.details.endswith("E ValueError: boom")
    assert tests["tests/test_b.py"].outcome == "error"
    assert tests["tests/test_d.py::test_x"].outcome == "skipped"
    assert tests["tests/test_d.py::test_x"].details == ""


@given(st.binary(max_size=300))
def test_arbitrary_bytes_parse_or_are_refused_never_anything_else(data: bytes) -> None:
    with contextlib.suppress(UnsafeXmlError):
        parse_junit(data)


@given(st.text(max_size=200))
def test_arbitrary_text_inside_a_report_round_trips_or_is_refused(text: str) -> None:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    document = (
        f'<testsuites><testcase name="t"><failure message="{escaped}"/></testcase></testsuites>'
    )
    try:
        [test] = parse_junit(document.encode("utf-8", errors="surrogatepass"))
    except (UnsafeXmlError, UnicodeEncodeError):
        return
    assert test.outcome == "failed"

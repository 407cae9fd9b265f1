"""Reading pytest's JUnit XML report (``--junitxml``, ``junit_family=xunit1``) into tests.

Each ``<testcase>`` becomes a `TestOutcome`: a ``<failure>`` child makes it ``failed``, an
``<error>`` (a collection or fixture error) ``error``, a ``<skipped>`` ``skipped``, none
``passed``. The name is rebuilt as pytest's node id (``tests/test_a.py::TestK::test_m``) from
the ``file``, ``classname`` and ``name`` attributes; ``line`` is made 1-based.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from toolwire.toolbox.code._diagnostics import Outcome, TestOutcome
from toolwire.toolbox.code._safe_xml import parse_xml

__all__ = ["MAX_DETAILS_CHARS", "cap_details", "parse_junit"]

MAX_DETAILS_CHARS = 4000
"""A failure's ``details`` are cut to this many characters (its end kept: the assertion)."""


def cap_details(text: str, limit: int = MAX_DETAILS_CHARS) -> str:
    """``text`` cut to ``limit`` characters, keeping its end (where tracebacks say why)."""
    text = text.strip("\n")
    if len(text) <= limit:
        return text
    return "[…]\n" + text[-(limit - 4) :]


def parse_junit(data: bytes) -> list[TestOutcome]:
    """The tests of a JUnit XML report.

    Raises:
        UnsafeXmlError: the report is malformed or declares a DTD or entities.
    """
    root = parse_xml(data)
    return [_testcase(case) for case in root.iter("testcase")]


def _testcase(case: Element) -> TestOutcome:
    outcome: Outcome = "passed"
    message = details = ""
    for child, kind in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        found = case.find(child)
        if found is not None:
            outcome = kind  # type: ignore[assignment]
            message = found.get("message") or ""
            details = found.text or ""
            break
    file = case.get("file") or None
    return TestOutcome(
        name=_node_id(file, case.get("classname") or "", case.get("name") or "?"),
        outcome=outcome,
        file=file,
        line=_line(case.get("line")),
        duration_s=_float(case.get("time")),
        message=message.strip().split("\n", 1)[0][:500],
        details=cap_details(details) if outcome in ("failed", "error") else "",
    )


def _node_id(file: str | None, classname: str, name: str) -> str:
    if not file:
        return f"{classname}::{name}" if classname else name
    module = file[: -len(".py")] if file.endswith(".py") else file
    dotted = module.replace("/", ".")
    if not classname or classname == dotted:
        inner = ""
    elif classname.startswith(dotted + "."):
        inner = classname[len(dotted) + 1 :]
    else:
        parts = classname.split(".")
        stem = dotted.rsplit(".", 1)[-1]
        inner = ".".join(parts[parts.index(stem) + 1 :]) if stem in parts else ""
    if inner:
        return f"{file}::{inner.replace('.', '::')}::{name}"
    if name == dotted:  # a collection error names the module itself
        return file
    return f"{file}::{name}"


def _line(value: str | None) -> int | None:
    try:
        return int(value) + 1 if value is not None else None
    except ValueError:
        return None


def _float(value: str | None) -> float | None:
    try:
        return round(float(value), 3) if value is not None else None
    except ValueError:
        return None

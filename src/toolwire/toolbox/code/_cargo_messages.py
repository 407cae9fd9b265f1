"""Reading cargo's output: ``--message-format=json`` compiler messages and libtest's report.

Compiler messages are the ``{"reason": "compiler-message"}`` lines: each becomes a
`Diagnostic` at its primary span, its ``help`` and ``note`` children added to the message,
``fixable`` when rustc or clippy suggests a machine-applicable replacement. Summary messages
(``aborting due to ...``, ``N warnings emitted``) are dropped, and so is the same finding
reported for two targets (``--all-targets`` builds the library twice: plain and for tests).

libtest (stable Rust has no JSON test output) prints ``test <name> ... ok|FAILED|ignored``
lines and, for each failure, a ``---- <name> stdout ----`` section holding the panic: its
``panicked at <file>:<line>:<col>:`` line gives the failure's place, the line after it the
message.
"""

from __future__ import annotations

import re
from typing import Any

from toolwire.toolbox.code._diagnostics import Diagnostic, Outcome, TestOutcome
from toolwire.toolbox.code._junit import cap_details
from toolwire.toolbox.code._parsing import as_int, json_lines, relative_file, severity_of

__all__ = ["parse_cargo_messages", "parse_libtest"]

_SUMMARY = re.compile(
    r"^(?:aborting due to|\d+ warnings? emitted|could not compile|"
    r"\d+ (?:errors?|warnings?) generated)"
)
_NOISE = re.compile(r"^(?:for further information visit |`#\[(?:warn|deny|forbid)\()")
"""Children that are the same for every finding of a lint: its docs link, its default level."""
_TEST_LINE = re.compile(r"^test (?P<name>.+?) \.\.\. (?P<result>ok|FAILED|ignored\b.*|bench\b.*)$")
_SECTION = re.compile(r"^---- (?P<name>.+?) (?:stdout|stderr) ----$")
_PANIC = re.compile(r"panicked at (?P<file>[^\s:]+):(?P<line>\d+):(?P<column>\d+):?$")


def parse_cargo_messages(text: str, root: str, tool: str) -> list[Diagnostic]:
    """The compiler diagnostics of cargo's JSON lines in ``text``, without duplicates."""
    found: dict[tuple[str, int, int, str, str], Diagnostic] = {}
    for item in json_lines(text):
        if item.get("reason") != "compiler-message":
            continue
        message = item.get("message")
        if not isinstance(message, dict):
            continue
        diagnostic = _diagnostic(message, root, tool)
        if diagnostic is None:
            continue
        key = (diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.code)
        found.setdefault((*key, diagnostic.message), diagnostic)
    return list(found.values())


def _diagnostic(message: dict[str, Any], root: str, tool: str) -> Diagnostic | None:
    text = str(message.get("message") or "")
    level = str(message.get("level") or "")
    if level in ("failure-note", "note", "help") or _SUMMARY.match(text):
        return None
    spans = [s for s in message.get("spans") or () if isinstance(s, dict)]
    primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else {})
    code = message.get("code")
    extra = [
        _child_line(child)
        for child in message.get("children") or ()
        if isinstance(child, dict) and child.get("message") and not _NOISE.match(child["message"])
    ]
    return Diagnostic(
        file=relative_file(str(primary.get("file_name") or ""), root),
        line=as_int(primary.get("line_start")),
        column=as_int(primary.get("column_start")),
        end_line=as_int(primary.get("line_end")) or None,
        end_column=as_int(primary.get("column_end")) or None,
        code=str(code.get("code") or "") if isinstance(code, dict) else "",
        severity=severity_of(level.split(":")[0]),
        message="\n".join([text, *extra]),
        tool=tool,
        fixable=_machine_applicable(message),
    )


def _child_line(child: dict[str, Any]) -> str:
    """``help: <message>``, with the replacement it suggests when there is one."""
    line = f"{child.get('level')}: {child.get('message')}"
    replacements = [
        str(span["suggested_replacement"])
        for span in child.get("spans") or ()
        if isinstance(span, dict) and span.get("suggested_replacement") is not None
    ]
    if replacements and "\n" not in replacements[0] and len(replacements[0]) <= 120:
        line += f": `{replacements[0]}`"
    return line


def _machine_applicable(message: dict[str, Any]) -> bool:
    pending: list[Any] = [message]
    while pending:
        node = pending.pop()
        if not isinstance(node, dict):
            continue
        for span in node.get("spans") or ():
            if isinstance(span, dict) and span.get("suggestion_applicability") == (
                "MachineApplicable"
            ):
                return True
        pending.extend(node.get("children") or ())
    return False


def parse_libtest(text: str, root: str) -> list[TestOutcome]:
    """The tests of libtest's human output in ``text`` (JSON lines are skipped)."""
    results: dict[str, Outcome] = {}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("{"):
            continue
        match = _TEST_LINE.match(line)
        if match is not None:
            results[match["name"]] = _outcome(match["result"])
            current = None
            continue
        section = _SECTION.match(line)
        if section is not None:
            current = sections.setdefault(section["name"], [])
        elif line in ("failures:", "successes:") or line.startswith("test result: "):
            current = None
        elif current is not None:
            current.append(line)
    return [_test(name, outcome, sections.get(name, []), root) for name, outcome in results.items()]


def _outcome(result: str) -> Outcome:
    if result == "ok" or result.startswith("bench"):
        return "passed"
    return "failed" if result == "FAILED" else "skipped"


def _test(name: str, outcome: Outcome, section: list[str], root: str) -> TestOutcome:
    file: str | None = None
    line: int | None = None
    message = ""
    for index, text in enumerate(section):
        panic = _PANIC.search(text)
        if panic is not None:
            file, line = relative_file(panic["file"], root), int(panic["line"])
            rest = [s.strip() for s in section[index + 1 :] if s.strip()]
            message = rest[0] if rest else text.strip()
            break
    if outcome == "failed" and not message:
        message = next((s.strip() for s in section if s.strip()), "")
    return TestOutcome(
        name=name,
        outcome=outcome,
        file=file,
        line=line,
        message=message[:500],
        details=cap_details("\n".join(section)) if outcome == "failed" else "",
    )

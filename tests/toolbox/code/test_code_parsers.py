"""The output readers on formats the machine's own tools do not print (an older mypy, Go 1.24's
build events, pyright) and on edge cases, and the text renderer's budget.

The outputs here are copied in the exact shape those tools print; everything the installed
tools do print is read from their real output in the per-ecosystem tests."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from toolwire.toolbox.code._cargo_messages import parse_cargo_messages, parse_libtest
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic, TestOutcome
from toolwire.toolbox.code._go_checks import parse_go_test, parse_vet
from toolwire.toolbox.code._javascript_checks import parse_tsc
from toolwire.toolbox.code._parsing import fixed_diagnostics, relative_file, strip_ansi
from toolwire.toolbox.code._python_checks import parse_mypy_json, parse_mypy_lines, parse_pyright
from toolwire.toolbox.code._rendering import render_runs

ROOT = "/p"


def test_an_older_mypy_line_format_is_read_with_notes_folded_in() -> None:
    output = (
        'pkg/a.py:5:12: error: Incompatible return value type (got "int", expected "str")'
        "  [return-value]\n"
        "pkg/a.py:5:12: note: Revealed here\n"
        "pkg/b.py:1: error: Cannot find implementation or library stub  [import-not-found]\n"
        "Found 2 errors in 2 files (checked 3 source files)\n"
    )
    first, second = parse_mypy_lines(output, ROOT)
    assert (first.file, first.line, first.column, first.code) == ("pkg/a.py", 5, 12, "return-value")
    assert first.message.endswith("\nRevealed here")
    assert (second.line, second.column, second.code) == (1, 0, "import-not-found")


def test_mypy_json_columns_become_one_based_and_hints_join_the_message() -> None:
    line = {
        "file": "/p/a.py",
        "line": 3,
        "column": 4,
        "message": "m",
        "hint": "h",
        "code": "x",
        "severity": "error",
    }
    [diagnostic] = parse_mypy_json(json.dumps(line) + "\nnot json\n", ROOT)
    assert (diagnostic.file, diagnostic.column, diagnostic.message) == ("a.py", 5, "m\nh")


def test_pyright_json_is_read_one_based() -> None:
    report = {
        "generalDiagnostics": [
            {
                "file": "/p/src/a.py",
                "severity": "warning",
                "message": "unused",
                "rule": "reportUnusedVariable",
                "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 7}},
            }
        ]
    }
    [diagnostic] = parse_pyright(json.dumps(report), ROOT)
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == ("src/a.py", 1, 5)
    assert (diagnostic.severity, diagnostic.code) == ("warning", "reportUnusedVariable")


def test_tsc_continuation_lines_and_global_errors() -> None:
    output = (
        "src/a.ts(3,7): error TS2322: Type '{ a: number; }' is not assignable to type 'B'.\n"
        "  Object literal may only specify known properties.\n"
        "error TS5023: Unknown compiler option 'foo'.\n"
    )
    first, second = parse_tsc(output, ROOT)
    assert first.message.endswith("\nObject literal may only specify known properties.")
    assert (second.file, second.line, second.code) == ("", 0, "TS5023")


def test_libtest_output_with_two_failures_and_a_panic_without_location() -> None:
    output = (
        "running 3 tests\n"
        "test a::one ... ok\n"
        "test a::two ... FAILED\n"
        "test a::three ... FAILED\n"
        "test a::four ... ignored, needs network\n\n"
        "failures:\n\n"
        "---- a::two stdout ----\n"
        "thread 'a::two' panicked at src/a.rs:10:5:\n"
        "boom\n\n"
        "---- a::three stdout ----\n"
        "custom failure text\n\n"
        "failures:\n    a::two\n    a::three\n\n"
        "test result: FAILED. 1 passed; 2 failed; 1 ignored; 0 measured\n"
    )
    tests = {t.name: t for t in parse_libtest(output, ROOT)}
    assert {n: t.outcome for n, t in tests.items()} == {
        "a::one": "passed",
        "a::two": "failed",
        "a::three": "failed",
        "a::four": "skipped",
    }
    assert (tests["a::two"].file, tests["a::two"].line, tests["a::two"].message) == (
        "src/a.rs",
        10,
        "boom",
    )
    assert tests["a::three"].message == "custom failure text"


def test_cargo_summaries_and_duplicates_across_targets_are_dropped() -> None:
    message = {
        "level": "warning",
        "message": "unused variable: `x`",
        "code": {"code": "unused_variables"},
        "spans": [
            {"file_name": "src/lib.rs", "line_start": 2, "column_start": 9, "is_primary": True}
        ],
        "children": [],
    }
    summary = {"level": "warning", "message": "1 warning emitted", "spans": [], "children": []}
    lines = [
        json.dumps({"reason": "compiler-message", "message": m})
        for m in (message, message, summary)
    ]
    found = parse_cargo_messages("\n".join([*lines, "   Compiling demo"]), ROOT, "cargo check")
    assert [(d.file, d.code) for d in found] == [("src/lib.rs", "unused_variables")]


def test_go_build_events_of_go_1_24_and_a_package_that_failed_alone() -> None:
    events = [
        {
            "ImportPath": "example.com/m",
            "Action": "build-output",
            "Output": "./m.go:3:9: undefined: x\n",
        },
        {"Action": "output", "Package": "example.com/m/p", "Output": "panic: init broke\n"},
        {"Action": "fail", "Package": "example.com/m/p", "Elapsed": 0.01},
    ]
    text = "\n".join(json.dumps(e) for e in events)
    tests, build = parse_go_test(text, ROOT, "example.com/m")
    assert build == "./m.go:3:9: undefined: x\n"
    [package] = tests
    assert (package.name, package.outcome, package.message) == (
        "example.com/m/p",
        "error",
        "panic: init broke",
    )


def test_go_vet_json_blocks_and_compile_lines() -> None:
    text = (
        "# example.com/m\n"
        '{\n\t"example.com/m": {\n\t\t"printf": [\n\t\t\t{\n'
        '\t\t\t\t"posn": "/p/m.go:7:15",\n\t\t\t\t"message": "bad verb"\n\t\t\t}\n\t\t]\n\t}\n}\n'
        "vet: ./n.go:2:28: cannot use x\n"
    )
    found = {(d.file, d.line, d.column, d.code) for d in parse_vet(text, ROOT)}
    assert found == {("m.go", 7, 15, "printf"), ("n.go", 2, 28, "compile")}


def test_paths_outside_the_root_stay_absolute() -> None:
    assert relative_file("/elsewhere/x.py", ROOT) == "/elsewhere/x.py"
    assert relative_file("file:///p/a/b.ts", ROOT) == "a/b.ts"
    assert relative_file("./a.go", ROOT) == "a.go"


def test_ansi_sequences_are_stripped() -> None:
    assert strip_ansi("\x1b[31mred\x1b[39m \x1b[1mbold\x1b[22m") == "red bold"


def _diagnostic(file: str, code: str, line: int = 1) -> Diagnostic:
    return Diagnostic(
        file=file, line=line, column=1, code=code, severity="error", message=code, tool="t"
    )


identities = st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from("XYZ")), max_size=12)


@given(identities, identities)
def test_fixed_is_before_less_after_counted_by_identity(
    before: list[tuple[str, str]], after: list[tuple[str, str]]
) -> None:
    fixed = fixed_diagnostics(
        [_diagnostic(f, c, i) for i, (f, c) in enumerate(before)],
        [_diagnostic(f, c, 100 + i) for i, (f, c) in enumerate(after)],
    )
    for key in set(before):
        expected = max(before.count(key) - after.count(key), 0)
        assert sum((d.file, d.code) == key for d in fixed) == expected


@given(
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=200, max_value=5000),
)
def test_the_text_fits_its_budget_and_counts_what_it_leaves_out(
    diagnostics: int, failures: int, budget: int
) -> None:
    run = CheckRun(
        tool="t",
        ecosystem="python",
        command=("t",),
        exit_code=1,
        status="failed",
        diagnostics=tuple(_diagnostic(f"f{i % 7}.py", f"C{i}", i + 1) for i in range(diagnostics)),
        tests=tuple(
            TestOutcome(
                name=f"t{i}",
                outcome="failed",
                file=f"t{i % 3}.py",
                message="boom",
                details="line\n" * 20,
            )
            for i in range(failures)
        ),
    )
    text = render_runs([run], [], budget)
    assert len(text) <= budget
    shown = sum(
        1 for line in text.splitlines() if line.startswith("  FAILED ") or " error C" in line
    )
    left = 0
    if text.endswith("(every one is in structured)"):
        left = int(text.rsplit("\n", 1)[1].split()[1])
    assert shown + left == diagnostics + failures

"""The terminal reducer: git status, test runs (failing ones too), installs, head + tail."""

from __future__ import annotations

import pytest

from toolwire.reducers import ReducerContext, TerminalReducer, format_spill_pointer
from toolwire.reducers._head_tail import SMALL_OUTPUT_CHARS
from toolwire.results import Err, ErrorCode, Ok, ToolResult, err, ok

REDUCER = TerminalReducer()


def run(command: str, result: ToolResult) -> ToolResult:
    return REDUCER.reduce(result, ReducerContext(args={"command": command}, turn_count=1))


def text_of(result: ToolResult) -> str:
    return result.value if isinstance(result, Ok) else result.error


def passing_lines(count: int, template: str) -> str:
    return "\n".join(template.format(i=i) for i in range(count))


# --- git status ------------------------------------------------------------------------------

PORCELAIN_MANY = "\n".join(
    [" M src/a.py", "AM src/new.py", " D gone.py", "D  staged_gone.py", "R  old.py -> new.py"]
    + [f"?? scratch/file_{i}.txt" for i in range(30)]
)


def test_porcelain_git_status_is_counted_by_group() -> None:
    out = text_of(run("git status --porcelain", ok(PORCELAIN_MANY)))
    first = out.split("\n")[0]
    assert first == "git status: 3 staged, 3 unstaged, 30 untracked."


def test_porcelain_staged_and_unstaged_kinds_are_named() -> None:
    out = text_of(run("git status --porcelain", ok(PORCELAIN_MANY)))
    assert "Staged: new src/new.py; deleted staged_gone.py; renamed old.py -> new.py" in out
    assert "Unstaged: modified src/a.py, src/new.py; deleted gone.py" in out


def test_long_groups_list_ten_paths_then_a_count() -> None:
    out = text_of(run("git status --porcelain", ok(PORCELAIN_MANY)))
    untracked = next(line for line in out.split("\n") if line.startswith("Untracked:"))
    assert untracked.endswith("; +20 more")
    assert untracked.count("scratch/") == 10


def test_porcelain_with_its_first_blank_trimmed_is_still_read() -> None:
    trimmed = PORCELAIN_MANY.lstrip()  # " M src/a.py" -> "M src/a.py"
    out = text_of(run("git status -s", ok(trimmed)))
    assert "Unstaged: modified src/a.py, src/new.py" in out


HUMAN = """On branch main
Your branch is ahead of 'origin/main' by 2 commits.
  (use "git push" to publish your local commits)

Changes to be committed:
  (use "git restore --staged <file>..." to unstage)
\tnew file:   src/new.py
\trenamed:    old.py -> new.py

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
  (use "git restore <file>..." to discard changes in working directory)
\tmodified:   src/a.py
\tdeleted:    gone.py

Untracked files:
  (use "git add <file>..." to include in what will be committed)
\tnotes.txt
\tbuild/
"""


def test_human_git_status_is_summarised_not_reported_clean() -> None:
    out = text_of(run("git status", ok(HUMAN)))
    assert out.split("\n")[0] == "git status: branch main; 2 staged, 2 unstaged, 2 untracked."
    assert "clean" not in out


def test_human_git_status_keeps_paths_and_tracking_line() -> None:
    out = text_of(run("git status", ok(HUMAN)))
    assert "Your branch is ahead of 'origin/main' by 2 commits." in out
    assert "Staged: new src/new.py; renamed old.py -> new.py" in out
    assert "Unstaged: modified src/a.py; deleted gone.py" in out
    assert "Untracked: notes.txt, build/" in out


def test_human_clean_tree_is_reported_clean() -> None:
    clean = (
        "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
        "nothing to commit, working tree clean\n"
    )
    out = text_of(run("git status", ok(clean)))
    assert out.startswith("git status: branch main; clean.")


def test_human_conflicts_are_counted() -> None:
    conflicted = (
        "On branch main\nYou have unmerged paths.\n\nUnmerged paths:\n"
        '  (use "git add <file>..." to mark resolution)\n\tboth modified:   src/a.py\n'
        "\tdeleted by them: src/b.py\n\nno changes added to commit\n"
    )
    out = text_of(run("git status", ok(conflicted)))
    assert out.split("\n")[0] == "git status: branch main; 2 conflicted."
    assert "both modified src/a.py" in out


def test_unrecognised_lines_in_a_status_are_kept() -> None:
    noisy = HUMAN + "warning: could not open directory 'private/': Permission denied\n"
    out = text_of(run("git status", ok(noisy)))
    assert "warning: could not open directory 'private/': Permission denied" in out


def test_git_status_output_under_another_command_is_not_summarised() -> None:
    result = ok(PORCELAIN_MANY)
    assert run("cat changes.txt", result) is result


# --- test runs -------------------------------------------------------------------------------

PYTEST_FAILING = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\n"
    "rootdir: /app\ncollected 120 items\n\n"
    + passing_lines(120, "tests/test_m.py::test_ok_{i} PASSED  [ 50%]")
    + "\ntests/test_m.py::test_bad FAILED  [100%]\n\n"
    "=================================== FAILURES ===================================\n"
    "___________________________________ test_bad ___________________________________\n\n"
    "    def test_bad():\n>       assert 1 == 2\nE       assert 1 == 2\n\n"
    "tests/test_m.py:9: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_m.py::test_bad - assert 1 == 2\n"
    "======================== 1 failed, 120 passed in 0.50s =========================\n"
)


def test_failing_pytest_run_is_reduced_and_keeps_the_exit_line() -> None:
    result = run("pytest -v", err(f"Command exited with code 1\n{PYTEST_FAILING}"))
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert result.error.startswith("Command exited with code 1\n")
    assert len(result.error) < len(PYTEST_FAILING) / 3


def test_failing_pytest_run_keeps_failures_traceback_and_summary() -> None:
    out = text_of(run("pytest -v", err(f"Command exited with code 1\n{PYTEST_FAILING}")))
    for kept in (
        "tests/test_m.py::test_bad FAILED  [100%]",
        ">       assert 1 == 2",
        "E       assert 1 == 2",
        "tests/test_m.py:9: AssertionError",
        "FAILED tests/test_m.py::test_bad - assert 1 == 2",
        "======================== 1 failed, 120 passed in 0.50s =========================",
    ):
        assert kept in out
    assert "test_ok_7 PASSED" not in out
    assert "platform linux" not in out


def test_passing_pytest_run_keeps_only_the_summary_line() -> None:
    passing = (
        "============================= test session starts ==============================\n"
        "collected 50 items\n\n"
        + passing_lines(50, "tests/test_m.py::test_{i} PASSED [ 2%]")
        + "\n============================== 50 passed in 0.20s ==============================\n"
    )
    out = text_of(run(".venv/bin/pytest -v", ok(passing)))
    assert out.endswith(
        "============================== 50 passed in 0.20s =============================="
    )
    assert "PASSED" not in out


VITEST = (
    " RUN  v1.6.0 /app\n\n"
    + passing_lines(60, " ✓ src/unit_{i}.test.ts  (5 tests) 3ms")
    + "\n ❯ src/math.test.ts  (3 tests | 1 failed) 5ms\n"
    "   ❯ src/math.test.ts > add > adds negatives\n"
    "     → expected -1 to be -2\n\n"
    "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n"
    " FAIL  src/math.test.ts > add > adds negatives\n"
    "AssertionError: expected -1 to be -2 // Object.is equality\n\n"
    " ❯ src/math.test.ts:12:23\n"
    "     11|     expect(add(-1, -1)).toBe(-2)\n"
    "       |                       ^\n\n"
    " Test Files  1 failed | 60 passed (61)\n"
    "      Tests  1 failed | 302 passed (303)\n"
    "   Start at  10:00:00\n"
    "   Duration  512ms (transform 40ms, setup 0ms, collect 60ms, tests 8ms)\n"
)


def test_vitest_keeps_failure_block_and_summary_and_drops_passes() -> None:
    out = text_of(run("pnpm test", err(f"Command exited with code 1\n{VITEST}")))
    assert "AssertionError: expected -1 to be -2 // Object.is equality" in out
    assert "     11|     expect(add(-1, -1)).toBe(-2)" in out
    assert " Test Files  1 failed | 60 passed (61)" in out
    assert "   Duration  512ms (transform 40ms, setup 0ms, collect 60ms, tests 8ms)" in out
    assert "src/unit_3.test.ts" not in out


def test_passing_vitest_keeps_the_summary() -> None:
    passing = (
        passing_lines(60, " ✓ src/unit_{i}.test.ts  (5 tests) 3ms")
        + "\n\n Test Files  60 passed (60)\n      Tests  300 passed (300)\n"
        "   Duration  1.2s\n"
    )
    out = text_of(run("npx vitest run", ok(passing)))
    assert out == (
        "... [61 lines omitted] ...\n"
        " Test Files  60 passed (60)\n      Tests  300 passed (300)\n   Duration  1.2s"
    )


JEST = (
    passing_lines(40, "PASS src/unit_{i}.test.js") + "\nFAIL src/sum.test.js\n"
    "  ● sum › adds 1 + 2 to equal 4\n\n"
    "    expect(received).toBe(expected) // Object.is equality\n\n"
    "    Expected: 4\n    Received: 3\n\n"
    "    > 4 |   expect(sum(1, 2)).toBe(4);\n\n"
    "      at Object.toBe (src/sum.test.js:4:21)\n\n"
    "Test Suites: 1 failed, 40 passed, 41 total\n"
    "Tests:       1 failed, 120 passed, 121 total\n"
    "Snapshots:   0 total\nTime:        2.512 s\nRan all test suites.\n"
)


def test_jest_through_npm_test_keeps_the_failure_details() -> None:
    out = text_of(run("npm test", err(f"Command exited with code 1\n{JEST}")))
    assert "FAIL src/sum.test.js" in out
    assert "    Expected: 4" in out
    assert "      at Object.toBe (src/sum.test.js:4:21)" in out
    assert "Tests:       1 failed, 120 passed, 121 total" in out
    assert "PASS src/unit_1.test.js" not in out


GO_TEST = (
    passing_lines(30, "=== RUN   TestOk{i}\n--- PASS: TestOk{i} (0.00s)")
    + "\n=== RUN   TestDivide\n"
    "    calc_test.go:14: Divide(1, 0) = 0, want error\n"
    "--- FAIL: TestDivide (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\nFAIL\n"
)


def test_go_test_keeps_the_failing_test_and_its_log() -> None:
    out = text_of(run("go test -v ./...", err(f"Command exited with code 1\n{GO_TEST}")))
    assert "    calc_test.go:14: Divide(1, 0) = 0, want error" in out
    assert "--- FAIL: TestDivide (0.00s)" in out
    assert "FAIL\texample.com/calc\t0.003s" in out
    assert "TestOk3" not in out


CARGO_TEST = (
    "   Compiling calc v0.1.0 (/app)\n     Running unittests src/lib.rs\n\n"
    "running 41 tests\n"
    + passing_lines(40, "test tests::ok_{i} ... ok")
    + "\ntest tests::divides ... FAILED\n\nfailures:\n\n"
    "---- tests::divides stdout ----\n"
    "thread 'tests::divides' panicked at src/lib.rs:20:9:\n"
    "assertion `left == right` failed\n  left: 0\n right: 1\n\n\n"
    "failures:\n    tests::divides\n\n"
    "test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n\n"
    "error: test failed, to rerun pass `--lib`\n"
)


def test_cargo_test_keeps_the_failures_section_and_result() -> None:
    out = text_of(run("cargo test", err(f"Command exited with code 101\n{CARGO_TEST}")))
    assert "thread 'tests::divides' panicked at src/lib.rs:20:9:" in out
    assert "  left: 0" in out
    assert "test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out" in out
    assert "error: test failed, to rerun pass `--lib`" in out
    assert "tests::ok_5 ... ok" not in out


# --- installs --------------------------------------------------------------------------------

NPM_NOISY = (
    passing_lines(40, "npm http fetch GET 200 https://registry.npmjs.org/pkg{i} 50ms (cache miss)")
    + "\nnpm warn deprecated request@2.88.2: request has been deprecated\n\n"
    "added 48 packages, and audited 49 packages in 4s\n\nfound 0 vulnerabilities\n"
)


def test_npm_install_keeps_added_warning_and_audit_lines() -> None:
    out = text_of(run("npm install request", ok(NPM_NOISY)))
    assert "npm warn deprecated request@2.88.2: request has been deprecated" in out
    assert "added 48 packages, and audited 49 packages in 4s" in out
    assert "found 0 vulnerabilities" in out
    assert "registry.npmjs.org" not in out


def test_failing_install_keeps_its_errors() -> None:
    failing = (
        passing_lines(30, "Collecting dep{i}\n  Downloading dep{i}-1.0.tar.gz (10 kB)")
        + "\nERROR: Could not find a version that satisfies the requirement nosuchpkg\n"
        "ERROR: No matching distribution found for nosuchpkg\n"
    )
    out = text_of(run("pip install nosuchpkg", err(f"Command exited with code 1\n{failing}")))
    assert "ERROR: Could not find a version that satisfies the requirement nosuchpkg" in out
    assert "ERROR: No matching distribution found for nosuchpkg" in out
    assert "Downloading dep3" not in out


def test_yarn_install_is_an_install() -> None:
    log = passing_lines(30, "[1/4] Resolving packages {i}...") + "\nsuccess Saved lockfile.\n"
    out = text_of(run("yarn install", ok(log)))
    assert out.endswith("success Saved lockfile.")
    assert "Resolving" not in out


def test_yarn_add_and_bare_yarn_are_not_installs() -> None:
    log = passing_lines(30, "[1/4] Resolving packages {i}...") + "\nsuccess Saved lockfile.\n"
    for command in ("yarn add left-pad", "yarn", "yarn build"):
        result = ok(log)
        assert run(command, result) is result, command


# --- generic head + tail ---------------------------------------------------------------------

LONG = "\n".join(f"build step {i:04d} " + "x" * 60 for i in range(400))


def test_long_output_keeps_first_40_and_last_20_lines() -> None:
    out = text_of(run("make", ok(LONG))).split("\n")
    assert out[:40] == LONG.split("\n")[:40]
    assert out[-20:] == LONG.split("\n")[-20:]
    assert out[40].startswith("... [reduced from 400 lines / ")


def test_long_output_keeps_error_lines_from_the_middle() -> None:
    lines = LONG.split("\n")
    lines[200] = "src/x.c:3:16: error: 'y' undeclared"
    out = text_of(run("make", err("Command exited with code 2\n" + "\n".join(lines))))
    assert "src/x.c:3:16: error: 'y' undeclared" in out


def test_output_up_to_8_kib_is_untouched() -> None:
    small = ok("y" * SMALL_OUTPUT_CHARS)
    assert run("cat big", small) is small


def test_errors_other_than_a_non_zero_exit_are_untouched() -> None:
    for result in (
        err("Command timed out after 30s\n" + LONG),
        err(LONG, ErrorCode.NOT_AVAILABLE),
        Err("Command exited with code 1\n" + LONG, ErrorCode.INPUT_INVALID),
    ):
        assert run("make", result) is result


def test_a_rewrite_that_is_not_shorter_is_discarded() -> None:
    result = ok(" M a.py")
    assert run("git status --porcelain", result) is result


# --- spill pointer ---------------------------------------------------------------------------

POINTER = format_spill_pointer("/work/.toolwire/spill/s1-1.log", 912345)


def test_spill_pointer_survives_head_tail_exactly_once() -> None:
    lines = LONG.split("\n")
    spilled = "\n".join([*lines[:200], POINTER, *lines[200:]])
    out = text_of(run("make", ok(spilled)))
    assert out.split("\n").count(POINTER) == 1


def test_spill_pointer_survives_a_failing_test_run_exactly_once() -> None:
    body = f"Command exited with code 1\n{PYTEST_FAILING}{POINTER}\n"
    out = text_of(run("pytest", err(body)))
    assert out.split("\n").count(POINTER) == 1
    assert out.endswith(POINTER)


def test_spill_pointer_survives_a_git_status_summary() -> None:
    out = text_of(run("git status --porcelain", ok(PORCELAIN_MANY + "\n" + POINTER)))
    assert out.split("\n").count(POINTER) == 1


def test_missing_command_argument_still_reduces_generically() -> None:
    result = TerminalReducer().reduce(ok(LONG), ReducerContext(args={"command": 42}))
    assert isinstance(result, Ok)
    assert len(result.value) < len(LONG)


# --- commands of repeated options (issue 9, item 1: catastrophic backtracking) -----------------

# The reported shape: about 100 characters, a few dozen option tokens that the old command
# patterns (`git(?:\s+--?[\w-]+)*\s+status`, `npm(?:\s+-{1,2}[\w-]+)*\s+install`) could split
# two ways each, then a subcommand that is not the one sought. Python's backtracking `re` tried
# every split: 2^24 paths for the reported 103 characters (20 s here, on the event loop), 2^48
# for twice the tokens (years). The linear engine reads each once; these tests only finish
# because of that (nothing is timed).
REPEATED_GIT_OPTIONS = "git " + "--x " * 24 + "log"
REPEATED_NPM_OPTIONS = "npm " + "--x " * 24 + "run build"


@pytest.mark.parametrize("repeat", [1, 2])
@pytest.mark.parametrize(
    ("reported", "length"), [(REPEATED_GIT_OPTIONS, 103), (REPEATED_NPM_OPTIONS, 109)]
)
def test_the_reported_commands_of_repeated_options_are_reduced(
    reported: str, length: int, repeat: int
) -> None:
    assert len(reported) == length
    command = reported.replace("--x " * 24, "--x " * 24 * repeat)
    out = text_of(run(command, ok(LONG))).split("\n")
    assert out[40].startswith("... [reduced from 400 lines / ")  # neither status nor install


def test_repeated_options_before_the_sought_subcommand_are_still_recognised() -> None:
    status = text_of(run("git " + "--x " * 40 + "status --porcelain", ok(PORCELAIN_MANY)))
    assert status.startswith("git status: 3 staged, 3 unstaged, 30 untracked.")
    chatter = "\n".join(
        f"npm http fetch GET 200 https://registry.npmjs.org/p{i} 9ms" for i in range(30)
    )
    install = text_of(run("npm " + "--x " * 40 + "install", ok(f"{chatter}\nadded 30 packages")))
    assert install == "... [30 lines omitted] ...\nadded 30 packages"

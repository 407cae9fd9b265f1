"""Property tests: every reducer takes arbitrary text and args, never raises, is deterministic."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.reducers import (
    KanbanListReducer,
    ReadFileReducer,
    ReducerContext,
    TerminalReducer,
    format_spill_pointer,
    split_spill_pointer,
)
from toolwire.reducers._git_status import is_git_status_command
from toolwire.reducers._installs import is_install_command
from toolwire.results import Err, Ok, ToolResult, err, ok

REDUCERS = (TerminalReducer(), ReadFileReducer(), KanbanListReducer())

INTERESTING_LINES = [
    "On branch main",
    "Changes to be committed:",
    "Changes not staged for commit:",
    "Untracked files:",
    "\tmodified:   a.py",
    "\tboth modified:   b.py",
    " M a.py",
    "?? x",
    "## main...origin/main",
    "=================================== FAILURES ===================================",
    "=========================== short test summary info ============================",
    "==== 1 failed, 2 passed in 0.1s ====",
    "Traceback (most recent call last):",
    '  File "x.py", line 1, in <module>',
    "ValueError: bad",
    "E       assert 1 == 2",
    "FAIL: test_x (m.T)",
    "----------------------------------------------------------------------",
    "Ran 3 tests in 0.001s",
    "  ● suite › test",
    "Test Suites: 1 failed, 1 total",
    " Test Files  1 failed (1)",
    "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯",
    "--- FAIL: TestX (0.00s)",
    "panic: boom",
    "failures:",
    "test result: FAILED. 1 passed; 1 failed",
    "error[E0425]: cannot find value",
    "added 3 packages in 1s",
    "npm warn deprecated x",
    "Successfully installed a-1",
    "# /repo/f.py (3 lines)",
    "# /repo/f.py (lines 1-2 of 3)",
    format_spill_pointer("/tmp/spill.log", 123),
    "",
]

texts = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(INTERESTING_LINES), st.text(max_size=40)), max_size=80).map(
        "\n".join
    ),
    st.lists(st.sampled_from(INTERESTING_LINES), min_size=100, max_size=250).map("\n".join),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=20,
)
kanban_items = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "id": json_values,
            "title": json_values,
            "status": st.sampled_from(["todo", "done", "archived", "blocked"]) | json_values,
            "updated_at": st.one_of(
                json_values, st.datetimes().map(lambda d: d.isoformat()), st.integers()
            ),
        },
    )
    | json_values,
    max_size=30,
)
COMMANDS = [
    "git status", "git -C repo status -sb", "pytest -q", "python -m unittest", "npx jest",
    "pnpm vitest", "go test ./...", "cargo test", "npm test", "pip install x", "yarn install",
    "yarn", "npm i", "make",
]  # fmt: skip
args_strategy = st.one_of(
    st.dictionaries(st.text(max_size=12), json_values, max_size=4),
    st.fixed_dictionaries(
        {"command": st.one_of(st.text(max_size=40), st.sampled_from(COMMANDS))},
        optional={"start_line": json_values, "end_line": json_values},
    ),
)


def results(text: str) -> list[ToolResult]:
    return [ok(text), err(f"Command exited with code 1\n{text}"), err(text)]


def reduce_all(result: ToolResult, args: dict[str, Any]) -> list[ToolResult]:
    ctx = ReducerContext(args=args, turn_count=3)
    return [reducer.reduce(result, ctx) for reducer in REDUCERS]


@settings(max_examples=60, deadline=None)
@given(text=texts, args=args_strategy)
def test_reducers_never_raise_and_are_deterministic(text: str, args: dict[str, Any]) -> None:
    for result in results(text):
        first = reduce_all(result, args)
        second = reduce_all(result, args)
        assert first == second
        assert all(isinstance(reduced, Ok | Err) for reduced in first)


@settings(max_examples=60, deadline=None)
@given(items=kanban_items)
def test_kanban_reducer_takes_any_json_array(items: list[Any]) -> None:
    import json

    result = ok(json.dumps(items))
    ctx = ReducerContext(args={})
    assert KanbanListReducer().reduce(result, ctx) == KanbanListReducer().reduce(result, ctx)


@settings(max_examples=60, deadline=None)
@given(text=texts, command=st.sampled_from(COMMANDS))
def test_terminal_reduction_never_grows_the_text(text: str, command: str) -> None:
    ctx = ReducerContext(args={"command": command})
    for result in results(text):
        reduced = TerminalReducer().reduce(result, ctx)
        before = result.value if isinstance(result, Ok) else result.error
        after = reduced.value if isinstance(reduced, Ok) else reduced.error
        assert len(after) <= len(before)


@settings(max_examples=60, deadline=None)
@given(text=texts, command=st.sampled_from(COMMANDS), at=st.integers(min_value=0))
def test_a_single_spill_pointer_survives_exactly_once(text: str, command: str, at: int) -> None:
    body, _ = split_spill_pointer(text)
    lines = body.split("\n")
    pointer = format_spill_pointer("/w/.spill/s-1.log", 99999)
    lines.insert(at % (len(lines) + 1), pointer)
    spilled = "\n".join(lines)
    for result in results(spilled)[:2]:
        reduced = TerminalReducer().reduce(result, ReducerContext(args={"command": command}))
        after = reduced.value if isinstance(reduced, Ok) else reduced.error
        assert after.split("\n").count(pointer) == 1


GIT_OPTIONS = ["--x", "-p", "--no-pager", "--git-dir=/r/.git", "-C repo", "-c k=v", "--a-b-c"]
NPM_OPTIONS = ["--x", "-g", "--no-audit", "--prefix=/p", "--save-dev", "-D"]


@settings(max_examples=60, deadline=None)
@given(
    options=st.lists(st.sampled_from(GIT_OPTIONS), min_size=10, max_size=60),
    subcommand=st.sampled_from(["status", "log", "stat", "statusx", "diff", "status -sb"]),
)
def test_git_status_is_recognised_after_any_run_of_options(
    options: list[str], subcommand: str
) -> None:
    """Dozens of options, each splittable two ways by the old pattern: answered at once, right."""
    command = " ".join(["git", *options, subcommand])
    assert is_git_status_command(command) == (subcommand.split()[0] == "status")


@settings(max_examples=60, deadline=None)
@given(
    tool=st.sampled_from(["npm", "pnpm", "pip", "uv pip", "yarn"]),
    options=st.lists(st.sampled_from(NPM_OPTIONS), min_size=10, max_size=60),
    subcommand=st.sampled_from(["install", "i", "ci", "run build", "installx", "add x"]),
)
def test_installs_are_recognised_after_any_run_of_options(
    tool: str, options: list[str], subcommand: str
) -> None:
    command = " ".join([tool, *options, subcommand])
    verbs = {"npm": {"install", "i", "ci"}, "pnpm": {"install", "i"}}.get(tool, {"install"})
    assert is_install_command(command) == (subcommand in verbs)

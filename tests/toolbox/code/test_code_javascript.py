"""lint, typecheck and run_tests on real small JavaScript/TypeScript projects: eslint, tsc,
vitest and jest (pinned, installed by scripts/node-tools.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import call, code_registry, err_of, ok_of, write_tree

from toolwire.toolbox.code._failures import NO_CHECKER

pytestmark = pytest.mark.anyio

ESLINT_CONFIG = (
    "export default [{ files: ['**/*.js'], rules: "
    "{ 'no-unused-vars': 'error', 'prefer-const': 'warn', 'no-var': 'error' } }];\n"
)
TSCONFIG = (
    '{"compilerOptions": {"strict": true, "noEmit": true, "types": [], "target": "ES2022", '
    '"module": "ESNext", "moduleResolution": "Bundler", "skipLibCheck": true}, '
    '"include": ["src"], "exclude": ["src/**/*.test.ts"]}\n'
)
MATH = "export function add(a: number, b: number): number {\n  return a + b;\n}\n"
VITEST_FILE = (
    'import { describe, expect, test } from "vitest";\n'
    'import { add } from "./math";\n\n'
    'test("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n\n'
    'describe("group", () => {\n  test("fails", () => {\n'
    "    expect(add(1, 2)).toBe(4);\n  });\n});\n\n"
    'test.skip("later", () => {});\n'
)
JEST_FILE = (
    "const add = (a, b) => a + b;\n\n"
    'test("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n\n'
    'describe("group", () => {\n  test("fails", () => {\n'
    "    expect(add(1, 2)).toBe(4);\n  });\n});\n"
)


def js_project(root: Path, node_modules: Path, files: dict[str, str], script: str) -> Path:
    """A package with the pinned npm tools as its node_modules (a link to the shared ones)."""
    package = '{"name": "demo", "private": true, "type": "module", "scripts": {"test": "%s"}}'
    write_tree(root, {"package.json": package % script, **files})
    (root / "node_modules").symlink_to(node_modules, target_is_directory=True)
    return root


async def test_lint_reads_eslint_json_with_severities_and_fixability(
    tmp_path: Path, node_modules: Path
) -> None:
    source = "var x = 1;\nlet y = 2;\nexport const z = y;\n"
    root = js_project(
        tmp_path / "p",
        node_modules,
        {"eslint.config.js": ESLINT_CONFIG, "src/util.js": source},
        "vitest run",
    )
    result = ok_of(await call(code_registry([root]), root, "lint"))
    found = {
        (d["line"], d["column"], d["code"], d["severity"], d["fixable"])
        for d in result.structured["diagnostics"]
    }
    assert found == {
        (1, 1, "no-var", "error", True),
        (1, 5, "no-unused-vars", "error", False),
        (2, 5, "prefer-const", "warning", True),
    }
    assert result.value.splitlines()[0] == (
        "eslint: 3 problems (2 errors, 1 warning) in 1 file; 2 fixable with lint(fix=true)"
    )
    assert (root / "src/util.js").read_text() == source


async def test_lint_fix_applies_eslint_fixes_and_reports_them(
    tmp_path: Path, node_modules: Path
) -> None:
    root = js_project(
        tmp_path / "p",
        node_modules,
        {"eslint.config.js": ESLINT_CONFIG, "src/util.js": "let y = 2;\nexport const z = y;\n"},
        "vitest run",
    )
    result = ok_of(await call(code_registry([root]), root, "lint", fix=True))
    assert [d["code"] for d in result.structured["fixed"]] == ["prefer-const"]
    assert result.structured["changed_files"] == ["src/util.js"]
    assert result.structured["diagnostics"] == []
    assert (root / "src/util.js").read_text().startswith("const y = 2;")


async def test_a_package_without_eslint_configuration_has_no_linter(
    tmp_path: Path, node_modules: Path
) -> None:
    root = js_project(tmp_path / "p", node_modules, {"src/a.js": "export const a = 1;\n"}, "jest")
    error = err_of(await call(code_registry([root]), root, "lint"))
    assert error.reason == NO_CHECKER


async def test_typecheck_reads_tsc_errors(tmp_path: Path, node_modules: Path) -> None:
    broken = MATH + "export const s: string = 5;\nexport const n: number = add(1, '2');\n"
    root = js_project(
        tmp_path / "p",
        node_modules,
        {"tsconfig.json": TSCONFIG, "src/math.ts": broken, "src/ok.ts": "export const k = 1;\n"},
        "vitest run",
    )
    result = ok_of(await call(code_registry([root]), root, "typecheck"))
    found = [
        (d["file"], d["line"], d["column"], d["code"]) for d in result.structured["diagnostics"]
    ]
    assert found == [("src/math.ts", 4, 14, "TS2322"), ("src/math.ts", 5, 33, "TS2345")]
    assert all(
        d["tool"] == "tsc" and d["severity"] == "error" for d in result.structured["diagnostics"]
    )
    narrowed = ok_of(await call(code_registry([root]), root, "typecheck", path="src/ok.ts"))
    assert narrowed.structured["diagnostics"] == []
    assert narrowed.structured["runs"][0]["notes"] == [
        "tsc checked the whole project; 0 of 2 are in the path"
    ]


async def test_run_tests_with_vitest_reads_its_json_report(
    tmp_path: Path, node_modules: Path
) -> None:
    root = js_project(
        tmp_path / "p",
        node_modules,
        {"src/math.ts": MATH, "src/math.test.ts": VITEST_FILE},
        "vitest",
    )
    result = ok_of(await call(code_registry([root]), root, "run_tests"))
    tests = {t["name"]: t for t in result.structured["tests"]}
    assert {name: t["outcome"] for name, t in tests.items()} == {
        "adds": "passed",
        "group > fails": "failed",
        "later": "skipped",
    }
    failed = tests["group > fails"]
    assert failed["file"] == "src/math.test.ts"
    assert failed["line"] == 10
    assert "expected 3 to be 4" in failed["message"]
    assert failed["tool"] == "vitest"
    assert result.value.startswith("vitest: FAILED: 1 failed, 1 passed, 1 skipped (3 tests")
    selected = ok_of(await call(code_registry([root]), root, "run_tests", selector="adds"))
    outcomes = {t["name"]: t["outcome"] for t in selected.structured["tests"]}
    assert outcomes["adds"] == "passed"
    assert outcomes["group > fails"] == "skipped"
    assert selected.structured["passed"] is True


async def test_run_tests_with_jest_when_the_test_script_uses_it(
    tmp_path: Path, node_modules: Path
) -> None:
    root = js_project(tmp_path / "p", node_modules, {"sum.test.cjs": JEST_FILE}, "jest")
    (root / "package.json").write_text(
        '{"name": "j", "private": true, "scripts": {"test": "jest"}, '
        '"jest": {"testMatch": ["**/*.test.cjs"]}}'
    )
    result = ok_of(await call(code_registry([root]), root, "run_tests"))
    assert result.structured["runs"][0]["tool"] == "jest"
    tests = {t["name"]: t for t in result.structured["tests"]}
    assert tests["adds"]["outcome"] == "passed"
    assert tests["group > fails"]["outcome"] == "failed"
    assert "Expected: 4" in tests["group > fails"]["details"]
    assert "\x1b[" not in tests["group > fails"]["details"]


async def test_a_test_file_that_does_not_load_is_an_error_test(
    tmp_path: Path, node_modules: Path
) -> None:
    root = js_project(
        tmp_path / "p",
        node_modules,
        {"src/broken.test.ts": 'import { nothing } from "./missing";\nnothing();\n'},
        "vitest run",
    )
    result = ok_of(await call(code_registry([root]), root, "run_tests"))
    [broken] = result.structured["tests"]
    assert broken["outcome"] == "error"
    assert broken["name"] == "src/broken.test.ts"
    assert result.structured["passed"] is False


async def test_a_test_script_of_another_runner_runs_as_npm_test(tmp_path: Path) -> None:
    node_test = (
        'import test from "node:test";\nimport assert from "node:assert";\n\n'
        'test("adds", () => assert.strictEqual(1 + 2, 3));\n'
        'test("fails", () => assert.strictEqual(1 + 2, 4));\n'
    )
    root = write_tree(
        tmp_path / "p",
        {
            "package.json": (
                '{"name": "n", "private": true, "type": "module", '
                '"scripts": {"test": "node --test"}}'
            ),
            "math.test.js": node_test,
        },
    )
    result = ok_of(await call(code_registry([root]), root, "run_tests"))
    [run] = result.structured["runs"]
    assert (run["tool"], run["status"]) == ("npm test", "failed")
    assert run["notes"] == [
        "the test script's runner is neither vitest nor jest: no per-test results"
    ]
    assert "3 !== 4" in run["output"]  # the failure and the summary survive the reducer
    assert "# fail 1" in run["output"]
    assert result.structured["tests"] == []
    assert result.value.startswith("npm test: FAILED")

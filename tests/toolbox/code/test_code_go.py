"""lint, typecheck and run_tests on a real small Go module: go vet, go build and go test -json.

The last test runs them through the default process backend: in a bubblewrap sandbox where
the machine has one (Go lives under /usr, which every sandbox shows)."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import call, code_registry, ok_of, require_binary, write_tree

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.registry import ToolRegistry
from toolwire.toolbox.code import code_tools

pytestmark = pytest.mark.anyio

GO_MOD = "module example.com/demo\n\ngo 1.19\n"
DEMO = (
    'package demo\n\nimport "fmt"\n\n'
    "func Add(a, b int) int { return a + b }\n\n"
    'func Show() string { return fmt.Sprintf("%d", "x") }\n'
)
DEMO_TEST = (
    'package demo\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("bad")\n\t}\n}\n\n'
    'func TestFail(t *testing.T) { t.Errorf("want %d got %d", 4, Add(1, 2)) }\n\n'
    'func TestSkip(t *testing.T) { t.Skip("later") }\n\n'
    "func TestSub(t *testing.T) {\n"
    '\tt.Run("inner", func(t *testing.T) { t.Error("inner broke") })\n}\n'
)
SUB = 'package sub\n\nimport "testing"\n\nfunc TestHere(t *testing.T) { t.Error("sub broke") }\n'


@pytest.fixture
def module(tmp_path: Path) -> Path:
    require_binary("go")
    return write_tree(
        tmp_path / "mod",
        {"go.mod": GO_MOD, "demo.go": DEMO, "demo_test.go": DEMO_TEST, "sub/sub_test.go": SUB},
    )


async def test_lint_reads_go_vet_json(module: Path) -> None:
    result = ok_of(await call(code_registry([module]), module, "lint"))
    [finding] = result.structured["diagnostics"]
    assert (finding["file"], finding["line"], finding["column"]) == ("demo.go", 7, 29)
    assert finding["code"] == "printf"
    assert finding["tool"] == "go vet"
    assert "wrong type string" in finding["message"]


async def test_lint_fix_says_go_vet_has_no_fixes(module: Path) -> None:
    result = ok_of(await call(code_registry([module]), module, "lint", fix=True))
    assert result.structured["runs"][0]["notes"] == [
        "go vet has no automatic fixes: nothing was changed"
    ]
    assert (module / "demo.go").read_text() == DEMO


async def test_typecheck_reads_compile_errors(module: Path) -> None:
    write_tree(module, {"broken.go": 'package demo\n\nfunc Broken() int { return "s" }\n'})
    result = ok_of(await call(code_registry([module]), module, "typecheck"))
    [error] = result.structured["diagnostics"]
    assert (error["file"], error["line"], error["column"]) == ("broken.go", 3, 28)
    assert error["severity"] == "error"
    assert result.structured["clean"] is False


async def test_run_tests_reads_test2json_events(module: Path) -> None:
    write_tree(module, {"demo.go": DEMO.replace('"%d", "x"', '"%s", "x"')})
    result = ok_of(await call(code_registry([module]), module, "run_tests"))
    tests = {t["name"]: t for t in result.structured["tests"]}
    assert {name: t["outcome"] for name, t in tests.items()} == {
        "example.com/demo.TestAdd": "passed",
        "example.com/demo.TestFail": "failed",
        "example.com/demo.TestSkip": "skipped",
        "example.com/demo.TestSub": "failed",
        "example.com/demo.TestSub/inner": "failed",
        "example.com/demo/sub.TestHere": "failed",
    }
    fail = tests["example.com/demo.TestFail"]
    assert (fail["file"], fail["line"], fail["message"]) == ("demo_test.go", 11, "want 4 got 3")
    assert tests["example.com/demo.TestSub"]["message"] == "its subtest inner failed"
    assert tests["example.com/demo/sub.TestHere"]["file"] == "sub/sub_test.go"


async def test_run_tests_selector_and_path(module: Path) -> None:
    write_tree(module, {"demo.go": DEMO.replace('"%d", "x"', '"%s", "x"')})
    registry = code_registry([module])
    selected = ok_of(await call(registry, module, "run_tests", selector="TestAdd"))
    assert [t["name"] for t in selected.structured["tests"]] == ["example.com/demo.TestAdd"]
    assert selected.structured["passed"] is True
    sub = ok_of(await call(registry, module, "run_tests", path="sub"))
    assert [t["name"] for t in sub.structured["tests"]] == ["example.com/demo/sub.TestHere"]


async def test_a_package_that_does_not_build_is_build_failed(module: Path) -> None:
    registry = code_registry([module])
    alone = ok_of(await call(registry, module, "run_tests", path="demo.go"))
    assert alone.structured["runs"][0]["status"] == "build_failed"
    assert [d["file"] for d in alone.structured["diagnostics"]] == ["demo.go"]
    assert alone.value.startswith("go test: build failed (1 error); no test ran")
    beside = ok_of(await call(registry, module, "run_tests"))  # sub builds and fails
    assert beside.structured["runs"][0]["status"] == "failed"
    assert [d["file"] for d in beside.structured["diagnostics"]] == ["demo.go"]


async def test_the_tools_run_in_the_default_process_backend(module: Path) -> None:
    write_tree(module, {"demo.go": DEMO.replace('"%d", "x"', '"%s", "x"')})
    backends = CapabilityBackends(fs_read=(str(module),), fs_write=(str(module),))
    if not getattr(backends.processes, "sandboxed", False):
        pytest.skip("the default process backend does not sandbox on this machine")
    async with ToolRegistry(backends=backends) as registry:
        registry.register_all(code_tools())
        vetted = ok_of(await call(registry, module, "lint"))
        assert vetted.structured["clean"] is True
        tested = ok_of(await call(registry, module, "run_tests", selector="TestFail"))
        assert [t["outcome"] for t in tested.structured["tests"]] == ["failed"]

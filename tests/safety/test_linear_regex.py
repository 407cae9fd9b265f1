"""Linear-time patterns: every regex that meets untrusted text runs on RE2, and none backtracks.

Speed is never timed here (the machine is shared and noisy). Instead: no module that scans
untrusted text imports Python's backtracking ``re``; every pattern those modules compile is
registered and runs on RE2, whose matching time is linear in the text by construction; every
registered pattern completes on adversarial repetitions of its own matches (a backtracking
engine does not finish on the worst of them); and RE2 answers like Python's ``re`` on ordinary
text, so moving to it changed no behaviour. ``benchmarks/bench_regex.py`` reports the times.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import re
import string
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolwire.safety.linear_regex import LinearPattern, linear, registered_patterns

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "toolwire"
UNTRUSTED_TEXT_MODULES = sorted(
    [
        *(PACKAGE / "reducers").glob("*.py"),
        *(
            p
            for p in (PACKAGE / "safety").glob("*.py")
            if not p.name.lstrip("_").startswith("linear_")
        ),
        PACKAGE / "presenting.py",
    ]
)
BACKTRACKING_ENGINES = frozenset({"re", "regex", "sre_compile", "_sre"})


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")


for _path in UNTRUSTED_TEXT_MODULES:
    importlib.import_module(_module_name(_path))
PATTERNS = registered_patterns()
PYTHON_WHITESPACE = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())


def _imported_engines(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found & BACKTRACKING_ENGINES


@pytest.mark.parametrize("path", UNTRUSTED_TEXT_MODULES, ids=_module_name)
def test_modules_that_scan_untrusted_text_do_not_import_a_backtracking_engine(path: Path) -> None:
    engines = _imported_engines(path)
    assert not engines, f"{path.name} imports {engines}: compile patterns with linear()"


def test_every_registered_pattern_runs_on_re2() -> None:
    assert len(PATTERNS) > 50
    assert {pattern.engine for pattern in PATTERNS} == {"re2"}
    owners = {pattern.owner for pattern in PATTERNS}
    for module in (
        "toolwire.reducers._git_status",
        "toolwire.reducers._installs",
        "toolwire.reducers.test_runs",
        "toolwire.safety._redaction",
        "toolwire.safety.injection",
        "toolwire.safety._untrusted",
        "toolwire.safety._command_rules",
        "toolwire.presenting",
    ):
        assert module in owners


def test_the_registry_records_where_a_pattern_was_compiled() -> None:
    pattern = linear(r"x+y")
    assert pattern.owner == __name__
    assert pattern in registered_patterns()
    assert repr(pattern) == "LinearPattern('x+y')"


@pytest.mark.parametrize(
    "source",
    [r"(?<=a)b", r"(?<!a)b", r"a(?=b)", r"a(?!b)", r"(a)\1", r"(?P<q>a)(?P=q)", r"a{,3}"],
)
def test_constructs_a_linear_engine_cannot_run_are_refused(source: str) -> None:
    with pytest.raises(ValueError, match="linear"):
        linear(source)


def test_unsupported_flags_are_refused() -> None:
    with pytest.raises(ValueError, match="flags"):
        linear("a b", re.VERBOSE)


def test_flags_are_honoured() -> None:
    assert linear("abc", re.IGNORECASE).search("xABCx") is not None
    assert linear("^b$", re.MULTILINE).search("a\nb\nc") is not None
    assert linear("a.b", re.DOTALL).search("a\nb") is not None
    assert linear("a.b").search("a\nb") is None


def test_python_escapes_are_translated() -> None:
    assert linear(r"end\Z").search("the end") is not None
    assert linear(r"end\Z").search("the end\n") is None
    assert linear(r"\u2014").search("a \u2014 b") is not None
    assert linear(r"\U0001F600").search("smile \U0001f600") is not None


def test_whitespace_is_pythons_unicode_whitespace() -> None:
    space, non_space = linear(r"\s"), linear(r"\S")
    for char in PYTHON_WHITESPACE:
        assert space.fullmatch(char) is not None, hex(ord(char))
        assert non_space.fullmatch(char) is None, hex(ord(char))
    in_class = linear(r"[\sx]+")
    assert in_class.fullmatch("x\xa0\u3000x") is not None
    assert linear(r"[^\s]+").fullmatch("a\xa0b") is None
    assert linear(r"[\s\S]+").fullmatch("any\xa0thing\n") is not None


@settings(max_examples=200, deadline=None)
@given(char=st.characters())
def test_non_whitespace_characters_are_not_whitespace(char: str) -> None:
    assume(not char.isspace())
    assert linear(r"\s").fullmatch(char) is None
    assert linear(r"\S").fullmatch(char) is not None


def test_a_non_whitespace_class_that_cannot_be_expressed_is_refused() -> None:
    with pytest.raises(ValueError, match="linear"):
        linear(r"[^\S\n]")


def test_replacement_strings_are_literal() -> None:
    assert linear("a").sub(r"\1 and \n", "xay") == "x\\1 and \\ny"
    assert linear("a").sub("\u200b—é", "xay") == "x\u200b—éy"
    assert linear("a").subn(lambda m: m.group(0).upper(), "aba") == ("AbA", 2)
    assert linear("z").subn("q", "aba") == ("aba", 0)


def test_matches_report_groups_and_spans_in_characters() -> None:
    match = linear(r"(?P<word>é+)(\d)?").search("xxééé")
    assert match is not None
    assert match.group(0) == "ééé"
    assert match.group("word") == match["word"] == "ééé"
    assert match.groups() == ("ééé", None)
    assert match.groupdict() == {"word": "ééé"}
    assert (match.start(), match.end(), match.span(1)) == (2, 5, (2, 5))
    assert linear(r"\w+").findall("a bc") == ["a", "bc"]


def _python(pattern: LinearPattern) -> re.Pattern[str]:
    return re.compile(pattern.source, pattern.flags)


def _id(pattern: LinearPattern) -> str:
    return f"{pattern.owner.rsplit('.', 1)[-1]}:{pattern.source[:40]}"


ADVERSARIAL_SETTINGS = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


@pytest.mark.parametrize("pattern", PATTERNS, ids=_id)
@ADVERSARIAL_SETTINGS
@given(data=st.data())
def test_adversarial_repetitions_complete(pattern: LinearPattern, data: st.DataObject) -> None:
    """Repeat a slice of one of the pattern's own matches thousands of times, then fail.

    This is the shape of catastrophic backtracking (``git --x --x --x ... log`` against
    ``git(?:\\s+--?[\\w-]+)*\\s+status``): every repetition doubles a backtracking engine's
    paths, so the 4 KiB and 16 KiB texts below would never finish there.
    """
    sample = data.draw(st.from_regex(_python(pattern), fullmatch=True), label="sample")
    start = data.draw(st.integers(0, len(sample)), label="start")
    end = data.draw(st.integers(start, len(sample)), label="end")
    unit = sample[start:end] or sample or "a"
    ending = data.draw(st.sampled_from(["", "\x00", "!", "\n", " ", sample[:1]]), label="ending")
    for size in (4096, 16384):
        text = sample[:start] + unit * max(1, size // len(unit)) + ending
        spans = [match.span() for match in pattern.finditer(text)]
        assert all(a <= b <= c <= d for (a, b), (c, d) in itertools.pairwise(spans))
        assert pattern.subn("", text)[1] == len(spans)
        pattern.search(text)
        pattern.match(text)
        pattern.fullmatch(text)


# RE2's \w, \d and \b are ASCII: compare on text whose letters and digits are ASCII
PLAIN = st.characters(
    exclude_categories=["L", "N", "Cs"], include_characters=string.ascii_letters + string.digits
)


@pytest.mark.parametrize("pattern", PATTERNS, ids=_id)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_re2_answers_like_python_re_on_ordinary_text(
    pattern: LinearPattern, data: st.DataObject
) -> None:
    """Both engines agree on matches of the pattern embedded in other text (whose letters and
    digits are ASCII: ``\\b``, ``\\w`` and ``\\d`` are ASCII in RE2; and a non-multiline ``$`` does
    not match before a final newline in RE2, so texts ending in one are skipped)."""
    python = _python(pattern)
    sample = data.draw(st.from_regex(python, fullmatch=True, alphabet=PLAIN), label="sample")
    text = data.draw(st.text(PLAIN, max_size=8)) + sample + data.draw(st.text(PLAIN, max_size=8))
    assume(not text.endswith("\n") or pattern.flags & re.MULTILINE)
    expected = [(m.span(), m.groups()) for m in python.finditer(text)]
    actual = [(m.span(), m.groups()) for m in pattern.finditer(text)]
    assert actual == expected


def test_lone_surrogates_are_matched_like_any_other_character() -> None:
    # output decoded with errors="surrogateescape" carries them; UTF-8 (RE2's input) cannot
    text = "caf\udce9 token=ab12cd34 \ud800!"
    pattern = linear(r"(?P<key>\w+)=(\S+)")
    match = pattern.search(text)
    assert match is not None
    assert (match.group(0), match.group("key"), match.groups()) == (
        "token=ab12cd34",
        "token",
        ("token", "ab12cd34"),
    )
    assert linear(r".\Z").search(text).group(0) == "!"  # type: ignore[union-attr]
    assert linear(r"\S+").findall(text) == ["caf\udce9", "token=ab12cd34", "\ud800!"]
    assert linear(r"[^ ]+!").sub(lambda m: m.group(0).upper(), text) == text
    assert linear("!").sub("?", text) == text[:-1] + "?"

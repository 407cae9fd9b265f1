"""Docstring parsing: Google (fast path and griffe), NumPy and Sphinx."""

from __future__ import annotations

import inspect
import string

import griffe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.docstrings import ParsedDocstring, parse_docstring

GOOGLE = """Search the web.

    Longer text that the model reads too.

    Args:
        query (str): What to look for,
            continued on a second line.
        limit: How many results.

    Returns:
        The results.
    """

NUMPY = """Search the web.

Parameters
----------
query : str
    What to look for,
    continued on a second line.
limit : int
    How many results.

Returns
-------
list
    The results.
"""

SPHINX = """Search the web.

:param query: What to look for,
    continued on a second line.
:param limit: How many results.
:returns: The results.
"""

EXPECTED_PARAMS = {
    "query": "What to look for, continued on a second line.",
    "limit": "How many results.",
}


@pytest.mark.parametrize("doc", [None, ""])
def test_no_docstring_gives_nothing(doc: str | None) -> None:
    assert parse_docstring(doc) == ParsedDocstring()


def test_a_plain_summary_is_the_description() -> None:
    assert parse_docstring("Just a summary.") == ParsedDocstring(description="Just a summary.")


def test_google_style_gives_summary_and_parameters() -> None:
    parsed = parse_docstring(GOOGLE)
    assert parsed.description == "Search the web.\n\nLonger text that the model reads too."
    assert parsed.params == EXPECTED_PARAMS


def test_numpy_style_is_detected_and_parsed() -> None:
    parsed = parse_docstring(NUMPY)
    assert parsed.description == "Search the web."
    assert parsed.params == EXPECTED_PARAMS


def test_sphinx_style_is_detected_and_parsed() -> None:
    parsed = parse_docstring(SPHINX)
    assert parsed.description == "Search the web."
    assert parsed.params == EXPECTED_PARAMS


@pytest.mark.parametrize(
    ("doc", "style"), [(GOOGLE, "google"), (NUMPY, "numpy"), (SPHINX, "sphinx")]
)
def test_an_explicit_style_gives_the_same_answer(doc: str, style: str) -> None:
    assert parse_docstring(doc, style) == parse_docstring(doc)  # type: ignore[arg-type]


def test_sections_after_the_summary_are_not_part_of_the_description() -> None:
    parsed = parse_docstring("Do it.\n\nReturns:\n    Something.\n\nRaises:\n    ValueError: no.")
    assert parsed == ParsedDocstring(description="Do it.")


def test_a_note_before_args_is_not_part_of_the_description() -> None:
    doc = "Do it.\n\nNote:\n    Mind the gap.\n\nArgs:\n    x: The x.\n"
    assert parse_docstring(doc) == ParsedDocstring(description="Do it.", params={"x": "The x."})


def test_star_parameters_lose_their_stars() -> None:
    doc = "Do it.\n\nArgs:\n    *args: Positional.\n    **kwargs: Named.\n"
    assert parse_docstring(doc).params == {"args": "Positional.", "kwargs": "Named."}


def test_a_google_docstring_the_fast_path_cannot_read_goes_to_griffe() -> None:
    doc = "Do it.\n\nArgs:\n    x -- not the google item shape\n    y: The y.\n"
    text = inspect.cleandoc(doc)
    expected = griffe.Docstring(text, lineno=1).parse("google")
    parsed = parse_docstring(doc)
    names = [p.name for s in expected if s.kind.value == "parameters" for p in s.value]
    assert list(parsed.params) == names == ["y"]
    assert parsed == ParsedDocstring(description="Do it.", params={"y": "The y."})


def test_an_item_less_indented_than_the_first_goes_to_griffe() -> None:
    doc = "Do it.\n\nArgs:\n        a: First.\n    b: Second.\n"
    assert parse_docstring(doc) == _griffe(doc)


def test_arguments_and_parameters_headers_are_accepted() -> None:
    for header in ("Arguments", "Parameters", "Params"):
        assert parse_docstring(f"Do.\n\n{header}:\n    x: The x.\n").params == {"x": "The x."}


# -- the fast path agrees with griffe (property) -------------------------------------------

_IDENT = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=10).filter(
    lambda s: s.strip("_") != ""
)
_WORDS = st.lists(
    st.text(alphabet=string.ascii_letters + string.digits + ",.", min_size=1, max_size=8),
    min_size=1,
    max_size=6,
).map(" ".join)
_TYPES = st.sampled_from(["", " (int)", " (str)", " (list[str])", " (dict[str, int])"])


def _griffe(text: str) -> ParsedDocstring:
    sections = griffe.Docstring(inspect.cleandoc(text), lineno=1).parse("google")
    params: dict[str, str] = {}
    summary: list[str] = []
    for section in sections:
        if section.kind.value == "text" and not params:
            summary.append(str(section.value))
        elif section.kind.value == "parameters":
            params.update({p.name: " ".join(str(p.description).split()) for p in section.value})
    return ParsedDocstring(description="\n\n".join(summary).strip(), params=params)


@settings(max_examples=80, deadline=None)
@given(
    summary=_WORDS,
    params=st.dictionaries(_IDENT, st.tuples(_TYPES, _WORDS, st.none() | _WORDS), max_size=4),
    trailer=st.sampled_from(
        ["", "\nReturns:\n    The answer.\n", "\nRaises:\n    ValueError: x\n"]
    ),
)
def test_fast_google_parse_agrees_with_griffe(
    summary: str, params: dict[str, tuple[str, str, str | None]], trailer: str
) -> None:
    lines = [summary, ""]
    if params:
        lines.append("Args:")
        for name, (kind, first, more) in params.items():
            lines.append(f"    {name}{kind}: {first}")
            if more:
                lines.append(f"        {more}")
    doc = "\n".join(lines) + "\n" + trailer
    assert parse_docstring(doc, "google") == _griffe(doc)


def test_a_section_header_with_trailing_blanks_ends_the_summary() -> None:
    doc = "Do it.\n\nReturns:  \t\n    Something.\n"
    assert parse_docstring(doc) == ParsedDocstring(description="Do it.")


def test_a_header_word_inside_the_summary_does_not_end_it() -> None:
    doc = "Do it.\n\nReturns: the count, on this same line.\nMore summary.\n\nArgs:\n    x: X.\n"
    parsed = parse_docstring(doc)
    assert parsed.description == "Do it.\n\nReturns: the count, on this same line.\nMore summary."
    assert parsed.params == {"x": "X."}

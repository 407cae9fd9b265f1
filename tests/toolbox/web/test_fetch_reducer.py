"""The ``fetch_url`` reducer: link farms, images, tracking parameters and repeats go; the header,
the paging line and the page's own text stay."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.reducers import FetchUrlReducer, ReducerContext, default_reducers
from toolwire.reducers.fetch_url import reduce_page
from toolwire.results import Err, Ok

REDUCER = FetchUrlReducer()
CTX = ReducerContext()
HEADER = "URL: https://news.example/story (HTML as Markdown)"
FOOTER = (
    "[9,000 more characters (shown 0-1,000 of 10,000): call fetch_url with start_index=1000 "
    "to continue]"
)
MENU = "\n".join(
    f"- [{name}](/{name.lower()})" for name in ("Home", "World", "Sport", "Tech", "Jobs")
)
ARTICLE = (
    "The council voted to reopen the old ferry line after a decade.\n\n"
    "Residents had collected eleven thousand signatures in favour."
)


def page(body: str, *notes: str) -> Ok:
    return Ok("\n\n".join([HEADER, body, *notes]))


def test_a_menu_becomes_one_line_and_the_article_stays() -> None:
    reduced = REDUCER.reduce(page(f"{MENU}\n\n{ARTICLE}", FOOTER), CTX)
    assert isinstance(reduced, Ok)
    assert reduced.value == f"{HEADER}\n\n[5 links omitted]\n\n{ARTICLE}\n\n{FOOTER}"


def test_three_links_in_a_row_are_kept() -> None:
    links = "\n".join(MENU.split("\n")[:3])
    result = page(f"{links}\n\n{ARTICLE}")
    assert REDUCER.reduce(result, CTX) is result


def test_an_index_page_keeps_its_links() -> None:
    result = page(f"{MENU}\n\nIndex")
    assert REDUCER.reduce(result, CTX) is result


def test_images_become_their_alt_text() -> None:
    reduced = reduce_page(
        f"{ARTICLE}\n\n![A ferry at dawn](https://img.example/f.jpg)\n\n![](x.png)"
    )
    assert reduced == f"{ARTICLE}\n\n[image: A ferry at dawn]"


def test_tracking_parameters_are_cut_from_links() -> None:
    line = "Read [the vote](https://x.example/v?utm_source=a&utm_medium=b&id=7&fbclid=z) here."
    assert reduce_page(line) == "Read [the vote](https://x.example/v?id=7) here."
    assert reduce_page("[a](https://x.example/?gclid=1)") == "[a](https://x.example/)"


def test_repeated_lines_are_dropped_once_seen() -> None:
    banner = "Share this story with your friends and family"
    reduced = reduce_page(f"{banner}\n{ARTICLE}\n{banner}\nshort\nshort")
    assert reduced == f"{banner}\n{ARTICLE}\nshort\nshort"


def test_links_to_the_same_page_go() -> None:
    body = f"[Skip to main content](https://news.example/story#main)\n[Top](#top)\n{ARTICLE}"
    reduced = REDUCER.reduce(page(body), CTX)
    assert isinstance(reduced, Ok)
    assert reduced.value == f"{HEADER}\n\n{ARTICLE}"


def test_a_bare_url_linked_to_itself_goes_when_the_window_links_it_again() -> None:
    story = "https://news.example/2024/ferry"
    twice = f"[{story}]({story})\n\n## [Ferry line reopens]({story})"
    assert reduce_page(twice) == f"## [Ferry line reopens]({story})"
    once = f"[{story}]({story})"
    assert reduce_page(once) == once


def test_the_notes_are_kept_verbatim_after_the_content() -> None:
    cut = "[the response was cut at 1,000 bytes: the rest was not downloaded]"
    reduced = REDUCER.reduce(page(f"{MENU}\n\n{ARTICLE}", cut, FOOTER), CTX)
    assert isinstance(reduced, Ok)
    assert reduced.value.endswith(f"{ARTICLE}\n\n{cut}\n\n{FOOTER}")


def test_other_kinds_and_errors_are_left_alone() -> None:
    for label in ("HTML source", "text", "JSON", "PDF as text", "image"):
        result = Ok(f"URL: https://x.example/ ({label})\n\n{MENU}\n\n{ARTICLE}")
        assert REDUCER.reduce(result, CTX) is result
    error = Err(f"HTTP 404 from https://x.example/\n\n{MENU}")
    assert REDUCER.reduce(error, CTX) is error


def test_the_reducer_is_a_default() -> None:
    assert isinstance(default_reducers().get("fetch_url"), FetchUrlReducer)


_LINES = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.builds(
            lambda t, u: f"- [{t}]({u})",
            st.text("abc xyz", max_size=8),
            st.text("/a?=&", max_size=12),
        ),
        st.just("![alt](https://i.example/p.png?utm_source=x)"),
        st.just(""),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(_LINES)
def test_any_page_reduces_deterministically_without_growing(lines: list[str]) -> None:
    result = page("\n".join(lines), FOOTER)
    first = REDUCER.reduce(result, CTX)
    assert first == REDUCER.reduce(result, CTX)
    assert isinstance(first, Ok)
    assert first.value.startswith(HEADER + "\n")
    assert first.value.endswith(FOOTER)
    assert len(first.value) <= len(result.value) + 40

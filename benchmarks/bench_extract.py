"""HTML → Markdown for ``fetch_url``: the candidate extractors on real saved pages.

The corpus is the newspaper4k test set: 23 real news pages (CNN, Time, Wired, Fox, Cleveland,
Yonhap and others, in 12 languages and scripts) saved with their article text as newspaper4k's
maintainers checked it (``tests/data/html/X.html`` beside ``tests/data/txt/X.txt``). The pages
are copies of third-party sites whose licence is unclear, so they are not in this repository:
the set-up downloads the ``newspaper4k==0.9.6`` sdist from PyPI with pip into a cache directory
(``$TOOLWIRE_BENCH_CACHE``, else ``~/.cache/toolwire/bench``) once, and reads them from there.

For each candidate it prints characters before and after (the page's HTML, the Markdown out),
the median milliseconds per page, and how much of the main text is kept:

* **paragraph recall**: the share of the reference article's paragraphs (lines of 40+
  characters) found whole in the output, both normalised (case, whitespace, Markdown marks and
  link targets dropped) — the main text kept;
* **word precision**: the share of the output's words that are words of the reference article
  (a multiset; CJK and Thai count one word per character) — what is left of the chrome;
* **F1** of the two, and the pages where the candidate returned nothing.

Candidates whose library is not installed are listed as skipped. ``toolwire`` is the converter
``fetch_url`` ships (`toolwire.toolbox.web._html`), measured through its public function, alone
and followed by the ``fetch_url`` reducer (`toolwire.reducers.fetch_url.reduce_page`).

Run: ``python benchmarks/bench_extract.py`` (``--repeat N`` timings per page, ``--pages`` lists
the per-page figures).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tarfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

CORPUS_PACKAGE = "newspaper4k==0.9.6"
MIN_PARAGRAPH = 40
_WORD = re.compile(r"\w+")
_SPLIT_CHARS = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1000-\u109f]")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"[*_`#>|~\[\]]+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Page:
    name: str
    html: str
    reference: str


def cache_dir() -> Path:
    import os

    base = os.environ.get("TOOLWIRE_BENCH_CACHE") or str(Path.home() / ".cache/toolwire/bench")
    return Path(base)


def load_corpus() -> list[Page]:
    """The page/reference pairs, downloaded once into the cache (pip, from PyPI)."""
    folder = cache_dir() / "newspaper4k"
    if not (folder / "html").is_dir():
        download = cache_dir() / "sdist"
        download.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:"]
        subprocess.run([*pip, "--no-deps", CORPUS_PACKAGE, "-d", str(download)], check=True)
        archive = next(download.glob("newspaper4k-*.tar.gz"))
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts
                if member.isfile() and parts[1:4] in (
                    ("tests", "data", "html"),
                    ("tests", "data", "txt"),
                ):
                    target = folder / parts[3] / parts[-1]
                    target.parent.mkdir(exist_ok=True)
                    source = tar.extractfile(member)
                    assert source is not None
                    target.write_bytes(source.read())
    pages = []
    for text_file in sorted((folder / "txt").glob("*.txt")):
        html_file = folder / "html" / f"{text_file.stem}.html"
        if html_file.exists():
            html = html_file.read_bytes().decode("utf-8", errors="replace")
            pages.append(Page(text_file.stem, html, text_file.read_text(errors="replace")))
    return pages


def normalise(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _MARKS.sub(" ", text.replace("\\", ""))
    return _SPACE.sub(" ", text).strip().lower()


def words(text: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for word in _WORD.findall(normalise(text)):
        if _SPLIT_CHARS.search(word):
            found.update(word)
        else:
            found[word] += 1
    return found


def paragraph_recall(reference: str, output: str) -> float:
    paragraphs = [normalise(p) for p in reference.splitlines() if len(p.strip()) >= MIN_PARAGRAPH]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        paragraphs = [normalise(reference)]
    haystack = normalise(output)
    return sum(p in haystack for p in paragraphs) / len(paragraphs)


def word_precision(reference: str, output: str) -> float:
    out = words(output)
    total = sum(out.values())
    if total == 0:
        return 0.0
    return sum((out & words(reference)).values()) / total


# --- the candidates -------------------------------------------------------------------------


def _trafilatura(html: str) -> str:
    import trafilatura

    found = trafilatura.extract(
        html, output_format="markdown", include_links=True, include_tables=True, with_metadata=False
    )
    return found or ""


def _trafilatura_recall(html: str) -> str:
    import trafilatura

    found = trafilatura.extract(
        html, output_format="markdown", include_links=True, favor_recall=True
    )
    return found or ""


def _html_to_markdown(preset: str) -> Callable[[str], str]:
    def convert(html: str) -> str:
        import html_to_markdown as h2m

        options = h2m.ConversionOptions(
            preprocessing=h2m.PreprocessingOptions(preset=preset), extract_metadata=False
        )
        return h2m.convert(html, options).content or ""

    return convert


def _trafilatura_then_h2m(html: str) -> str:
    import html_to_markdown as h2m
    import trafilatura

    main = trafilatura.extract(html, output_format="html", include_links=True, include_tables=True)
    if not main:
        return ""
    return h2m.convert(main, h2m.ConversionOptions(extract_metadata=False)).content or ""


def _readability_then_h2m(html: str) -> str:
    import html_to_markdown as h2m
    from readability import Document  # readability-lxml

    main = Document(html).summary(html_partial=True)
    return h2m.convert(main, h2m.ConversionOptions(extract_metadata=False)).content or ""


def _markdownify(html: str) -> str:
    from markdownify import markdownify

    return str(markdownify(html))


def _toolwire(html: str) -> str:
    from toolwire.toolbox.web._html import html_to_markdown

    return html_to_markdown(html).text


def _toolwire_reduced(html: str) -> str:
    from toolwire.reducers.fetch_url import reduce_page
    from toolwire.toolbox.web._html import html_to_markdown

    return reduce_page(html_to_markdown(html).text)


CANDIDATES: dict[str, tuple[str, Callable[[str], str]]] = {
    "trafilatura (markdown)": ("trafilatura", _trafilatura),
    "trafilatura (favor_recall)": ("trafilatura", _trafilatura_recall),
    "html-to-markdown (standard)": ("html_to_markdown", _html_to_markdown("standard")),
    "html-to-markdown (aggressive)": ("html_to_markdown", _html_to_markdown("aggressive")),
    "trafilatura → html-to-markdown": ("trafilatura", _trafilatura_then_h2m),
    "readability-lxml → html-to-markdown": ("readability", _readability_then_h2m),
    "markdownify (whole page)": ("markdownify", _markdownify),
    "toolwire (fetch_url)": ("toolwire.toolbox.web._html", _toolwire),
    "toolwire (fetch_url) + its reducer": ("toolwire.toolbox.web._html", _toolwire_reduced),
}


def median_ms(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        action()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(samples)


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per page")
    parser.add_argument("--pages", action="store_true", help="print the per-page recall too")
    options = parser.parse_args()
    pages = load_corpus()
    chars_in = sum(len(p.html) for p in pages)
    print(
        f"{len(pages)} real pages ({chars_in:,} characters of HTML), references from "
        f"{CORPUS_PACKAGE}'s tests; median of {options.repeat} runs per page.\n"
    )
    print(
        "| candidate | chars out | out/in | ms/page (median) | paragraph recall | "
        "word precision | F1 | empty |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    per_page: dict[str, list[float]] = {}
    for label, (module, convert) in CANDIDATES.items():
        if not _installed(module):
            print(f"| {label} | skipped: `{module}` is not installed | | | | | | |")
            continue
        outputs, times = [], []
        for page in pages:
            outputs.append(convert(page.html))
            times.append(median_ms(lambda page=page, run=convert: run(page.html), options.repeat))
        recall = [paragraph_recall(p.reference, o) for p, o in zip(pages, outputs, strict=True)]
        precision = [word_precision(p.reference, o) for p, o in zip(pages, outputs, strict=True)]
        per_page[label] = recall
        r, pr = statistics.mean(recall), statistics.mean(precision)
        f1 = 2 * r * pr / (r + pr) if r + pr else 0.0
        out = sum(len(o) for o in outputs)
        empty = sum(not o.strip() for o in outputs)
        print(
            f"| {label} | {out:,} | {out / chars_in:.1%} | {statistics.median(times):.1f} | "
            f"{r:.1%} | {pr:.1%} | {f1:.1%} | {empty} |"
        )
    if options.pages:
        labels = list(per_page)
        print("\n| page | " + " | ".join(labels) + " |")
        print("| --- |" + " ---: |" * len(labels))
        for index, page in enumerate(pages):
            cells = " | ".join(f"{per_page[label][index]:.0%}" for label in labels)
            print(f"| {page.name} | {cells} |")


if __name__ == "__main__":
    main()

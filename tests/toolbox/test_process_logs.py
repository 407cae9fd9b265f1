"""RotatingLog: bounded files, nothing lost within the kept generations, lines kept whole."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.capabilities.kinds.process._process_logs import RotatingLog, line_matcher, tail_lines

chunks = st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\r", b"")), max_size=30)


def _generations(path: Path) -> list[bytes]:
    """The contents of every generation, oldest first."""
    older = []
    while Path(f"{path}.{len(older) + 1}").exists():
        older.append(Path(f"{path}.{len(older) + 1}").read_bytes())
    return [*reversed(older), path.read_bytes()]


@settings(max_examples=60, deadline=None)
@given(chunks, st.integers(min_value=8, max_value=400))
def test_generations_concatenate_to_the_input_when_none_is_dropped(
    parts: list[bytes], max_bytes: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.log"
        log = RotatingLog(str(path), max_bytes, backups=10_000)
        for part in parts:
            log.write(part)
        log.close()
        files = _generations(path)
        assert b"".join(files) == b"".join(parts)
        assert all(len(f) <= max_bytes for f in files)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc", max_size=20), max_size=60), st.integers(30, 200))
def test_lines_shorter_than_a_file_never_straddle_two_generations(
    lines: list[str], max_bytes: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.log"
        log = RotatingLog(str(path), max_bytes, backups=10_000)
        for line in lines:
            log.write(f"{line}\n".encode())
        log.close()
        for content in _generations(path):
            assert content == b"" or content.endswith(b"\n")


def test_only_the_configured_number_of_old_generations_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "out.log"
    log = RotatingLog(str(path), 10, backups=2)
    for n in range(20):
        log.write(f"line {n:03}\n".encode())
    log.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.log", "out.log.1", "out.log.2"]
    assert tail_lines(str(path), 5) == ["line 019"]


def test_line_matcher_takes_substrings_and_slash_delimited_regexes() -> None:
    assert line_matcher("a.c")("xa.cx")
    assert not line_matcher("a.c")("abc")
    assert line_matcher("/a.c/")("abc")

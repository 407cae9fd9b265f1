"""`toolwire.mcp.server.wire_json` answers as `json` does, with or without `orjson`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.mcp.server import wire_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too: orjson refuses those, json carries them
    | st.floats()  # NaN and infinities are written null
    | st.text()  # lone surrogates included
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _same(left: Any, right: Any) -> bool:
    return json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats as ``None`` (how both encoders' JSON reads back)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_encoding_parses_back_to_what_json_gives(value: Any) -> None:
    finite = _finite(value)
    try:
        expected = json.dumps(finite, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:  # a lone surrogate cannot be UTF-8
        with pytest.raises(UnicodeEncodeError):
            wire_json.dumps(finite)
        return
    assert _same(json.loads(wire_json.dumps(finite)), json.loads(expected))


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_parsing_gives_what_json_gives(value: Any) -> None:
    text = json.dumps(value)  # ASCII escapes: lone surrogates stay parseable; NaN literals
    parsed = wire_json.loads(text.encode())
    assert _same(parsed, json.loads(text))
    assert type(parsed) is type(json.loads(text))  # an integer stays an integer


@pytest.mark.parametrize(
    "document",
    [
        b"NaN",
        b"[Infinity, -Infinity]",
        b'"\\ud800"',
        b"123456789012345678901234567890",
        b'{"id": -9223372036854775809}',
        b'{"n": 9223372036854775807}',
    ],
)
def test_what_only_json_accepts_is_parsed_as_json_parses_it(document: bytes) -> None:
    got, expected = wire_json.loads(document), json.loads(document)
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected
        assert json.dumps(got) == json.dumps(expected)  # the same types too


@pytest.mark.parametrize("document", [b"", b"{", b'{"a":}', b"\xff", b"[1,]"])
def test_what_is_not_json_raises_json_s_error(document: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(document)
    with pytest.raises(json.JSONDecodeError if document != b"\xff" else ValueError):
        wire_json.loads(document)


def test_non_finite_floats_are_written_null() -> None:
    assert wire_json.dumps([math.inf, -math.inf, math.nan]) == b"[null,null,null]"


def test_values_json_cannot_carry_raise_type_error() -> None:
    with pytest.raises(TypeError):
        wire_json.dumps({"when": object()})
    assert json.loads(wire_json.dumps({1: "a"})) == {"1": "a"}  # as json does with int keys


def test_without_orjson_the_standard_library_answers() -> None:
    script = (
        "import sys; sys.modules['orjson'] = None\n"
        "from toolwire.mcp.server import wire_json\n"
        "assert wire_json.loads(b'{\"a\": [1, 2.5]}') == {'a': [1, 2.5]}\n"
        "assert wire_json.dumps({'a': 'é'}) == '{\"a\":\"é\"}'.encode()\n"
        "print(wire_json.loads.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "_json_loads"

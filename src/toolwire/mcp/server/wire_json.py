"""JSON for the MCP fast paths: `orjson` when it is installed, the standard library otherwise.

The fast paths parse every request body and encode every answer; `orjson` (in the ``mcp``
extra) does both several times faster than `json`, with the same values:

- Parsing: what `orjson` refuses and `json` accepts (``NaN``/``Infinity`` literals, lone
  surrogate escapes) goes to `json`, which gives its own value or error; so does a body with a
  run of 19 digits or more, since `orjson` reads an integer past 64 bits as a float (an
  argument ``12345678901234567890`` must stay that integer).
- Depth: a document nested deeper than `toolwire.mcp.server.json_depth.MAX_DEPTH` is refused with
  `ValueError`, as is one either parser gives up on (`orjson`'s depth limit, `json`'s
  `RecursionError`): the fast path then hands the body to the SDK, which answers ``-32700``.
- Encoding: compact UTF-8, not ASCII-escaped (`json` with ``ensure_ascii=False`` and no
  spaces). What `orjson` refuses (integers past 64 bits, non-string keys, lone surrogates) goes
  to `json`. A non-finite float is ``null``, as pydantic writes it on the SDK's path (`json`
  would write ``Infinity``, which is not JSON).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from toolwire.mcp.server.json_depth import MAX_DEPTH, too_deep

__all__ = ["dumps", "loads"]

_ENCODE: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_LONG_DIGITS: Final = re.compile(rb"\d{19}")
"""A number orjson might read as a float (int64 has 19 digits); json parses those bodies."""


def _json_loads(data: bytes) -> Any:
    try:
        return _bounded(data, json.loads(data))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _bounded(data: bytes, value: Any) -> Any:
    if too_deep(data, value):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def _json_dumps(value: Any) -> bytes:
    return _ENCODE(value).encode()


try:
    import orjson
except ImportError:  # pragma: no cover - the mcp extra installs it
    loads = _json_loads
    dumps = _json_dumps
else:

    def loads(data: bytes) -> Any:
        """Parse one JSON document as `json.loads` would, at most `MAX_DEPTH` levels deep.

        Raises:
            ValueError: ``data`` is not JSON (`json.JSONDecodeError`), or is nested too
                deeply.
        """
        if _LONG_DIGITS.search(data) is not None:
            return _json_loads(data)
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return _json_loads(data)  # json accepts it, or raises its own error
        return _bounded(data, value)

    def dumps(value: Any) -> bytes:
        """``value`` as compact UTF-8 JSON.

        Raises:
            TypeError: ``value`` holds something JSON cannot carry.
            UnicodeEncodeError: a string holds a lone surrogate.
        """
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:
            return _json_dumps(value)  # json encodes it, or raises its own error

"""Bytes → text for fetched bodies: the declared charset when it is real, else detection.

Order: a byte-order mark; the ``charset`` of the ``Content-Type`` header when Python knows it
and it decodes the body; for HTML, a ``<meta charset>`` (or ``http-equiv``) in the first 4 KiB;
then charset-normalizer's best guess; UTF-8 with replacement characters as the last resort. A
charset that is unknown (``charset=x-bogus``) or that does not decode the body is ignored, so a
page that lies about its encoding is still read.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from toolwire.safety.linear_regex import linear

__all__ = ["Decoded", "declared_charset", "decode_body", "looks_binary"]

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_HEADER_CHARSET = linear(r"""charset\s*=\s*["']?([A-Za-z0-9._:-]{1,40})""", re.IGNORECASE)
_META_CHARSET = linear(
    r"""<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9._:-]{1,40})""", re.IGNORECASE
)
_META_SCAN_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Decoded:
    """A decoded body and how it was decoded.

    Attributes:
        text: The body as text.
        encoding: The codec used (Python's name).
        source: ``bom``, ``header``, ``meta``, ``detected`` or ``fallback``.
    """

    text: str
    encoding: str
    source: str


def declared_charset(content_type: str) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` value, as written."""
    found = _HEADER_CHARSET.search(content_type)
    return found.group(1) if found else None


def looks_binary(body: bytes) -> bool:
    """True when the start of ``body`` holds NUL bytes or is mostly control characters."""
    head = body[:4096]
    if not head:
        return False
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls / len(head) > 0.1


def decode_body(body: bytes, content_type: str = "", *, html: bool = False) -> Decoded:
    """Decode ``body``, trusting a declared charset only when it is known and fits."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return Decoded(body.decode(name, errors="replace"), name, "bom")
    header = declared_charset(content_type)
    if header is not None and (text := _strict(body, header)) is not None:
        return Decoded(text, _codec_name(header), "header")
    if html:
        meta = _META_CHARSET.search(body[:_META_SCAN_BYTES].decode("ascii", errors="replace"))
        if meta is not None and (text := _strict(body, meta.group(1))) is not None:
            return Decoded(text, _codec_name(meta.group(1)), "meta")
    if (text := _strict(body, "utf-8")) is not None:
        return Decoded(text, "utf-8", "detected")
    guess = _detect(body)
    if guess is not None:
        return Decoded(body.decode(guess, errors="replace"), guess, "detected")
    return Decoded(body.decode("utf-8", errors="replace"), "utf-8", "fallback")


def _codec_name(label: str) -> str:
    try:
        return codecs.lookup(label).name
    except LookupError:
        return label


def _strict(body: bytes, label: str) -> str | None:
    try:
        codec = codecs.lookup(label)
    except LookupError:
        return None
    if codec.name in ("utf-16", "utf-32") or codec.name.startswith(("utf-16", "utf-32")):
        return None  # without a BOM these are guesses; detection does better
    try:
        return body.decode(codec.name)
    except UnicodeDecodeError:
        return None


def _detect(body: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(body[:65536]).best()
    return None if best is None else str(best.encoding)

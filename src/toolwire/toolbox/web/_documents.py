"""A fetched body → what ``fetch_url`` shows: Markdown, PDF text, pretty JSON, text, an image.

`convert_body` picks the converter from the ``Content-Type`` (and, when it is missing or
generic, from the body's first bytes), and runs in a worker thread: parsing is CPU work.
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from toolwire.toolbox.web._charsets import decode_body, looks_binary
from toolwire.toolbox.web._html import html_to_markdown

__all__ = ["Converted", "UnsupportedContent", "content_kind", "convert_body"]

Kind = Literal["html", "pdf", "json", "text", "image"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_JSON_SUFFIX = ("+json", "/json")
_TEXT_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class UnsupportedContent(ValueError):
    """The body is binary and not a PDF or an image (an archive, an executable, audio...)."""


@dataclass(frozen=True, slots=True)
class Converted:
    """A body ready to page.

    Attributes:
        kind: Which converter ran.
        text: What the model reads.
        title: The document's title, when it has one.
        details: Extra structured fields (``encoding``, ``pages``, ``image``, ...).
    """

    kind: Kind
    text: str
    title: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def content_kind(content_type: str, body: bytes) -> Kind | None:
    """The converter for a body, or ``None`` when it is binary of another kind."""
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime in _HTML_TYPES:
        return "html"
    if mime == "application/pdf":
        return "pdf"
    if mime.endswith(_JSON_SUFFIX):
        return "json"
    if mime.startswith("image/"):
        return "image"
    if mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith("+xml"):
        return "text"
    return _sniff(body)


def _sniff(body: bytes) -> Kind | None:
    if body.startswith(b"%PDF-"):
        return "pdf"
    if body.startswith(b"RIFF") and body[8:12] == b"WEBP":
        return "image"
    if any(body.startswith(magic) for magic, _ in _IMAGE_MAGIC):
        return "image"
    if looks_binary(body):
        return None
    head = body[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    if head.startswith((b"{", b"[")):
        return "json"
    return "text"


def convert_body(
    body: bytes,
    content_type: str,
    url: str,
    *,
    raw: bool = False,
    max_image_bytes: int = 2 * 1024 * 1024,
) -> Converted:
    """Convert a response body (blocking: run it in a worker thread).

    Args:
        body: The bytes read.
        content_type: The response's ``Content-Type`` (may be empty).
        url: The final URL (links are resolved against it).
        raw: Return HTML source and JSON as sent instead of Markdown and indented JSON.
        max_image_bytes: Images larger than this are described without their bytes.

    Raises:
        UnsupportedContent: the body is binary and neither a PDF nor an image.
    """
    kind = content_kind(content_type, body)
    if kind is None:
        mime = content_type.split(";", 1)[0].strip() or "no Content-Type"
        raise UnsupportedContent(
            f"{url} is binary ({mime}, {len(body):,} bytes): fetch_url reads HTML, PDF, JSON, "
            "text and images"
        )
    if kind == "pdf":
        return _pdf(body)
    if kind == "image":
        return _image(body, content_type, max_image_bytes)
    decoded = decode_body(body, content_type, html=kind == "html")
    details: dict[str, Any] = {"encoding": decoded.encoding, "encoding_source": decoded.source}
    if kind == "html" and not raw:
        page = html_to_markdown(decoded.text, base_url=url)
        details["extraction"] = page.method
        return Converted("html", page.text, page.title, details)
    if kind == "json" and not raw:
        try:
            parsed = json.loads(decoded.text)
        except ValueError:
            details["json_error"] = "not valid JSON; shown as text"
            return Converted("json", decoded.text, None, details)
        return Converted("json", json.dumps(parsed, indent=2, ensure_ascii=False), None, details)
    return Converted(kind, decoded.text, None, details)


def _pdf(body: bytes) -> Converted:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        title = reader.metadata.title if reader.metadata is not None else None
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnsupportedContent(f"the PDF cannot be read: {type(exc).__name__}: {exc}") from exc
    parts = [f"[page {n}]\n{text}" for n, text in enumerate(pages, 1) if text]
    text = "\n\n".join(parts) or "(the PDF has no extractable text: it may be scanned images)"
    clean_title = str(title).strip() if title else None
    return Converted("pdf", text, clean_title or None, {"pages": len(pages)})


def _image(body: bytes, content_type: str, max_image_bytes: int) -> Converted:
    mime = _image_mime(body) or content_type.split(";", 1)[0].strip().lower() or "image"
    size = _dimensions(body)
    shape = f", {size[0]}x{size[1]} px" if size else ""
    details: dict[str, Any] = {"mime_type": mime, "bytes": len(body)}
    if size:
        details["width"], details["height"] = size
    if len(body) > max_image_bytes:
        text = (
            f"Image: {mime}, {len(body):,} bytes{shape}. Too large to attach "
            f"(over {max_image_bytes:,} bytes)."
        )
        return Converted("image", text, None, details)
    details["image"] = {"mime_type": mime, "data": base64.b64encode(body).decode("ascii")}
    text = f"Image: {mime}, {len(body):,} bytes{shape}. Its bytes are attached (base64)."
    return Converted("image", text, None, details)


def _image_mime(body: bytes) -> str | None:
    for magic, mime in _IMAGE_MAGIC:
        if body.startswith(magic):
            return mime
    if body.startswith(b"RIFF") and body[8:12] == b"WEBP":
        return "image/webp"
    return None


def _dimensions(body: bytes) -> tuple[int, int] | None:
    if body.startswith(b"\x89PNG\r\n\x1a\n") and len(body) >= 24 and body[12:16] == b"IHDR":
        return int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
    if body.startswith((b"GIF87a", b"GIF89a")) and len(body) >= 10:
        return int.from_bytes(body[6:8], "little"), int.from_bytes(body[8:10], "little")
    return None

"""Audio and embedded resources in a tool's structured result, as MCP content blocks.

A tool answers with text (``Ok.value``) and, optionally, structured data (``Ok.structured``).
Beside ``structured["image"]`` (which the server already shows as an image block), these keys
become content blocks of their own in the ``tools/call`` result:

- ``"audio"``: ``{"mime_type": "audio/wav", "data": <base64>}`` → an ``audio`` block;
- ``"resource"`` (one) or ``"resources"`` (a list): ``{"uri": ..., "mime_type": ...,
  "text": ...}`` or with ``"blob"`` (base64) instead of ``"text"`` → an embedded ``resource``
  block each.

Anything malformed is left out (the structured data still carries it), never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["media_blocks"]


def media_blocks(structured: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The audio and embedded-resource blocks ``structured`` describes (in that order)."""
    blocks: list[dict[str, Any]] = []
    audio = _audio_block(structured.get("audio"))
    if audio is not None:
        blocks.append(audio)
    resources = structured.get("resources")
    listed = list(resources) if isinstance(resources, list) else []
    if "resource" in structured:
        listed.insert(0, structured["resource"])
    for item in listed:
        block = _resource_block(item)
        if block is not None:
            blocks.append(block)
    return blocks


def _audio_block(audio: object) -> dict[str, Any] | None:
    if not isinstance(audio, Mapping):
        return None
    mime, data = audio.get("mime_type"), audio.get("data")
    if not (isinstance(mime, str) and mime.startswith("audio/") and isinstance(data, str)):
        return None
    return {"type": "audio", "data": data, "mimeType": mime}


def _resource_block(resource: object) -> dict[str, Any] | None:
    if not isinstance(resource, Mapping):
        return None
    uri, mime = resource.get("uri"), resource.get("mime_type")
    text, blob = resource.get("text"), resource.get("blob")
    if not isinstance(uri, str) or not uri:
        return None
    contents: dict[str, Any] = {"uri": uri}
    if isinstance(mime, str):
        contents["mimeType"] = mime
    if isinstance(text, str):
        contents["text"] = text
    elif isinstance(blob, str):
        contents["blob"] = blob
    else:
        return None
    return {"type": "resource", "resource": contents}

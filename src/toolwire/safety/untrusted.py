"""Untrusted output: chat-template token stripping and the ``<untrusted ...>`` wrapper.

Text a tool fetched from the world (files, web pages, subprocess output, MCP servers) may try to
speak as the system or close the fence it is in. Before the model reads it:

1. every chat-template token (ChatML, Llama 3, Llama 2, Gemma, ``</s>``, a blank line followed
   by ``Human:``/``Assistant:``) becomes ``[STRIPPED-TEMPLATE-TOKEN]``;
2. ``<untrusted`` and ``</untrusted`` inside the text become ``&lt;untrusted`` /
   ``&lt;/untrusted`` so the text cannot close its own wrapper;
3. the text is wrapped: ``<untrusted source="<label>" tool="<tool>">\\n<text>\\n</untrusted>``.

Both steps are idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "STRIPPED_TEMPLATE_TOKEN",
    "TEMPLATE_TOKEN_PATTERNS",
    "StrippedText",
    "encode_attribute",
    "escape_untrusted_tags",
    "source_label",
    "strip_template_tokens",
    "wrap_untrusted",
]

STRIPPED_TEMPLATE_TOKEN = "[STRIPPED-TEMPLATE-TOKEN]"
"""What each chat-template token is replaced by."""

_I = re.IGNORECASE
TEMPLATE_TOKEN_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"<\|im_start\|>(?:system|user|assistant|tool)?", _I),
    re.compile(r"<\|im_end\|>", _I),
    re.compile(r"<\|im_sep\|>", _I),
    re.compile(r"<\|begin_of_text\|>", _I),
    re.compile(r"<\|eot_id\|>", _I),
    re.compile(r"<\|start_header_id\|>", _I),
    re.compile(r"<\|end_header_id\|>", _I),
    re.compile(r"<<SYS>>", _I),
    re.compile(r"<</SYS>>", _I),
    re.compile(r"\[INST\]", _I),
    re.compile(r"\[/INST\]", _I),
    re.compile(r"<start_of_turn>", _I),
    re.compile(r"<end_of_turn>", _I),
    re.compile(r"<bos>", _I),
    re.compile(r"<eos>", _I),
    re.compile(r"</s>", _I),
    re.compile(r"<s>", _I),
    # case-sensitive: a blank line, then a speaker label (the line breaks are kept)
    re.compile(r"(?P<breaks>\r?\n\r?\n)(?:Human|Assistant):"),
)
"""The chat-template tokens, in the order they are stripped."""

_UNTRUSTED_TAG = re.compile(r"<(?=/?untrusted)", _I)
_LINE_BREAKS = re.compile(r"[\r\n]+")
_MAX_ATTRIBUTE_CHARS = 256


@dataclass(frozen=True, kw_only=True, slots=True)
class StrippedText:
    """The outcome of `strip_template_tokens`.

    Attributes:
        text: The text with every token replaced by `STRIPPED_TEMPLATE_TOKEN`.
        count: How many tokens were replaced.
    """

    text: str
    count: int


def _replace_token(match: re.Match[str]) -> str:
    breaks = match.groupdict().get("breaks")
    return (breaks or "") + STRIPPED_TEMPLATE_TOKEN


def strip_template_tokens(text: str) -> StrippedText:
    """Replace every chat-template token by ``[STRIPPED-TEMPLATE-TOKEN]`` and count them.

    Idempotent: the placeholder matches no pattern, so stripping twice changes nothing more.
    """
    count = 0
    for pattern in TEMPLATE_TOKEN_PATTERNS:
        text, hits = pattern.subn(_replace_token, text)
        count += hits
    return StrippedText(text=text, count=count)


def escape_untrusted_tags(text: str) -> str:
    """Turn ``<untrusted`` and ``</untrusted`` (any case) into ``&lt;untrusted`` and so on."""
    return _UNTRUSTED_TAG.sub("&lt;", text)


def encode_attribute(value: str) -> str:
    """Make ``value`` safe inside a double-quoted attribute.

    Runs of CR/LF become one space, ``<`` and ``>`` are removed, ``"`` becomes ``'``, and the
    result is cut to 256 characters.
    """
    value = _LINE_BREAKS.sub(" ", value)
    value = value.replace("<", "").replace(">", "").replace('"', "'")
    return value[:_MAX_ATTRIBUTE_CHARS]


def source_label(tool_name: str, args: Mapping[str, Any] | None) -> str:
    """Where a result came from, for the wrapper's ``source`` attribute.

    ``path`` → ``file:<path>`` for ``read_file`` and the bare path for other tools; else
    ``url``; else ``cmd:<command>``; else ``query:<query>``; else ``unknown``. Only non-empty
    string arguments count.
    """
    if not isinstance(args, Mapping):
        return "unknown"

    def text(key: str) -> str | None:
        value = args.get(key)
        return value if isinstance(value, str) and value else None

    if (path := text("path")) is not None:
        return f"file:{path}" if tool_name == "read_file" else path
    if (url := text("url")) is not None:
        return url
    if (command := text("command")) is not None:
        return f"cmd:{command}"
    if (query := text("query")) is not None:
        return f"query:{query}"
    return "unknown"


def wrap_untrusted(text: str, *, source: str, tool: str) -> str:
    """Escape inner wrapper tags and wrap ``text`` in ``<untrusted source=.. tool=..>``.

    Token stripping is a separate step (`strip_template_tokens`); the presenter runs it first.
    An empty ``source`` becomes ``unknown``.
    """
    source_attr = encode_attribute(source) or "unknown"
    tool_attr = encode_attribute(tool)
    body = escape_untrusted_tags(text)
    return f'<untrusted source="{source_attr}" tool="{tool_attr}">\n{body}\n</untrusted>'

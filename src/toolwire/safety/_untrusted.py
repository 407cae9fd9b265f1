"""Untrusted output: chat-template token stripping and the ``<untrusted ...>`` wrapper.

Text a tool fetched from the world (files, web pages, subprocess output, MCP servers) may try to
speak as the system or close the fence it is in. Before the model reads it:

1. every chat-template token of today's model families (the table in
   `toolwire.safety.template_tokens`: ChatML, Llama 2-4, Mistral, Gemma, Phi, DeepSeek,
   gpt-oss, Command R, Granite, ...; and a blank line followed by ``Human:``/``Assistant:``)
   becomes ``[STRIPPED-TEMPLATE-TOKEN]``;
2. ``<untrusted`` and ``</untrusted`` inside the text become ``&lt;untrusted`` /
   ``&lt;/untrusted`` so the text cannot close its own wrapper;
3. the text is wrapped: ``<untrusted source="<label>" tool="<tool>">\\n<text>\\n</untrusted>``.

Both steps are idempotent. The presenter redacts secrets in the ``source`` label as it does in
the text, before the label is encoded and cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.safety.linear_regex import linear
from toolwire.safety.template_tokens import (
    STRIPPED_TEMPLATE_TOKEN,
    TEMPLATE_TOKENS,
    StrippedText,
    TemplateToken,
    strip_template_tokens,
)

__all__ = [
    "STRIPPED_TEMPLATE_TOKEN",
    "TEMPLATE_TOKENS",
    "StrippedText",
    "TemplateToken",
    "encode_attribute",
    "escape_untrusted_tags",
    "source_label",
    "strip_template_tokens",
    "wrap_untrusted",
]

_UNTRUSTED_TAG = linear(r"(?i)<(/?untrusted)")
_LINE_BREAKS = linear(r"[\r\n]+")
_MAX_ATTRIBUTE_CHARS = 256
_NAMED_BY: dict[str, str] = {
    "task": "description",
    "lint": "path",
    "typecheck": "path",
    "run_tests": "path",
}
"""Built-in tools labelled ``<tool>:<argument>`` (the sub-agent's task, the checked path)."""


def escape_untrusted_tags(text: str) -> str:
    """Turn ``<untrusted`` and ``</untrusted`` (any case) into ``&lt;untrusted`` and so on."""
    return _UNTRUSTED_TAG.sub(lambda tag: "&lt;" + tag.group(1), text)


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
    string arguments count. A bridged MCP tool (``mcp__<server>__<tool>``) is labelled
    ``mcp:<server>``, followed by what its arguments name, if anything. ``task`` is
    ``task:<description>``; ``lint``, ``typecheck`` and ``run_tests`` are ``<tool>:<path>``
    (``<tool>:.`` for the project of the working directory).
    """
    if tool_name.startswith("mcp__") and "__" in tool_name[5:]:
        server = tool_name[5:].split("__", 1)[0]
        detail = source_label("", args)
        return f"mcp:{server}" + (f" {detail}" if detail != "unknown" else "")
    if not isinstance(args, Mapping):
        return "unknown"

    def text(key: str) -> str | None:
        value = args.get(key)
        return value if isinstance(value, str) and value else None

    if tool_name in _NAMED_BY:
        return f"{tool_name}:{text(_NAMED_BY[tool_name]) or '.'}"
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

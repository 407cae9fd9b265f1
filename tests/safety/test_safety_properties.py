"""Property tests: every safety function takes arbitrary text, never raises, is deterministic."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.safety._redaction import redact_secrets
from toolwire.safety._untrusted import (
    STRIPPED_TEMPLATE_TOKEN,
    TEMPLATE_TOKENS,
    encode_attribute,
    escape_untrusted_tags,
    source_label,
    strip_template_tokens,
    wrap_untrusted,
)
from toolwire.safety.command_guard import check_command
from toolwire.safety.injection import scan_for_injection

FRAGMENTS = [
    "<|im_start|>", "<|im_end|>", "system", "<<SYS>>", "<</SYS>>", "[INST]", "[/INST]", "<s>",
    "</s>", "<bos>", "<eos>", "<start_of_turn>", "\n\nHuman:", "\r\n\r\nAssistant:", "<", ">",
    "|", "[", "]", "/", "\n", "untrusted", "</untrusted>", STRIPPED_TEMPLATE_TOKEN,
    "ignore previous instructions", "\u202e", "\u200b",
    *(row.token for row in TEMPLATE_TOKENS), "<｜", "｜>", "▁", "_", "[|", "|]",
]  # fmt: skip
SHELL_FRAGMENTS = [
    "rm", "-rf", "~", "/", "&&", "||", ";", "|", "&", "$(", ")", "`", "'", '"', "bash -c",
    "sudo", "> /dev/sda", "2>&1", "eval", "\n", "chmod", "4755", "dd", "of=/dev/sda", "find",
    "-delete", "/etc/shadow", "(", "{", "}", "\\", "#", "$HOME",
]  # fmt: skip

texts = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5)), max_size=40).map("".join),
)
commands = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(SHELL_FRAGMENTS), max_size=30).map(" ".join),
    st.lists(st.sampled_from(SHELL_FRAGMENTS), max_size=30).map("".join),
)


@settings(max_examples=80, deadline=None)
@given(text=texts)
def test_token_stripping_is_idempotent(text: str) -> None:
    once = strip_template_tokens(text)
    twice = strip_template_tokens(once.text)
    assert twice.text == once.text
    assert twice.count == 0
    assert strip_template_tokens(text) == once


@settings(max_examples=100, deadline=None)
@given(text=texts)
def test_stripped_text_trips_no_template_token_rule(text: str) -> None:
    stripped = strip_template_tokens(text).text
    assert "template-token" not in [hit.rule for hit in scan_for_injection(stripped)]


@settings(max_examples=100, deadline=None)
@given(text=texts, source=st.text(), tool=st.text())
def test_wrapping_yields_exactly_one_closing_tag(text: str, source: str, tool: str) -> None:
    wrapped = wrap_untrusted(text, source=source, tool=tool)
    assert wrapped.lower().count("</untrusted") == 1
    assert wrapped.endswith("\n</untrusted>")
    assert wrap_untrusted(text, source=source, tool=tool) == wrapped
    assert escape_untrusted_tags(escape_untrusted_tags(text)) == escape_untrusted_tags(text)


@settings(max_examples=100, deadline=None)
@given(value=st.text())
def test_encoded_attributes_cannot_break_out(value: str) -> None:
    encoded = encode_attribute(value)
    assert not set(encoded) & {'"', "<", ">", "\r", "\n"}
    assert len(encoded) <= 256


@settings(max_examples=100, deadline=None)
@given(
    tool=st.text(max_size=10),
    args=st.one_of(
        st.none(), st.dictionaries(st.text(max_size=8), st.one_of(st.text(), st.integers()))
    ),
)
def test_source_label_never_raises(tool: str, args: dict[str, object] | None) -> None:
    assert source_label(tool, args) == source_label(tool, args)


@settings(max_examples=80, deadline=None)
@given(text=texts, values=st.lists(st.text(max_size=12), max_size=3))
def test_redaction_never_raises_and_is_deterministic(text: str, values: list[str]) -> None:
    first = redact_secrets(text, secret_values=values)
    assert redact_secrets(text, secret_values=values) == first
    assert first.count >= len(first.kinds)


@settings(max_examples=80, deadline=None)
@given(text=texts)
def test_redacting_known_formats_is_idempotent(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once.text).text == once.text


@settings(max_examples=80, deadline=None)
@given(text=texts)
def test_injection_scan_never_raises_and_is_deterministic(text: str) -> None:
    assert scan_for_injection(text) == scan_for_injection(text)


@settings(max_examples=100, deadline=None)
@given(command=commands)
def test_command_guard_never_raises_and_is_deterministic(command: str) -> None:
    assert check_command(command) == check_command(command)


@settings(max_examples=100, deadline=None)
@given(prefix=commands)
def test_appending_a_catastrophic_segment_is_always_caught(prefix: str) -> None:
    # whatever came before, a new line that runs rm -rf ~ is a separate command (the blank
    # line first: a prefix ending in a backslash continues onto the next line, as in bash)
    assert check_command(f"{prefix}\n\nrm -rf ~") is not None

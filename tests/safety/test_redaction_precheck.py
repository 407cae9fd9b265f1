"""Redaction's one-scan precheck (`_ANY_SECRET`) matches exactly where some secret pattern
does, so skipping the per-pattern scans when it does not match never lets a secret through."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.safety._redaction import _ANY_SECRET, SECRET_PATTERNS, redact_secrets

FRAGMENTS = [
    "sk-",
    "sk-ant-",
    "sk-proj-",
    "ghp_",
    "github_pat_",
    "gho_",
    "AKIA",
    "xoxb-",
    "AIza",
    "sk_live_",
    "rk_test_",
    "tw_0123456789ab_",
    "eyJ",
    ".eyJ",
    "Bearer ",
    "bearer\t",
    "password",
    "API_KEY",
    "client_secret",
    "pwd",
    "=",
    ": ",
    '"',
    "'",
    "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "[REDACTED:jwt]",
    " ",
    "\n",
    ",",
    ";",
]
TEXT = st.lists(
    st.sampled_from(FRAGMENTS)
    | st.text(alphabet="abcdefABCDEF0123456789_-.", min_size=1, max_size=40)
    | st.text(max_size=5),
    max_size=12,
).map("".join)


def test_every_pattern_is_in_the_precheck() -> None:
    assert _ANY_SECRET is not None
    for secret in SECRET_PATTERNS:
        assert secret.pattern.flags == 0


@settings(max_examples=1500)
@given(TEXT)
def test_the_precheck_matches_exactly_where_a_pattern_does(text: str) -> None:
    assert _ANY_SECRET is not None
    some_pattern = any(s.pattern.search(text) is not None for s in SECRET_PATTERNS)
    assert (_ANY_SECRET.search(text) is not None) == some_pattern
    if not some_pattern:
        assert redact_secrets(text).text == text


def test_known_secrets_still_redacted() -> None:
    for text, kind in (
        ("token: ghp_" + "a1" * 18, "github-pat"),
        ('password = "hunter2hunter2"', "generic-secret"),
        ("Authorization: Bearer abcdefghijklmnop1234", "bearer-token"),
    ):
        assert f"[REDACTED:{kind}]" in redact_secrets(text).text
    assert redact_secrets("5").count == 0

"""Secret redaction: known formats and registered values become [REDACTED:<kind>]."""

from __future__ import annotations

import pytest

from toolwire.safety._redaction import redact_secrets

# Built at run time so no scanner mistakes the fixtures for real credentials.
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
ANTHROPIC = "sk-ant-api03-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2j"
GITHUB_PAT = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_FINE = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SLACK = "xoxb-" + "123456789012-abcdefABCDEF"
GOOGLE = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N"


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        (OPENAI, "openai-key"),
        (ANTHROPIC, "anthropic-key"),
        (GITHUB_PAT, "github-pat"),
        (GITHUB_FINE, "github-pat"),
        (AWS, "aws-key"),
        (SLACK, "slack-token"),
        (GOOGLE, "google-api-key"),
        (STRIPE, "stripe-key"),
        (JWT, "jwt"),
    ],
)
def test_known_key_formats_are_replaced_by_their_kind(secret: str, kind: str) -> None:
    redaction = redact_secrets(f"value: {secret} end")
    assert redaction.text == f"value: [REDACTED:{kind}] end"
    assert redaction.count == 1
    assert redaction.kinds == (kind,)


def test_private_key_block_is_replaced_whole() -> None:
    block = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    redaction = redact_secrets(f"before\n{block}\nafter")
    assert redaction.text == "before\n[REDACTED:private-key]\nafter"


def test_bearer_token_keeps_the_scheme() -> None:
    out = redact_secrets("Authorization: Bearer abcdefghijklmnop1234").text
    assert out == "Authorization: Bearer [REDACTED:bearer-token]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DB_PASSWORD=s3cretpass", "DB_PASSWORD=[REDACTED:generic-secret]"),
        ('password = "hunter2hunter"', 'password = "[REDACTED:generic-secret]"'),
        ('{"api_key": "abcd1234efgh"}', '{"api_key": "[REDACTED:generic-secret]"}'),
        ("client_secret: 9f8e7d6c5b4a", "client_secret: [REDACTED:generic-secret]"),
    ],
)
def test_secret_assignments_redact_only_the_value(text: str, expected: str) -> None:
    assert redact_secrets(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "token = self.token",
        "api_key: Optional[str] = None",
        "max_tokens=100000000",
        "the secret is out",
        "password: str",
        "cat /etc/passwords.json",
    ],
)
def test_code_and_prose_look_alikes_are_left_alone(text: str) -> None:
    redaction = redact_secrets(text)
    assert redaction.text == text
    assert redaction.count == 0


def test_registered_secret_values_are_replaced_everywhere() -> None:
    redaction = redact_secrets("a=correct-horse b=correct-horse", secret_values=["correct-horse"])
    assert redaction.text == "a=[REDACTED:registered-secret] b=[REDACTED:registered-secret]"
    assert redaction.count == 2


def test_longer_registered_values_win_over_their_prefixes() -> None:
    out = redact_secrets("key=abcdefgh-xyz", secret_values=["abcdefgh", "abcdefgh-xyz"]).text
    assert out == "key=[REDACTED:registered-secret]"


def test_registered_values_shorter_than_six_characters_are_ignored() -> None:
    assert redact_secrets("abc abc", secret_values=["abc", ""]).text == "abc abc"


def test_redaction_counts_every_hit_and_lists_kinds_once() -> None:
    redaction = redact_secrets(f"{AWS} {AWS} {GITHUB_PAT}")
    assert redaction.count == 3
    assert redaction.kinds == ("github-pat", "aws-key")


def test_redacting_twice_changes_nothing_more() -> None:
    once = redact_secrets(f"GITHUB_TOKEN={GITHUB_PAT} password='hunter2hunter' {JWT}")
    twice = redact_secrets(once.text)
    assert twice.text == once.text
    assert twice.count == 0


def test_clean_text_has_no_redactions() -> None:
    redaction = redact_secrets("nothing to see here\n")
    assert (redaction.text, redaction.count, redaction.kinds) == ("nothing to see here\n", 0, ())

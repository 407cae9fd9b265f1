"""Secret redaction: known key formats and registered secret values → ``[REDACTED:<kind>]``.

Tool output is scanned before the model reads it. Known formats (OpenAI, Anthropic, GitHub,
AWS, Slack, Google, Stripe keys, toolwire's own bearer tokens, private-key blocks, JWTs,
bearer tokens, ``password=...``-style assignments) and every secret value the integrator
registers are replaced by a tag naming the kind, such as ``[REDACTED:github-pat]``. Registered
values shorter than 6 characters are ignored: replacing every ``abc`` would shred the text and
reveal the value by its gaps.

The ``key = value`` rule is tuned for code and logs: a value is redacted when it is quoted, or
when it is at least 8 characters mixing letters and digits (``token = self.token`` and
``api_key: Optional[str]`` are left alone; ``API_KEY=ab12cd34ef`` is not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolwire.safety.linear_regex import LinearMatch, LinearPattern, linear

__all__ = [
    "MIN_REGISTERED_SECRET_CHARS",
    "SECRET_PATTERNS",
    "Redaction",
    "SecretPattern",
    "redact_secrets",
]

MIN_REGISTERED_SECRET_CHARS = 6
"""Registered secret values shorter than this are not redacted."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SecretPattern:
    """One known secret format.

    Attributes:
        kind: The tag in ``[REDACTED:<kind>]``.
        pattern: Matches the secret; when it has a group named ``secret`` only that group is
            replaced (the ``password=`` before it stays).
        accept: When given, a match whose secret it rejects is left as it is (conditions a
            linear pattern cannot state: "mixes letters and digits").
    """

    kind: str
    pattern: LinearPattern
    accept: Callable[[str], bool] | None = None


def _p(kind: str, regex: str, accept: Callable[[str], bool] | None = None) -> SecretPattern:
    return SecretPattern(kind=kind, pattern=linear(regex), accept=accept)


def _not_a_tag(secret: str) -> bool:
    return not secret.startswith("[REDACTED:")


def _letters_and_digits(secret: str) -> bool:
    return any(c.isdigit() for c in secret) and any(c.isascii() and c.isalpha() for c in secret)


_KEY_NAME = (
    r"[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passphrase|pwd"
    r"|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_.-]*"
)

# A key name then ``=``/``:``. A match starts at the first character of the name's run (the
# search is leftmost), so no lookbehind is needed to keep it from starting mid-word.
_ASSIGNED = rf"{_KEY_NAME}[\"']?\s*[:=]\s*"

SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    _p("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    _p("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    _p("github-pat", r"\bgithub_pat_[A-Za-z0-9_]{22,}|\bghp_[A-Za-z0-9]{36,}"),
    _p("github-token", r"\bgh[ousr]_[A-Za-z0-9]{36,}"),
    _p("aws-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    _p("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _p("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    _p("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    _p("toolwire-token", r"\btw_[0-9a-f]{12}_[A-Za-z0-9_-]{43}"),  # `toolwire token create`
    _p("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _p("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{16,})"),
    # quoted: the same quote on both sides (one pattern per quote: RE2 has no backreferences)
    _p("generic-secret", rf"(?i){_ASSIGNED}\"(?P<secret>[^\"'\s]{{8,}})\"", _not_a_tag),
    _p("generic-secret", rf"(?i){_ASSIGNED}'(?P<secret>[^\"'\s]{{8,}})'", _not_a_tag),
    # bare: 8+ characters mixing letters and digits, then the end, a blank, "," or ";"
    _p(
        "generic-secret",
        rf"(?i){_ASSIGNED}(?P<secret>[A-Za-z0-9_\-+/=.~!@#$%^&*]{{8,}})(?:[\s,;]|\Z)",
        _letters_and_digits,
    ),
)
"""Known formats, most specific first."""


def _any_secret(patterns: tuple[SecretPattern, ...]) -> LinearPattern | None:
    """One pattern matching wherever any of ``patterns`` would (their alternation), so text
    without a secret is scanned once instead of once per pattern; ``None`` if one of them was
    compiled with flags (only inline ones can be scoped to an alternative)."""
    parts = []
    for secret in patterns:
        if secret.pattern.flags:
            return None
        source = secret.pattern.source.replace("(?P<secret>", "(?:")
        if source.startswith("(?i)"):
            source = f"(?i:{source[4:]})"
        parts.append(f"(?:{source})")
    return linear("|".join(parts))


_ANY_SECRET = _any_secret(SECRET_PATTERNS)


@dataclass(frozen=True, kw_only=True, slots=True)
class Redaction:
    """The outcome of `redact_secrets`.

    Attributes:
        text: The text with every secret replaced.
        count: How many secrets were replaced.
        kinds: The kinds found, in first-seen order, without repeats.
    """

    text: str
    count: int
    kinds: tuple[str, ...]


def redact_secrets(text: str, *, secret_values: Iterable[str] = ()) -> Redaction:
    """Replace known secret formats and the given values by ``[REDACTED:<kind>]``.

    Registered values are replaced first (longest first, tagged ``registered-secret``), then the
    known formats in `SECRET_PATTERNS` order. Redacting the known formats is idempotent: the
    tags match none of them.

    Args:
        text: Tool output.
        secret_values: Secret values the integrator knows about (API keys in use, passwords).

    Returns:
        The redacted text, the number of replacements and the kinds found.
    """
    count = 0
    kinds: list[str] = []

    def found(kind: str, hits: int) -> None:
        nonlocal count
        if hits:
            count += hits
            if kind not in kinds:
                kinds.append(kind)

    values = sorted(
        {value for value in secret_values if _redactable(value)},
        key=lambda value: (-len(value), value),
    )
    for value in values:
        hits = text.count(value)
        if hits:
            text = text.replace(value, "[REDACTED:registered-secret]")
            found("registered-secret", hits)
    if _ANY_SECRET is not None and _ANY_SECRET.search(text) is None:
        return Redaction(text=text, count=count, kinds=tuple(kinds))  # no pattern matches
    for secret in SECRET_PATTERNS:
        replace = _Replace(secret)
        text = secret.pattern.sub(replace, text)
        found(secret.kind, replace.hits)
    return Redaction(text=text, count=count, kinds=tuple(kinds))


_TAGS = "\n".join(
    f"[REDACTED:{kind}]" for kind in {"registered-secret", *(p.kind for p in SECRET_PATTERNS)}
)


def _redactable(value: object) -> bool:
    # a value found inside our own tags would make redaction undo its own idempotence
    return (
        isinstance(value, str) and len(value) >= MIN_REGISTERED_SECRET_CHARS and value not in _TAGS
    )


class _Replace:
    """Replaces the ``secret`` group when the pattern has one, else the whole match; counts."""

    __slots__ = ("accept", "group", "hits", "tag")

    def __init__(self, secret: SecretPattern) -> None:
        self.tag = f"[REDACTED:{secret.kind}]"
        self.group = secret.pattern.groupindex.get("secret")
        self.accept = secret.accept
        self.hits = 0

    def __call__(self, match: LinearMatch) -> str:
        text: str = match.group(0)
        value = None if self.group is None else match.group(self.group)
        if self.accept is not None and not self.accept(text if value is None else value):
            return text
        self.hits += 1
        if self.group is None or value is None:
            return self.tag
        whole_start = match.start()
        start, end = match.span(self.group)
        return text[: start - whole_start] + self.tag + text[end - whole_start :]

"""Tier-1 prompt-injection patterns: cheap regex checks that flag suspicious tool output.

A hit does not change the text; it flags the result so the presenter can warn the user (a
``user``-audience progress event) and an integrator can pause dangerous tools. The rules cover
chat-template tokens (every family of `toolwire.safety.template_tokens`), "ignore previous
instructions" phrasing, role impersonation at line start, invisible characters (bidi controls,
zero-width), and "C2" shapes: exfiltration, identity override, memory persistence and
credential targeting. This is a tripwire, not a classifier: it will miss paraphrases and may
flag honest documentation. All rules run in linear time (`toolwire.safety.linear_regex`).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.safety.linear_regex import LinearPattern, linear
from toolwire.safety.template_tokens import TEMPLATE_TOKEN_REGEX

__all__ = ["INJECTION_RULES", "InjectionHit", "InjectionRule", "scan_for_injection"]

_EXCERPT_CHARS = 80


@dataclass(frozen=True, kw_only=True, slots=True)
class InjectionRule:
    """One named pattern."""

    name: str
    pattern: LinearPattern


@dataclass(frozen=True, kw_only=True, slots=True)
class InjectionHit:
    """A rule that matched, with the matched text (at most 80 characters)."""

    rule: str
    excerpt: str


def _r(name: str, regex: str, flags: str = "i") -> InjectionRule:
    """A rule; ``flags`` are inline flag letters (``i`` ignore case, ``m`` multi-line)."""
    return InjectionRule(name=name, pattern=linear(f"(?{flags}){regex}" if flags else regex))


INJECTION_RULES: tuple[InjectionRule, ...] = (
    _r(
        "template-token",  # a token of the table, or the start of a common one
        r"<\|im_start|<\|im_end|<\|im_sep|<\|eot_id|<\|begin_of_text|<<SYS>>|\[INST\]"
        rf"|<start_of_turn>|{TEMPLATE_TOKEN_REGEX}",
    ),
    _r(
        "ignore-instructions",
        r"\bignore\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above)\s+instructions\b",
    ),
    _r("disregard-above", r"\bdisregard\s+(?:all\s+)?(?:the\s+)?(?:above|previous|prior)\b"),
    _r("forget-everything", r"\bforget\s+(?:everything|all|(?:the\s+)?(?:previous|prior))\b"),
    _r("role-reassignment", r"\byou\s+are\s+now\s+(?:a\s+|an\s+|the\s+)?[a-z][\w-]*"),
    _r("new-instructions", r"^\s*new\s+instructions\s*:", "im"),
    _r("role-impersonation", r"^\s*(?:system|assistant)\s*:\s", "im"),
    _r("bidi-control", "[\u202a-\u202e\u2066-\u2069]", ""),
    _r("zero-width", "[\u200b-\u200d\ufeff]", ""),
    _r(
        "exfiltration",
        r"\bsend\s+(?:the\s+|all\s+|its\s+|your\s+)?(?:contents?|data|files?|secrets?|keys?"
        r"|tokens?|credentials?|history|conversation)\b[^\n]{0,80}?\bto\s+https?://"
        r"|\bPOST\b[^\n]{0,80}?\bhttps?://"
        r"|\bembed\b[^\n]{0,60}?\bin\s+(?:the\s+|a\s+)?(?:url|request|query)\b"
        r"|\b(?:base64|url)[\s-]?encode\b[^\n]{0,80}?\bsend\b",
    ),
    _r(
        "identity-override",
        r"\byour\s+(?:true|real|hidden)\s+(?:purpose|goal|task|instructions?)\s+is\b"
        r"|\b(?:enter|enable)\s+(?:maintenance|debug|developer|admin|god)\s+mode\b"
        r"|\b(?:new|updated|real)\s+(?:objective|mission|goal|task)\s*:"
        r"|\bSYSTEM\s+(?:OVERRIDE|UPDATE)\b|\bPRIORITY\s+DIRECTIVE\b",
    ),
    _r(
        "memory-persistence",
        r"\bwrite\b[^\n]{0,60}?\bto\s+(?:MEMORY|USER)\.md\b"
        r"|\bremember\s+this\s+for\s+(?:all\s+)?future\s+(?:sessions|conversations)\b"
        r"|\bpersist\s+(?:these|this|the(?:se)?)\s+instructions\b",
    ),
    _r(
        "credential-targeting",
        r"\bread\b[^\n]{0,40}?(?:secrets?|api[\s_-]?keys?|credentials|\.env)\b"
        r"|\b(?:extract|get|dump|print|reveal)\b[^\n]{0,40}?\b(?:api[\s_-]?keys?|tokens?"
        r"|secrets?|passwords?)\b",
    ),
)
"""Tier-1 rules, in reporting order."""


def scan_for_injection(text: str) -> tuple[InjectionHit, ...]:
    """Every rule that matches ``text`` (one hit per rule), in `INJECTION_RULES` order."""
    hits: list[InjectionHit] = []
    for rule in INJECTION_RULES:
        match = rule.pattern.search(text)
        if match is not None:
            hits.append(InjectionHit(rule=rule.name, excerpt=match.group(0)[:_EXCERPT_CHARS]))
    return tuple(hits)

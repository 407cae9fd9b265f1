"""Presenting: turn a call's outcome into the exact text the model reads.

The registry returns plain results; what goes into the model's context is decided here, in this
order (every step on by default, each can be switched off in `PresenterOptions`):

1. **secret redaction** of values and errors: known key formats and registered secret values
   become ``[REDACTED:<kind>]``;
2. **ingestion cap**: text over ``ingestion_cap_chars`` (80,000) is cut and ends with
   ``\\n[truncated — <n> chars total]``; a spill pointer is carried over;
3. for tools with ``output_is_untrusted`` — errors included, except framework errors
   (``input_invalid``, ``not_available``) — the Tier-1 **injection scan** on the raw text,
   **template-token stripping**, and the **untrusted wrapper**
   ``<untrusted source="..." tool="...">`` (secrets in the ``source`` label are redacted
   too); a flagged result emits a ``user``-audience progress warning;
4. the **result frame** ``===TOOL_RESULT_START:<name>===`` ... ``===TOOL_RESULT_END===``
   around successes and wrapped errors, with look-alike sentinels inside defused by a
   zero-width space. Plain errors are sent bare.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.calls import CallOutcome
from toolwire.context import ProgressEmitter, ProgressEvent
from toolwire.execution.budget import truncation_marker
from toolwire.execution.handles import moved_handle_line, split_handle_line
from toolwire.reducers._spill import attach_spill_pointer, split_spill_pointer
from toolwire.results import ErrorCode, Ok
from toolwire.safety._redaction import redact_secrets
from toolwire.safety._untrusted import source_label, strip_template_tokens, wrap_untrusted
from toolwire.safety.injection import scan_for_injection
from toolwire.safety.linear_regex import linear
from toolwire.tools import Tool

__all__ = [
    "DEFAULT_INGESTION_CAP_CHARS",
    "PresentedResult",
    "Presenter",
    "PresenterOptions",
    "defuse_sentinels",
    "present",
]

DEFAULT_INGESTION_CAP_CHARS = 80_000
"""The default ingestion cap: the whole turn budget, the only cap on error text."""

_SENTINEL = linear(r"(?i)=(==\s*TOOL_RESULT_(?:START|END))")
_FRAME_NAME = linear(r"[^A-Za-z0-9_.:-]")


@dataclass(frozen=True, kw_only=True, slots=True)
class PresenterOptions:
    """Which presenting steps run, and their settings. Every step is on by default.

    Attributes:
        redact_secrets: Replace known secret formats and ``secret_values``.
        secret_values: Secret values to redact wherever they appear (API keys in use, ...).
        cap_ingestion: Cut text longer than ``ingestion_cap_chars``.
        ingestion_cap_chars: The cap, in characters.
        strip_template_tokens: Strip chat-template tokens from untrusted output.
        wrap_untrusted: Wrap untrusted output in ``<untrusted ...>`` (inner tags escaped).
        detect_injection: Run the Tier-1 scan on untrusted output; flag and warn on a hit.
        delimit_results: Frame results in ``===TOOL_RESULT_START:<name>===`` sentinels.
        trusted_error_codes: Error codes the framework writes itself; such errors are never
            treated as untrusted, even from an untrusted tool.
    """

    redact_secrets: bool = True
    secret_values: tuple[str, ...] = ()
    cap_ingestion: bool = True
    ingestion_cap_chars: int = DEFAULT_INGESTION_CAP_CHARS
    strip_template_tokens: bool = True
    wrap_untrusted: bool = True
    detect_injection: bool = True
    delimit_results: bool = True
    trusted_error_codes: frozenset[ErrorCode] = field(
        default_factory=lambda: frozenset({ErrorCode.INPUT_INVALID, ErrorCode.NOT_AVAILABLE})
    )

    def __post_init__(self) -> None:
        if self.ingestion_cap_chars < 1:
            raise ValueError(
                f"ingestion_cap_chars must be at least 1, got {self.ingestion_cap_chars}"
            )
        object.__setattr__(self, "secret_values", tuple(self.secret_values))


@dataclass(frozen=True, kw_only=True, slots=True)
class PresentedResult:
    """What the model reads for one call.

    Attributes:
        text: The exact model-facing text (persist these bytes for byte-identical replay).
        is_error: Whether the call failed (``tool_result.is_error``).
        flagged_injection: A Tier-1 rule matched or template tokens were stripped.
        redactions: How many secrets were redacted.
        stripped_tokens: How many chat-template tokens were stripped.
        injection_rules: The Tier-1 rules that matched, in rule order.
    """

    text: str
    is_error: bool
    flagged_injection: bool = False
    redactions: int = 0
    stripped_tokens: int = 0
    injection_rules: tuple[str, ...] = ()


@functools.lru_cache(maxsize=1024)
def _frame_name(name: str) -> str:
    """``name`` as the result frame shows it (tool names repeat: each is scanned once)."""
    return _FRAME_NAME.sub("_", name)


def defuse_sentinels(text: str) -> str:
    """Insert U+200B after the first ``=`` of every ``===TOOL_RESULT_START|END`` look-alike."""
    if "===" not in text:  # every look-alike has one: no scan
        return text
    return _SENTINEL.sub(lambda sentinel: "=\u200b" + sentinel.group(1), text)


class Presenter:
    """Turns `CallOutcome`s into model-facing text; see the module docstring for the steps."""

    __slots__ = ("options",)

    def __init__(self, options: PresenterOptions | None = None) -> None:
        self.options = options or PresenterOptions()

    def present(
        self,
        outcome: CallOutcome,
        tool: Tool | None,
        *,
        args: Mapping[str, Any] | str | None = None,
        emit: ProgressEmitter | None = None,
    ) -> PresentedResult:
        """Present one outcome.

        Args:
            outcome: The call's outcome from the registry.
            tool: The tool that ran (``None`` for unknown tools: never treated as untrusted).
            args: The call's arguments (a mapping or a JSON object string), for the wrapper's
                ``source`` label; ``outcome.args`` when not given.
            emit: Receives the ``user``-audience warning when a result is flagged.
        """
        opts = self.options
        result = outcome.result
        is_error = not isinstance(result, Ok)
        text = result.value if isinstance(result, Ok) else result.error
        redactions = 0
        if opts.redact_secrets:
            redaction = redact_secrets(text, secret_values=opts.secret_values)
            text, redactions = redaction.text, redaction.count
        if opts.cap_ingestion:
            text = _cap(text, opts.ingestion_cap_chars)
        untrusted = (
            tool is not None
            and tool.output_is_untrusted
            and not (not isinstance(result, Ok) and result.code in opts.trusted_error_codes)
        )
        stripped = 0
        rules: tuple[str, ...] = ()
        if untrusted and tool is not None:
            if opts.detect_injection:
                rules = tuple(hit.rule for hit in scan_for_injection(text))
            if opts.strip_template_tokens:
                outcome_of_strip = strip_template_tokens(text)
                text, stripped = outcome_of_strip.text, outcome_of_strip.count
            if opts.wrap_untrusted:
                label = source_label(
                    tool.name, _mapping(args if args is not None else outcome.args)
                )
                if opts.redact_secrets:  # before the label is cut, so no half secret survives
                    shown = redact_secrets(label, secret_values=opts.secret_values)
                    label, redactions = shown.text, redactions + shown.count
                text = wrap_untrusted(text, source=label, tool=tool.name)
        flagged = opts.detect_injection and untrusted and bool(rules or stripped)
        if flagged and emit is not None:
            reason = f"stripped {stripped} template token(s)" if stripped else rules[0]
            warning = ProgressEvent(
                tool_name=outcome.name,
                message=f"⚠ external content may contain instructions ({reason})",
                audience="user",
            )
            with contextlib.suppress(Exception):  # a broken emitter must not lose the result
                emit(warning)
        if opts.delimit_results and (not is_error or untrusted):
            name = _frame_name(tool.name if tool is not None else outcome.name)
            text = (
                f"===TOOL_RESULT_START:{name}===\n{defuse_sentinels(text)}\n===TOOL_RESULT_END==="
            )
        return PresentedResult(
            text=text,
            is_error=is_error,
            flagged_injection=flagged,
            redactions=redactions,
            stripped_tokens=stripped,
            injection_rules=rules,
        )


def present(
    outcome: CallOutcome,
    tool: Tool | None = None,
    *,
    args: Mapping[str, Any] | str | None = None,
) -> str:
    """Present one outcome with the default options and return the model-facing text."""
    return Presenter().present(outcome, tool, args=args).text


_TRUNCATED_TAIL = linear(r"\n\[truncated \u2014 (\d+) chars total\]\Z")


def _cap(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters plus the truncation marker.

    Text the registry already trimmed (ending with its marker) keeps the original total and
    loses only what the cap needs, so one result never carries two markers or a wrong size.
    """
    if len(text) <= limit:  # nothing to cut, and a marker it has is already right
        return text
    body, handle = split_handle_line(text)  # a kept result's handle line stays last
    body, pointer = split_spill_pointer(body)
    total = len(text)
    earlier = _TRUNCATED_TAIL.search(body)
    if earlier is not None:
        body = body[: earlier.start()]
        total = int(earlier.group(1))
        if len(body) <= limit:
            return text
    elif total <= limit:
        return text
    capped = f"{body[:limit]}{truncation_marker(total)}"
    return attach_spill_pointer(capped, pointer) + moved_handle_line(handle, limit)


def _mapping(args: Mapping[str, Any] | str | None) -> Mapping[str, Any] | None:
    if isinstance(args, Mapping):
        return args
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            return None
        return parsed if isinstance(parsed, Mapping) else None
    return None

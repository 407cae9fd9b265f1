"""The approval stage: a call to a tool with ``requires_approval`` runs only when approved.

Such a call is not run. It is answered ``not_available`` with ``reason="approval_required"`` and
an **approval token** in its message (`pending_approval` reads it back). The token is bound to
a hash of three things: the tool's definition (name, description, schema), the canonical
validated arguments, and the session. Run the batch again with
``execute_parallel(..., approvals=[token])`` and the call runs, once:

- a token does not work for other arguments, another definition or another session (the call
  is answered ``approval_required`` again, with a fresh token);
- a token is consumed by a compare-and-set in the key-value store before the tool starts, so it
  works once, across processes: a second use is answered ``not_available``
  (``reason="approval_used"``) and the tool does not run again, even in a run resumed in
  another process after a crash;
- a call refused after its approval and before its tool starts (a quota, a capability that
  cannot be resolved) gives its token back (`SpentApproval.give_back`): the same approval
  works when the call is tried again;
- tokens expire after `Approvals.ttl_s`.

Tokens live in the registry's key-value store (the ``kv_store_factory`` of its capability
backends, namespace ``tool:toolwire-approvals``), or in the store `Approvals` names. A
registry with neither answers such calls ``not_available`` (``approval_store_missing``): an
approval that could not be recorded is refused, never skipped.

The stage sits after the before-hooks and dry-run (so the arguments bound are the ones the tool
would run with, and a dry run asks for nothing) and before the cache (a cached result of an
approved call is not a free pass). A tool without ``requires_approval`` pays one attribute
check. A ``sink`` call after untrusted output reached its session asks for an approval here
too, per ``Approvals.after_untrusted`` (`toolwire.execution.flow`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import anyio

from toolwire.calls import CallOutcome
from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.cache import canonical_args
from toolwire.results import Err, ErrorCode
from toolwire.tools import Tool

__all__ = [
    "AFTER_UNTRUSTED_CHOICES",
    "APPROVALS_SCOPE",
    "APPROVALS_TOOL",
    "DEFAULT_APPROVAL_TTL_S",
    "AfterUntrusted",
    "Approvals",
    "PendingApproval",
    "SpentApproval",
    "approval_binding",
    "definition_hash",
    "needs_approval",
    "normalise_approvals",
    "pending_approval",
    "take_approval",
    "waiting_call",
]

logger = logging.getLogger("toolwire.execution.approvals")

APPROVALS_TOOL = "toolwire-approvals"
"""The tool name the approval store is asked for (``kv_store_factory(APPROVALS_TOOL, ...)``)."""
APPROVALS_SCOPE = f"tool:{APPROVALS_TOOL}"
"""Its scope: private to the approvals, shared by every process on the same store."""

_TOKEN = re.compile(r"apr-([0-9a-f]{16})-[0-9a-f]{24}")
_IN_MESSAGE = re.compile(r"\(approval token (apr-[0-9a-f]{16}-[0-9a-f]{24})\)")
_WAITING = re.compile(r"call ([A-Za-z0-9_.\-]{1,128})\(")
_JSON = json.JSONDecoder()
_CAS_ATTEMPTS = 8
DEFAULT_APPROVAL_TTL_S = 7 * 24 * 3600.0
"""How long a token stays valid, used or not, unless `Approvals` says otherwise (a week)."""

AfterUntrusted: TypeAlias = Literal["approve", "refuse", "allow"]
"""What a call to a ``sink`` tool gets once untrusted output reached its session (or program):
paused for approval, refused, or run (`toolwire.execution.flow`)."""
AFTER_UNTRUSTED_CHOICES: tuple[AfterUntrusted, ...] = ("approve", "refuse", "allow")
"""The values `AfterUntrusted` takes."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Approvals:
    """Where approval tokens live and how long they last (``ToolRegistry(approvals=...)``).

    Attributes:
        store: The store tokens are kept in; ``None`` uses the registry's key-value backend
            (namespace `APPROVALS_SCOPE`). It must compare and set (every built-in store does).
        ttl_s: Seconds a token stays valid, used or not (a week by default).
        after_untrusted: Once untrusted output reached a session, a call to a ``sink`` tool
            is ``"approve"``: paused for approval, ``"refuse"``: refused, or ``"allow"``: run
            (`toolwire.execution.flow`; programs of ``run_code`` follow their own setting).
    """

    store: KeyValueStore | None = None
    ttl_s: float = DEFAULT_APPROVAL_TTL_S
    after_untrusted: AfterUntrusted = "approve"

    def __post_init__(self) -> None:
        if not self.ttl_s > 0:
            raise ConfigurationError(f"Approvals(ttl_s={self.ttl_s!r}) must be positive")
        if self.after_untrusted not in AFTER_UNTRUSTED_CHOICES:
            raise ConfigurationError(
                f"Approvals(after_untrusted={self.after_untrusted!r}) must be one of "
                f"{', '.join(AFTER_UNTRUSTED_CHOICES)}"
            )
        if self.store is not None and not isinstance(self.store, AtomicKeyValueStore):
            raise ConfigurationError(
                "Approvals(store=...) needs a store with compare_and_set (every built-in "
                "key-value store has one: backend.scoped(name, scope))"
            )


@dataclass(frozen=True, kw_only=True, slots=True)
class PendingApproval:
    """A call waiting for approval, as `pending_approval` reads it off an outcome.

    Attributes:
        token: Pass it in ``execute_parallel(..., approvals=[token])`` to run the call.
        tool_call_id: The call's id.
        tool_name: The tool the approval is for: the outcome's, or the call waiting inside it
            (a paused ``run_code`` program's sink call, named by `waiting_call`).
        args: The validated arguments the approval is bound to.
        via: The outcome's tool when the approval is for a call waiting inside it (send that
            call again with the token), else ``None``.
    """

    token: str
    tool_call_id: str
    tool_name: str
    args: Mapping[str, Any]
    via: str | None = None


def pending_approval(outcome: CallOutcome) -> PendingApproval | None:
    """The approval ``outcome`` waits for, or ``None`` when it is not ``approval_required``."""
    result = outcome.result
    if not isinstance(result, Err) or result.reason != "approval_required":
        return None
    inner = _waiting(result.error)
    if inner is not None:  # a call waiting inside this one: the human approves that call
        return PendingApproval(
            token=inner[2],
            tool_call_id=outcome.tool_call_id,
            tool_name=inner[0],
            args=inner[1],
            via=outcome.name,
        )
    found = _IN_MESSAGE.search(result.error)
    if found is None:
        return None
    return PendingApproval(
        token=found.group(1),
        tool_call_id=outcome.tool_call_id,
        tool_name=outcome.name,
        args=dict(outcome.args or {}),
    )


def waiting_call(tool_name: str, args: Mapping[str, Any], token: str, note: str = "") -> str:
    """How a call that waits for approval inside another (a paused program) is named in the
    outer call's message, so `pending_approval` reads the waiting call, not the outer one."""
    shown = json.dumps(dict(args), ensure_ascii=False, default=str)
    return f"call {tool_name}({shown}){note} (approval token {token})"


def _waiting(message: str) -> tuple[str, dict[str, Any], str] | None:
    """The first `waiting_call` of ``message`` (its tool, arguments and token), when it comes
    before any token. Read left to right, the arguments as one JSON value: text inside them
    (what a page told the model to send) cannot pose as the call or its token."""
    named = _WAITING.search(message)
    if named is None or -1 < message.find("(approval token") < named.start():
        return None  # no waiting call, or one after a token: text of some arguments
    try:
        args, end = _JSON.raw_decode(message, named.end())
    except ValueError:
        return None
    if not isinstance(args, dict) or not message.startswith(")", end):
        return None
    token = _IN_MESSAGE.search(message, end)
    if token is None or message.find("(approval token", end) != token.start():
        return None
    return named.group(1), args, token.group(1)


def normalise_approvals(approvals: Iterable[str | PendingApproval] | None) -> tuple[str, ...]:
    """``execute_parallel``'s ``approvals``: tokens, or `PendingApproval` values.

    Raises:
        ConfigurationError: ``approvals`` is one string, or holds something else.
    """
    if approvals is None:
        return ()
    if isinstance(approvals, str):
        raise ConfigurationError(
            f"approvals takes a list of tokens, not the string {approvals!r}; pass [{approvals!r}]"
        )
    tokens: list[str] = []
    for item in approvals:
        token = item.token if isinstance(item, PendingApproval) else item
        if not isinstance(token, str):
            raise ConfigurationError(
                f"approvals holds tokens (str) or PendingApproval values, got {item!r}"
            )
        tokens.append(token)
    return tuple(tokens)


def needs_approval(tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> bool:
    """Whether this call needs approval: ``True``, or a rule that did not answer ``False``
    (a rule that raises or answers anything else asks for approval: fail closed)."""
    rule = tool.requires_approval
    if rule is True:
        return True
    if rule is False:
        return False
    try:
        return rule(args, ctx) is not False
    except Exception:
        logger.exception("requires_approval of %s raised; asking for approval", tool.name)
        return True


def definition_hash(tool: Tool) -> str:
    """SHA-256 of the tool's definition as the model sees it: name, description, schema."""
    shown = {"name": tool.name, "description": tool.description, "parameters": tool.schema}
    data = json.dumps(shown, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def approval_binding(tool: Tool, args: Mapping[str, Any], session_id: str) -> str:
    """What a token is bound to: a hash of the definition, the arguments and the session."""
    parts = json.dumps([definition_hash(tool), canonical_args(args), session_id])
    return hashlib.sha256(parts.encode("utf-8", "surrogatepass")).hexdigest()


StoreFactory = Callable[[str, str], KeyValueStore]


def approval_store(
    approvals: Approvals | None, factory: StoreFactory | None
) -> AtomicKeyValueStore | None:
    """The store tokens live in, or ``None`` when there is none that can compare and set."""
    if approvals is not None and isinstance(approvals.store, AtomicKeyValueStore):
        return approvals.store
    if factory is None:
        return None
    store = factory(APPROVALS_TOOL, APPROVALS_SCOPE)
    return store if isinstance(store, AtomicKeyValueStore) else None


async def take_approval(
    approvals: Approvals | None,
    factory: StoreFactory | None,
    tool: Tool,
    args: Mapping[str, Any],
    ctx: ToolContext,
    tokens: tuple[str, ...],
) -> Err | SpentApproval:
    """``SpentApproval`` when one of ``tokens`` approves the call (now used up; the pipeline
    gives it back if a later stage refuses the call before the tool starts); otherwise the
    answer: ``approval_required`` with a fresh token, ``approval_used``, or
    ``approval_store_missing``. Asked only for a call `needs_approval` says needs one."""
    store = approval_store(approvals, factory)
    if store is None:
        return Err(
            f"Tool {tool.name} requires approval, but no approval store is configured "
            "(give the registry a key-value backend, or approvals=Approvals(store=...))",
            ErrorCode.NOT_AVAILABLE,
            reason="approval_store_missing",
        )
    # Bound to the principal too: another credential's token never approves this call.
    binding = approval_binding(tool, args, ctx.principal.scoped(ctx.session_id))
    ttl = approvals.ttl_s if approvals is not None else DEFAULT_APPROVAL_TTL_S
    used = False
    for token in tokens:
        shape = _TOKEN.fullmatch(token)
        if shape is None or shape.group(1) != binding[:16]:
            continue  # a token for another call (of this batch, or of none)
        verdict = await _consume(store, token, binding, ttl)
        if isinstance(verdict, SpentApproval):
            return verdict
        used = used or verdict == "used"
    if used:
        return Err(
            f"Tool {tool.name}: this approval was already used; an approved call runs once "
            "(ask for a new approval to run it again)",
            ErrorCode.NOT_AVAILABLE,
            reason="approval_used",
        )
    token = await _issue(store, binding, tool.name, ttl)
    return Err(
        f"Tool {tool.name} requires approval before it runs; the user must approve this call "
        f"(approval token {token})",
        ErrorCode.NOT_AVAILABLE,
        reason="approval_required",
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class SpentApproval:
    """An approval token a call has just used up: its record before and after, and its TTL."""

    store: AtomicKeyValueStore
    token: str
    pending: str
    spent: str
    ttl_s: float

    async def give_back(self) -> None:
        """Make the token pending again (the call it approved did not run); a token something
        else changed meanwhile is left as it is. Shielded: a cancelled call still gives it."""
        with anyio.CancelScope(shield=True):
            await self.store.compare_and_set(
                self.token, self.spent, self.pending, ttl_seconds=self.ttl_s
            )


async def _issue(store: AtomicKeyValueStore, binding: str, tool_name: str, ttl: float) -> str:
    token = f"apr-{binding[:16]}-{secrets.token_hex(12)}"
    record = {"binding": binding, "tool": tool_name, "state": "pending", "at": time.time()}
    await store.set(token, json.dumps(record), ttl_seconds=ttl)
    return token


async def _consume(
    store: AtomicKeyValueStore, token: str, binding: str, ttl: float
) -> SpentApproval | str:
    """The `SpentApproval` (consumed now), ``"used"``, or ``"invalid"`` (unknown, expired,
    bound elsewhere)."""
    for _ in range(_CAS_ATTEMPTS):
        raw = await store.get(token)
        if raw is None:
            return "invalid"
        try:
            record = json.loads(raw)
        except ValueError:
            return "invalid"
        if not isinstance(record, dict) or record.get("binding") != binding:
            return "invalid"
        if record.get("state") != "pending":
            return "used"
        now = time.time()
        spent = json.dumps({**record, "state": "used", "used_at": now})
        issued = record.get("at")
        left = max(ttl - (now - issued) if isinstance(issued, int | float) else ttl, 1.0)
        if await store.compare_and_set(token, raw, spent, ttl_seconds=left):
            return SpentApproval(store=store, token=token, pending=raw, spent=spent, ttl_s=left)
    return "used"

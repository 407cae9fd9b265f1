"""What a tool sees while it runs: `ToolContext`, progress events and the abort signal."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, cast

import anyio
import anyio.from_thread
from anyio.lowlevel import EventLoopToken, current_token

from toolwire.capabilities.seams import (
    KeyValueStore,
    NetworkPolicy,
    ReadRecord,
    ScopedAttachments,
    ScopedFetch,
    ScopedFs,
    ScopedProcess,
    ScopedSecrets,
)
from toolwire.errors import AbortedError
from toolwire.principals import LOCAL, Principal

__all__ = [
    "DEFAULT_RESULT_BUDGET_CHARS",
    "AbortSignal",
    "Audience",
    "ProgressEmitter",
    "ProgressEvent",
    "SeamKind",
    "ToolContext",
]

DEFAULT_RESULT_BUDGET_CHARS = 80_000
"""The default per-turn output budget, split across a batch of calls."""

Audience: TypeAlias = Literal["internal", "user", "dashboard"]
"""Who a `ProgressEvent` is for: ``"internal"`` (logs), ``"user"`` (chat, MCP), ``"dashboard"``."""
S_co = TypeVar("S_co", covariant=True)


class SeamKind(Protocol[S_co]):
    """What `ToolContext.seam` takes: a `toolwire.capabilities.CapabilityKind` whose seam is an
    ``S_co`` (a protocol here, so the context does not import the capabilities)."""

    @property
    def name(self) -> str:
        """The kind's name: its key in ``extra_seams``."""
        ...

    @property
    def context_field(self) -> str | None:
        """The typed field its seam fills, or ``None`` (then it is in ``extra_seams``)."""
        ...

    @property
    def resolve(self) -> Callable[..., S_co | None]:
        """Builds the seam; only its return type matters here."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ProgressEvent:
    """A progress report from a running tool.

    ``audience`` is ``"internal"`` unless the tool opts in: ``"user"`` events may reach chat
    surfaces (and MCP progress notifications), ``"dashboard"`` reaches operators only.
    """

    tool_name: str
    message: str
    percent: float | None = None
    audience: Audience = "internal"
    type: Literal["progress"] = "progress"


ProgressEmitter: TypeAlias = Callable[[ProgressEvent], None]


def _ignore_progress(event: ProgressEvent) -> None:
    """The default emitter: progress goes nowhere."""


class AbortSignal:
    """A one-shot cancellation flag shared by the caller, the registry and every tool.

    The caller keeps the signal and calls `abort`; in-flight calls are cancelled and answered
    ``execution_failed`` (``"aborted: <reason>"``). Once aborted it stays aborted. `abort` may be
    called from any thread: subscribers run on their own event loop.
    """

    __slots__ = ("_lock", "_reason", "_subscribers")

    def __init__(self) -> None:
        self._reason: str | None = None
        self._lock = threading.Lock()
        self._subscribers: list[_Subscriber] = []

    @property
    def aborted(self) -> bool:
        """Whether `abort` has been called."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """The reason given to `abort`, or ``None`` while not aborted."""
        return self._reason

    def abort(self, reason: str = "cancelled") -> None:
        """Fire the signal; later calls keep the first reason."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason or "cancelled"
            subscribers, self._subscribers = self._subscribers, []
        here = threading.get_ident()
        for subscriber in subscribers:
            if subscriber.thread_id == here:
                subscriber.callback()
            elif isinstance(subscriber.target, asyncio.AbstractEventLoop):
                # RuntimeError: that loop has already closed, so nobody is waiting there.
                with contextlib.suppress(RuntimeError):
                    subscriber.target.call_soon_threadsafe(subscriber.callback)
            else:
                with contextlib.suppress(RuntimeError):
                    anyio.from_thread.run_sync(subscriber.callback, token=subscriber.target)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on the current event loop when the signal fires.

        Must be called from inside an event loop. Returns a function that unsubscribes; when the
        signal has already fired, ``callback`` runs at once.
        """
        loop = asyncio._get_running_loop()  # cheap on asyncio; other backends need a token
        target: asyncio.AbstractEventLoop | EventLoopToken = loop or current_token()
        subscriber = _Subscriber(callback, target, threading.get_ident())
        with self._lock:
            if self._reason is None:
                self._subscribers.append(subscriber)
                return functools.partial(self._unsubscribe, subscriber)
        callback()
        return _noop

    def _unsubscribe(self, subscriber: _Subscriber) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._subscribers.remove(subscriber)

    async def wait(self) -> None:
        """Return once the signal has fired (at once when it already has)."""
        if self._reason is not None:
            return
        event = anyio.Event()
        unsubscribe = self.subscribe(event.set)
        try:
            await event.wait()
        finally:
            unsubscribe()

    def raise_if_aborted(self) -> None:
        """Raise `AbortedError` when the signal has fired."""
        if self._reason is not None:
            raise AbortedError(self._reason)

    def __repr__(self) -> str:
        state = f"aborted={self._reason!r}" if self._reason is not None else "pending"
        return f"AbortSignal({state})"


class _Subscriber:
    __slots__ = ("callback", "target", "thread_id")

    def __init__(
        self,
        callback: Callable[[], None],
        target: asyncio.AbstractEventLoop | EventLoopToken,
        thread_id: int,
    ) -> None:
        self.callback = callback
        self.target = target
        self.thread_id = thread_id


def _noop() -> None:
    """Nothing to undo."""


@dataclass(frozen=True, kw_only=True)
class ToolContext:
    """Everything a tool may use besides its arguments.

    Only ``session_id`` is required. The registry derives one context per call from the one
    you pass (`dataclasses.replace`): it sets ``result_budget_chars`` to the call's share of the
    budget and fills the capability seams (``kv_store``, ``scoped_fs``, ...) the tool declared.

    Attributes:
        session_id: Stable id of the session.
        session_key: Human-meaningful key (``cli:my-repo``); defaults to ``session_id``.
        platform: The surface the turn runs on (``library``, ``cli``, ``mcp``, ...).
        working_dir: Anchor for relative paths; defaults to the process's current directory.
        agent_id: Stable agent identity, for multi-agent deployments.
        personality_id: The active personality; scopes storage and reach.
        memory_scope: ``"global"`` or ``"per-personality"``.
        memory_scope_id: An opaque memory scope id, used as is when present.
        team_id: The active team, when the loop runs inside one.
        current_turn: 1-based turn counter.
        message_count: Messages in the session so far.
        abort_signal: Fires when the user cancels or the turn times out.
        emit: Receives `ProgressEvent`s. A sync tool (run in a worker thread) calls it from
            that thread, so an emitter you pass must be thread-safe.
        result_budget_chars: Characters the success value may hold before it is trimmed.
        storage: A turn-scoped `ScopedFs` for the framework's own files.
        read_mtimes: Absolute path → `ReadRecord`, for STALE_WRITE checks; ``None`` disables them.
        network_policy: The personality's network allow/deny lists.
        kv_store: The resolved key-value store (declared ``storage`` only).
        secrets_resolver: The resolved secrets (declared ``secrets`` only).
        scoped_fetch: The resolved HTTP client (declared ``network`` only).
        scoped_fs: The resolved file access (declared ``fs_reach`` only).
        scoped_process: The resolved process runner (declared ``process`` only).
        attachments: The turn's attachments (declared ``attachments`` only).
        extra_seams: The seams of declared kinds beyond spec 01's six, by kind name; read
            them (and any other seam) with `seam`.
        dry_run: When true, the registry answers with a synthetic result and runs nothing.
        tool_call_id: The id of the call being executed (set by the registry).
        hand_off_s: A call still running after this many seconds becomes a task (its
            outcome says pending with a task id; see `toolwire.execution.tasks`); ``None``:
            only ``long_running`` tools are handed off.
        principal: Who the call is made for (`toolwire.principals.Principal`): the verified
            credential when a server authenticates its clients, `toolwire.principals.LOCAL`
            otherwise. Background processes, browser contexts, result handles, todo lists,
            memory and boards belong to it as well as to the session or personality.
    """

    session_id: str
    session_key: str = ""
    platform: str = "library"
    working_dir: str = field(default_factory=os.getcwd)
    agent_id: str | None = None
    personality_id: str | None = None
    memory_scope: Literal["global", "per-personality"] | None = None
    memory_scope_id: str | None = None
    team_id: str | None = None
    current_turn: int = 1
    message_count: int = 0
    abort_signal: AbortSignal = field(default_factory=AbortSignal)
    emit: ProgressEmitter = _ignore_progress
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS
    storage: ScopedFs | None = None
    read_mtimes: dict[str, ReadRecord] | None = field(default_factory=dict)
    network_policy: NetworkPolicy | None = None
    kv_store: KeyValueStore | None = None
    secrets_resolver: ScopedSecrets | None = None
    scoped_fetch: ScopedFetch | None = None
    scoped_fs: ScopedFs | None = None
    scoped_process: ScopedProcess | None = None
    attachments: ScopedAttachments | None = None
    extra_seams: Mapping[str, object] | None = None
    dry_run: bool = False
    tool_call_id: str | None = None
    hand_off_s: float | None = None
    principal: Principal = LOCAL

    @property
    def idempotency_key(self) -> str:
        """The call's idempotency key: the same for the same session, principal and call id,
        in any process, so a retried or resumed call can be recognised
        (`toolwire.execution.effects`); another credential's call never matches it."""
        owner = self.principal.scoped(self.session_id)
        seed = f"{owner}\x00{self.tool_call_id or ''}".encode("utf-8", "surrogatepass")
        return "idem-" + hashlib.sha256(seed).hexdigest()[:32]

    def seam(self, kind: SeamKind[S_co]) -> S_co | None:
        """The seam of ``kind`` (``ctx.seam(STORAGE)`` is ``ctx.kv_store``; a kind beyond spec
        01 is read from ``extra_seams``), or ``None`` when the tool did not declare it or its
        backend is missing."""
        if kind.context_field is not None:
            return cast("S_co | None", getattr(self, kind.context_field))
        extra = self.extra_seams
        return None if extra is None else cast("S_co | None", extra.get(kind.name))

    def derive(self, **changes: Any) -> ToolContext:
        """A copy with ``changes`` applied, without re-running validation (the fast path the
        registry uses once per call; the changes are trusted)."""
        new = object.__new__(ToolContext)
        state = new.__dict__
        state.update(self.__dict__)
        state.update(changes)
        return new

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, str) or not self.session_id:
            raise ValueError(
                "ToolContext needs a non-empty session_id, e.g. ToolContext(session_id='s1')"
            )
        if not self.session_key:
            object.__setattr__(self, "session_key", self.session_id)
        if self.result_budget_chars < 1:
            raise ValueError(
                f"result_budget_chars must be at least 1, got {self.result_budget_chars}"
            )
        if self.current_turn < 1:
            raise ValueError(f"current_turn is 1-based, got {self.current_turn}")
        if not isinstance(self.principal, Principal):
            raise ValueError(
                f"principal must be a toolwire.principals.Principal (LOCAL without a "
                f"credential), got {self.principal!r}"
            )
        if self.hand_off_s is not None and not self.hand_off_s >= 0:
            raise ValueError(f"hand_off_s must be >= 0 seconds or None, got {self.hand_off_s}")

"""Paused programs, kept in the key-value store until a human answers.

When an inner call needs approval, the program stops where it is: Monty dumps the suspended
interpreter (the heap, the stack, the calls in flight) to bytes, and `ProgramStates` keeps
them with what the program waits for and the answers its batch-mates already got. The key
is a hash of the principal, the session and the program's code, so the same ``run_code``
call, sent again with the approval token, finds it — in this process or another on the same
store. Taking a paused program is a compare-and-set, so it resumes once: a second resume
while the first runs is refused, and so is one after it ended (the record is kept, ``done``,
without its snapshot, until it expires).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.code_mode.inner_calls import Approval, PendingCall, Settled
from toolwire.context import ToolContext

__all__ = ["PROGRAMS_SCOPE", "PROGRAMS_TOOL", "PausedProgram", "ProgramStates", "program_key"]

PROGRAMS_TOOL = "toolwire-code-mode"
"""The tool name the store is asked for (``kv_store_factory(PROGRAMS_TOOL, PROGRAMS_SCOPE)``)."""
PROGRAMS_SCOPE = f"tool:{PROGRAMS_TOOL}"
_CAS_ATTEMPTS = 8


def program_key(ctx: ToolContext, code: str) -> str:
    """Where a program of this principal and session with this code is kept."""
    owner = ctx.principal.scoped(ctx.session_id)
    digest = hashlib.sha256(f"{owner}\0{code}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"program:{digest}"


@dataclass(frozen=True, kw_only=True, slots=True)
class PausedProgram:
    """A program stopped for approval.

    Attributes:
        program_id: The id its inner calls' ids start with.
        snapshot: Monty's dump of the suspended interpreter.
        waiting: The calls waiting for a human.
        settled: The answers already given to the other calls of the same batch.
        calls: Inner calls made so far.
        cost_usd: Their summed cost.
        untrusted_from: The flow policy's state.
        output: What the program printed so far.
    """

    program_id: str
    snapshot: bytes
    waiting: tuple[Approval, ...]
    settled: Mapping[int, Settled] = field(default_factory=dict)
    calls: int = 0
    cost_usd: float | None = None
    untrusted_from: str | None = None
    output: str = ""

    def to_json(self, state: Literal["paused", "resuming", "done"]) -> str:
        """The stored record."""
        return json.dumps(
            {
                "state": state,
                "program_id": self.program_id,
                "snapshot": base64.b64encode(self.snapshot).decode("ascii"),
                "waiting": [
                    {**item.call.as_json(), "token": item.token, "why": item.why}
                    for item in self.waiting
                ],
                "settled": {str(key): value for key, value in self.settled.items()},
                "calls": self.calls,
                "cost_usd": self.cost_usd,
                "untrusted_from": self.untrusted_from,
                "output": self.output,
            },
            default=str,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PausedProgram:
        """A record read back (raises ``KeyError``/``ValueError`` on a damaged one)."""
        waiting = tuple(
            Approval(call=PendingCall.from_json(item), token=str(item["token"]), why=item["why"])
            for item in data["waiting"]
        )
        return cls(
            program_id=str(data["program_id"]),
            snapshot=base64.b64decode(data["snapshot"]),
            waiting=waiting,
            settled={int(key): value for key, value in data["settled"].items()},
            calls=int(data["calls"]),
            cost_usd=data.get("cost_usd"),
            untrusted_from=data.get("untrusted_from"),
            output=str(data.get("output", "")),
        )


class ProgramStates:
    """Paused programs in an atomic key-value store.

    Args:
        store: A store that compares and sets (every built-in one does).
        ttl_s: Seconds a paused program is kept.
    """

    def __init__(self, store: KeyValueStore, ttl_s: float) -> None:
        if not isinstance(store, AtomicKeyValueStore):
            raise TypeError("ProgramStates needs a key-value store with compare_and_set")
        self._store = store
        self._ttl_s = ttl_s

    async def pause(self, key: str, program: PausedProgram) -> None:
        """Keep ``program`` until it is resumed or expires."""
        await self._store.set(key, program.to_json("paused"), ttl_seconds=self._ttl_s)

    async def peek(self, key: str) -> tuple[str, PausedProgram] | None:
        """The record's state (``paused`` or ``resuming``) and program, or ``None``."""
        raw = await self._store.get(key)
        return None if raw is None else _parsed(raw)

    async def take(self, key: str) -> PausedProgram | Literal["busy"] | None:
        """Mark the paused program as resuming and return it; ``"busy"`` when another resume
        has it, ``None`` when there is none."""
        for _ in range(_CAS_ATTEMPTS):
            raw = await self._store.get(key)
            if raw is None:
                return None
            parsed = _parsed(raw)
            if parsed is None:
                return None
            state, program = parsed
            if state != "paused":
                return "busy"
            taken = program.to_json("resuming")
            if await self._store.compare_and_set(key, raw, taken, ttl_seconds=self._ttl_s):
                return program
        return "busy"

    async def finish(self, key: str, program: PausedProgram) -> None:
        """The resumed ``program`` ended: keep only that its approvals are spent, so the same
        resume sent again is refused instead of running the program anew."""
        done = replace(program, snapshot=b"", settled={}, output="")
        await self._store.set(key, done.to_json("done"), ttl_seconds=self._ttl_s)


def _parsed(raw: str) -> tuple[str, PausedProgram] | None:
    try:
        data = json.loads(raw)
        return str(data["state"]), PausedProgram.from_json(data)
    except (KeyError, ValueError, TypeError):
        return None

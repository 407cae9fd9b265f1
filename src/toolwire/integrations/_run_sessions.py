"""A session of its own for each run of a framework, when the user ties no runs together.

A session holds what a conversation accumulates: the STALE_WRITE read records, the todo list,
per-session state of the tools. Two unrelated runs sharing one would see each other's reads
(a write refused as stale because another run read the file) and each other's todos. So an
adapter whose framework names no conversation (no ``group_id``, no ``thread_id``) gives each
run a fresh id, ``<platform>:<uuid>``, kept for as long as an object the framework makes once
per run (the Agents SDK's run ``Usage``, LangGraph's run ``RunControl``) is alive.

The object is held weakly where it can be; where it cannot (a class with ``__slots__``), it
is held, among the newest `RUNS_KEPT`, so its identity cannot be reused by another run's
object while its session is remembered.
"""

from __future__ import annotations

import uuid
import weakref
from collections import OrderedDict
from typing import Any

__all__ = ["RUNS_KEPT", "RunSessions"]

RUNS_KEPT = 1024
"""How many runs whose object cannot be held weakly keep their session id."""


class RunSessions:
    """Session ids for runs, one per run object.

    Args:
        platform: The prefix of the ids (``"openai-agents"`` gives ``openai-agents:<uuid>``).
    """

    __slots__ = ("_held", "_platform", "_weak")

    def __init__(self, platform: str) -> None:
        self._platform = platform
        self._weak: dict[int, tuple[weakref.ref[Any], str]] = {}
        self._held: OrderedDict[int, tuple[Any, str]] = OrderedDict()

    def session(self, run: Any) -> str:
        """The session id of the run ``run`` stands for (a new one for a new run)."""
        key = id(run)
        weak = self._weak.get(key)
        if weak is not None and weak[0]() is run:
            return weak[1]
        held = self._held.get(key)
        if held is not None and held[0] is run:
            self._held.move_to_end(key)
            return held[1]
        session = self.fresh()
        try:
            ref = weakref.ref(run, self._forget(key))
        except TypeError:  # no weak references to it: hold it (bounded)
            self._held[key] = (run, session)
            while len(self._held) > RUNS_KEPT:
                self._held.popitem(last=False)
        else:
            self._weak[key] = (ref, session)
        return session

    def fresh(self) -> str:
        """A session id no run has."""
        return f"{self._platform}:{uuid.uuid4().hex}"

    def _forget(self, key: int) -> Any:
        def forget(ref: weakref.ref[Any]) -> None:
            known = self._weak.get(key)
            if known is not None and known[0] is ref:
                del self._weak[key]

        return forget

"""`CodeModeSettings`: the limits a program runs under and the flow policy it obeys."""

from __future__ import annotations

import os
from dataclasses import dataclass

from toolwire.errors import ConfigurationError
from toolwire.execution.approvals import AFTER_UNTRUSTED_CHOICES as _FLOW_CHOICES
from toolwire.execution.approvals import AfterUntrusted

__all__ = ["AfterUntrusted", "CodeModeSettings"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeModeSettings:
    """What ``run_code`` allows a program.

    Attributes:
        timeout_s: Wall-clock seconds for the whole program, its inner calls included.
        cpu_time_s: Seconds the interpreter itself may execute (time spent waiting for inner
            calls does not count); an endless loop ends here.
        max_memory_bytes: The interpreter's heap.
        max_inner_calls: Tool calls one program may make (a resumed program keeps counting).
        max_output_chars: Characters of printed output kept; the rest is cut with a marker.
        inner_result_chars: The text budget of each inner call's result (what the program
            reads, not what the model reads).
        after_untrusted: Once the program has read untrusted output, a call to a ``sink`` tool
            is ``"approve"``: paused for a human, ``"refuse"``: refused, or ``"allow"``: run.
        state_ttl_s: Seconds a program paused for approval is kept.
        max_processes: Interpreter workers kept by the pool (programs beyond wait).
        python_runtime: Offer ``runtime="python"``: the program runs in the real CPython
            in the command sandbox (`toolwire.code_mode._python_runtime`), under
            ``timeout_s``, ``max_inner_calls`` and ``max_output_chars`` and the sandbox's
            limits. Off by default: such a program reaches the files the policy grants.
        python_executable: The interpreter a ``runtime="python"`` program runs in: a system
            CPython 3.10 or newer, visible in the sandbox (``/usr``, ``/opt``; not a virtualenv
            under a home).
        python_unsandboxed: Run ``runtime="python"`` programs even when the process backend
            does not sandbox (bubblewrap missing, ``[sandbox] mode = "off"``); refused
            (``not_available``, ``reason="sandbox_unavailable"``) otherwise.
        python_hosts: Hosts a ``runtime="python"`` program may reach through the egress
            proxy (narrowed by the network policy); none by default: no network.
        python_max_frame_bytes: The largest message a ``runtime="python"`` program may send
            over its tool socket (a call's arguments, its final value).
        max_stub_chars: Past this many characters of stubs, ``run_code``'s description lists
            only the tools kept in view and ``tool_search`` finds the rest, giving their stubs
            (`toolwire.code_mode.catalogue`).
    """

    timeout_s: float = 120.0
    cpu_time_s: float = 10.0
    max_memory_bytes: int = 128 * 1024 * 1024
    max_inner_calls: int = 200
    max_output_chars: int = 20_000
    inner_result_chars: int = 100_000
    after_untrusted: AfterUntrusted = "approve"
    state_ttl_s: float = 7 * 24 * 3600.0
    max_processes: int = 2
    python_runtime: bool = False
    python_executable: str = "/usr/bin/python3"
    python_unsandboxed: bool = False
    python_hosts: tuple[str, ...] = ()
    python_max_frame_bytes: int = 4 * 1024 * 1024
    max_stub_chars: int = 20_000

    def __post_init__(self) -> None:
        for name in ("timeout_s", "cpu_time_s", "state_ttl_s"):
            if not getattr(self, name) > 0:
                raise ConfigurationError(f"CodeModeSettings({name}=...) must be positive")
        for name in (
            "max_memory_bytes",
            "max_inner_calls",
            "max_output_chars",
            "inner_result_chars",
            "max_processes",
            "python_max_frame_bytes",
            "max_stub_chars",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"CodeModeSettings({name}={value!r}) must be an int >= 1")
        if not os.path.isabs(self.python_executable):
            raise ConfigurationError(
                "CodeModeSettings(python_executable=...) must be an absolute path, such as "
                f"/usr/bin/python3; got {self.python_executable!r}"
            )
        if isinstance(self.python_hosts, str):
            raise ConfigurationError(
                "CodeModeSettings(python_hosts=...) takes a tuple of hosts: "
                f"({self.python_hosts!r},)"
            )
        object.__setattr__(self, "python_hosts", tuple(self.python_hosts))
        if self.after_untrusted not in _FLOW_CHOICES:
            raise ConfigurationError(
                f"CodeModeSettings(after_untrusted={self.after_untrusted!r}) must be one of "
                f"{', '.join(_FLOW_CHOICES)}"
            )

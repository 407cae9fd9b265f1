"""The ``[flow]`` and ``[code_mode]`` tables of ``toolwire.toml``.

```toml
[flow]
after_untrusted = "approve"   # or "refuse", "allow": a sink call once untrusted output
                              # reached the session (docs/code-mode.md)

[code_mode]                   # serve run_code (the code-mode extra: pydantic-monty)
enabled = true
timeout_s = 120               # also cpu_time_s, max_memory_bytes, max_inner_calls,
max_inner_calls = 200         # max_output_chars, inner_result_chars, state_ttl_s,
                              # max_processes (toolwire.code_mode.CodeModeSettings)
python_runtime = true         # offer runtime="python": CPython in the command sandbox
python_executable = "/usr/bin/python3"
python_unsandboxed = false    # true: run it even where commands are not sandboxed
python_hosts = []             # hosts it may reach through the egress proxy
python_max_frame_bytes = 4194304
max_stub_chars = 20000        # past it, tool_search gives the stubs (a large catalogue)
```

``[flow] after_untrusted`` is the policy of the model's direct calls
(`toolwire.execution.approvals.Approvals`) and of ``run_code``'s programs alike. A
``[code_mode]`` table without ``enabled = true`` serves nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from toolwire.code_mode._settings import CodeModeSettings
from toolwire.config.files import Located, check_keys, kind_of
from toolwire.execution.approvals import AFTER_UNTRUSTED_CHOICES, AfterUntrusted

__all__ = ["CODE_MODE_KEYS", "code_mode_table", "code_mode_tables", "flow_table"]

_INTS = ("max_memory_bytes", "max_inner_calls", "max_output_chars", "inner_result_chars")
_SECONDS = ("timeout_s", "cpu_time_s", "state_ttl_s")
_BOOLS = ("python_runtime", "python_unsandboxed")
CODE_MODE_KEYS = (
    "enabled",
    *_SECONDS,
    *_INTS,
    "max_processes",
    *_BOOLS,
    "python_executable",
    "python_hosts",
    "python_max_frame_bytes",
    "max_stub_chars",
)
"""The keys of ``[code_mode]``."""


def code_mode_tables(data: dict[str, Any], at: Located) -> dict[str, Any]:
    """``ToolwireConfig``'s ``after_untrusted`` and ``code_mode`` from the file's ``[flow]``
    and ``[code_mode]`` (the program's policy is ``[flow]``'s).

    Raises:
        ConfigurationError: as `flow_table` and `code_mode_table`.
    """
    policy = flow_table(data.get("flow", {}), at)
    values: dict[str, Any] = {"after_untrusted": policy}
    if "code_mode" in data:
        settings = code_mode_table(data["code_mode"], at)
        if settings is not None:
            values["code_mode"] = replace(settings, after_untrusted=policy)
    return values


def flow_table(table: Any, at: Located) -> AfterUntrusted:
    """``[flow]`` as parsed → its ``after_untrusted`` (``"approve"`` when left out).

    Raises:
        ConfigurationError: not a table, an unknown key, or a policy that is none of
            ``approve``, ``refuse``, ``allow``, naming the file and line.
    """
    if not isinstance(table, dict):
        raise at.error(("flow",), f"expected a table ([flow]), got {kind_of(table)}")
    check_keys(table, {"after_untrusted"}, ("flow",), at)
    value = table.get("after_untrusted", "approve")
    for choice in AFTER_UNTRUSTED_CHOICES:
        if value == choice:
            return choice
    raise at.error(
        ("flow", "after_untrusted"),
        f"expected one of {', '.join(map(repr, AFTER_UNTRUSTED_CHOICES))}, got {value!r}",
    )


def code_mode_table(table: Any, at: Located) -> CodeModeSettings | None:
    """``[code_mode]`` as parsed → its `CodeModeSettings`, or ``None`` unless
    ``enabled = true`` (a key it leaves out keeps its default; ``after_untrusted`` is
    ``[flow]``'s, set by the caller).

    Raises:
        ConfigurationError: not a table, an unknown key, a value of the wrong kind or out of
            range, naming the file and line.
    """
    if not isinstance(table, dict):
        raise at.error(("code_mode",), f"expected a table ([code_mode]), got {kind_of(table)}")
    check_keys(table, set(CODE_MODE_KEYS), ("code_mode",), at)
    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise at.error(("code_mode", "enabled"), f"expected true or false, got {kind_of(enabled)}")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key == "enabled":
            continue
        if key in _BOOLS:
            if not isinstance(value, bool):
                raise at.error(("code_mode", key), f"expected true or false, got {kind_of(value)}")
            values[key] = value
        elif key == "python_executable":
            if not isinstance(value, str) or not value.startswith("/"):
                raise at.error(("code_mode", key), f"expected an absolute path, got {value!r}")
            values[key] = value
        elif key == "python_hosts":
            if not isinstance(value, list) or not all(isinstance(h, str) and h for h in value):
                raise at.error(("code_mode", key), f"expected a list of hosts, got {value!r}")
            values[key] = tuple(value)
        elif key in _SECONDS:
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise at.error(("code_mode", key), f"expected seconds above 0, got {value!r}")
            values[key] = float(value)
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise at.error(("code_mode", key), f"expected an integer >= 1, got {value!r}")
        else:
            values[key] = value
    if not enabled:
        return None
    return CodeModeSettings(**values)

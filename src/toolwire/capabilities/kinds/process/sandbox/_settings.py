"""The sandbox's settings: its mode (`SandboxMode`) and its resource limits (`SandboxLimits`).

```toml
[sandbox]
mode = "auto"            # "auto" (the default), "required" or "off"
max_processes = 512      # processes (and threads) alive at once in one sandbox
max_file_size_mb = 1024  # the largest file a process may write
max_cpu_s = 3600         # CPU seconds per process
max_memory_mb = 4096     # data memory per process (heap and private mappings)
protected = ["deploy/"]  # more protected paths: a name in every write root, or absolute
unprotect = [".git"]     # default protected names to drop (the serve banner says so)
```

``0`` lifts a limit. See ``docs/sandbox.md`` for what each mode guarantees and for the
protected paths (`toolwire.safety.protected_paths`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeAlias, get_args

from toolwire.errors import ConfigurationError

__all__ = [
    "DEFAULT_LIMITS",
    "SANDBOX_MODES",
    "SandboxLimits",
    "SandboxMode",
    "SandboxSettings",
    "sandbox_settings",
]

SandboxMode: TypeAlias = Literal["auto", "required", "off"]
"""``auto``: sandboxed when bubblewrap can run here, else unsandboxed and said loudly;
``required``: commands are refused when it cannot; ``off``: never sandboxed."""

SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)

_MIB = 1024 * 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxLimits:
    """Resource limits of every sandboxed command; ``0`` lifts one.

    Attributes:
        max_processes: Processes and threads alive at once in one sandbox (a cgroup's
            ``pids.max`` where toolwire may create one, else ``RLIMIT_NPROC`` inside the
            sandbox's user namespace); what bounds a fork loop.
        max_file_size_bytes: The largest file a process may write (``RLIMIT_FSIZE``).
        max_cpu_s: CPU seconds per process (``RLIMIT_CPU``).
        max_memory_bytes: Data memory per process: heap and private mappings
            (``RLIMIT_DATA``).
    """

    max_processes: int = 512
    max_file_size_bytes: int = 1024 * _MIB
    max_cpu_s: int = 3600
    max_memory_bytes: int = 4096 * _MIB

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigurationError(
                    f"SandboxLimits({item.name}=...) must be a whole number >= 0 (0 lifts the "
                    f"limit), got {value!r}"
                )


DEFAULT_LIMITS = SandboxLimits()


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxSettings:
    """The mode, the limits and the changes to the protected paths, as ``toolwire.toml``'s
    ``[sandbox]`` table gives them.

    Attributes:
        mode: ``auto``, ``required`` or ``off``.
        limits: The resource limits of every sandbox.
        protected: More protected paths (``[sandbox] protected``): an absolute path, or a name
            protected inside every write root.
        unprotect: Default protected names to drop (``[sandbox] unprotect``).
    """

    mode: SandboxMode = "auto"
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    protected: tuple[str, ...] = ()
    unprotect: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in SANDBOX_MODES:
            raise ConfigurationError(
                f"sandbox mode {self.mode!r} is not one of {list(SANDBOX_MODES)}"
            )
        for name in ("protected", "unprotect"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
                raise ConfigurationError(f"sandbox.{name} must be a list of paths, got {value!r}")
            object.__setattr__(self, name, tuple(value))


_TABLE_KEYS = {
    "max_processes": ("max_processes", 1),
    "max_file_size_mb": ("max_file_size_bytes", _MIB),
    "max_cpu_s": ("max_cpu_s", 1),
    "max_memory_mb": ("max_memory_bytes", _MIB),
}
"""``[sandbox]`` key → (`SandboxLimits` field, unit)."""

_PATH_KEYS = ("protected", "unprotect")

TABLE_KEYS: frozenset[str] = frozenset({"mode", *_TABLE_KEYS, *_PATH_KEYS})
"""The keys `sandbox_settings` reads."""


def sandbox_settings(
    value: SandboxSettings | SandboxMode | Mapping[str, Any] | None,
) -> SandboxSettings:
    """Settings from what ``create_backends(sandbox=...)`` takes.

    Args:
        value: `SandboxSettings`, a mode name, a ``{"mode": ..., "max_processes": ...}``
            mapping (the ``[sandbox]`` keys above), or ``None`` for the defaults.

    Raises:
        ConfigurationError: an unknown mode or key, or a limit that is not a whole number >= 0.
    """
    if value is None:
        return SandboxSettings()
    if isinstance(value, SandboxSettings):
        return value
    if isinstance(value, str):
        return SandboxSettings(mode=value)  # checked in __post_init__
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            "sandbox must be 'auto', 'required', 'off', SandboxSettings or a mapping, got "
            f"{value!r}"
        )
    unknown = sorted(set(value) - TABLE_KEYS)
    if unknown:
        raise ConfigurationError(f"sandbox: unknown keys {unknown}; use {sorted(TABLE_KEYS)}")
    limits: dict[str, int] = {}
    for key, (name, unit) in _TABLE_KEYS.items():
        if key in value:
            raw = value[key]
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
                raise ConfigurationError(
                    f"sandbox.{key} must be a whole number >= 0 (0 lifts the limit), got {raw!r}"
                )
            limits[name] = raw * unit
    paths = {key: tuple(value[key]) for key in _PATH_KEYS if key in value}
    return SandboxSettings(mode=value.get("mode", "auto"), limits=SandboxLimits(**limits), **paths)

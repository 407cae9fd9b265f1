"""`Confinement`: what one call's children may reach, as the process seam hands it to a backend.

The process seam builds one per call from the tool's declarations as resolved for that call: its
``fs_reach`` (read and write prefixes, attachments' files included), the backends' extra deny
prefixes, and its ``network`` hosts narrowed by the personality's policy. A backend that confines
(the bubblewrap sandbox, `toolwire.capabilities.kinds.process.sandbox.backend`) enforces it; one
that does not (`LocalProcessBackend`) ignores it. The sensitive-path floor and toolwire's own state
are not listed here: a confining backend hides them always, whatever a declaration says. The
protected paths (`toolwire.safety.protected_paths`) ride along: read-only inside every write root,
the defaults when none are given.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.capabilities.seams import NetworkPolicy
from toolwire.safety.protected_paths import ProtectedPaths

__all__ = ["NOTHING", "Confinement", "NetworkReach"]


@dataclass(frozen=True, kw_only=True, slots=True)
class NetworkReach:
    """Where a confined call may go through toolwire's egress proxy, its only way out.

    Attributes:
        allowed_hosts: The tool's declared host patterns, narrowed by the policy's allow list
            (`toolwire.capabilities.kinds.network.resolve_allowed_hosts`); never empty.
        policy: The personality's policy (deny list, allow list, private addresses);
            ``None``: every public host, as for `SafeFetcher`.
    """

    allowed_hosts: tuple[str, ...]
    policy: NetworkPolicy | None = None

    def __post_init__(self) -> None:
        if isinstance(self.allowed_hosts, str) or not self.allowed_hosts:
            raise ValueError(
                "NetworkReach(allowed_hosts=...) takes a non-empty tuple of host patterns; "
                "a call that may reach no host has network=None"
            )
        object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))


def _absolute(name: str, paths: Iterable[str]) -> tuple[str, ...]:
    if isinstance(paths, str):
        raise TypeError(f"Confinement({name}=...) takes a tuple of paths, not a string")
    out = tuple(dict.fromkeys(os.path.normpath(p) for p in paths))
    for path in out:
        if not os.path.isabs(path) or "\0" in path:
            raise ValueError(f"Confinement({name}=...): {path!r} is not an absolute path")
    return out


@dataclass(frozen=True, kw_only=True, slots=True)
class Confinement:
    """The reach of one call's child processes.

    Attributes:
        read_roots: Absolute paths the children may read (files or directories).
        write_roots: Absolute paths they may read and write.
        deny: Absolute paths hidden even inside a root (the backends' ``always_deny``).
        network: Where the only way out (toolwire's egress proxy) leads, when the tool
            declared network hosts and some survived the personality's policy; ``None``: no
            network at all.
        protected: What stays read-only inside the write roots (the backends'
            ``protected_paths``); ``None``: `default_protected_paths`.
    """

    read_roots: tuple[str, ...] = ()
    write_roots: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    network: NetworkReach | None = None
    protected: ProtectedPaths | None = None

    def __post_init__(self) -> None:
        for name in ("read_roots", "write_roots", "deny"):
            object.__setattr__(self, name, _absolute(name, getattr(self, name)))
        if self.network is not None and not isinstance(self.network, NetworkReach):
            raise TypeError(f"Confinement(network=...) takes a NetworkReach, got {self.network!r}")
        if self.protected is not None and not isinstance(self.protected, ProtectedPaths):
            raise TypeError(
                f"Confinement(protected=...) takes a ProtectedPaths, got {self.protected!r}"
            )

    @property
    def roots(self) -> tuple[str, ...]:
        """Every root, read and write."""
        return tuple(dict.fromkeys((*self.read_roots, *self.write_roots)))


NOTHING = Confinement()
"""No root and no network: what a backend assumes when it is given no confinement."""

"""Commands in a kernel-enforced sandbox: bubblewrap, an egress proxy, and the in-sandbox relay.

```python
from toolwire import ToolRegistry, create_backends
from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap

probe_bubblewrap().usable  # can bubblewrap run here? (tried once, cached)
registry = ToolRegistry(backends=create_backends(sandbox="required"))
```

- `SandboxedProcessBackend` (`toolwire.capabilities.kinds.process.sandbox.backend`): every child of
  every tool in its own bubblewrap sandbox, confined to its call's `Confinement` (the tool's file
  roots, the deny floor and toolwire's state hidden, its network reach through the egress proxy
  only), with the `SandboxLimits`.
- the modes (`toolwire.capabilities.kinds.process.sandbox._modes`): ``auto``, ``required``, ``off``.
- the egress proxy (`toolwire.capabilities.kinds.process.sandbox.egress`) and the relay
  (`toolwire.capabilities.kinds.process.sandbox.relay`).

See ``docs/sandbox.md``. The backend and the modes are imported from their modules (they
build on `toolwire.backends`, which imports this package's `Confinement`).

Rooms:

- ``_modes.py`` (which backend a mode gives), ``_settings.py`` (`SandboxMode`, `SandboxLimits`),
  ``_probe.py`` (can bubblewrap run here?);
- ``backend.py`` (`SandboxedProcessBackend`), ``_confinement.py`` (what one call's children may
  reach), ``_layout.py`` (bubblewrap's mounts), ``_launch.py`` (the command line of one sandbox),
  ``_cgroups.py`` (a pids cgroup per sandbox), ``_lifelines.py`` (how a sandbox is ended),
  ``_host_dir.py`` (the backend's private directory on the host);
- ``egress/`` (the egress proxy), ``_egress_gateway.py`` (the proxy in an event loop of its own),
  ``relays.py`` (the egress relay and its launcher), ``relay.py`` (the relay in Python) and
  ``inside.py`` (the stdlib-only launcher that runs first inside a sandbox).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.process.sandbox._confinement import Confinement, NetworkReach
    from toolwire.capabilities.kinds.process.sandbox._probe import BubblewrapProbe, probe_bubblewrap
    from toolwire.capabilities.kinds.process.sandbox._settings import (
        DEFAULT_LIMITS,
        SANDBOX_MODES,
        SandboxLimits,
        SandboxMode,
        SandboxSettings,
        sandbox_settings,
    )

_LAZY = {
    "BubblewrapProbe": "toolwire.capabilities.kinds.process.sandbox._probe",
    "Confinement": "toolwire.capabilities.kinds.process.sandbox._confinement",
    "DEFAULT_LIMITS": "toolwire.capabilities.kinds.process.sandbox._settings",
    "NetworkReach": "toolwire.capabilities.kinds.process.sandbox._confinement",
    "SANDBOX_MODES": "toolwire.capabilities.kinds.process.sandbox._settings",
    "SandboxLimits": "toolwire.capabilities.kinds.process.sandbox._settings",
    "SandboxMode": "toolwire.capabilities.kinds.process.sandbox._settings",
    "SandboxSettings": "toolwire.capabilities.kinds.process.sandbox._settings",
    "probe_bubblewrap": "toolwire.capabilities.kinds.process.sandbox._probe",
    "sandbox_settings": "toolwire.capabilities.kinds.process.sandbox._settings",
}


__all__ = [
    "DEFAULT_LIMITS",
    "SANDBOX_MODES",
    "BubblewrapProbe",
    "Confinement",
    "NetworkReach",
    "SandboxLimits",
    "SandboxMode",
    "SandboxSettings",
    "probe_bubblewrap",
    "sandbox_settings",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

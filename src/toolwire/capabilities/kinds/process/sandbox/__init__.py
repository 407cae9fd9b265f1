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
- the modes (`toolwire.capabilities.kinds.process.sandbox.modes`): ``auto``, ``required``, ``off``.
- the egress proxy (`toolwire.capabilities.kinds.process.sandbox.egress`) and the relay
  (`toolwire.capabilities.kinds.process.sandbox.relay`).

See ``docs/sandbox.md``. The backend and the modes are imported from their modules (they
build on `toolwire.backends`, which imports this package's `Confinement`).

Rooms:

- ``modes.py`` (which backend a mode gives), ``settings.py`` (`SandboxMode`, `SandboxLimits`),
  ``probe.py`` (can bubblewrap run here?);
- ``backend.py`` (`SandboxedProcessBackend`), ``confinement.py`` (what one call's children may
  reach), ``layout.py`` (bubblewrap's mounts), ``launch.py`` (the command line of one sandbox),
  ``cgroups.py`` (a pids cgroup per sandbox), ``lifelines.py`` (how a sandbox is ended),
  ``host_dir.py`` (the backend's private directory on the host);
- ``egress/`` (the egress proxy), ``egress_gateway.py`` (the proxy in an event loop of its own),
  ``relays.py`` (the egress relay and its launcher), ``relay.py`` (the relay in Python) and
  ``inside.py`` (the stdlib-only launcher that runs first inside a sandbox).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.process.sandbox.confinement import Confinement, NetworkReach
    from toolwire.capabilities.kinds.process.sandbox.probe import BubblewrapProbe, probe_bubblewrap
    from toolwire.capabilities.kinds.process.sandbox.settings import (
        DEFAULT_LIMITS,
        SANDBOX_MODES,
        SandboxLimits,
        SandboxMode,
        SandboxSettings,
        sandbox_settings,
    )

_LAZY = {
    "BubblewrapProbe": "toolwire.capabilities.kinds.process.sandbox.probe",
    "Confinement": "toolwire.capabilities.kinds.process.sandbox.confinement",
    "DEFAULT_LIMITS": "toolwire.capabilities.kinds.process.sandbox.settings",
    "NetworkReach": "toolwire.capabilities.kinds.process.sandbox.confinement",
    "SANDBOX_MODES": "toolwire.capabilities.kinds.process.sandbox.settings",
    "SandboxLimits": "toolwire.capabilities.kinds.process.sandbox.settings",
    "SandboxMode": "toolwire.capabilities.kinds.process.sandbox.settings",
    "SandboxSettings": "toolwire.capabilities.kinds.process.sandbox.settings",
    "probe_bubblewrap": "toolwire.capabilities.kinds.process.sandbox.probe",
    "sandbox_settings": "toolwire.capabilities.kinds.process.sandbox.settings",
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

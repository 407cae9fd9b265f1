"""Commands in a kernel-enforced sandbox: bubblewrap, an egress proxy, and the in-sandbox relay.

```python
from toolwire import ToolRegistry, create_backends
from toolwire.sandbox import probe_bubblewrap

probe_bubblewrap().usable  # can bubblewrap run here? (tried once, cached)
registry = ToolRegistry(create_backends(sandbox="required"))
```

- `SandboxedProcessBackend` (`toolwire.sandbox.backend`): every child of every tool in its own
  bubblewrap sandbox, confined to its call's `Confinement` (the tool's file roots, the deny
  floor and toolwire's state hidden, its network reach through the egress proxy only), with
  the `SandboxLimits`.
- the modes (`toolwire.sandbox.modes`): ``auto``, ``required``, ``off``.
- the egress proxy (`toolwire.sandbox.egress`) and the relay (`toolwire.sandbox.relay`).

See ``docs/sandbox.md``. The backend and the modes are imported from their modules (they
build on `toolwire.backends`, which imports this package's `Confinement`).
"""

from __future__ import annotations

from toolwire.sandbox.confinement import Confinement, NetworkReach
from toolwire.sandbox.probe import BubblewrapProbe, probe_bubblewrap
from toolwire.sandbox.settings import (
    DEFAULT_LIMITS,
    SANDBOX_MODES,
    SandboxLimits,
    SandboxMode,
    SandboxSettings,
    sandbox_settings,
)

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

"""What you need to test your own tools: real seams on nothing that outlives the test.

```python
from toolwire.testing import ScriptedModel, ToolHarness, call, run_script

async with ToolHarness(my_tool) as harness:           # in-memory store, a temporary root
    outcome = await harness.call("my_tool", path="notes.txt")
    model = ScriptedModel("anthropic", [[call("my_tool", path="notes.txt")]])
    results = await run_script(model, harness.registry, harness.context())
```

- `create_test_backends` / `create_test_registry` / `make_context`: the pieces, for fixtures
  of your own;
- `ToolHarness`: a registry, a temporary root and a context, opened and closed together;
- `ScriptedModel` and `run_script`: a model that makes scripted calls in each provider format
  of `toolwire.formats` and collects the results your agent sends back.

See ``docs/testing.md``.

Rooms: ``harness.py`` (`ToolHarness`), ``backends.py`` (backends and contexts for tests),
``scripted.py`` (`ScriptedModel`) and ``wire.py`` (each provider's JSON for scripted calls).
"""

from __future__ import annotations

from toolwire.testing.backends import create_test_backends, create_test_registry, make_context
from toolwire.testing.harness import ToolHarness
from toolwire.testing.scripted import ScriptedModel, ScriptMismatchError, call, run_script
from toolwire.testing.wire import FormatName, ScriptedCall, ScriptedResult

__all__ = [
    "FormatName",
    "ScriptMismatchError",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedResult",
    "ToolHarness",
    "call",
    "create_test_backends",
    "create_test_registry",
    "make_context",
    "run_script",
]

"""`ToolHarness`: a registry, a temporary root and a context, opened and closed together."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anyio.abc import AsyncResource

from toolwire.calls import CallOutcome
from toolwire.context import ToolContext
from toolwire.presenting import Presenter
from toolwire.registry import ToolRegistry
from toolwire.testing.backends import create_test_registry, make_context
from toolwire.tools import Tool

__all__ = ["ToolHarness"]


class ToolHarness(AsyncResource):
    """Everything a test of your own tools needs, in one ``async with``.

    ```python
    async with ToolHarness(my_tool) as harness:
        (harness.root / "notes.txt").write_text("hello")
        outcome = await harness.call("my_tool", path="notes.txt")
        assert outcome.result.ok
    ```

    Args:
        *tools: Your tools (or lists of them).
        root: The file root; a fresh temporary directory (removed on exit) when ``None``.
        builtins: Also register toolwire's built-in tools, with the command guard.
        **options: `create_test_backends` options (``kv_url``, ``secrets``,
            ``network_allow``, ...).
    """

    def __init__(
        self,
        *tools: Tool | Iterable[Tool],
        root: str | Path | None = None,
        builtins: bool = False,
        **options: Any,
    ) -> None:
        self._owns_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="toolwire-test-") if root is None else root)
        self.registry: ToolRegistry = create_test_registry(
            *tools, root=self.root, builtins=builtins, **options
        )
        self._calls = 0

    def context(self, **fields: Any) -> ToolContext:
        """A fresh `ToolContext` working in `root` (see `make_context` for ``fields``)."""
        return make_context(self.root, **fields)

    async def call(
        self, name: str, args: Mapping[str, Any] | str | None = None, **kwargs: Any
    ) -> CallOutcome:
        """Run one call through the full pipeline: ``call("add", a=1, b=2)`` or
        ``call("add", '{"a": 1}')`` (a JSON string, as a model sends it)."""
        if args is not None and kwargs:
            raise TypeError("call() takes the arguments as a mapping or as keywords, not both")
        self._calls += 1
        given: Mapping[str, Any] | str = args if args is not None else kwargs
        return await self.registry.execute(
            name, given, self.context(), call_id=f"call_{self._calls}"
        )

    def present(self, outcome: CallOutcome) -> str:
        """What the model would read of ``outcome`` (redacted, capped, wrapped)."""
        return Presenter().present(outcome, self.registry.get(outcome.name)).text

    async def aclose(self) -> None:
        """Close the registry (its backends, background processes) and remove a temporary
        root."""
        try:
            await self.registry.aclose()
        finally:
            if self._owns_root:
                shutil.rmtree(self.root, ignore_errors=True)

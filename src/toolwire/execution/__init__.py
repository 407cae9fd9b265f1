"""The stages of `ToolRegistry.execute_parallel`, one module each.

``gates`` (unknown, surface, allowlist, filters), ``budget`` (split and post-trim), ``dry_run``
(synthetic results), ``cache`` (opt-in result cache) and ``pipeline`` (the order they run in).
"""

from toolwire.execution.gates import FilterOptions

__all__ = ["FilterOptions"]

"""A large catalogue: ``run_code``'s description stays small, ``tool_search`` gives the stubs.

The stubs of a few dozen tools fit in ``run_code``'s description; those of a few hundred do not
(each stub is a signature and a docstring). `attach_catalogue` is called when the tool is built:

- when the stubs of the tools the model is shown would pass `CodeModeSettings.max_stub_chars`, every
  tool is deferred (`toolwire.tool_search`) but ``run_code``, ``tool_search``, the rules' ``keep``
  list and ``always_include`` tools; the description then lists only those, and says to find the
  others with ``tool_search``;
- whenever the registry defers tools (that threshold, or the registry's own rules), ``run_code`` is
  kept out of the deferral (a threshold would hide it too), and ``tool_search`` results carry the
  typed stubs of what they found.

A found tool is callable from the session's next step, in a program as directly: the program's calls
run under the snapshot of ``run_code``'s batch, which holds what the session has found. A deferred
tool the session has not found is refused inside the program (``PermissionError``,
``not_available``, naming ``tool_search``), as a direct call to it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from toolwire.registry import ToolRegistry

__all__ = ["SEARCH_NOTE", "attach_catalogue"]

SEARCH_NOTE = (
    "\n\nMore tools exist than are listed here: find them with `tool_search` (its results "
    "give their stubs); a found tool is callable from your next `run_code` call."
)
"""What ``run_code``'s description adds when some tools are found through ``tool_search``."""


def attach_catalogue(
    registry: ToolRegistry,
    name: str,
    max_stub_chars: int,
    listed: Callable[[], str],
    stubs_of: Callable[[Sequence[str]], str],
) -> bool:
    """Defer the catalogue behind ``tool_search`` when its stubs (``listed()``) pass
    ``max_stub_chars``, keep ``run_code`` (``name``) in view, and have ``tool_search`` give the
    stubs of what it finds (``stubs_of``). Returns whether some tools are deferred."""
    search = registry.tool_search  # attached by now when something is deferred
    big = len(listed()) > max_stub_chars
    if search is None and not big:
        return False
    if search is None:
        from toolwire.tool_search._searching import ToolSearch

        search = ToolSearch(registry)
    rules = search.rules
    keep = frozenset(rules.keep) | {name}
    search.use_rules(replace(rules, keep=keep, max_tools=0) if big else replace(rules, keep=keep))
    search.show_stubs(stubs_of)
    return bool(registry.deferred_names)

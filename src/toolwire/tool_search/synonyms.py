"""Query expansion: a small table of words people use for the same action or thing.

A model asks for "open a ticket" where the tool says "create an issue". Each query word adds
the other words of its groups at a lower weight (`EXPANSION_WEIGHT`), so an exact word still
ranks first. The table is deliberately short: verbs every API has, and the nouns that name
the same object in different products.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolwire.tool_search.tokens import stem, tokens

__all__ = ["EXPANSION_WEIGHT", "SYNONYM_GROUPS", "expand"]

EXPANSION_WEIGHT = 0.4
"""A synonym's weight in the query, against 1.0 for a word the query has."""

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("create", "new", "add", "make", "open", "start", "insert", "generate", "build", "file"),
    ("search", "find", "look", "lookup", "query", "locate", "discover", "seek", "filter"),
    ("send", "post", "message", "notify", "dm", "tell", "ping", "reply"),
    ("delete", "remove", "destroy", "erase", "drop", "trash", "purge", "cancel", "void"),
    ("list", "show", "enumerate", "all", "browse", "every", "index", "overview"),
    ("get", "fetch", "retrieve", "read", "view", "load", "download", "detail", "inspect", "see"),
    ("update", "edit", "modify", "change", "set", "rename", "patch", "alter", "adjust"),
    ("close", "resolve", "finish", "complete", "done", "mark"),
    ("comment", "reply", "note", "remark", "respond"),
    ("issue", "ticket", "bug", "task", "story"),
    ("pull", "pr", "merge", "mr"),
    ("repository", "repo", "project", "codebase"),
    ("channel", "room", "conversation", "chat"),
    ("user", "member", "person", "people", "account", "teammate", "profile", "who"),
    ("file", "document", "doc"),
    ("directory", "folder", "dir"),
    ("invoice", "bill", "billing"),
    ("payment", "charge", "pay", "transaction"),
    ("customer", "client", "buyer"),
    ("refund", "reimburse", "return", "money", "back"),
    ("subscription", "plan", "recurring"),
    ("email", "mail", "inbox"),
    ("event", "meeting", "appointment", "calendar", "schedule"),
    ("page", "wiki", "note", "doc"),
    ("database", "db", "sql", "table", "schema"),
    ("error", "exception", "crash", "failure", "bug", "incident"),
    ("run", "execute", "exec", "invoke", "trigger"),
    ("branch", "ref"),
    ("commit", "change", "revision"),
    ("label", "tag"),
    ("assign", "owner", "assignee"),
    ("move", "transfer", "relocate"),
    ("copy", "duplicate", "clone"),
    ("upload", "attach", "attachment"),
    ("write", "save", "store", "put"),
    ("workflow", "pipeline", "ci", "action", "job", "build"),
    ("release", "version", "tag", "deploy"),
    ("key", "token", "credential", "secret"),
    ("image", "picture", "photo", "screenshot"),
    ("url", "link", "website", "web", "page"),
    ("navigate", "go", "visit", "browse", "open"),
    ("click", "press", "tap"),
    ("type", "fill", "enter", "input"),
    ("star", "favorite", "bookmark"),
    ("react", "reaction", "emoji"),
    ("status", "state", "progress", "health"),
    ("price", "cost", "pricing", "amount"),
    ("product", "item", "sku"),
    ("team", "group", "organization", "org", "workspace"),
)
"""Each group: words taken for one another. A word may be in several groups."""


def _table() -> Mapping[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        stems = {stem(word) for word in group}
        for word in stems:
            table.setdefault(word, set()).update(stems - {word})
    return {word: frozenset(others) for word, others in table.items()}


_TABLE = _table()


def expand(query: str, *, synonyms: bool = True) -> dict[str, float]:
    """The query's terms with their weights: its own words 1.0 (more when repeated), each
    synonym `EXPANSION_WEIGHT` (never more than a word the query has)."""
    weights: dict[str, float] = {}
    own = tokens(query)
    for term in own:
        weights[term] = weights.get(term, 0.0) + 1.0
    if synonyms:
        for term in own:
            for other in _TABLE.get(term, ()):
                if other not in weights:
                    weights[other] = EXPANSION_WEIGHT
    return weights

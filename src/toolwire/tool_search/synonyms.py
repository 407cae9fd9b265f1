"""Query expansion: a small table of words people use for the same action or thing.

A model asks for "open a ticket" where the tool says "create an issue". Each query word adds
the other words of its groups at a lower weight (`EXPANSION_WEIGHT`, or
`KNOWN_EXPANSION_WEIGHT` when the tools use the word itself), so an exact word still ranks
first. The weights were chosen on ``benchmarks/data/tool_search_queries.json``. The table is
deliberately short: verbs every API has, and the nouns that name the same object in different
products.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

from toolwire.tool_search._tokens import stem, tokens

__all__ = [
    "EXPANSION_WEIGHT",
    "KNOWN_EXPANSION_WEIGHT",
    "SYNONYM_GROUPS",
    "expand",
    "expand_words",
]

EXPANSION_WEIGHT = 0.8
"""A synonym's weight in the query, against 1.0 for a word the query has."""

KNOWN_EXPANSION_WEIGHT = 0.6
"""A synonym's weight when the query's own word is one the tools use."""

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    # actions
    ("create", "new", "add", "make", "open", "start", "insert", "generate", "build", "file"),
    ("search", "find", "look", "lookup", "query", "locate", "discover", "seek", "filter"),
    ("send", "post", "message", "notify", "dm", "tell", "ping", "reply", "email"),
    ("delete", "remove", "destroy", "erase", "drop", "trash", "purge", "forget", "permanently"),
    ("cancel", "stop", "abort", "terminate", "halt", "end"),
    ("list", "show", "enumerate", "all", "browse", "every", "overview", "inside", "everyone"),
    (
        "get",
        "fetch",
        "retrieve",
        "read",
        "view",
        "load",
        "download",
        "detail",
        "inspect",
        "see",
        "show",
        "open",
        "content",
        "contents",
        "say",
    ),
    (
        "update",
        "edit",
        "modify",
        "change",
        "set",
        "rename",
        "patch",
        "alter",
        "adjust",
        "upgrade",
        "downgrade",
        "retitle",
        "reopen",
        "close",
    ),
    ("close", "resolve", "finish", "complete", "done", "mark"),
    ("comment", "reply", "note", "remark", "respond", "discussion", "thread", "story"),
    ("draft", "prepare", "compose", "unsent"),
    ("wait", "pause", "until", "sleep", "appear"),
    ("sync", "rebase", "latest", "date", "refresh"),
    ("batch", "many", "multiple", "bulk", "several", "once"),
    ("check", "status", "passing", "ci", "state", "progress", "health", "modified"),
    ("transition", "move", "status", "workflow"),
    ("link", "relate", "block", "blocking", "depend", "dependency"),
    ("log", "history", "recent", "past", "logged", "record"),
    ("worklog", "time", "hour", "spent", "logged"),
    ("approve", "review", "reviewer", "approval"),
    ("diff", "patch", "change", "changed", "difference", "compare"),
    ("run", "execute", "exec", "invoke", "trigger", "kick"),
    ("copy", "duplicate", "clone", "fork"),
    ("upload", "attach", "attachment"),
    ("write", "save", "store", "put"),
    ("select", "option", "pick", "choose", "dropdown"),
    ("navigate", "go", "visit", "browse", "url"),
    ("click", "press", "tap", "hit"),
    ("type", "fill", "enter", "input"),
    ("star", "favorite", "bookmark"),
    ("react", "reaction", "emoji"),
    # things
    ("issue", "ticket", "bug", "task", "story"),
    ("pull", "pr", "merge", "mr"),
    ("pr", "request"),
    ("mr", "request"),
    ("repository", "repo", "project", "codebase"),
    ("channel", "room", "conversation", "chat"),
    ("user", "member", "person", "people", "account", "teammate", "profile", "who", "users"),
    ("me", "myself", "self", "whoami", "authenticated", "logged", "bot"),
    ("file", "document", "doc"),
    ("directory", "folder", "dir"),
    ("tree", "hierarchy", "recursive", "recursively", "nested"),
    ("size", "large", "big", "bytes"),
    ("invoice", "bill", "billing"),
    ("payment", "charge", "pay", "transaction"),
    ("customer", "client", "buyer"),
    ("refund", "reimburse", "money"),
    ("balance", "money", "funds", "account"),
    ("coupon", "discount", "promo", "voucher"),
    ("dispute", "chargeback", "evidence"),
    ("subscription", "plan", "recurring"),
    ("email", "mail", "inbox", "gmail"),
    ("event", "meeting", "appointment", "calendar", "schedule"),
    ("page", "wiki", "note", "doc", "article"),
    ("database", "db", "sql", "table", "schema", "row", "record"),
    ("error", "exception", "crash", "failure", "bug", "incident"),
    ("memory", "remember", "knowledge", "fact", "observation", "entity", "graph", "recall"),
    ("secret", "credential", "key", "token", "password", "leak", "leaked"),
    ("vulnerability", "vulnerable", "security", "alert", "cve", "dependabot"),
    ("branch", "ref"),
    ("commit", "revision", "sha"),
    ("label", "tag"),
    ("assign", "owner", "assignee"),
    ("workflow", "pipeline", "ci", "action", "job", "build"),
    ("release", "version", "deploy", "deployed"),
    ("image", "picture", "photo", "screenshot", "png"),
    ("url", "link", "website", "web", "page", "site"),
    ("http", "network", "request", "call"),
    ("place", "business", "shop", "restaurant", "local", "near", "around", "nearby"),
    ("direction", "route", "drive", "travel", "distance", "trip", "commute"),
    ("elevation", "altitude", "high", "height", "sea"),
    ("geocode", "coordinate", "latitude", "longitude", "address", "location"),
    ("timezone", "time", "clock"),
    ("price", "cost", "pricing", "amount"),
    ("product", "item", "sku"),
    ("team", "group", "organization", "org", "workspace"),
    ("filter", "rule", "automatically", "automatic"),
    ("subtask", "smaller", "split", "piece", "child", "sub"),
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


def expand(
    query: str,
    *,
    synonyms: bool = True,
    known: Container[str] | None = None,
) -> dict[str, float]:
    """The query's terms with their weights: its own words 1.0 (more when repeated), each
    synonym `EXPANSION_WEIGHT` (never more than a word the query has). With ``known`` (the
    words of the tools' names and descriptions), the synonyms of a word the tools use
    themselves weigh `KNOWN_EXPANSION_WEIGHT`: the word already says it; a word no tool uses
    leans on them."""
    weights: dict[str, float] = {}
    own = tokens(query)
    for term in own:
        weights[term] = weights.get(term, 0.0) + 1.0
    if synonyms:
        for term in own:
            weight = (
                KNOWN_EXPANSION_WEIGHT if known is not None and term in known else EXPANSION_WEIGHT
            )
            for other in _TABLE.get(term, ()):
                if weights.get(other, 0.0) < weight:  # a word of the query keeps its 1.0
                    weights[other] = weight
    return weights


def expand_words(
    query: str, *, synonyms: bool = True, known: Container[str] | None = None
) -> list[tuple[str, dict[str, float]]]:
    """Each distinct word of the query with its alternatives: ``(word, {term: weight})``,
    the word itself at 1.0 and its synonyms as in `expand`. A tool matching several synonyms
    of one word is credited once for that word (by its best match), not once per synonym."""
    groups: list[tuple[str, dict[str, float]]] = []
    for term in dict.fromkeys(tokens(query)):
        alternatives = {term: 1.0}
        if synonyms:
            weight = (
                KNOWN_EXPANSION_WEIGHT if known is not None and term in known else EXPANSION_WEIGHT
            )
            for other in _TABLE.get(term, ()):
                alternatives.setdefault(other, weight)
        groups.append((term, alternatives))
    return groups

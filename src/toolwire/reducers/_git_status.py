"""``git status`` summaries, from the porcelain (``--porcelain``, ``-s``, ``-sb``) or human form.

The summary counts changes per group and lists each group's paths by kind (the first 10, then
``+N more``)::

    git status: branch main; 4 staged, 3 unstaged, 2 untracked.
    Staged: deleted src/a.py, src/b.py; new src/c.py; renamed x.py -> y.py
    Unstaged: modified src/b.py, src/e.py; deleted src/d.py
    Untracked: build/, notes.txt

Porcelain output is already compact, so a short one usually comes back unchanged (the terminal
reducer keeps the original when the summary is not shorter); long ones shrink.

Lines the parser does not recognise (a warning, another command's output) are kept verbatim
under ``Other output:`` so nothing the model might need is silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.safety.linear_regex import linear

__all__ = ["GitStatus", "is_git_status_command", "parse_git_status", "summarise_git_status"]

_COMMAND = linear(r"\bgit(?:\s+(?:-[Cc]\s+\S+|--?[\w-]+(?:=\S+)?))*\s+status\b")
_PORCELAIN = linear(r"^([ MTADRCU?!])([ MTADRCU?!]) (.+)$")
_BRANCH_HEADER = linear(r"^## (.+)$")
_CONFLICT_CODES = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})
_INDEX_KINDS = {
    "M": "modified",
    "T": "typechange",
    "A": "new",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
}
_TREE_KINDS = {"M": "modified", "T": "typechange", "D": "deleted"}
_HUMAN_SECTIONS = {
    "Changes to be committed:": "staged",
    "Changes not staged for commit:": "unstaged",
    "Untracked files:": "untracked",
    "Unmerged paths:": "conflicted",
    "Ignored files:": "ignored",
}
_HUMAN_ENTRY = linear(r"^\t(?:(?P<kind>[a-z][a-z ]*?):\s+)?(?P<path>\S.*)$")
_HUMAN_CONFLICT_KINDS = frozenset(
    {
        "both modified",
        "both added",
        "both deleted",
        "added by us",
        "added by them",
        "deleted by us",
        "deleted by them",
    }
)
_HUMAN_IMPLIED = linear(
    r"^(?:nothing to commit|nothing added to commit|no changes added to commit)"
)  # said by the counts already
_HUMAN_INFO = linear(
    r"^(?:Your branch |and have \d+ and \d+ different"
    r"|You have unmerged paths|All conflicts fixed|You are currently"
    r"|Initial commit|No commits yet|interactive rebase in progress|rebase in progress"
    r"|Last command|Next command|It took [\d.]+ seconds)"
)
_HUMAN_STARTS = ("On branch ", "HEAD detached ", "Not currently on any branch", "nothing to commit")
_MAX_LISTED = 10


@dataclass(kw_only=True, slots=True)
class GitStatus:
    """A parsed ``git status``.

    Attributes:
        branch: The branch line (``main``, ``HEAD detached at abc123``, ``main...origin/main``).
        info: Tracking and state lines worth repeating (``Your branch is ahead ...``).
        groups: Group name (staged, unstaged, untracked, conflicted, ignored) → ``(kind,
            path)`` entries such as ``("modified", "src/a.py")``; the kind is ``""`` for
            untracked and ignored paths.
        other: Lines that are not part of a status.
    """

    branch: str | None = None
    info: list[str] = field(default_factory=list)
    groups: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    other: list[str] = field(default_factory=list)

    def add(self, group: str, kind: str, path: str) -> None:
        """Record a ``kind`` change of ``path`` in ``group``."""
        self.groups.setdefault(group, []).append((kind, path))


def is_git_status_command(command: str) -> bool:
    """Whether ``command`` runs ``git status`` (``git -C repo status -sb`` included)."""
    return bool(_COMMAND.search(command))


def parse_git_status(output: str) -> GitStatus | None:
    """Parse porcelain or human ``git status`` output; ``None`` when it is neither."""
    lines = [line.rstrip("\r") for line in output.split("\n")]
    if any(line.startswith(_HUMAN_STARTS) or line in _HUMAN_SECTIONS for line in lines):
        return _parse_human(lines)
    return _parse_porcelain(lines)


def _parse_porcelain(lines: list[str]) -> GitStatus | None:
    status = GitStatus()
    recognised = 0
    for line in lines:
        if not line.strip():
            continue
        header = _BRANCH_HEADER.match(line)
        if header is not None and status.branch is None:
            status.branch = header.group(1)
            recognised += 1
            continue
        # a leading blank is lost when the caller strips the output (" M a.py" -> "M a.py")
        entry = _PORCELAIN.match(line) or _PORCELAIN.match(" " + line)
        if entry is None:
            status.other.append(line)
            continue
        recognised += 1
        x, y, path = entry.groups()
        code = x + y
        if code == "??":
            status.add("untracked", "", path)
        elif code == "!!":
            status.add("ignored", "", path)
        elif code in _CONFLICT_CODES:
            status.add("conflicted", "", path)
        else:
            if x in _INDEX_KINDS:
                status.add("staged", _INDEX_KINDS[x], path)
            if y in _TREE_KINDS:
                status.add("unstaged", _TREE_KINDS[y], path)
    if recognised == 0 or len(status.other) > recognised:
        return None
    return status


def _parse_human(lines: list[str]) -> GitStatus:
    status = GitStatus()
    section: str | None = None
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("On branch "):
            status.branch = line.removeprefix("On branch ")
        elif line.startswith(("HEAD detached ", "Not currently on any branch")):
            status.branch = line
        elif line in _HUMAN_SECTIONS:
            section = _HUMAN_SECTIONS[line]
        elif line.startswith("  (") and line.endswith(")"):
            continue  # hints such as (use "git add <file>..." to update ...)
        elif line.startswith("\t") and section is not None:
            entry = _HUMAN_ENTRY.match(line)
            if entry is None:
                status.other.append(line)
                continue
            kind, path = entry.group("kind"), entry.group("path")
            if kind in _HUMAN_CONFLICT_KINDS or section == "conflicted":
                status.add("conflicted", kind or "", path)
            elif section in ("untracked", "ignored") or kind is None:
                status.add(section, kind or "", path)
            else:
                status.add(section, "new" if kind == "new file" else kind, path)
        elif _HUMAN_IMPLIED.match(line):
            continue
        elif _HUMAN_INFO.match(line):
            status.info.append(line)
        else:
            status.other.append(line)
    return status


def summarise_git_status(status: GitStatus) -> str:
    """Render the compact summary described in the module docstring."""
    counts = [
        f"{len(status.groups[name])} {name}"
        for name in ("conflicted", "staged", "unstaged", "untracked", "ignored")
        if status.groups.get(name)
    ]
    head = "git status: "
    if status.branch:
        head += f"branch {status.branch}; "
    head += (", ".join(counts) if counts else "clean") + "."
    out = [head, *status.info]
    for name in ("conflicted", "staged", "unstaged", "untracked", "ignored"):
        entries = status.groups.get(name)
        if entries:
            out.append(f"{name.capitalize()}: {_render_group(entries)}")
    if status.other:
        out.append("Other output:")
        out.extend(status.other)
    return "\n".join(out)


def _render_group(entries: list[tuple[str, str]]) -> str:
    """``modified a, b; deleted c`` (kinds in first-seen order), at most 10 paths."""
    by_kind: dict[str, list[str]] = {}
    for kind, path in entries[:_MAX_LISTED]:
        by_kind.setdefault(kind, []).append(path)
    parts = [(f"{kind} " if kind else "") + ", ".join(paths) for kind, paths in by_kind.items()]
    more = len(entries) - _MAX_LISTED
    return "; ".join(parts) + (f"; +{more} more" if more > 0 else "")

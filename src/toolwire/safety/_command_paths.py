"""Where a path in a command leads, for the guard's rules: ``..``, ``~``, ``$HOME`` resolved.

`danger` answers what catastrophic place a path names, if any: ``/`` itself, a system folder
(``/usr``, ``/etc``, ``/usr/lib``, ``/boot/efi``, ``/home/alice``...), the home folder, a parent
of the home folder, or a parent of the working folder (``..``). A trailing pure glob (``/*``,
``~/.*``) names the folder's contents, as dangerous as the folder; a glob in a system folder's
name (``/u?r``) may match it. The unknown parts of a word (a variable, a substitution) are read
as empty, so ``"$DIR"/`` is ``/``: write ``${DIR:?}`` to say it is set.
"""

from __future__ import annotations

from toolwire.safety.bash._words import HOME, SOMETHING, UNKNOWN

__all__ = ["SYSTEM_DIRS", "danger", "normalise"]

SYSTEM_DIRS = frozenset(
    {
        "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "opt", "proc",
        "root", "sbin", "srv", "sys", "usr", "var", "snap", "mnt", "media", "run", "nix",
        "Applications", "Library", "System", "Users", "Volumes", "private",
    }
)  # fmt: skip
"""Top-level folders whose loss breaks the machine."""
_SECOND_LEVEL = frozenset({"usr", "boot", "home", "Users", "lib", "System"})
_PURE_GLOBS = frozenset({"*", ".*", "**", "*.*", ".[!.]*", ".??*", "?*"})
_GLOB = frozenset("*?[")


def normalise(text: str) -> tuple[str, list[str], int]:
    """``(base, parts, climbs)``: base ``/``, ``~``, ``.`` or ``?`` (an unknown start), the
    folders below it with ``.`` and ``..`` resolved, and how far ``..`` climbed above the base."""
    text = text.replace(UNKNOWN, "")
    if text.startswith(HOME):
        base, text = "~", text[1:]
    elif text.startswith("/"):
        base = "/"
    elif text.startswith(SOMETHING):
        base = "?"
    else:
        base = "."
    parts: list[str] = []
    climbs = 0
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            parts.append(part)
        elif parts:
            parts.pop()
        elif base != "/":
            climbs += 1
    while parts and parts[-1] in _PURE_GLOBS:
        parts.pop()
    return base, parts, climbs


def danger(text: str) -> str | None:
    """What catastrophic place ``text`` names (for a message), or ``None``."""
    if not text.replace(UNKNOWN, ""):
        return None
    base, parts, climbs = normalise(text)
    if base == "/":
        return _system(parts)
    if base == "~":
        if climbs:
            return "a parent of the home folder"
        return "the home folder" if not parts else None
    if base == "." and climbs and not parts:
        return "a parent of the working folder"
    return None


def _system(parts: list[str]) -> str | None:
    if not parts:
        return "/"
    first = parts[0]
    named = "/" + "/".join(parts)
    if len(parts) == 1 and (first in SYSTEM_DIRS or any(char in _GLOB for char in first)):
        return named
    if len(parts) == 2 and (first in _SECOND_LEVEL or parts == ["var", "lib"]):
        return named
    return None

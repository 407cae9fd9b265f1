"""The hardline catalogue of the command guard: the rules one resolved command is judged by.

`judge` runs a `Segment`'s program rules (``rm``, ``find``, ``chmod``/``chown``/``chgrp``,
``mv``, ``gpg``, ``setcap``, the disk and machine rules of `command_device_rules`), then the
rules every command is judged by: what it writes (redirections, ``tee``, ``cp``/``mv``/
``install``/``ln`` destinations, ``dd of=``, ``sed -i``, ``truncate``, ``sysctl -w``), the
secret files it names (plainly, or through a glob: `toolwire.safety._command_globs`), and
destructive SQL given to a database client or inline code. A command whose name is hidden
(``$X -rf /``, ``$(echo rm) -rf ~``) is judged by its arguments alone (`_hidden`).
"""

from __future__ import annotations

from collections.abc import Callable

from toolwire.safety._command_device_rules import (
    DEVICE_RULES,
    device_behind,
    is_raw_disk,
    options_and_operands,
)
from toolwire.safety._command_globs import glob_secret
from toolwire.safety._command_paths import danger, normalise
from toolwire.safety.bash._model import Finding, Segment
from toolwire.safety.bash._nested import deletes_operands
from toolwire.safety.bash._words import HOME, INPUT, SOMETHING, UNKNOWN, display
from toolwire.safety.linear_regex import LinearPattern, linear

__all__ = ["judge"]

Rule = Callable[[Segment], Finding | None]
_SSH_DIR = linear(r"^(?:\x01|~|\$HOME|\$\{HOME\})/\.ssh(?:/|$)|/\.ssh(?:/|$)|^\.ssh(?:/|$)")
_SYSTEM_WRITE = linear(
    r"^/etc/(?:sudoers(?:\.d(?:/.*)?)?|passwd|shadow|group|gshadow|pam\.d/.*|ld\.so\.preload"
    r"|crontab|cron\.d/.*)$"
    r"|^/(?:boot|sys)/"
    r"|^/proc/(?:[^/]+/)*[^/]+$"
    r"|(?:^|/)authorized_keys2?$"
)
_PROC_FD = linear(r"^/proc/(?:self|thread-self|\d+)/fd/")
_SETID_NUMERIC = linear(r"^[0-7]?[2467][0-7]{3}$")
_SETID_SYMBOLIC = linear(r"(?:^|,)[ugoa]*[+=][rwxXt]*s")
# The words are searched for whether they match, so the context around a name is consumed
# ("(?:^|[^\w-])") instead of looked at (a linear engine has no lookarounds).
_SENSITIVE_PATHS: tuple[tuple[LinearPattern, str], ...] = (
    (linear(r"(?:^|[^\w-])\.ssh/(?:id_|authorized_keys|known_hosts)"), "an SSH key file"),
    (linear(r"(?:^|[^\w-])\.aws/credentials(?:[^\w.-]|$)"), "AWS credentials"),
    (linear(r"(?:^|[^\w-])\.gnupg(?:[^\w.-]|$)"), "the GnuPG keyring"),
    (linear(r"(?:^|[^\w-])\.netrc(?:[^\w.-]|$)"), "~/.netrc"),
    (linear(r"(?:^|[^\w.-])/etc/(?:passwd|shadow|sudoers)(?:[^\w.]|$)"), "a system account file"),
    (linear(r"(?:^|[^\w-])\.(?:bash|zsh|psql|mysql)_history(?:[^\w.-]|$)"), "a shell history"),
)
_ANY_SENSITIVE = linear(
    r"\.ssh/|\.aws/credentials|\.gnupg|\.netrc|/etc/(?:passwd|shadow|sudoers)|_history"
)
_SQL = linear(r"(?i)\bDROP\s+(?:DATABASE|TABLE|SCHEMA)\b|\bTRUNCATE\s+TABLE\b")
_SQL_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "clickhouse-client", "clickhouse",
     "duckdb", "cockroach", "cqlsh", "isql", "bq", "snowsql", "trino", "presto", "usql"}
)  # fmt: skip
_CODE_RUNNERS = linear(r"^(?:python|pypy|perl|ruby|node|nodejs|php|lua|deno|bun)[0-9.]*$")
_DATA_PROGRAMS = frozenset({"echo", "printf", ":", "true", "false", "test", "["})
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep"})
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})
_PERMISSIONS = frozenset({"chmod", "chown", "chgrp", "setfacl", "chattr"})


def _finding(rule: str, reason: str, segment: Segment) -> Finding:
    return Finding(rule, reason, segment.text[:200])


def judge(segment: Segment) -> Finding | None:
    """The first rule ``segment`` breaks, or ``None``."""
    program = segment.program
    rules: tuple[Rule, ...] = _PROGRAM_RULES.get(program, ())
    if not rules and program.startswith(("mkfs", "mke2fs")):
        rules = DEVICE_RULES["mkfs"]
    if program == UNKNOWN:
        rules = (_hidden,)
    for rule in (*rules, *_EVERY_COMMAND):
        found = rule(segment)
        if found is not None:
            return found
    return None


def _at(segment: Segment, target: str) -> str:
    """``target`` from the folder an earlier ``cd`` of the line moved to."""
    if not segment.cwd or target.startswith(("/", HOME, SOMETHING)):
        return target
    return segment.cwd.rstrip("/") + "/" + target


def _flags(options: list[str]) -> str:
    return "".join(o[1:] for o in options if not o.startswith("--"))


def _rm(segment: Segment) -> Finding | None:
    options, targets = options_and_operands(segment.argv[1:])
    if "--no-preserve-root" in options:
        return _finding("rm-recursive-root", "rm --no-preserve-root", segment)
    short = _flags(options)
    recursive = "r" in short or "R" in short or "--recursive" in options
    for target in targets:
        if _SSH_DIR.search(target):
            return _finding("rm-ssh", f"deleting SSH files ({display(target)})", segment)
        where = _at(segment, target)
        place = danger(where) if recursive or target.endswith("*") else None
        if place is not None:
            shown = (
                display(target)
                if where == target
                else f"{display(target)} in {display(segment.cwd)}"
            )
            return _finding("rm-recursive-root", f"recursive forced delete of {shown}", segment)
    return None


def _find(segment: Segment) -> Finding | None:
    argv = segment.argv
    roots = []
    for word in argv[1:]:
        if word.startswith(("-", "(", "!")):
            break
        roots.append(word)
    dangerous = [root for root in roots if danger(_at(segment, root)) is not None]
    if not dangerous:
        return None
    deletes = "-delete" in argv
    for index, word in enumerate(argv):
        if word in ("-exec", "-execdir", "-ok", "-okdir") and index + 1 < len(argv):
            deletes = deletes or argv[index + 1].rsplit("/", 1)[-1] in ("rm", "shred", "unlink")
    if deletes:
        return _finding("find-root-delete", f"find {display(dangerous[0])} deleting", segment)
    return None


def _permissions(segment: Segment) -> Finding | None:
    options, operands = options_and_operands(segment.argv[1:])
    program = segment.program
    if program == "install":
        return _install_mode(segment)
    if program == "chmod":
        mode = operands[0] if operands else ""
        if _SETID_NUMERIC.match(mode) or _SETID_SYMBOLIC.search(mode):
            return _finding("chmod-setuid", f"setting setuid/setgid bits (chmod {mode})", segment)
    recursive = "R" in _flags(options) or "--recursive" in options
    if program in ("chmod", "chown", "chgrp") and not any(
        o.startswith("--reference") for o in options
    ):
        operands = operands[1:]
    for target in operands:
        place = danger(_at(segment, target))
        if place is not None and (recursive or place == "/"):
            return _finding(
                "recursive-chmod",
                f"changing the permissions or owner of {display(target)}"
                + (" recursively" if recursive else ""),
                segment,
            )
    return None


def _install_mode(segment: Segment) -> Finding | None:
    argv = segment.argv
    for index, word in enumerate(argv):
        mode = argv[index + 1] if word == "-m" and index + 1 < len(argv) else ""
        mode = word.split("=", 1)[1] if word.startswith("--mode=") else mode
        if mode and (_SETID_NUMERIC.match(mode) or _SETID_SYMBOLIC.search(mode)):
            return _finding("chmod-setuid", f"installing with setuid/setgid bits ({mode})", segment)
    return None


def _rsync(segment: Segment) -> Finding | None:
    options, operands = options_and_operands(segment.argv[1:])
    if operands and any(o.startswith(("--delete", "--remove-source")) for o in options):
        place = danger(_at(segment, operands[-1]))
        if place is not None:
            return _finding(
                "rm-recursive-root", f"rsync --delete into {display(operands[-1])}", segment
            )
    return None


def _mv(segment: Segment) -> Finding | None:
    options, operands = options_and_operands(segment.argv[1:])
    target_dir = any(o.startswith(("-t", "--target-directory")) for o in options)
    sources = operands if target_dir else operands[:-1]
    for source in sources:
        place = danger(_at(segment, source))
        if place is not None:
            return _finding("mv-destroy", f"moving {display(source)} away", segment)
    if operands and not target_dir and operands[-1].startswith("/dev/") and len(operands) > 1:
        return _finding("mv-destroy", f"moving files onto {display(operands[-1])}", segment)
    return None


def _gpg(segment: Segment) -> Finding | None:
    if any(word.startswith("--delete-secret") for word in segment.argv[1:]):
        return _finding("gpg-delete-secret-key", "deleting GPG secret keys", segment)
    return None


def _setcap(segment: Segment) -> Finding | None:
    if any("cap_" in word for word in segment.argv[1:]):
        return _finding("setcap", "granting file capabilities (setcap)", segment)
    return None


def _hidden(segment: Segment) -> Finding | None:
    """A command whose name is hidden, judged by arguments that are catastrophic for a
    destructive program (``$X -rf /``, ``$X of=/dev/sda``, ``$X -9 -1``)."""
    options, operands = options_and_operands(segment.argv[1:])
    short = _flags(options)
    recursive = "r" in short or "R" in short or "--recursive" in options
    reason = ""
    if "--no-preserve-root" in options:
        reason = "--no-preserve-root"
    for word in operands:
        if recursive and danger(word) is not None:
            reason = reason or f"a recursive operation on {display(word)}"
        if is_raw_disk(word) or (word.startswith("of=") and is_raw_disk(word[3:])):
            reason = reason or f"an operation on the disk {display(word)}"
    if "-1" in operands and any(o in ("-9", "-KILL", "-SIGKILL", "-s") for o in options):
        reason = reason or "killing every process"
    if not reason:
        return None
    return _finding("hidden-command", f"a command hidden in an expansion, with {reason}", segment)


def _write_targets(segment: Segment) -> list[str]:
    targets = [redirect.target for redirect in segment.redirects if redirect.writes]
    program = segment.program
    options, operands = options_and_operands(segment.argv[1:])
    if program == "tee":
        targets.extend(operands)
    elif program in _COPIERS and len(operands) >= 2:
        targets.append(operands[-1])
    elif program == "dd":
        targets.extend(word[3:] for word in segment.argv[1:] if word.startswith("of="))
    elif program == "ddrescue" and len(operands) >= 2:
        targets.append(operands[1])
    elif program in ("truncate", "shred") or (
        program in ("sed", "perl") and any(o.startswith(("-i", "--in-place")) for o in options)
    ):
        targets.extend(operands[1:] if program in ("sed", "perl") else operands)
    elif program == "sysctl" and any(o in ("-w", "--write") or "=" in o for o in segment.argv[1:]):
        targets.append("/proc/sys/")
    return targets


def _writes(segment: Segment) -> Finding | None:
    for target in _write_targets(segment):
        if is_raw_disk(target):
            return _finding(
                "disk-write", f"writing to a raw disk device ({display(target)})", segment
            )
        if _PROC_FD.match(target):
            continue  # the command's own descriptors
        device = device_behind(target, segment.cwd)
        if device is not None:
            return _finding(
                "disk-write", f"writing to a device ({display(target)} leads to {device})", segment
            )
        plain = target.replace("//", "/")
        if _SYSTEM_WRITE.search(plain) or plain == "/proc/sys/":
            return _finding("system-file-write", f"writing to {display(target)}", segment)
    return None


def _checked_words(segment: Segment) -> list[str]:
    """The words the sensitive-path rule reads: not what ``echo`` prints, not a ``grep``
    pattern, not a ``git commit -m`` message."""
    program = segment.program
    argv = list(segment.argv)
    if program in _DATA_PROGRAMS:
        return []
    if program in _PATTERN_FIRST:
        for index, word in enumerate(argv[1:], start=1):
            if not word.startswith("-"):
                return argv[:index] + argv[index + 1 :]
    if program == "git" and any(w in ("commit", "tag", "notes", "stash") for w in argv[1:3]):
        return [w for i, w in enumerate(argv) if i == 0 or argv[i - 1] not in ("-m", "--message")]
    return argv


def _sensitive(segment: Segment) -> Finding | None:
    words = [*_checked_words(segment), *(r.target for r in segment.redirects)]
    for word in words:
        if not _ANY_SENSITIVE.search(word) and "/.." not in word:
            continue
        text = display(word)
        if "/.." in text and text.startswith("/"):
            text = "/" + "/".join(normalise(text)[1])
        for pattern, label in _SENSITIVE_PATHS:
            if pattern.search(text) and not (label == "an SSH key file" and text.endswith(".pub")):
                return _finding("sensitive-path", f"access to {label} ({text[:120]})", segment)
    return None


def _sensitive_glob(segment: Segment) -> Finding | None:
    """A glob the shell expands to a secret file (``cat /etc/sha*w``, ``cat ~/.s?h/id_rsa``)."""
    checked = set(_checked_words(segment))
    words = [word for word in segment.args if word.glob and word.text in checked]
    words.extend(r.word for r in segment.redirects if r.word is not None and r.word.glob)
    for word in words:
        label = glob_secret(word.text)
        if label is not None:
            shown = display(word.text)[:120]
            return _finding("sensitive-path", f"access to {label} (the glob {shown})", segment)
    return None


def _deletes_input(segment: Segment) -> Finding | None:
    """A recursive delete or a ``shred`` of paths read from input (``while read f; do rm -rf
    "$f"; done < list``): what it destroys cannot be known before it runs."""
    if any(INPUT in word for word in segment.argv[1:]) and deletes_operands(segment.argv):
        return _finding(
            "delete-from-input",
            f"{segment.program} destroying paths read from input, which cannot be known "
            "before it runs",
            segment,
        )
    return None


def _sql(segment: Segment) -> Finding | None:
    program = segment.program
    texts: list[str] = []
    if program in _SQL_CLIENTS or _CODE_RUNNERS.match(program):
        texts.extend(segment.argv[1:])
    if program in _SQL_CLIENTS and segment.stdin.kind == "data":
        texts.append(segment.stdin.text)
    for text in texts:
        if _SQL.search(text):
            return _finding("sql-destructive", "destructive SQL statement (DROP/TRUNCATE)", segment)
    return None


_PROGRAM_RULES: dict[str, tuple[Rule, ...]] = {
    "rm": (_rm,),
    "find": (_find,),
    **dict.fromkeys(_PERMISSIONS, (_permissions,)),
    "mv": (_mv,),
    "install": (_permissions,),
    "rsync": (_rsync,),
    "gpg": (_gpg,),
    "gpg2": (_gpg,),
    "setcap": (_setcap,),
    **DEVICE_RULES,
}
_EVERY_COMMAND: tuple[Rule, ...] = (_writes, _sensitive, _sensitive_glob, _deletes_input, _sql)

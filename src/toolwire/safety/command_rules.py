"""The hardline catalogue of the command guard, one check per rule (see `command_guard`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from toolwire.safety.command_segments import Segment
from toolwire.safety.linear_regex import LinearPattern, linear

__all__ = ["raw_command_verdict", "segment_verdict"]

Verdict = tuple[str, str]
"""``(rule id, reason)``."""

_HOME_FORMS = frozenset({"~", "$HOME", "${HOME}"})
_SYSTEM_DIRS = frozenset(
    {
        "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc",
        "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
    }
)  # fmt: skip
_SSH_DIR = linear(r"^(?:~|\$HOME|\$\{HOME\})/\.ssh(?:/|$)|/\.ssh(?:/|$)|^\.ssh(?:/|$)")
_HARMLESS_DEVICES = linear(
    r"^/dev/(?:null|zero|full|random|urandom|stdout|stderr|stdin|tty\w*|pts/.*|fd/.*|shm/.*)$"
)
_RAW_DISK = linear(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|dm-|md)\w*")
_SYSTEM_WRITE = linear(
    r"^/etc/(?:sudoers(?:\.d(?:/.*)?)?|passwd|shadow|group|gshadow)$"
    r"|^/(?:boot|sys|proc/sys)/"
    r"|(?:^|/)authorized_keys2?$"
)
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
_COLON_FORK_BOMB = linear(r":\s*\(\s*\)\s*\{")
# words (ASCII letters, digits, "_" and any non-ASCII character but a blank), or one character
_FORK_BOMB_TOKENS = linear(r"[^\s\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]+|\S")
_SQL = linear(r"(?i)\bDROP\s+(?:DATABASE|TABLE|SCHEMA)\b|\bTRUNCATE\s+TABLE\b")
_SLASHES = linear(r"/{2,}")


def segment_verdict(segment: Segment) -> Verdict | None:
    """The first rule ``segment`` breaks, or ``None``."""
    for check in _SEGMENT_CHECKS:
        found = check(segment)
        if found is not None:
            return found
    return None


def raw_command_verdict(command: str) -> Verdict | None:
    """Rules checked on the whole text: fork bombs and destructive SQL."""
    if _COLON_FORK_BOMB.search(command) or _has_named_fork_bomb(command):
        return ("fork-bomb", "fork bomb")
    if _SQL.search(command):
        return ("sql-destructive", "destructive SQL statement (DROP/TRUNCATE)")
    return None


def _has_named_fork_bomb(command: str) -> bool:
    """``f() { ... f | f ... & ... }``: a function that pipes itself into itself in the background.

    One pass over the tokens (words, and single other characters) instead of the
    backreference a linear engine lacks: after a ``name ( ) {`` and before the next ``}``, a
    ``name | name`` and then an ``&``.
    """
    tokens: list[str] = _FORK_BOMB_TOKENS.findall(command)
    defined: set[str] = set()
    piped = False
    for index, token in enumerate(tokens):
        if token == "}":
            defined.clear()
            piped = False
        elif token == "{" and index >= 3 and tokens[index - 2 : index] == ["(", ")"]:
            defined.add(tokens[index - 3])
        elif token == "|" and 0 < index < len(tokens) - 1:
            name = tokens[index - 1]
            piped = piped or (name in defined and tokens[index + 1] == name)
        elif token == "&" and piped:
            return True
    return False


def _operands(argv: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split arguments into options and operands (everything after ``--`` is an operand)."""
    options: list[str] = []
    operands: list[str] = []
    ended = False
    for word in argv:
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-") and word != "-":
            options.append(word)
        else:
            operands.append(word)
    return options, operands


def _normalise(path: str) -> str:
    path = _SLASHES.sub("/", path)
    while path.endswith(("/*", "/.")) and len(path) > 2:
        path = path[:-2]
    if path not in ("/", "/*"):
        path = path.rstrip("/") or "/"
    return path


def _check_rm(segment: Segment) -> Verdict | None:
    if segment.program != "rm":
        return None
    options, targets = _operands(segment.argv[1:])
    short = "".join(o[1:] for o in options if not o.startswith("--"))
    recursive = "r" in short or "R" in short or "--recursive" in options
    force = "f" in short or "--force" in options
    if "--no-preserve-root" in options:
        return ("rm-recursive-root", "rm --no-preserve-root")
    for target in targets:
        if _SSH_DIR.search(target):
            return ("rm-ssh", f"deleting SSH files ({target})")
        plain = _normalise(target)
        dangerous = plain in ("/", "/*") or plain in _HOME_FORMS or plain in _SYSTEM_DIRS
        if recursive and force and dangerous:
            return ("rm-recursive-root", f"recursive forced delete of {target}")
    return None


def _check_gpg(segment: Segment) -> Verdict | None:
    if segment.program in ("gpg", "gpg2") and any(
        word.startswith("--delete-secret") for word in segment.argv[1:]
    ):
        return ("gpg-delete-secret-key", "deleting GPG secret keys")
    return None


def _check_find(segment: Segment) -> Verdict | None:
    if segment.program != "find" or "-delete" not in segment.argv:
        return None
    roots = [w for w in segment.argv[1:] if not w.startswith(("-", "(", "!"))][:1]
    if roots and (_normalise(roots[0]) in ("/", "/*") or _normalise(roots[0]) in _HOME_FORMS):
        return ("find-root-delete", f"find {roots[0]} -delete")
    return None


def _check_dd(segment: Segment) -> Verdict | None:
    if segment.program != "dd":
        return None
    for word in segment.argv[1:]:
        if word.startswith("of=/dev/") and not _HARMLESS_DEVICES.match(word[3:]):
            return ("dd-device", f"dd writing to a device ({word[3:]})")
    return None


def _check_mkfs(segment: Segment) -> Verdict | None:
    if segment.program.startswith(("mkfs", "mke2fs")):
        return ("mkfs", f"creating a filesystem ({segment.program})")
    return None


def _write_targets(segment: Segment) -> list[str]:
    targets = list(segment.redirects)
    _, operands = _operands(segment.argv[1:])
    if segment.program == "tee":
        targets.extend(operands)
    elif segment.program in ("cp", "mv", "install", "ln") and len(operands) >= 2:
        targets.append(operands[-1])
    return targets


def _check_writes(segment: Segment) -> Verdict | None:
    for target in _write_targets(segment):
        plain = _SLASHES.sub("/", target)
        if _RAW_DISK.match(plain):
            return ("disk-write", f"writing to a raw disk device ({target})")
        if _SYSTEM_WRITE.search(plain):
            return ("system-file-write", f"writing to {target}")
    return None


def _check_chmod(segment: Segment) -> Verdict | None:
    if segment.program != "chmod":
        return None
    _, operands = _operands(segment.argv[1:])
    mode = operands[0] if operands else ""
    if _SETID_NUMERIC.match(mode) or _SETID_SYMBOLIC.search(mode):
        return ("chmod-setuid", f"setting setuid/setgid bits (chmod {mode})")
    return None


def _check_setcap(segment: Segment) -> Verdict | None:
    if segment.program == "setcap" and any("cap_" in word for word in segment.argv[1:]):
        return ("setcap", "granting file capabilities (setcap)")
    return None


def _check_sensitive_paths(segment: Segment) -> Verdict | None:
    for word in (*segment.words, *segment.redirects):
        for pattern, label in _SENSITIVE_PATHS:
            if pattern.search(word):
                return ("sensitive-path", f"access to {label} ({word[:120]})")
    return None


_SEGMENT_CHECKS: tuple[Callable[[Segment], Verdict | None], ...] = (
    _check_rm,
    _check_gpg,
    _check_find,
    _check_dd,
    _check_mkfs,
    _check_writes,
    _check_chmod,
    _check_setcap,
    _check_sensitive_paths,
)

"""Secret files named through a glob: ``cat /etc/sha*w``, ``cat ~/.s?h/id_rsa``.

The guard's secret-file rule reads a path as written; a glob the shell expands before the
command runs names whatever it matches. `glob_secret` matches a glob word (``*``, ``?``,
``[...]``, ``[!...]``/``[^...]``; brace expansion is already applied by the word expansion,
and an unknown part reads as ``*``) component by component, with `fnmatch` semantics, against
each secret the guard protects (`SECRET_GLOB_TARGETS`, the sensitive-path floor's files that
the guard refuses to name): a glob that could match a secret, or something below a secret
folder, names it. As in bash, a leading dot is matched only by a dot (``cat *`` does not name
``.netrc``). Home-relative secrets match at any depth (``/home/*/.ssh/id_rsa``,
``*/.aws/credentials``), as the plain rule does; system ones only from ``/``.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from toolwire.safety.bash._words import HOME, SOMETHING, UNKNOWN

__all__ = ["SECRET_GLOB_TARGETS", "glob_secret"]

_SSH_KEYS = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")
SECRET_GLOB_TARGETS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    *(("~", (".ssh", key), "an SSH key file") for key in _SSH_KEYS),
    ("~", (".ssh", "authorized_keys"), "an SSH key file"),
    ("~", (".ssh", "known_hosts"), "an SSH key file"),
    ("~", (".aws", "credentials"), "AWS credentials"),
    ("~", (".gnupg",), "the GnuPG keyring"),
    ("~", (".netrc",), "~/.netrc"),
    *(("~", (f".{shell}_history",), "a shell history") for shell in ("bash", "zsh", "psql")),
    ("~", (".mysql_history",), "a shell history"),
    *(("/", ("etc", name), "a system account file") for name in ("passwd", "shadow", "sudoers")),
)
"""``(anchor, components, label)``: ``~`` secrets match at any depth, ``/`` ones from the root;
a glob matching the components, or going below them, names the secret."""
_GLOB_CHARS = frozenset("*?[")
_NAMES = frozenset(name for _, target, _ in SECRET_GLOB_TARGETS for name in target)
_ALPHABET = frozenset("".join(_NAMES))
_BY_FIRST: dict[str, list[tuple[str, tuple[str, ...], str]]] = {name: [] for name in _NAMES}
for _target in SECRET_GLOB_TARGETS:
    _BY_FIRST[_target[1][0]].append(_target)


def glob_secret(text: str) -> str | None:
    """The label of a secret the glob ``text`` could match (``None``: none, or no glob).

    Linear in the word: each distinct component is matched once against the few names the
    secrets are made of, and each position then only tries the secrets starting with a name
    it matched."""
    pattern = text.replace(UNKNOWN, "*").replace(SOMETHING, "?*")
    if _GLOB_CHARS.isdisjoint(pattern):
        return None
    absolute = pattern.startswith("/")
    parts: list[str] = []
    for part in pattern.split("/"):
        if part == ".." and parts:
            parts.pop()
        elif part not in ("", "."):
            parts.append(_bracket(part))
    if parts and parts[0].startswith(HOME):
        parts = parts[1:]
    known: dict[str, frozenset[str]] = {}
    matched = [
        known[part] if part in known else known.setdefault(part, _names(part)) for part in parts
    ]
    for start, names in enumerate(matched):
        for name in names:
            for anchor, target, label in _BY_FIRST[name]:
                if anchor == "/" and (start or not absolute):
                    continue
                rest = matched[start + 1 : start + len(target)]
                if len(rest) == len(target) - 1 and all(
                    later in found for later, found in zip(target[1:], rest, strict=True)
                ):
                    return label
    return None


def _names(part: str) -> frozenset[str]:
    """The secrets' path names the glob component ``part`` matches."""
    if not set(_outside_brackets(part)) - _GLOB_CHARS <= _ALPHABET:
        return frozenset()  # a character no secret's name holds
    return frozenset(name for name in _NAMES if _matches(name, part))


def _matches(name: str, glob: str) -> bool:
    """Whether the shell's glob ``glob`` matches ``name`` (a leading dot only explicitly)."""
    if name.startswith(".") and not glob.startswith("."):
        return False
    return fnmatchcase(name, glob)


def _outside_brackets(part: str) -> str:
    """``part`` without its bracket expressions (``[xs]hadow`` → ``hadow``): the characters a
    name it matches must hold."""
    out: list[str] = []
    index = 0
    while index < len(part):
        close = part.find("]", index + 2) if part[index] == "[" else -1
        if close > 0:
            index = close + 1
        else:
            out.append(part[index])
            index += 1
    return "".join(out)


def _bracket(part: str) -> str:
    """A shell bracket expression in `fnmatch`'s spelling (``[^x]`` is ``[!x]``)."""
    return part.replace("[^", "[!")

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

from toolwire.safety.bash.words import HOME, SOMETHING, UNKNOWN

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


def glob_secret(text: str) -> str | None:
    """The label of a secret the glob ``text`` could match (``None``: none, or no glob)."""
    pattern = text.replace(UNKNOWN, "*").replace(SOMETHING, "?*")
    if _GLOB_CHARS.isdisjoint(pattern):
        return None
    absolute = pattern.startswith("/")
    parts = [_bracket(part) for part in pattern.split("/") if part not in ("", ".")]
    if parts and parts[0].startswith(HOME):
        parts = parts[1:]
    for anchor, target, label in SECRET_GLOB_TARGETS:
        starts = [0] if anchor == "/" else range(len(parts))
        if anchor == "/" and not absolute:
            continue
        for start in starts:
            window = parts[start : start + len(target)]
            if len(window) == len(target) and all(
                _matches(name, glob) for name, glob in zip(target, window, strict=True)
            ):
                return label
    return None


def _matches(name: str, glob: str) -> bool:
    """Whether the shell's glob ``glob`` matches ``name`` (a leading dot only explicitly)."""
    if name.startswith(".") and not glob.startswith("."):
        return False
    return fnmatchcase(name, glob)


def _bracket(part: str) -> str:
    """A shell bracket expression in `fnmatch`'s spelling (``[^x]`` is ``[!x]``)."""
    return part.replace("[^", "[!")

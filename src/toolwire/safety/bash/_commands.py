"""Resolving one simple command: its words, redirections, and the program under its wrappers.

`unwrap` looks through the commands that run another command given as their arguments
(``sudo``, ``doas``, ``env`` with ``-i``/``-u``/``-S``/``VAR=val``, ``nice``, ``nohup``,
``timeout``, ``stdbuf``, ``command``, ``builtin``, ``exec``, ``time``, ``chroot``, ``setsid``,
``ionice``, ``unbuffer``, ``strace``, ``taskset``, ...), skipping their options and the
arguments they take before the command, and the keywords (``{``, ``then``, ``do``...) a
misparsed line leaves in a command's place. ``command -v rm`` and ``sudo -l`` run nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolwire.safety.bash._model import Redirect
from toolwire.safety.bash._syntax import Node, node_text
from toolwire.safety.bash._words import Word, expand_word
from toolwire.safety.linear_regex import linear

__all__ = ["RESERVED_WORDS", "WRAPPERS", "command_words", "redirect_of", "unwrap"]

RESERVED_WORDS = frozenset({"{", "}", "!", "then", "do", "else", "elif", "if", "while", "until"})
"""Words bash reads as keywords where a command starts: never the name of what runs
(``time``, a keyword too, is looked through as a wrapper, with its options)."""

_ASSIGNMENT = linear(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


@dataclass(frozen=True, slots=True)
class _Wrapper:
    values: frozenset[str] = frozenset()  # options that take the next word as their value
    positional: int = 0  # arguments before the command (timeout's duration, chroot's root)
    inert: frozenset[str] = frozenset()  # options with which no command runs
    assignments: bool = False  # NAME=value words may follow the options


def _w(
    values: str = "", positional: int = 0, inert: str = "", assignments: bool = False
) -> _Wrapper:
    return _Wrapper(frozenset(values.split()), positional, frozenset(inert.split()), assignments)


WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _w(
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type "
        "--other-user --close-from --command-timeout",
        inert="-l -v -k -K -V -e --list --validate --reset-timestamp --remove-timestamp --edit",
        assignments=True,
    ),
    "doas": _w("-u -C", inert="-L"),
    "pkexec": _w("--user"),
    "env": _w("-u --unset -C --chdir -S --split-string -a --argv0", assignments=True),
    "nice": _w("-n --adjustment"),
    "nohup": _w(),
    "timeout": _w("-k -s --kill-after --signal", positional=1),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "command": _w(inert="-v -V"),
    "builtin": _w(),
    "exec": _w("-a"),
    "time": _w("-f -o --format --output"),
    "chroot": _w("--userspec --groups", positional=1),
    "setsid": _w(),
    "ionice": _w("-c -n --class --classdata", inert="-p -P -u --pid --pgid --uid"),
    "unbuffer": _w(),
    "strace": _w("-o -e -p -s -u -E -P -a -b -I -X -O -S"),
    "ltrace": _w("-o -e -p -s -u -E -a -n -l"),
    "taskset": _w(positional=1, inert="-p --pid"),
    "nsenter": _w("-t --target -S --setuid -G --setgid --wd -w -r --root"),
    "unshare": _w("--propagation -S --setuid -G --setgid -R --root -w --wd --map-user"),
    "systemd-run": _w("-u --unit -p --property -E --setenv -M --machine --uid --gid --slice"),
    "firejail": _w(),
    "torsocks": _w(),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "catchsegv": _w(),
    "busybox": _w(),
}
"""Commands that run the command in their arguments, with the options that take a value."""


def unwrap(words: Sequence[Word]) -> tuple[Word, ...]:
    """The command and arguments that actually run under the wrappers of ``words``."""
    rest = list(words)
    index = 0
    while index < len(rest):
        if rest[index].text in RESERVED_WORDS:
            # ``sudo { rm -rf /; }``, ``sudo if true; then rm -rf /; fi``: bash refuses these
            # lines, and the parser reads ``{`` or ``then`` as a command's name; what they
            # were meant to run is plain, so judge that
            index += 1
            continue
        name = rest[index].text.rsplit("/", 1)[-1]
        spec = WRAPPERS.get(name)
        if spec is None:
            break
        index += 1
        while index < len(rest) and _is_option(rest[index].text):
            option = rest[index].text
            index += 1
            if option == "--":
                break
            key = option.split("=", 1)[0]
            if key in spec.inert or _short_inert(option, spec.inert):
                return ()
            if "=" in option or key not in spec.values or index >= len(rest):
                continue
            if key in ("-S", "--split-string") and name == "env":
                value = rest[index]
                split = [Word(part, False, value.subs) for part in value.text.split()]
                rest[index : index + 1] = split
                break
            index += 1
        while spec.assignments and index < len(rest) and _ASSIGNMENT.match(rest[index].text):
            index += 1
        index = min(len(rest), index + spec.positional)
    return tuple(rest[index:])


def _is_option(text: str) -> bool:
    return text.startswith("-") and text != "-"


def _short_inert(option: str, inert: frozenset[str]) -> bool:
    if option.startswith("--") or len(option) < 3:
        return False
    return any(f"-{letter}" in inert for letter in option[1:])


def command_words(node: Node) -> tuple[list[Word], list[Redirect]]:
    """The expanded words of a ``command`` node (name and arguments, assignments excluded) and
    the redirections written inside it."""
    words: list[Word] = []
    redirects: list[Redirect] = []
    for index, child in enumerate(node.children):
        field = node.field_name_for_child(index)
        if field == "name":
            for part in child.children or [child]:
                words.extend(expand_word(part))
        elif field == "argument":
            words.extend(expand_word(child))
        elif child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            found = redirect_of(child)
            if found is not None:
                redirects.append(found)
    return words, redirects


def redirect_of(node: Node) -> Redirect | None:
    """The operator and expanded target of a ``file_redirect`` (others give ``None``)."""
    if node.type != "file_redirect":
        return None
    operator = ""
    target: Word | None = None
    for index, child in enumerate(node.children):
        field = node.field_name_for_child(index)
        if field == "destination":
            expanded = expand_word(child)
            target = expanded[0] if expanded else None
        elif not child.is_named and not operator:
            operator = node_text(child)
    if not operator:
        return None
    return Redirect(operator, target.text if target else "", target)

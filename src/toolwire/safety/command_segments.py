"""Splitting a shell command into the simple commands it would run (for the command guard).

`split_command` tokenises with `shlex` (quotes respected, comments not honoured), cuts at the
control operators (``;``, ``&&``, ``||``, ``|``, ``|&``, ``&``, newlines, parentheses, braces
of subshells and command substitutions), collects redirect targets, looks through wrapper
commands (``sudo``, ``env``, ``timeout``, ``xargs``, shell keywords such as ``then``) and
recurses into ``$(...)``, backticks, ``sh -c`` scripts and ``eval``. An unbalanced quote falls
back to a plain split, so a malformed command is still checked.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from toolwire.safety.linear_regex import linear

__all__ = ["MAX_NESTING", "CommandTooComplexError", "Segment", "split_command"]

MAX_NESTING = 8
"""Substitutions and ``sh -c`` scripts nested deeper than this are refused, not skipped."""
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "su"})
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi"})
# wrapper → options that take a separate value
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-k", "-s", "--kill-after", "--signal"}),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "-i"}),
    "busybox": frozenset(),
}
_WRAPPERS_WITH_ARGUMENT = frozenset({"timeout"})  # the duration before the command
_ASSIGNMENT = linear(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FALLBACK_TOKEN = linear(r"[;&|()<>]+|[^\s;&|()<>]+")


class CommandTooComplexError(ValueError):
    """The command nests substitutions or shell scripts deeper than `MAX_NESTING`."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Segment:
    """One simple command.

    Attributes:
        words: Its words as written (assignments and wrappers included, redirects removed).
        argv: The command and arguments after looking through assignments and wrappers.
        redirects: The targets of its output and input redirects.
    """

    words: tuple[str, ...]
    argv: tuple[str, ...]
    redirects: tuple[str, ...]

    @property
    def program(self) -> str:
        """The basename of ``argv[0]`` without a leading backslash (``\\rm`` → ``rm``)."""
        if not self.argv:
            return ""
        return self.argv[0].rsplit("/", 1)[-1].lstrip("\\")


def split_command(command: str, _depth: int = 0) -> list[Segment]:
    """Every simple command ``command`` would run, nested ones included.

    Raises:
        CommandTooComplexError: nesting deeper than `MAX_NESTING` (so nothing goes unchecked).
    """
    if _depth > MAX_NESTING:
        raise CommandTooComplexError(f"command nesting is deeper than {MAX_NESTING} levels")
    segments: list[Segment] = []
    for body in _substitutions(command):
        segments.extend(split_command(body, _depth + 1))
    words: list[str] = []
    redirects: list[str] = []
    tokens = _tokenise(command)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if _is_operator(token):
            if ">" in token or "<" in token:
                if words and words[-1].isdigit():
                    words.pop()  # the file descriptor of "2>", "1>>"
                if index + 1 < len(tokens) and not _is_operator(tokens[index + 1]):
                    redirects.append(tokens[index + 1])
                    index += 1
            else:
                _flush(segments, words, redirects, _depth)
                words, redirects = [], []
        else:
            words.append(token)
        index += 1
    _flush(segments, words, redirects, _depth)
    return segments


def _flush(segments: list[Segment], words: list[str], redirects: list[str], depth: int) -> None:
    if not words and not redirects:
        return
    argv = _unwrap(words)
    segment = Segment(words=tuple(words), argv=tuple(argv), redirects=tuple(redirects))
    segments.append(segment)
    for script in _nested_scripts(segment):
        segments.extend(split_command(script, depth + 1))


def _tokenise(command: str) -> list[str]:
    text = command.replace("\r", " ").replace("\n", " ; ")
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.commenters = ""
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return [t.strip("'\"") for t in _FALLBACK_TOKEN.findall(text) if t.strip("'\"")]


def _is_operator(token: str) -> bool:
    return bool(token) and all(char in ";&|()<>" for char in token)


def _unwrap(words: list[str]) -> list[str]:
    """Drop leading assignments, shell keywords and wrapper commands with their options."""
    index = 0
    while index < len(words):
        word = words[index]
        name = word.rsplit("/", 1)[-1].lstrip("\\")
        if _ASSIGNMENT.match(word) or word in _KEYWORDS:
            index += 1
            continue
        if name not in _WRAPPERS:
            break
        takes_value = _WRAPPERS[name]
        index += 1
        while index < len(words) and words[index].startswith("-") and words[index] != "-":
            option = words[index]
            index += 1
            if option == "--":
                break
            if option in takes_value and index < len(words):
                index += 1
        while index < len(words) and _ASSIGNMENT.match(words[index]):
            index += 1  # env NAME=value ...
        if name in _WRAPPERS_WITH_ARGUMENT and index < len(words):
            index += 1
    return words[index:]


def _nested_scripts(segment: Segment) -> list[str]:
    argv = segment.argv
    if not argv:
        return []
    program = segment.program
    if program == "eval":
        return [" ".join(argv[1:])]
    if program not in _SHELLS:
        return []
    scripts: list[str] = []
    for index, word in enumerate(argv[1:], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            rest = [w for w in argv[index + 1 :] if not w.startswith("-")]
            if rest:
                scripts.append(rest[0])
            break
    return scripts


def _substitutions(command: str) -> list[str]:
    """Bodies of ``$(...)``, ``<(...)``, ``>(...)`` and backtick substitutions (outermost)."""
    bodies: list[str] = []
    index = 0
    length = len(command)
    while index < length:
        char = command[index]
        if char in "$<>" and command.startswith("(", index + 1):
            depth, start = 1, index + 2
            cursor = start
            while cursor < length and depth:
                if command[cursor] == "(":
                    depth += 1
                elif command[cursor] == ")":
                    depth -= 1
                cursor += 1
            bodies.append(command[start : cursor - 1] if depth == 0 else command[start:])
            index = cursor
        elif char == "`":
            end = command.find("`", index + 1)
            bodies.append(command[index + 1 :] if end < 0 else command[index + 1 : end])
            index = length if end < 0 else end + 1
        else:
            index += 1
    return bodies

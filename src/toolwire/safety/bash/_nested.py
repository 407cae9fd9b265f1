"""The code a command runs besides itself: shell scripts, inline code, script files, commands.

`nested_of` reads one resolved command and says what else it would run:

* shell code — ``sh -c``/``bash -c``/``zsh -c``... (options such as ``-lc`` or ``-o x``
  allowed before), ``eval``, ``su -c``, ``runuser -c``, ``flock -c``, ``script -c``, ``watch``;
* inline code of an interpreter — ``python -c``, ``perl -e/-E`` (also ``-ne``, ``-lpe``),
  ``ruby -e``, ``node -e/-p``, ``deno eval``, ``bun -e``, ``php -r``, ``lua -e``,
  ``Rscript -e``, an ``awk`` program, ``pwsh -c``;
* code read from standard input — a shell or interpreter given no script (or ``-``, ``-s``,
  ``/dev/stdin``), ``source /dev/stdin``;
* script files — ``bash x.sh``, ``python x.py``, ``source x``, ``. x``;
* commands — ``find -exec/-execdir/-ok`` (``{}`` is the start folder), ``xargs`` (its targets
  come from standard input: known when an ``echo`` feeds it, else the producer's paths or
  unknown, and then `Nested.from_input` says so), ``watch -x``, ``flock FILE cmd``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.safety.bash._commands import unwrap
from toolwire.safety.bash._model import Segment
from toolwire.safety.bash._words import UNKNOWN, Word
from toolwire.safety.linear_regex import LinearMatch, linear

__all__ = ["SHELLS", "Nested", "deletes_operands", "nested_of"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash"})
_INTERPRETER = linear(r"^(?:python|pypy|perl|ruby|node|nodejs|php|lua|luajit|Rscript)[0-9.]*$")
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_INLINE_FLAGS = {
    "python": ("c",), "pypy": ("c",), "perl": ("e", "E"), "ruby": ("e",), "node": ("e", "p"),
    "nodejs": ("e", "p"), "php": ("r",), "lua": ("e",), "luajit": ("e",), "Rscript": ("e",),
    "bun": ("e",), "pwsh": ("c",), "powershell": ("c",),
}  # fmt: skip
_LONG_INLINE = frozenset({"--eval", "--print", "-Command", "-command", "--command"})
_VALUE_OPTIONS = {
    "python": frozenset({"-W", "-X", "-m", "-Q"}), "perl": frozenset({"-M", "-I", "-m", "-x"}),
    "ruby": frozenset({"-r", "-I", "-C", "-E"}), "node": frozenset({"-r", "--require", "--import"}),
    "php": frozenset({"-c", "-d", "-z"}),
}  # fmt: skip
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_POSITIONAL = linear(r"\$\{([0-9@*])\}|\$([0-9@*])")
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})


@dataclass(slots=True)
class Nested:
    """What a command runs besides itself (see the module docstring)."""

    scripts: list[Word] = field(default_factory=list)
    code: list[tuple[str, Word]] = field(default_factory=list)
    stdin_reader: str = ""
    files: list[tuple[str, Word]] = field(default_factory=list)
    commands: list[tuple[Word, ...]] = field(default_factory=list)
    from_input: bool = False
    """Whether `commands` get operands the line does not show (``xargs`` reading a file or a
    program's output)."""


def nested_of(segment: Segment) -> Nested:
    """What ``segment`` runs besides itself."""
    found = Nested()
    program = segment.program
    args = segment.args
    if not args and _login_shell(segment):
        found.stdin_reader = "shell"  # "sudo -i" alone reads commands from its input
    elif program in SHELLS:
        _shell(args, found)
    elif program in ("eval", "su", "runuser", "script", "flock", "watch", "source", ".", "sg"):
        _builtin_like(program, args, found)
    elif program in ("alias", "trap", "at", "batch", "parallel"):
        _deferred(program, args, found)
        texts = {word.text for word in args}
        found.from_input = program == "parallel" and (
            "::::" in texts or (":::" not in texts and segment.stdin.kind != "data")
        )
    elif program in _AWKS:
        _awk(args, found)
    elif program == "deno" and len(args) > 2 and args[1].text == "eval":
        found.code.append(("javascript", args[2]))
    elif program in ("find", "xargs"):
        (_find if program == "find" else _xargs)(segment, found)
    else:
        language = _language(program)
        if language:
            _interpreter(language, program, args, found)
    return found


def _login_shell(segment: Segment) -> bool:
    words = [word.text for word in segment.words]
    if not words or words[0].rsplit("/", 1)[-1] not in ("sudo", "doas"):
        return False
    return any(word in ("-s", "-i", "--shell", "--login") for word in words[1:])


def _language(program: str) -> str:
    if program in ("bun", "pwsh", "powershell"):
        return program
    if not _INTERPRETER.match(program):
        return ""
    base = program.rstrip("0123456789.")
    return {"pypy": "python", "nodejs": "node", "luajit": "lua"}.get(base, base)


def _shell(args: tuple[Word, ...], found: Nested) -> None:
    index, command, stdin = 1, False, False
    while index < len(args):
        text = args[index].text
        if text == "--":
            index += 1
            break
        if text in _SHELL_VALUE_OPTIONS:
            index += 2
            continue
        if text.startswith("--"):
            index += 1
            continue
        if len(text) > 1 and text[0] in "-+":
            command = command or (text[0] == "-" and "c" in text[1:])
            stdin = stdin or "s" in text[1:]
            index += 1
            continue
        break
    operands = args[index:]
    if command and operands:
        found.scripts.append(_with_positionals(operands[0], operands[1:]))
    elif stdin or not operands or operands[0].text in _STDIN_FILES:
        found.stdin_reader = "shell"
    else:
        found.files.append(("shell", operands[0]))


def _with_positionals(script: Word, params: tuple[Word, ...]) -> Word:
    """``script`` with ``$1``..``$9``, ``${1}``.. and ``$@``/``$*`` replaced by the arguments
    that follow it (``sh -c 'rm -rf "$1"' sh /``); ``$0`` is the first of them."""
    if "$" not in script.text or not params:
        return script
    texts = [param.text for param in params]

    def value(match: LinearMatch) -> str:
        name = match.group(1) or match.group(2)
        if name in ("@", "*"):
            return " ".join(texts[1:])
        position = int(name)
        return texts[position] if position < len(texts) else ""

    text = _POSITIONAL.sub(value, script.text)
    return Word(text, script.glob, (*script.subs, *(s for p in params for s in p.subs)))


def _builtin_like(program: str, args: tuple[Word, ...], found: Nested) -> None:
    rest = args[1:]
    if program == "eval" and rest:
        text = " ".join(word.text for word in rest)
        found.scripts.append(Word(text, False, tuple(s for w in rest for s in w.subs)))
    elif program in ("source", "."):
        if rest and rest[0].text in _STDIN_FILES:
            found.stdin_reader = "shell"
        elif rest:
            found.files.append(("shell", rest[0]))
    elif program == "watch":
        _watch(rest, found)
    else:  # su, runuser, script, flock: "-c CMD" is shell code
        for index, word in enumerate(rest):
            if word.text in ("-c", "--command") and index + 1 < len(rest):
                found.scripts.append(rest[index + 1])
                return
            if word.text.startswith("--command="):
                found.scripts.append(Word(word.text.split("=", 1)[1], word.glob, word.subs))
                return
        if program == "flock":
            operands = [i for i, w in enumerate(rest) if not w.text.startswith("-")]
            if len(operands) >= 2:
                found.commands.append(rest[operands[1] :])
        elif program in ("su", "runuser"):
            found.stdin_reader = "shell"  # a login shell reading commands from its input


def _deferred(program: str, args: tuple[Word, ...], found: Nested) -> None:
    """Code run later: an alias's value, a trap's handler, ``at``'s and ``batch``'s input,
    ``parallel``'s command with each of its ``:::`` arguments."""
    rest = args[1:]
    if program == "alias":
        for word in rest:
            if "=" in word.text:
                value = word.text.split("=", 1)[1]
                found.scripts.append(Word(value, word.glob, word.subs))
    elif program == "trap":
        operands = [word for word in rest if not word.text.startswith("-")]
        if len(operands) >= 2:
            found.scripts.append(operands[0])
    elif program in ("at", "batch"):
        if not any(word.text == "-f" for word in rest) and not any(
            word.text in ("-l", "-r", "-d", "-c") for word in rest
        ):
            found.stdin_reader = "shell"
    else:
        _parallel(rest, found)


def _parallel(rest: tuple[Word, ...], found: Nested) -> None:
    texts = [word.text for word in rest]
    cut = texts.index(":::") if ":::" in texts else len(texts)
    index = 0
    while index < cut and rest[index].text.startswith("-"):
        index += 2 if rest[index].text in ("-j", "--jobs", "-S", "--sshlogin") else 1
    command = rest[index:cut]
    values = rest[cut + 1 :] or (Word(UNKNOWN),)
    for value in values[:16]:
        if any("{}" in word.text for word in command):
            found.commands.append(tuple(Word(w.text.replace("{}", value.text)) for w in command))
        elif command:
            found.commands.append((*command, value))


def _watch(rest: tuple[Word, ...], found: Nested) -> None:
    index, argv_mode = 0, False
    while index < len(rest) and rest[index].text.startswith("-"):
        option = rest[index].text
        argv_mode = argv_mode or option in ("-x", "--exec")
        index += 2 if option in ("-n", "--interval", "-q", "--equexit") else 1
    command = rest[index:]
    if not command:
        return
    if argv_mode:
        found.commands.append(command)
    else:
        text = " ".join(word.text for word in command)
        found.scripts.append(Word(text, False, tuple(s for w in command for s in w.subs)))


def _awk(args: tuple[Word, ...], found: Nested) -> None:
    index = 1
    while index < len(args) and args[index].text.startswith("-"):
        option = args[index].text
        if option in ("-f", "--file"):
            if index + 1 < len(args):
                found.files.append(("awk", args[index + 1]))
            return
        index += 2 if option in ("-v", "-F", "--assign", "--field-separator") else 1
    if index < len(args):
        found.code.append(("awk", args[index]))


def _interpreter(language: str, program: str, args: tuple[Word, ...], found: Nested) -> None:
    letters = _INLINE_FLAGS.get(language, _INLINE_FLAGS.get(program, ()))
    values = _VALUE_OPTIONS.get(language, frozenset())
    index, module = 1, False
    while index < len(args):
        text = args[index].text
        if text == "--" or not text.startswith("-") or text == "-":
            index += text == "--"
            break
        index += 1
        code = _inline(text, letters)
        if code is not None:
            taken = Word(code, args[index - 1].glob, args[index - 1].subs) if code else None
            if taken is None and index < len(args):
                taken, index = args[index], index + 1
            if taken is not None:
                found.code.append((language, taken))
            continue
        module = module or text == "-m"
        if text in values and index < len(args):
            index += 1
    if found.code or module:
        return
    operands = args[index:]
    if not operands or operands[0].text in _STDIN_FILES:
        found.stdin_reader = language
    else:
        found.files.append((language, operands[0]))


def _inline(option: str, letters: tuple[str, ...]) -> str | None:
    """The code attached to an inline-code option (``""`` when it is the next word), or
    ``None`` when ``option`` is not one."""
    if option in _LONG_INLINE or option.split("=", 1)[0] in ("--eval", "--print"):
        return option.split("=", 1)[1] if "=" in option else ""
    if option.startswith("--") or not letters:
        return None
    for position, letter in enumerate(option[1:], start=1):
        if letter in letters:
            return option[position + 1 :]
    return None


def _find(segment: Segment, found: Nested) -> None:
    args = segment.args
    roots = []
    index = 1
    while index < len(args) and not args[index].text.startswith(("-", "(", "!")):
        roots.append(args[index])
        index += 1
    root = roots[0] if roots else Word(".")
    while index < len(args):
        if args[index].text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            command = tuple(
                Word(w.text.replace("{}", root.text), w.glob, w.subs) for w in args[index + 1 : end]
            )
            if command:
                found.commands.append(command)
            index = end
        index += 1


def _xargs(segment: Segment, found: Nested) -> None:
    args = segment.args
    index, replace = 1, ""
    found.from_input = segment.stdin.kind != "data"
    while index < len(args) and args[index].text.startswith("-"):
        option = args[index].text
        index += 1
        if option in ("-I", "-i", "--replace") or option.startswith(("-I", "--replace=")):
            replace = _replace_string(option, args, index)
            index += option == "-I"
        elif option in ("-n", "-P", "-d", "-L", "-s", "-E", "-a", "-e", "--delimiter"):
            found.from_input = found.from_input or option == "-a"
            index += 1
        elif option.startswith(("-a", "--arg-file")):
            found.from_input = True
        elif option == "--":
            break
    command = unwrap(args[index:]) or (Word("echo"),)
    if not replace:
        found.commands.append((*command, *_stdin_targets(segment)))
        return
    for line in _stdin_lines(segment):
        found.commands.append(
            tuple(Word(w.text.replace(replace, line), w.glob, w.subs) for w in command)
        )


def deletes_operands(argv: tuple[str, ...]) -> bool:
    """Whether ``argv`` destroys its operands wholesale: a recursive ``rm``, ``shred``,
    ``wipe``, ``srm`` (a plain ``rm -f`` of files is not counted)."""
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    if program in ("shred", "wipe", "srm"):
        return True
    if program != "rm":
        return False
    for word in argv[1:]:
        if word == "--":
            break
        if word == "--recursive" or (
            word.startswith("-") and not word.startswith("--") and ("r" in word or "R" in word)
        ):
            return True
    return False


def _replace_string(option: str, args: tuple[Word, ...], index: int) -> str:
    if option == "-I":
        return args[index].text if index < len(args) else "{}"
    if option.startswith("-I"):
        return option[2:]
    if option.startswith("--replace="):
        return option.split("=", 1)[1]
    return "{}"


def _stdin_lines(segment: Segment) -> list[str]:
    """The lines ``xargs -I`` puts in place of its replace string (at most 16 are judged)."""
    stdin = segment.stdin
    if stdin.kind == "data":
        lines = [line.strip() for line in stdin.text.split("\n") if line.strip()]
        return lines[:16] or [UNKNOWN]
    return list(stdin.hints[:16]) or [UNKNOWN]


def _stdin_targets(segment: Segment) -> tuple[Word, ...]:
    stdin = segment.stdin
    if stdin.kind == "data":
        words = stdin.text.split()
        return tuple(Word(word) for word in words[:64]) or (Word(UNKNOWN),)
    if stdin.hints:
        return tuple(Word(hint) for hint in stdin.hints[:64])
    return (Word(UNKNOWN),)

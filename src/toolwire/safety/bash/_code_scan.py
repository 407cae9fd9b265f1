"""Reading an interpreter's inline code for the shell commands and deletions it performs.

No Python, Perl, Ruby, JavaScript, PHP, Lua or awk parser here: one linear pass over the code
splits it into names, string literals and punctuation, and then:

* the string literals given to a shell-out call (``os.system``, ``subprocess.run``,
  ``Popen``, ``check_output``, ``system``, ``exec``, ``execSync``, ``spawn``, ``shell_exec``,
  ``passthru``, ``popen``, ``os.execute``, ``IO.popen``, ...), Perl's and Ruby's backticks and
  ``qx``/``%x``, and what awk prints into ``| "sh"``, come back as shell command lines to judge;
  so does what such a call, a backtick or an awk pipe (``cmd | getline``) is given when the code
  builds it from its literals and variables (`toolwire.safety.bash._code_values`: ``"r" . "m"``,
  ``c + " -rf /"``, an argument list), with what cannot be known read as an unset variable;
* a recursive delete (``shutil.rmtree``, ``fs.rmSync``, ``FileUtils.rm_rf``, ``rmtree``,
  ``remove_tree``) comes back as the ``rm -rf`` it amounts to;
* code that both fetches from the network and evaluates or shells out is a download-and-execute;
* a ``fork`` inside a loop is a fork bomb.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.safety.bash._code_values import ShellOuts
from toolwire.safety.bash._words import resolve_backslashes
from toolwire.safety.linear_regex import linear

__all__ = ["CodeFindings", "scan_code"]

_SHELL_CALLS = frozenset(
    {
        "system", "popen", "exec", "execSync", "spawn", "spawnSync", "execFile", "execFileSync",
        "check_output", "check_call", "call", "run", "Popen", "getoutput", "getstatusoutput",
        "shell_exec", "passthru", "proc_open", "execute", "capture2", "capture2e", "capture3",
        "popen2", "popen3", "spawnl", "spawnlp", "spawnv", "spawnvp", "execl", "execlp",
        "execv", "execvp", "execa", "execaSync", "shell", "qx", "readpipe", "pipe_open",
    }
)  # fmt: skip
_EVALUATORS = frozenset({"exec", "eval", "compile", "Function", "instance_eval", "loadstring"})
_DELETE_CALLS = frozenset({"rmtree", "rmSync", "rm_rf", "rm_r", "remove_tree", "rmdirSync"})
_FETCH = linear(
    r"urlopen|urlretrieve|urllib|requests\.(?:get|post)|http\.client|httpx|fetch\s*\(|"
    r"https?\.get|https?\.request|LWP::|HTTP::Tiny|Net::HTTP|open-uri|URI\.open|"
    r"file_get_contents\s*\(\s*['\"]https?:|curl_exec|socket\.|IO::Socket|getline\s*<\s*\"/inet"
)
_EVALUATE = linear(
    r"\b(?:exec|eval|compile|Function|system|popen|spawn|execSync|loadstring|load|"
    r"instance_eval|shell_exec|passthru|run|call|Popen)\s*\(|\beval\s|\bsystem\s"
)
_FORK_LOOP = linear(r"(?s)\b(?:while|for|loop|until)\b.*\bfork\b|\bfork\b.*\b(?:while|until)\b")
_PIPE_TO_SHELL = linear(r"\|\s*['\"](?:/bin/|/usr/bin/)?(?:ba|da|z|k)?sh['\"]")
_HOME_NAMES = frozenset({"home", "homedir", "home_dir", "gethome", "HOME"})
_CALL_SPAN = 200  # tokens read after a call's name: keeps the scan linear
_INTERPOLATING = frozenset({"perl", "ruby", "php"})
_AWK_STATEMENT_STARTS = frozenset({";", "{", "(", "\n", "=", "}", ","})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


@dataclass(slots=True)
class CodeFindings:
    """What `scan_code` found.

    Attributes:
        commands: Shell command lines the code runs.
        code: Code in the same language the code evaluates (``exec("...")``, ``eval "..."``).
        download_exec: Whether the code fetches from the network and evaluates or runs.
        fork_bomb: Whether the code forks in a loop.
    """

    commands: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    download_exec: bool = False
    fork_bomb: bool = False


def scan_code(language: str, code: str) -> CodeFindings:
    """The shell commands, recursive deletes, downloads-and-runs and fork loops in ``code``."""
    found = CodeFindings()
    tokens = _tokens(code)
    built = ShellOuts(tokens, interpolates=language in _INTERPOLATING)
    for index, (kind, text) in enumerate(tokens):
        if kind == "`" and language in ("perl", "ruby", "php", "awk"):
            found.commands.append(text)
            _add(found.commands, built.interpolated(text, index), text)
        elif kind == "punct" and text == "|" and language == "awk":
            found.commands.extend(_awk_pipe(tokens, index, built))
        elif kind == "name":
            tail = text.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
            if tail in _EVALUATORS and language != "awk":
                found.code.extend(_call_strings(tokens, index + 1, join=True))
            if tail in _SHELL_CALLS:
                literal = _call_strings(tokens, index + 1, join=True)
                found.commands.extend(literal)
                command = built.command(index + 1, _CALL_SPAN)
                if command is not None:
                    _add(found.commands, command, *literal)
            elif tail in _DELETE_CALLS:
                paths = _call_strings(tokens, index + 1, join=False)[:1]
                if _names_home(tokens, index + 1) or paths == ["HOME"]:
                    paths = ["~"]
                found.commands.extend(f"rm -rf -- {_path_word(path)}" for path in paths)
    if language == "awk" and _PIPE_TO_SHELL.search(code):
        found.commands.append("\n".join(text for kind, text in tokens if kind == "string"))
    found.commands = list(dict.fromkeys(found.commands))  # the same command is judged once
    found.download_exec = bool(_FETCH.search(code) and _EVALUATE.search(code))
    found.fork_bomb = bool(_FORK_LOOP.search(code))
    return found


def _add(commands: list[str], command: str, *already: str) -> None:
    """Add a command built from the code's values, unless the literals already gave it."""
    if command.strip() and command not in already:
        commands.append(command)


def _awk_pipe(tokens: list[tuple[str, str]], index: int, built: ShellOuts) -> list[str]:
    """awk's pipes run a command: ``EXPR | getline`` and ``print ... | EXPR`` (``||`` is an
    or). The expression before ``| getline`` runs back to the statement's start."""
    if (index and tokens[index - 1] == ("punct", "|")) or tokens[index + 1 : index + 2] == [
        ("punct", "|")
    ]:
        return []
    if tokens[index + 1 : index + 2] == [("name", "getline")]:
        start = index
        while start > 0 and not (
            tokens[start - 1][0] == "punct" and tokens[start - 1][1] in _AWK_STATEMENT_STARTS
        ):
            start -= 1
        return [built.expression(tokens[start:index], start)]
    end = index + 1
    while end < len(tokens) and not (tokens[end][0] == "punct" and tokens[end][1] in ";}\n"):
        end += 1
    return [built.expression(tokens[index + 1 : end], index + 1)]


def _names_home(tokens: list[tuple[str, str]], start: int) -> bool:
    """Whether the call's first argument is the home folder (``Path.home()``, ``Dir.home``,
    ``os.homedir()``, ``expanduser("~")``)."""
    depth = 0
    for kind, text in tokens[start : start + _CALL_SPAN]:
        if kind == "punct" and text in "([{":
            depth += 1
        elif kind == "punct" and text in ")]},;\n" and depth <= 1:
            return False
        elif kind == "name" and text.rsplit(".", 1)[-1] in _HOME_NAMES:
            return True
    return False


def _path_word(path: str) -> str:
    """``path`` as one shell word; a leading ``~`` stays the home folder (``expanduser``)."""
    if path.startswith("~"):
        return "~" + _quote(path[1:]) if len(path) > 1 else "~"
    return _quote(path)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _call_strings(tokens: list[tuple[str, str]], start: int, *, join: bool) -> list[str]:
    """The string literals of the call whose arguments start at ``tokens[start]``: up to the
    matching ``)`` or, without parentheses (Perl, Ruby, awk), to the end of the statement."""
    strings: list[str] = []
    depth = 0
    for kind, text in tokens[start : start + _CALL_SPAN]:
        if kind == "punct" and text in "([{":
            depth += 1
        elif kind == "punct" and text in ")]}":
            depth -= 1
            if depth <= 0:
                break
        elif kind == "punct" and text in ";\n" and depth == 0:
            break
        elif kind in ("string", "`"):
            strings.append(text)
    if join and strings:
        return [" ".join(strings)]
    return strings


def _tokens(code: str) -> list[tuple[str, str]]:
    """Names (dots and ``::`` kept), string literals (quotes removed, escapes kept), backtick
    literals, and single punctuation characters. One pass; an unclosed string runs to the end."""
    tokens: list[tuple[str, str]] = []
    index, length = 0, len(code)
    while index < length:
        char = code[index]
        if char in "'\"`":
            end = _string_end(code, index)
            kind = "`" if char == "`" else "string"
            tokens.append((kind, _unescape(code[index + 1 : end])))
            index = end + 1
        elif char in _NAME_CHARS:
            end = index + 1
            while end < length and (code[end] in _NAME_CHARS or code[end] in ".:"):
                end += 1
            tokens.append(("name", code[index:end]))
            index = end
        elif char.isspace() and char != "\n":
            index += 1
        else:
            tokens.append(("punct", char))
            index += 1
    return tokens


def _string_end(code: str, start: int) -> int:
    quote = code[start]
    index = start + 1
    while index < len(code):
        if code[index] == "\\":
            index += 2
            continue
        if code[index] == quote:
            return index
        index += 1
    return len(code)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def _unescape(text: str) -> str:
    """A string literal's text with its backslash escapes resolved (``\\"`` → ``"``)."""
    return resolve_backslashes(text, lambda char: _ESCAPES.get(char, char))

"""What an interpreter's shell-out is given, as far as the code's own literals say.

`code_scan` finds the calls that run a shell command (``system``, ``exec``, ``popen``,
backticks...); `ShellOuts` reads what each is given when the command is built rather than
written (``system("r" . "m -rf /")``, ``cmd = "rm" " -rf"; cmd | getline``,
``os.system(c + " -rf /")``, ``exec("sh", "-c", ...)``, ``execvp("bash", ["bash", "-c", ...])``):

* an argument is its operands concatenated (``.``, ``+``, ``..``, or side by side as in awk
  and Python); a string literal is its text (with ``$name`` in it replaced when the variable
  is known), a variable assigned from such an expression earlier in the code is its value,
  and anything else (a call, an index, input) is unknown;
* one argument is a shell command line; several arguments, or a list, are an argument vector,
  each element one shell word.

The result is shell source for the walker, where an unknown part is written as an unset
variable: the guard then judges ``$X -rf /`` as it judges it in the shell (a hidden command
with a catastrophic operand is refused). Values are capped at `MAX_VALUE_CHARS`.
"""

from __future__ import annotations

from typing import Final

from toolwire.safety.bash._words import UNKNOWN

__all__ = ["MAX_VALUE_CHARS", "ShellOuts", "Token"]

Token = tuple[str, str]
"""``(kind, text)``: ``name``, ``string``, `````` ` `````` (a backtick literal) or ``punct``."""
MAX_VALUE_CHARS: Final = 4_096
"""A value longer than this is cut, and its end read as unknown."""
UNKNOWN_PART: Final = "${__toolwire_unknown__}"
"""How an unknown part reads in the shell source handed to the walker."""
_CONCAT: Final = frozenset({".", "+", "&"})
_ENDS: Final = frozenset({";", "\n", "}"})
_NO_ASSIGN_BEFORE: Final = frozenset({"=", "!", "<", ">", "+", "-", "*", "/", ".", "%", "~"})
_DECLARATIONS: Final = frozenset({"my", "our", "local", "let", "const", "var", "set"})
_STRING_PREFIXES: Final = frozenset(
    {"f", "r", "b", "u", "rb", "br", "fr", "rf", "F", "R", "B", "U", "Rb", "bR", "Fr", "rF"}
)
_FORMAT_PREFIXES: Final = frozenset({"f", "F", "fr", "rf", "Fr", "rF"})
_PLAIN: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"
)
_NAME_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


class ShellOuts:
    """The variables a piece of code assigns from literals, and the shell commands its calls
    build from them (see the module doc).

    Args:
        tokens: The code's tokens (`toolwire.safety.bash._code_scan`).
        interpolates: Whether ``"...$name..."`` strings interpolate (Perl, Ruby, PHP).
    """

    def __init__(self, tokens: list[Token], *, interpolates: bool) -> None:
        self._tokens = tokens
        self._interpolates = interpolates
        self._values: dict[str, str] = {}
        self._read_to = 0

    def command(self, start: int, span: int) -> str | None:
        """The shell source of the call whose arguments start at ``tokens[start]`` (after the
        call's name), or ``None`` when it is given nothing at all."""
        self._assignments_before(start)
        tokens = self._tokens[start : start + span]
        parenthesised = bool(tokens) and tokens[0] in (("punct", "("), ("punct", "{"))
        arguments = _arguments(tokens[1:] if parenthesised else tokens, parenthesised)
        if not arguments:
            return None
        lists = [arg for arg in arguments if arg and arg[0] == ("punct", "[")]
        if lists:  # execvp(file, [argv...]), subprocess.run([...])
            items = _arguments(lists[0][1:], True)
            return " ".join(self._shell_word(item) for item in items) or None
        values = [self.value(arg) for arg in arguments if not _keyword(arg)]
        if len(values) == 1:
            return values[0].replace(UNKNOWN, UNKNOWN_PART)
        return " ".join(_quoted(value) for value in values)

    def expression(self, tokens: list[Token], position: int) -> str:
        """The shell source an expression at ``tokens[position]`` is (unknown parts as unset
        variables)."""
        self._assignments_before(position)
        return self.value(tokens).replace(UNKNOWN, UNKNOWN_PART)

    def value(self, tokens: list[Token]) -> str:
        """An expression's text: its operands concatenated, `UNKNOWN` for what is not known."""
        parts: list[str] = []
        depth = 0
        for index, (kind, text) in enumerate(tokens):
            if kind == "punct":
                if text in "([{":
                    depth += 1
                    if index and tokens[index - 1][0] == "name" and depth == 1:
                        parts.append(UNKNOWN)  # a call's result
                elif text in ")]}":
                    depth = max(depth - 1, 0)
                elif text not in _CONCAT and not text.isspace():
                    parts.append(UNKNOWN)
                continue
            if depth:
                continue  # inside a call's arguments: its result is already unknown
            if kind in ("string", "`"):
                formatted = index and tokens[index - 1][1] in _FORMAT_PREFIXES
                text = _formatted(text, self._values) if formatted else text
                parts.append(self._interpolated(text) if kind == "string" else UNKNOWN)
            elif (
                text in _STRING_PREFIXES
                and tokens[index + 1 : index + 2]
                and (tokens[index + 1][0] == "string")
            ):
                continue  # f"...", r'...': the literal's prefix
            elif text in self._values:
                parts.append(self._values[text])
            elif text[:1].isdigit():
                parts.append(text)
            elif text not in _DECLARATIONS:
                parts.append(UNKNOWN)
        joined = "".join(parts)
        return joined if len(joined) <= MAX_VALUE_CHARS else joined[:MAX_VALUE_CHARS] + UNKNOWN

    def interpolated(self, text: str, position: int) -> str:
        """Shell source of a literal the language interpolates (a backtick command, ``qx``)
        at ``tokens[position]``."""
        self._assignments_before(position)
        return self._interpolated(text, force=True).replace(UNKNOWN, UNKNOWN_PART)

    def _interpolated(self, text: str, *, force: bool = False) -> str:
        if not (self._interpolates or force) or "$" not in text:
            return text
        out: list[str] = []
        index = 0
        while index < len(text):
            char = text[index]
            end = index + 1
            if char == "$" and end < len(text) and text[end] in _NAME_START | {"{"}:
                braced = text[end] == "{"
                end += braced
                while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                    end += 1
                name = "$" + text[index + 1 + braced : end]
                end += braced and end < len(text) and text[end] == "}"
                out.append(self._values.get(name, text[index:end]))  # else the shell's own
                index = end
                continue
            out.append(char)
            index += 1
        return "".join(out)

    def _shell_word(self, tokens: list[Token]) -> str:
        return _quoted(self.value(tokens))

    def _assignments_before(self, stop: int) -> None:
        """Read the assignments ``name = expression`` up to ``tokens[stop]`` (once each)."""
        tokens = self._tokens
        index = self._read_to
        while index < stop:
            kind, text = tokens[index]
            assigns = (
                kind == "name"
                and index + 2 < len(tokens)
                and tokens[index + 1] == ("punct", "=")
                and tokens[index + 2] != ("punct", "=")
                and not (index and tokens[index - 1][1] in _NO_ASSIGN_BEFORE)
            )
            if not assigns:
                index += 1
                continue
            end = index + 2
            while end < len(tokens) and not (tokens[end][0] == "punct" and tokens[end][1] in _ENDS):
                end += 1
            self._values[text] = self.value(tokens[index + 2 : end])
            index = end
        self._read_to = max(self._read_to, stop)


def _formatted(text: str, values: dict[str, str]) -> str:
    """A Python f-string's text: a ``{name}`` field of a known variable is its value, any
    other field unknown (``{{`` stays a brace)."""
    out: list[str] = []
    field: list[str] = []
    depth = 0
    index = 0
    while index < len(text):
        pair = text[index : index + 2]
        if depth == 0 and pair in ("{{", "}}"):
            out.append(pair[0])
            index += 2
            continue
        char = text[index]
        if char == "{":
            depth += 1
            if depth == 1:
                field.clear()
            else:
                field.append(char)
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append(values.get("".join(field).strip(), UNKNOWN))
            else:
                field.append(char)
        elif depth:
            field.append(char)
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _arguments(tokens: list[Token], parenthesised: bool) -> list[list[Token]]:
    """A call's arguments, split at its top-level commas: up to the matching ``)`` when
    ``parenthesised``, else to the end of the statement."""
    arguments: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        kind, text = token
        if kind == "punct":
            if text in "([{":
                depth += 1
            elif text in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and text == ",":
                arguments.append([])
                continue
            elif depth == 0 and not parenthesised and text in _ENDS:
                break
        arguments[-1].append(token)
    return [argument for argument in arguments if argument]


def _keyword(tokens: list[Token]) -> bool:
    """``shell=True``, ``cwd="/"``: a keyword argument, not part of the command."""
    return len(tokens) > 1 and tokens[0][0] == "name" and tokens[1] == ("punct", "=")


def _quoted(value: str) -> str:
    """``value`` as one shell word (unknown parts as unset variables), quoted only when it
    needs to be."""
    pieces = value.split(UNKNOWN)
    words = [
        piece if _PLAIN.issuperset(piece) else "'" + piece.replace("'", "'\\''") + "'"
        for piece in pieces
    ]
    return ('"' + UNKNOWN_PART + '"').join(words) or "''"

"""Commands carried by configuration: a value that a program later runs as a shell command.

``git -c core.pager='rm -rf ~' log`` runs ``rm -rf ~`` as git's pager, and so do
``GIT_PAGER=...``, ``GIT_SSH_COMMAND=...``, ``EDITOR=...`` in the environment. The guard judges
such a value as the command it is (a harmless pager, editor or ``ssh`` command passes, a
destructive one is refused by the rule it breaks), wherever it is given:

* ``git -c KEY=VALUE`` before the subcommand, and ``git config [...] KEY VALUE`` (kept in a
  config file, run by a later git command) for the keys of `command_key`: ``core.pager``,
  ``core.editor``, ``core.sshCommand``, ``core.fsmonitor``, ``core.askPass``,
  ``sequence.editor``, ``diff.external``, ``pager.*``, ``alias.*`` whose value starts with
  ``!``, ``credential.helper`` starting with ``!``, the diff, merge, filter, difftool and
  mergetool drivers' commands, ``gpg.program``...;
* ``git --config-env=KEY=VAR`` for such a key takes the value from a variable the line does
  not show: refused (``git-config-command``);
* the variables of `COMMAND_VARIABLES`, assigned before a command (``GIT_PAGER=... git log``),
  on their own or exported (the walker judges the assignment), or through ``env``/``sudo``.

``core.hooksPath`` names a folder of scripts, not a command: it is run like any script file
already on disk (``bash ./x.sh``), which the guard does not read either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.safety.bash._model import Segment
from toolwire.safety.linear_regex import linear

__all__ = ["COMMAND_VARIABLES", "ConfigCommands", "command_key", "config_commands"]

COMMAND_VARIABLES = frozenset(
    {
        "GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR",
        "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND", "MANPAGER", "SYSTEMD_PAGER", "SUDO_EDITOR", "LESSOPEN",
        "LESSCLOSE", "PROMPT_COMMAND",
    }
)  # fmt: skip
"""Variables whose value programs run as a shell command."""
_COMMAND_KEYS = linear(
    r"(?i)^(?:core\.(?:pager|editor|sshcommand|fsmonitor|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|pager\.[^=]+|alias\.[^=]+|credential(?:\.[^=]+)?\.helper"
    r"|diff\.[^=]+\.(?:command|textconv)|merge\.[^=]+\.driver|filter\.[^=]+\.(?:clean|smudge"
    r"|process)|(?:diff|merge)tool\.[^=]+\.cmd|gpg(?:\.[^=]+)?\.program|web\.browser"
    r"|browser\.[^=]+\.cmd|man\.[^=]+\.cmd|uploadpack\.packobjectshook|remote\.[^=]+\."
    r"(?:receivepack|uploadpack)|sendemail\.sendmailcmd|interactive\.difffilter)$"
)
_BANG_KEYS = linear(r"(?i)^(?:alias\.|credential)")
_GIT_VALUE_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_CONFIG_VALUE_OPTIONS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment"})


@dataclass(slots=True)
class ConfigCommands:
    """What configuration a command carries would run.

    Attributes:
        scripts: Shell command lines to judge (``!`` of an alias already taken off).
        hidden: A key whose command the line does not show (``--config-env``), or ``""``.
    """

    scripts: list[str] = field(default_factory=list)
    hidden: str = ""


def command_key(key: str) -> bool:
    """Whether git runs the value of the configuration ``key`` as a command."""
    return _COMMAND_KEYS.match(key) is not None


def config_commands(segment: Segment) -> ConfigCommands:
    """The commands ``segment``'s configuration carries (see the module doc)."""
    found = ConfigCommands()
    args = segment.argv
    wrapper_words = len(segment.words) - len(segment.args)
    for word in segment.words[: max(wrapper_words, 0)]:
        name, equals, value = word.text.partition("=")
        if equals and (name in COMMAND_VARIABLES or name.startswith("GIT_CONFIG_VALUE_")):
            found.scripts.append(value)
    if segment.program == "git":
        _git(args, found)
    return found


def _git(args: tuple[str, ...], found: ConfigCommands) -> None:
    index = 1
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        index += 1
        if option == "-c" and index < len(args):
            _setting(args[index], found)
            index += 1
        elif option.startswith("--config-env="):
            key = option.split("=", 2)[1]
            if command_key(key):
                found.hidden = found.hidden or key
        elif option in _GIT_VALUE_OPTIONS:
            index += 1
    if index < len(args) and args[index] == "config":
        _git_config(args[index + 1 :], found)


def _setting(text: str, found: ConfigCommands) -> None:
    key, equals, value = text.partition("=")
    if equals and command_key(key):
        found.scripts.append(_command_of(key, value))


def _git_config(rest: tuple[str, ...], found: ConfigCommands) -> None:
    """``git config [set|--add|--global|...] KEY VALUE``: the value a later git command runs."""
    operands: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        index += 1
        if word.startswith("-"):
            index += word in _CONFIG_VALUE_OPTIONS
        elif not operands and word in ("set", "add"):
            continue
        else:
            operands.append(word)
    if len(operands) >= 2 and command_key(operands[0]):
        found.scripts.append(_command_of(operands[0], operands[1]))


def _command_of(key: str, value: str) -> str:
    """The shell command a value is: an alias or helper only when it starts with ``!``."""
    if _BANG_KEYS.match(key):
        return value[1:] if value.startswith("!") else ""
    return value

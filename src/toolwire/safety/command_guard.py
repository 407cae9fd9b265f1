"""The hardline command guard: refuse shell commands that destroy the machine or its secrets.

`check_command` reads a command line with a real bash parser (tree-sitter's bash grammar, see
`toolwire.safety.bash`) and judges every command it would run — in lists, pipelines, subshells,
groups, command and process substitutions, here-docs, function bodies, loops and conditionals —
after looking through wrappers (``sudo``, ``env``, ``timeout``, ``xargs``, ``find -exec``...)
and resolving what the text says statically (quotes, ``$'..'``, brace expansion, ``$IFS``,
``~``, ``$HOME``, ``..``). Code inside the line is judged as code: ``sh -c``, ``eval``,
interpreters' inline code, text piped or here-doc'd into a shell; a download or decoded text
run as code is refused in every shape. What is quoted data (an ``echo``, a commit message, a
``grep`` pattern, a here-doc written to a file) is not a command and passes.

The catalogue (`command_rules`, `command_device_rules`): recursive delete of ``/``, ``~``, a
system folder or a parent folder; any ``rm`` in ``~/.ssh``; ``find`` deleting from those;
recursive ``chmod``/``chown``/``chgrp`` of them; setuid ``chmod``; ``setcap``; moving them away;
``dd``/``mkfs``/``wipefs``/``shred``/``blkdiscard``/partition editors on disks; writes to raw
disks, ``/etc/sudoers``, ``/etc/passwd``, ``/boot``, ``/sys``, ``/proc``, ``authorized_keys``;
fork bombs; ``kill -9 -1``, ``pkill``/``killall`` of every process or of a user's; shutting the
machine down; ``crontab -r``; ``gpg`` deleting secret keys; destructive SQL given to a database
client; naming secret files (``~/.ssh/id_*``, ``~/.aws/credentials``..., also through a glob);
download-and-execute; running encoded text (piped, or written to a file the line runs); a
recursive delete of paths read from input (``xargs rm -rf < list``); writes to a path that
resolves to a device. Shell-outs that inline code builds from its literals and variables, and
commands carried by configuration (``git -c core.pager=...``, ``GIT_SSH_COMMAND=...``), are
judged as the commands they are.

A command longer than `MAX_COMMAND_CHARS`, or too deeply nested to check, is refused
(``too-long``, ``too-complex``) rather than partly checked. Checking is linear in the length;
`check_command_async` moves a long command off the event loop.

This is the second layer: the sandbox (``docs/sandbox.md``) is what contains a command. The
guard refuses the catastrophic commands a model emits by mistake or because injected text
asked it to, and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolwire.safety._command_rules import judge
from toolwire.safety.bash._walk import Refused, Walker
from toolwire.safety.bash._words import TooComplexError
from toolwire.threads import run_in_worker

__all__ = [
    "MAX_COMMAND_CHARS",
    "WORKER_THRESHOLD_CHARS",
    "GuardVerdict",
    "check_command",
    "check_command_async",
]

MAX_COMMAND_CHARS = 65_536
"""A longer command is refused (``too-long``): nobody reviews 64 KiB of shell."""
WORKER_THRESHOLD_CHARS = 4_096
"""`check_command_async` checks longer commands in a worker thread."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GuardVerdict:
    """Why a command was refused.

    Attributes:
        rule: A stable rule id (``rm-recursive-root``, ``download-exec``, ...).
        reason: A short human-readable reason.
        segment: The command that tripped the rule, as the guard read it (``~`` for the home
            folder, ``…`` for what cannot be known).
    """

    rule: str
    reason: str
    segment: str

    @property
    def message(self) -> str:
        """The refusal text for the model."""
        return (
            f"Command blocked: {self.reason}. This operation requires explicit human approval "
            "before proceeding."
        )


def check_command(
    command: str, *, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> GuardVerdict | None:
    """Judge every command ``command`` would run against the hardline catalogue.

    Args:
        command: A shell command line, as the terminal tool would run it with ``bash -c``.
        cwd: The folder it runs in, when the call names one (``rm -rf *`` in ``/``).
        env: Variables the call sets for it (``rm -rf $D`` with ``D=/``).

    Returns:
        The first `GuardVerdict` found, or ``None`` when the command passes. Never raises.
    """
    if not isinstance(command, str):
        return None
    if len(command) > MAX_COMMAND_CHARS:
        return GuardVerdict(
            rule="too-long",
            reason=f"the command is {len(command)} characters long, over the guard's limit of "
            f"{MAX_COMMAND_CHARS}; split it or put it in a script file",
            segment=command[:200],
        )
    try:
        known = {k: v for k, v in (env or {}).items() if isinstance(k, str) and isinstance(v, str)}
        folder = cwd if isinstance(cwd, str) else ""
        Walker(judge, len(command), cwd=folder, env=known).check(command)
    except Refused as refused:
        found = refused.finding
        return GuardVerdict(rule=found.rule, reason=found.reason, segment=found.segment)
    except (TooComplexError, RecursionError) as exc:
        return GuardVerdict(
            rule="too-complex",
            reason=f"the command is too complex to check ({exc or 'nested too deeply'})",
            segment=command[:200],
        )
    return None


async def check_command_async(
    command: str, *, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> GuardVerdict | None:
    """`check_command`, in a worker thread when ``command`` is longer than
    `WORKER_THRESHOLD_CHARS` (so a long command never holds the event loop)."""
    if not isinstance(command, str) or len(command) <= WORKER_THRESHOLD_CHARS:
        return check_command(command, cwd=cwd, env=env)
    return await run_in_worker(lambda: check_command(command, cwd=cwd, env=env))

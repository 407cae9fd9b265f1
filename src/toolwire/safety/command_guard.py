"""The hardline command guard: refuse shell commands that destroy or exfiltrate the machine.

`check_command` is a pure function over a command string. It splits the command the way a shell
would (quotes respected, via `shlex`) into every simple command it runs: the segments of ``;``,
``&&``, ``||``, ``|``, ``&`` and newlines, the bodies of ``$(...)`` and backticks, and the
scripts of ``bash -c "..."`` / ``sh -c '...'`` / ``eval``, recursively. Wrappers such as
``sudo``, ``env``, ``nohup``, ``timeout`` and ``xargs`` are looked through. Each segment is then
checked against the catalogue:

* ``rm`` with both recursive and force flags on ``/``, ``/*``, ``~``, ``$HOME`` (and their
  ``/*`` forms) or a top-level system directory (``/etc``, ``/usr``, ...); any ``rm`` in
  ``~/.ssh``; ``--no-preserve-root``;
* ``gpg --delete-secret-key(s)``; ``find /`` (or ``~``) with ``-delete``;
* ``dd of=/dev/<device>``; ``mkfs`` in any form; output redirected to a raw disk;
* a fork bomb; ``chmod`` setting setuid/setgid; ``setcap`` granting capabilities;
* writes (redirects, ``tee``, ``cp``/``mv``/``install`` destinations) to ``/etc/sudoers``,
  ``/etc/passwd``, ``/etc/shadow``, under ``/boot/``, ``/sys/``, ``/proc/sys/``, or to an
  ``authorized_keys`` file;
* SQL ``DROP DATABASE|TABLE|SCHEMA`` and ``TRUNCATE TABLE``;
* any argument naming a secret file: ``~/.ssh/id_*``, ``authorized_keys``, ``known_hosts``,
  ``~/.aws/credentials``, ``~/.gnupg``, ``~/.netrc``, ``/etc/passwd|shadow|sudoers``, shell and
  database histories.

Look-alikes pass: ``rm -rf dist``, ``rm -rf /tmp/x``, ``dd if=/dev/sda of=backup.img``,
``chmod 755``, ``cat /etc/passwords.json``, ``cat .bash_history.example``.

This is a guard, not a sandbox. A determined command can evade any static check (variables,
``base64 -d | sh``, a script file, another interpreter's ``-c``); the process seam's binary
allowlist, file-system reach and the container are what contain a tool. The guard catches the
catastrophic commands a model emits by mistake or because injected text asked it to.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.safety.command_rules import raw_command_verdict, segment_verdict
from toolwire.safety.command_segments import CommandTooComplexError, Segment, split_command

__all__ = ["GuardVerdict", "check_command"]


@dataclass(frozen=True, kw_only=True, slots=True)
class GuardVerdict:
    """Why a command was refused.

    Attributes:
        rule: A stable rule id (``rm-recursive-root``, ``sensitive-path``, ...).
        reason: A short human-readable reason.
        segment: The simple command that tripped the rule, re-joined with spaces.
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


def check_command(command: str) -> GuardVerdict | None:
    """Check every segment of ``command`` against the hardline catalogue.

    Args:
        command: A shell command line, as the terminal tool would run it with ``bash -c``.

    Returns:
        The first `GuardVerdict` found, or ``None`` when the command passes. A command nested
        deeper than 8 levels (``$(...)``, backticks, ``sh -c``) is refused as ``too-complex``
        rather than partly checked. Never raises.
    """
    try:
        return _check(command)
    except (CommandTooComplexError, RecursionError):
        return GuardVerdict(
            rule="too-complex",
            reason="command nests substitutions or shell scripts too deeply to check",
            segment=command[:200],
        )


def _check(command: str) -> GuardVerdict | None:
    if not isinstance(command, str):
        return None
    segments: list[Segment] = split_command(command)
    for segment in segments:
        found = segment_verdict(segment)
        if found is not None:
            rule, reason = found
            return GuardVerdict(rule=rule, reason=reason, segment=" ".join(segment.words))
    found = raw_command_verdict(command)
    if found is not None:
        rule, reason = found
        return GuardVerdict(rule=rule, reason=reason, segment=command[:200])
    return None

"""The guard's rules for disks and the machine itself: wipers, partition tables, raw writes,
killing every process (``kill -1``, ``pkill``/``killall`` of every process or every process of a
user), shutting down, removing the crontab.

Each rule takes a resolved `Segment` and returns a `Finding` or ``None``; `DEVICE_RULES` maps
a program name to its rules and `is_raw_disk` is shared with the write rules. A path written
to is also resolved on this host when it is judged (`device_behind`): a symbolic link to a
block or character device other than the harmless ones (``/dev/null``, ttys...) is that
device.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from toolwire.safety.bash._model import Finding, Segment
from toolwire.safety.bash._words import HOME, SOMETHING, UNKNOWN, display
from toolwire.safety.linear_regex import linear

__all__ = ["DEVICE_RULES", "device_behind", "is_device", "is_raw_disk", "options_and_operands"]

Rule = Callable[[Segment], Finding | None]
_RAW_DISK = linear(
    r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|loop|dm-|md|mapper/|sr|nbd|zd|ubd|ram)"
)
_HARMLESS_DEVICES = linear(
    r"^/dev/(?:null|zero|full|random|urandom|stdout|stderr|stdin|tty\w*|pts/.*|fd/.*|shm/.*)$"
)
_SLASHES = linear(r"/{2,}")
_MKFS = ("mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "mkreiserfs", "newfs")
_PARTITIONERS = frozenset({"fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "cgdisk", "parted"})
_PARTITION_READS = frozenset(
    {"-l", "--list", "-d", "--dump", "-s", "--show-size", "-p", "--print", "-i", "--info",
     "-V", "--verify", "--version", "-h", "--help", "print", "-J", "--json", "-L"}
)  # fmt: skip
_DISK_TOOLS = (
    "hdparm", "nvme", "cryptsetup", "zpool", "zfs", "mdadm", "lvremove", "vgremove", "pvremove",
    "badblocks",
)  # fmt: skip
_SHUTDOWN = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_SELECTORS = frozenset(
    {"-u", "-U", "-g", "-G", "-P", "-s", "-t", "--euid", "--uid", "--pgroup", "--group",
     "--parent", "--session", "--terminal", "--user", "--ns", "--cgroup"}
)  # fmt: skip
_PKILL_VALUES = _SELECTORS | frozenset({"--signal", "-F", "--pidfile", "--nslist", "-q"})
_KILLALL_VALUES = frozenset({"-u", "--user", "-s", "--signal", "-o", "-y", "-Z", "-n"})
_REGEX_CLASSES = linear(r"\[[^\]]*\]")
_REGEX_SYNTAX = ".^$*+?()|{},0123456789\\ "
_SYSTEMCTL_STOPS = frozenset({"poweroff", "reboot", "halt", "kexec", "emergency", "rescue"})


def _finding(rule: str, reason: str, segment: Segment) -> Finding:
    return Finding(rule, reason, segment.text[:200])


def options_and_operands(argv: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Split arguments into options and operands (everything after ``--`` is an operand)."""
    options: list[str] = []
    operands: list[str] = []
    ended = False
    for word in argv:
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-") and word != "-":
            options.append(word)
        else:
            operands.append(word)
    return options, operands


def is_device(path: str) -> bool:
    """Whether ``path`` is a device other than the harmless ones (``/dev/null``, ttys...)."""
    plain = _SLASHES.sub("/", path)
    return plain.startswith("/dev/") and not _HARMLESS_DEVICES.match(plain)


def is_raw_disk(path: str) -> bool:
    """Whether ``path`` is a disk, a partition or a device whose name is not known."""
    plain = _SLASHES.sub("/", path)
    if plain.startswith("/dev/") and UNKNOWN in plain:
        return True
    return bool(_RAW_DISK.match(plain))


def device_behind(path: str, cwd: str = "") -> str | None:
    """The device ``path`` leads to on this host when it is one other than the harmless ones
    (a symbolic link ``disk`` → ``/dev/sda``), resolved now with `os.path.realpath`; ``None``
    for a file, a missing path, or a path the line does not spell out."""
    if not path or UNKNOWN in path or SOMETHING in path:
        return None
    if path.startswith(HOME):
        path = os.path.expanduser("~" + path[1:])
    elif cwd and not path.startswith("/") and not cwd.startswith((HOME, UNKNOWN, SOMETHING)):
        path = os.path.join(cwd, path)
    try:
        real = os.path.realpath(path)
        mode = os.stat(real).st_mode
    except (OSError, ValueError):
        return None
    if not (stat.S_ISBLK(mode) or stat.S_ISCHR(mode)):
        return None
    if _HARMLESS_DEVICES.match(real) or _HARMLESS_DEVICES.match(_SLASHES.sub("/", path)):
        return None
    return real


def _short_has(option: str, letters: str) -> bool:
    return not option.startswith("--") and any(letter in option[1:] for letter in letters)


def _dd(segment: Segment) -> Finding | None:
    for word in segment.argv[1:]:
        if word.startswith("of=") and is_device(word[3:]):
            return _finding("dd-device", f"dd writing to a device ({display(word[3:])})", segment)
        device = device_behind(word[3:], segment.cwd) if word.startswith("of=") else None
        if device is not None:
            reason = f"dd writing to a device ({display(word[3:])} leads to {device})"
            return _finding("dd-device", reason, segment)
    return None


def _mkfs(segment: Segment) -> Finding | None:
    return _finding("mkfs", f"creating a filesystem ({segment.program})", segment)


def _wipefs(segment: Segment) -> Finding | None:
    options, _ = options_and_operands(segment.argv[1:])
    erases = any(
        o in ("--all", "--offset") or o.startswith("--offset=") or _short_has(o, "ao")
        for o in options
    )
    if not erases:
        return None
    return _finding("disk-wipe", "erasing filesystem signatures (wipefs)", segment)


def _blkdiscard(segment: Segment) -> Finding | None:
    return _finding("disk-wipe", "discarding every block of a device (blkdiscard)", segment)


def _shred(segment: Segment) -> Finding | None:
    _, operands = options_and_operands(segment.argv[1:])
    for target in operands:
        if is_raw_disk(target) or is_device(target) or target == UNKNOWN:
            return _finding("disk-wipe", f"shredding a device ({display(target)})", segment)
    return None


def _partitioner(segment: Segment) -> Finding | None:
    options, operands = options_and_operands(segment.argv[1:])
    reads = _PARTITION_READS - {"-s"} if segment.program == "parted" else _PARTITION_READS
    if any(word in reads for word in (*options, *operands[1:2])):
        return None
    for target in operands:
        if is_raw_disk(target) or target == UNKNOWN:
            return _finding(
                "partition-table", f"rewriting the partition table of {display(target)}", segment
            )
    return None


def _disk_tools(segment: Segment) -> Finding | None:
    argv = segment.argv
    program = segment.program
    if program == "hdparm" and any("security-erase" in w or "trim-sector" in w for w in argv):
        return _finding("disk-wipe", "erasing a disk (hdparm)", segment)
    if program == "nvme" and len(argv) > 1 and argv[1] in ("format", "sanitize"):
        return _finding("disk-wipe", f"nvme {argv[1]}", segment)
    if program == "cryptsetup" and any(w in ("luksFormat", "erase", "luksErase") for w in argv):
        return _finding("disk-wipe", "formatting or erasing an encrypted volume", segment)
    if program in ("zpool", "zfs") and len(argv) > 1 and argv[1] in ("destroy", "labelclear"):
        return _finding("disk-wipe", f"{program} {argv[1]}", segment)
    if program == "mdadm" and any(w in ("--zero-superblock", "--remove") for w in argv):
        return _finding("disk-wipe", "erasing a RAID member (mdadm)", segment)
    if program in ("lvremove", "vgremove", "pvremove"):
        return _finding("disk-wipe", f"removing a logical volume or group ({program})", segment)
    if program == "badblocks" and any(w.startswith("-") and "w" in w for w in argv[1:]):
        return _finding("disk-wipe", "a destructive write test (badblocks -w)", segment)
    return None


def _kill(segment: Segment) -> Finding | None:
    if segment.program == "killall5":
        return _finding("kill-all", "killing every process (killall5)", segment)
    args = list(segment.argv[1:])
    if args[:1] and args[0] in ("-s", "-n", "--signal"):
        args = args[2:]
    elif len(args) > 1 and args[0].startswith("-") and args[0] != "--":
        args = args[1:]  # the signal: -9, -KILL, -SIGKILL
    if args[:1] == ["--"]:
        args = args[1:]
    if "-1" in args or "1" in args:
        return _finding("kill-all", "killing every process (kill -1) or init", segment)
    return None


def _pkill(segment: Segment) -> Finding | None:
    """``pkill``/``killall`` whose selection is every process, or every process of a user:
    no name but ``-u``/``-U``/``-g``..., a pattern that matches any name (``.``, ``.*``,
    ``''``), or ``-v`` (every process but the named)."""
    program = segment.program
    values = _KILLALL_VALUES if program == "killall" else _PKILL_VALUES
    names: list[str] = []
    selectors: list[str] = []
    regex = program != "killall"
    args = segment.argv[1:]
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            names.extend(args[index:])
            break
        if not word.startswith("-") or word == "-":
            names.append(word)
            continue
        key = word.split("=", 1)[0]
        if key in values and "=" not in word:
            value = args[index] if index < len(args) else ""
            index += 1
            if key in _SELECTORS:
                selectors.append(f"{key} {value}")
        elif key in _SELECTORS:
            selectors.append(word)
        elif program == "killall" and key in ("-r", "--regexp"):
            regex = True
        elif program != "killall" and key in ("-v", "--inverse"):
            return _finding("kill-all", f"killing every process but some ({program} -v)", segment)
    if not names and selectors:
        return _finding("kill-all", f"killing every process of {selectors[0]} ({program})", segment)
    for name in names:
        if regex and _matches_any_name(name):
            return _finding(
                "kill-all", f"killing every process ({program} {display(name)!r})", segment
            )
    return None


def _matches_any_name(pattern: str) -> bool:
    """Whether a pkill/killall -r pattern matches any process name: nothing in it but regular
    expression syntax (``.``, ``.*``, ``^``, ``[a-z]+``, ``''``), or a single character."""
    if UNKNOWN in pattern:
        return False
    literal = _REGEX_CLASSES.sub("", pattern)
    return len(pattern.strip("^$")) <= 1 or not literal.strip(_REGEX_SYNTAX)


def _shutdown(segment: Segment) -> Finding | None:
    argv = segment.argv
    program = segment.program
    if program in _SHUTDOWN and not any(w in ("-c", "--help", "--cancel") for w in argv):
        return _finding("shutdown", f"stopping the machine ({program})", segment)
    if program in ("init", "telinit") and any(w in ("0", "6") for w in argv[1:]):
        return _finding("shutdown", f"stopping the machine ({program} {argv[1]})", segment)
    if program in ("systemctl", "loginctl") and any(w in _SYSTEMCTL_STOPS for w in argv[1:]):
        return _finding("shutdown", f"stopping the machine ({program})", segment)
    return None


def _crontab(segment: Segment) -> Finding | None:
    if "/dev/null" in segment.argv[1:]:
        return _finding("crontab-remove", "replacing every cron job with nothing", segment)
    for word in segment.argv[1:]:
        if word == "--remove" or (
            word.startswith("-") and not word.startswith("--") and "r" in word
        ):
            return _finding("crontab-remove", "removing every cron job (crontab -r)", segment)
    return None


def _mkfs_rules() -> dict[str, tuple[Rule, ...]]:
    return dict.fromkeys(_MKFS, (_mkfs,))


DEVICE_RULES: dict[str, tuple[Rule, ...]] = {
    "dd": (_dd,),
    **_mkfs_rules(),
    "wipefs": (_wipefs,),
    "blkdiscard": (_blkdiscard,),
    "shred": (_shred,),
    **dict.fromkeys(_PARTITIONERS, (_partitioner,)),
    **dict.fromkeys(_DISK_TOOLS, (_disk_tools,)),
    "kill": (_kill,),
    "killall5": (_kill,),
    "pkill": (_pkill,),
    "killall": (_pkill,),
    **dict.fromkeys((*_SHUTDOWN, "init", "telinit", "systemctl", "loginctl"), (_shutdown,)),
    "crontab": (_crontab,),
}
"""Program name → its rules (``mkfs.*`` is matched by prefix in `command_rules`)."""

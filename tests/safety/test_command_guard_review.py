"""The command guard against the security review's findings (issue 21): each attack string is
refused with a stable rule, and the near-miss commands a developer runs every day still pass.

In ``auto`` mode without bubblewrap the guard is the only layer, so every shape the review
found passing is a regression test here.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service_checks import missing_here
from toolwire.safety.command_guard import check_command

ATTACKS: list[tuple[str, str]] = [
    # (1) decoded text written to a file, then sourced or run: judged by what was decoded
    # when the line says it, refused when it cannot be read
    ("echo cm0gLXJmIH4K | base64 -d > f.sh; . f.sh", "rm-recursive-root"),
    ("echo cm0gLXJmIH4K | base64 -d > f.sh; source f.sh", "rm-recursive-root"),
    ("echo cm0gLXJmIH4K | base64 -d > f.sh; bash f.sh", "rm-recursive-root"),
    ("echo cm0gLXJmIH4K | base64 -d > /tmp/f.sh && sh /tmp/f.sh", "rm-recursive-root"),
    ("base64 -d payload.b64 > f.sh; bash f.sh", "obfuscated-exec"),
    ("base64 -d < p.b64 | tee f.sh >/dev/null; chmod +x f.sh; ./f.sh", "obfuscated-exec"),
    ("xxd -r -p blob > run.sh && . ./run.sh", "obfuscated-exec"),
    # (2) shell-outs built by string concatenation
    ('awk \'BEGIN{system("r" "m -rf /")}\'', "rm-recursive-root"),
    ('awk \'BEGIN{cmd = "rm" " -rf /"; cmd | getline}\'', "rm-recursive-root"),
    (
        'awk \'BEGIN{cmd = "rm" " -rf ~"; while ((cmd | getline l) > 0) print l}\'',
        "rm-recursive-root",
    ),
    ('perl -e \'system("r"."m -rf /")\'', "rm-recursive-root"),
    ('perl -e \'exec("r"."m -rf /")\'', "rm-recursive-root"),
    ('perl -e \'my $c="r"."m -rf /"; `$c`\'', "rm-recursive-root"),
    ("perl -e '$x=\"rm -rf /\"; qx{$x}'", "rm-recursive-root"),
    ("python -c \"import os; os.system('r' + 'm -rf /')\"", "rm-recursive-root"),
    ("python3 -c \"import os; c='rm'; os.system(c + ' -rf /')\"", "rm-recursive-root"),
    ("python3 -c \"import os; os.system(input() + ' -rf /')\"", "hidden-command"),
    ("python -c \"import os; d='/'; os.system(f'rm -rf {d}')\"", "rm-recursive-root"),
    ("python -c \"import os; os.system(chr(114) + 'm -rf /')\"", "hidden-command"),
    ('ruby -e \'system("r" + "m -rf /")\'', "rm-recursive-root"),
    ('node -e \'require("child_process").execSync("r" + "m -rf /")\'', "rm-recursive-root"),
    # (3) commands carried by git's configuration and environment
    ("git -c core.pager='rm -rf ~' log", "rm-recursive-root"),
    ("git -c core.pager='sh -c \"rm -rf /\"' log", "rm-recursive-root"),
    ("git -c core.editor='rm -rf ~' commit", "rm-recursive-root"),
    ("git -c core.sshCommand='rm -rf ~' fetch", "rm-recursive-root"),
    ("git -c core.fsmonitor='rm -rf ~' status", "rm-recursive-root"),
    ("git -c alias.x='!rm -rf ~' x", "rm-recursive-root"),
    ("git -c diff.external='rm -rf ~' diff", "rm-recursive-root"),
    ("git --config-env=core.pager=P log", "git-config-command"),
    ("git config core.pager 'rm -rf ~'", "rm-recursive-root"),
    ("GIT_PAGER='rm -rf ~' git log", "rm-recursive-root"),
    ("PAGER='rm -rf ~' git log", "rm-recursive-root"),
    ("GIT_EDITOR='rm -rf ~' git commit", "rm-recursive-root"),
    ("GIT_SSH_COMMAND='rm -rf ~' git fetch", "rm-recursive-root"),
    ("export GIT_PAGER='rm -rf ~'; git log", "rm-recursive-root"),
    ("env GIT_SSH_COMMAND='rm -rf ~' git fetch", "rm-recursive-root"),
    # (4) a destructive command whose operands come from input
    ("xargs rm -rf < list", "delete-from-input"),
    ("xargs -a list rm -rf", "delete-from-input"),
    ("find . -name '*.o' | xargs rm -rf", "delete-from-input"),
    ("cat list | xargs -n1 rm -rf", "delete-from-input"),
    ("cat list | xargs -I{} rm -rf {}", "delete-from-input"),
    ("xargs -0 shred -u < files", "delete-from-input"),
    ("parallel rm -rf < dirs", "delete-from-input"),
    ("parallel rm -rf :::: dirs.txt", "delete-from-input"),
    ('while read f; do rm -rf "$f"; done < list', "delete-from-input"),
    ('cat list | while read -r f; do rm -rf "build/$f"; done', "delete-from-input"),
    ('read -r x < f; bash -c "rm -rf $x"', "delete-from-input"),
    # (5) secret files named through a glob
    ("cat /etc/sha*w", "sensitive-path"),
    ("cat ~/.s?h/id_rsa", "sensitive-path"),
    ("cat /etc/[s]hadow", "sensitive-path"),
    ("cat ~/.a?s/credentials", "sensitive-path"),
    ("cp /etc/s*w /tmp/x", "sensitive-path"),
    ("tar czf k.tgz ~/.g*g", "sensitive-path"),
    ("cat $HOME/.{ssh,aws}/*", "sensitive-path"),
    ("cat /e*/sh*", "sensitive-path"),
    # (7) killing processes en masse
    ("pkill -9 -u root", "kill-all"),
    ("pkill -u root", "kill-all"),
    ("killall -u root", "kill-all"),
    ("killall -9 -u root", "kill-all"),
    ("kill -9 -1", "kill-all"),
    ("pkill -f .", "kill-all"),
    ("pkill -9 -f .", "kill-all"),
    ("pkill .", "kill-all"),
    ("killall -r .", "kill-all"),
    ("pkill -U 0", "kill-all"),
    ("pkill -f ''", "kill-all"),
    ("killall -r '.*'", "kill-all"),
    # (8) fork bombs inside exec strings and argument lists
    ("bash -c ':(){ :|:& };:'", "fork-bomb"),
    ("sh -c \"$(echo ':(){ :|:& };:')\"", "fork-bomb"),
    ("eval ':(){ :|:& };:'", "fork-bomb"),
    ('perl -e \'exec("sh", "-c", ":(){ :|:& };:")\'', "fork-bomb"),
    ("python3 -c \"import os; os.execvp('bash', ['bash', '-c', ':(){ :|:& };:'])\"", "fork-bomb"),
    (
        "python3 -c \"import subprocess; subprocess.run(['bash', '-c', ':(){ :|:& };:'])\"",
        "fork-bomb",
    ),
    ('python -c "import os\nwhile True: os.fork()"', "fork-bomb"),
]

NEAR_MISSES = [
    "base64 -d file > out.bin",
    "echo aGVsbG8= | base64 -d > hello.txt && cat hello.txt",
    "cat > run.sh <<'EOF'\necho hi\nEOF\nbash run.sh",
    "echo 'ls -la' > x.sh && sh x.sh",
    "python gen.py > out.txt && cat out.txt",
    "awk '{print $1}' data.txt",
    "awk '{ print $1 | \"sort\" }' data.txt",
    "awk '{system(\"echo \" $1)}' data.txt",
    "awk 'BEGIN{cmd = \"date\"; cmd | getline d; print d}'",
    'perl -e \'system("ls", "-la")\'',
    "perl -ne 'print if /x/' f",
    "python -c \"import os; os.system('ls ' + '-la')\"",
    "python3 -c \"import subprocess; subprocess.run(['git', 'status'])\"",
    'python -c "import os; print(os.getcwd())"',
    "python -c \"import os; os.system(f'ls {path}')\"",
    'python -c "import os; os.system(cmd)"',
    "git -c user.name=x commit -m msg",
    "git -c core.pager=less log",
    "git -c core.pager='less -R' log",
    "git -c core.editor=vim commit",
    "git -c alias.co=checkout co main",
    "git -c alias.l='!git log --oneline' l",
    "git -c core.hooksPath=/dev/null commit -m x",
    "GIT_PAGER=cat git log",
    "GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy_key.pub' git fetch",
    "PAGER=less git log",
    "git config user.email me@example.com",
    "xargs grep foo",
    "find . -name '*.py' | xargs grep foo",
    "xargs -a list echo",
    "parallel rm -rf ::: build dist",
    "parallel gzip ::: a b",
    'while read f; do echo "$f"; done < list',
    'while read f; do rm -f "$f"; done < list',
    'echo build | while read f; do rm -rf "$f"; done',
    "echo build | xargs rm -rf",
    "printf 'a\\nb\\n' | xargs rm -f",
    "find . -name '*.o' | xargs rm -f",
    "cat /etc/hostname",
    "cat /etc/host*",
    "ls ~/.config/*",
    "cat ~/.ssh/*.pub",
    "ls /etc/*.conf",
    "cat src/*.py",
    "dd if=/dev/zero of=out.img bs=1M count=1",
    "dd if=/dev/urandom of=/dev/null bs=1k count=1",
    "echo x > /dev/null",
    "pkill -f myserver",
    "pkill -9 -f 'python app.py'",
    "killall node",
    "pkill -u $USER -f myserver",
    "kill -9 1234",
    "bash -c 'echo hi'",
    'sh -c "$(echo echo hi)"',
    "eval 'echo $((1+2))'",
]


@pytest.mark.parametrize(("command", "rule"), ATTACKS)
def test_the_reviews_attacks_are_refused(command: str, rule: str) -> None:
    verdict = check_command(command)
    assert verdict is not None, f"{command!r} passed"
    assert verdict.rule == rule, (command, verdict)
    assert verdict.message.startswith("Command blocked: ")


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_still_pass(command: str) -> None:
    assert check_command(command) is None


@pytest.fixture
def block_device_link(tmp_path: Path) -> Path:
    """A symbolic link to a block device of this machine (a loop device, or any other)."""
    devices = sorted(Path("/dev").iterdir())
    block = next((d for d in devices if d.is_block_device()), None)
    if block is None:  # pragma: no cover - every Linux host has /dev/loop* or a disk
        missing_here("no block device in /dev")
    link = tmp_path / "disk"
    link.symlink_to(block)
    return link


def test_dd_through_a_symlink_to_a_block_device_is_refused(
    block_device_link: Path, tmp_path: Path
) -> None:
    link = block_device_link
    cwd = str(tmp_path)
    for command in (
        f"dd if=/dev/zero of={link} bs=1M count=1",
        "dd if=/dev/zero of=disk bs=1M count=1",
        f"echo x > {link}",
        "cat img > disk",
        "cat img | tee disk",
    ):
        verdict = check_command(command, cwd=cwd)
        assert verdict is not None, command
        assert verdict.rule in ("dd-device", "disk-write"), (command, verdict)
    assert check_command(f"cat {link} > out", cwd=cwd) is None  # reading it is not writing


def test_a_symlink_to_a_harmless_device_or_a_file_passes(tmp_path: Path) -> None:
    (tmp_path / "null").symlink_to("/dev/null")
    (tmp_path / "file").write_text("x")
    (tmp_path / "to-file").symlink_to(tmp_path / "file")
    cwd = str(tmp_path)
    assert check_command("dd if=/dev/zero of=null bs=1k count=1", cwd=cwd) is None
    assert check_command("dd if=/dev/zero of=to-file bs=1k count=1", cwd=cwd) is None
    assert check_command("echo x > to-file", cwd=cwd) is None
    assert check_command(f"dd if=/dev/zero of={tmp_path}/new.img count=1", cwd=cwd) is None


def test_a_character_device_other_than_the_harmless_ones_is_refused(tmp_path: Path) -> None:
    mem = Path("/dev/mem") if os.path.exists("/dev/mem") else Path("/dev/kmsg")
    if not mem.exists():  # pragma: no cover - containers without /dev/mem or /dev/kmsg
        missing_here("no /dev/mem or /dev/kmsg to link to")
    (tmp_path / "m").symlink_to(mem)
    verdict = check_command("dd if=/dev/zero of=m count=1", cwd=str(tmp_path))
    assert verdict is not None
    assert verdict.rule == "dd-device"


_CODE_TEXT = st.text(
    alphabet=st.sampled_from(list("abcrm -/~$=+.;,()[]{}|`'\"\n\\qxsystemexecgetline0")),
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(
    language=st.sampled_from(["python -c", "perl -e", "ruby -e", "node -e", "awk"]), code=_CODE_TEXT
)
def test_any_inline_code_is_judged_without_raising(language: str, code: str) -> None:
    verdict = check_command(f"{language} {shlex.quote(code)}")
    assert verdict is None or verdict.message.startswith("Command blocked: ")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("*?[]!^/.~{},sheadowtc")), max_size=30))
def test_any_glob_is_judged_without_raising(pattern: str) -> None:
    verdict = check_command(f"cat {pattern}")
    assert verdict is None or verdict.rule in ("sensitive-path", "too-complex")

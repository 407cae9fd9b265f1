"""Property tests of the command guard: spelling a command differently does not change the verdict.

A catastrophic command re-quoted (harmless quotes around words, quotes spliced inside them,
backslashes before letters), re-spaced (extra spaces, tabs, line continuations) and wrapped
(``( )``, ``{ ;}``, ``bash -c '...'``, ``sudo``, a list, an ``if``, a substitution) is still
refused; a safe look-alike treated the same way still passes; and any corpus command written
as quoted data (an ``echo``, a commit message, a ``grep`` pattern, a ``printf``, a here-doc
written to a file) passes.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.safety.command_guard import check_command

CORPUS = json.loads((Path(__file__).parent / "guard_corpus" / "corpus.json").read_text("utf-8"))
CATASTROPHIC_LINES = [c for commands in CORPUS["catastrophic"].values() for c in commands]

# words whose quoting would change their meaning (~, $HOME, a glob) are marked "=" and kept bare;
# words marked "!" hold spaces and are always quoted
CATASTROPHIC = [
    "rm -rf /", "rm -rf =~", "rm -fr /usr", "rm -r -f /etc", "rm -rf =$HOME", "rm -rf =/*",
    "dd if=/dev/zero of=/dev/sda", "mkfs.ext4 /dev/sdb1", "chmod -R 777 /", "chown -R nobody /usr",
    "kill -9 -1", "shutdown -h now", "crontab -r", "wipefs -a /dev/sda", "shred /dev/nvme0n1",
    "mv =~ /dev/null", "cat =~/.ssh/id_rsa", "find / -delete", "gpg --delete-secret-keys ABC",
    "blkdiscard /dev/sda", "tee /proc/sysrq-trigger", "rm -rf /tmp/../usr", "chgrp -R users /",
    "sudo rm -rf /", "xargs rm -rf /", "sysctl -w kernel.panic=1", "rm -rf ..",
]  # fmt: skip
SAFE = [
    "rm -rf dist", "rm -rf /tmp/x", "chmod 755 script.sh", "dd if=/dev/sda of=backup.img",
    "kill -9 12345", "cat /etc/hosts", "find . -name x -delete", "mv a.txt b.txt", "crontab -l",
    "echo rm -rf /", "echo !rm -rf ~", "grep -r token src", "git commit -m !rm -rf /",
    "grep -e !mkfs /dev/sda notes.txt", "printf %s !kill -9 -1", "rm -r =~/old/project",
    "chmod -R u+w ./public", "ls -la /", "shutdown -c", "rm -rf =$HOME/.cache/pip",
]  # fmt: skip
SEPARATORS = [" ", "  ", "\t", " \t ", " \\\n", "\t\\\n  "]
WRAPPERS = [
    "( {} )", "{{ {}; }}", "bash -c {q}", "sh -c {q}", "sudo {}", "true && {}", "{} ; true",
    "echo start; {}", "if true; then {}; fi", "echo $( {} )", "env A=1 {}", "nohup {}",
    "while true; do {}; break; done", "{} </dev/null",
]  # fmt: skip


def _words(template: str) -> list[tuple[str, str]]:
    """``(kind, word)``: kind ``=`` keeps the word bare, ``!`` quotes the rest of the line."""
    words: list[tuple[str, str]] = []
    parts = template.split(" ")
    for index, part in enumerate(parts):
        if part.startswith("!"):
            words.append(("!", " ".join([part[1:], *parts[index + 1 :]])))
            break
        if part.startswith("="):
            words.append(("=", part[1:]))
        else:
            words.append(("", part))
    return words


@st.composite
def _respelled(draw: st.DrawFn, template: str) -> str:
    out: list[str] = []
    for kind, word in _words(template):
        if kind == "=":
            out.append(word)
            continue
        styles = (
            ["single", "double"]
            if kind == "!"
            else ["plain", "single", "double", "splice", "backslash"]
        )
        style = draw(st.sampled_from(styles))
        if style == "single":
            out.append(shlex.quote(word) if kind == "!" else f"'{word}'")
        elif style == "double":
            out.append(
                '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'
            )
        elif style == "splice" and len(word) > 1:
            cut = draw(st.integers(min_value=1, max_value=len(word) - 1))
            out.append(word[:cut] + draw(st.sampled_from(["''", '""'])) + word[cut:])
        elif style == "backslash" and word[:1].isalpha():
            out.append("\\" + word)
        else:
            out.append(word)
    line = ""
    for index, word in enumerate(out):
        line += (draw(st.sampled_from(SEPARATORS)) if index else "") + word
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        wrapper = draw(st.sampled_from(WRAPPERS))
        line = wrapper.format(line, q=shlex.quote(line))
    return line


@settings(max_examples=300, deadline=None)
@given(data=st.data(), template=st.sampled_from(CATASTROPHIC))
def test_respelled_catastrophes_are_still_refused(data: st.DataObject, template: str) -> None:
    command = data.draw(_respelled(template))
    assert check_command(command) is not None, repr(command)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), template=st.sampled_from(SAFE))
def test_respelled_look_alikes_still_pass(data: st.DataObject, template: str) -> None:
    command = data.draw(_respelled(template))
    verdict = check_command(command)
    assert verdict is None, f"{command!r}: {verdict}"


DATA_FORMS = [
    "echo {q}", "git commit -m {q}", "grep -e {q} notes.txt", "printf '%s\\n' {q}",
    "git tag -a v1 -m {q}", "echo {q} > notes.txt", "cat > notes.txt <<'EOF'\n{raw}\nEOF",
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(command=st.sampled_from(CATASTROPHIC_LINES), form=st.sampled_from(DATA_FORMS))
def test_a_catastrophe_written_as_quoted_data_passes(command: str, form: str) -> None:
    line = form.format(q=shlex.quote(command), raw=command)
    if "<<'EOF'" in form and "EOF" in command:
        return  # its own here-doc would end the outer one
    verdict = check_command(line)
    assert verdict is None, f"{line!r}: {verdict}"

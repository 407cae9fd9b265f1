"""The command guard's parts: word expansion, paths, wrappers, nested code, flows, code scan."""

from __future__ import annotations

import pytest

from toolwire.safety._command_paths import danger
from toolwire.safety.bash._code_scan import scan_code
from toolwire.safety.bash._commands import unwrap
from toolwire.safety.bash._flows import emits
from toolwire.safety.bash._model import NO_INPUT, Flow, Segment
from toolwire.safety.bash._nested import nested_of
from toolwire.safety.bash._syntax import join_continuations, parse
from toolwire.safety.bash._words import (
    HOME,
    SOMETHING,
    UNKNOWN,
    Word,
    brace_words,
    decode_ansi_c,
    expand_word,
    known_variables,
)


def _argument(command: str) -> list[str]:
    """The words of the first argument of ``command``."""
    node = parse(command).root_node.children[0]
    argument = node.children_by_field_name("argument")[0]
    return [word.text for word in expand_word(argument)]


def _segment(command: str, stdin: Flow = NO_INPUT) -> Segment:
    words = [Word(part) for part in command.split()]
    return Segment(words=tuple(words), args=unwrap(words), stdin=stdin)


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("x a{b,c}d", ["abd", "acd"]),
        ("x {1..3}", ["1", "2", "3"]),
        ("x {a,{b,c}}", ["a", "b", "c"]),
        ("x '{a,b}'", ["{a,b}"]),
        ('x "a"{b,c}', ["ab", "ac"]),
        ("x ~/a", [HOME + "/a"]),
        ("x ~alice/a", [HOME + "/a"]),
        ("x '~'", ["~"]),
        ('x "$HOME"/a', [HOME + "/a"]),
        ("x ${D:?}/a", [SOMETHING + "/a"]),
        ("x ${D:-/}", ["/"]),
        ("x $D/a", [UNKNOWN + "/a"]),
        ("x $(pwd)/a", [SOMETHING + "/a"]),
        ("x a\\ b", ["a b"]),
        ('x "a\\"b\\$c"', ['a"b$c']),
        ("x $'a\\tb'", ["a\tb"]),
    ],
)
def test_words_expand_statically(command: str, words: list[str]) -> None:
    assert _argument(command) == words


def test_a_known_variable_expands_to_each_of_its_values() -> None:
    with known_variables() as table:
        table["D"] = ("/usr", "/etc")
        assert _argument('x "$D"/lib') == ["/usr/lib", "/etc/lib"]
        table["C"] = ("rm -rf /",)
        assert _argument("x $C") == ["rm", "-rf", "/"]
        assert _argument('x "$C"') == ["rm -rf /"]
    assert _argument("x $D") == [UNKNOWN]


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("\\x72\\x6d", "rm"),
        ("\\162\\155", "rm"),
        ("\\u0041\\n", "A\n"),
        ("\\cA", "\x01"),
        ("a\\'b", "a'b"),
        ("\\q", "\\q"),
    ],
)
def test_ansi_c_strings_decode(body: str, text: str) -> None:
    assert decode_ansi_c(body) == text


def test_line_continuations_join_but_escaped_backslashes_do_not() -> None:
    assert join_continuations("r\\\nm") == "rm"
    assert join_continuations("a\\\\\nb") == "a\\\\\nb"
    assert brace_words("{rm,-rf,/}") == ["rm", "-rf", "/"]


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ("/", "/"),
        ("//", "/"),
        ("/*", "/"),
        ("/usr/../", "/"),
        ("/etc", "/etc"),
        ("/usr/lib/", "/usr/lib"),
        ("/home/alice", "/home/alice"),
        ("/u?r", "/u?r"),
        (HOME, "the home folder"),
        (HOME + "/.*", "the home folder"),
        (HOME + "/..", "a parent of the home folder"),
        ("..", "a parent of the working folder"),
        ("../..", "a parent of the working folder"),
        (UNKNOWN + "/", "/"),
        ("/tmp/x", None),
        ("/usr/lib/x", None),
        (HOME + "/project", None),
        ("../build", None),
        (SOMETHING + "/", None),
        (UNKNOWN, None),
    ],
)
def test_danger_resolves_dots_home_and_unknowns(path: str, place: str | None) -> None:
    assert danger(path) == place


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("sudo -u root -E rm x", ("rm", "x")),
        ("env -i -u A B=1 rm x", ("rm", "x")),
        ("env -S rm", ("rm",)),
        ("timeout -s KILL 5 rm x", ("rm", "x")),
        ("nice -n 5 ionice -c 3 nohup rm x", ("rm", "x")),
        ("chroot /mnt rm x", ("rm", "x")),
        ("command -v rm", ()),
        ("sudo -l", ()),
    ],
)
def test_wrappers_are_looked_through(command: str, argv: tuple[str, ...]) -> None:
    assert _segment(command).argv == argv


def test_nested_code_is_found() -> None:
    assert [w.text for w in nested_of(_segment("bash -o pipefail -lc ls")).scripts] == ["ls"]
    assert nested_of(_segment("bash")).stdin_reader == "shell"
    assert [(lang, w.text) for lang, w in nested_of(_segment("bash x.sh")).files] == [
        ("shell", "x.sh")
    ]
    assert [(lang, w.text) for lang, w in nested_of(_segment("perl -lne code f")).code] == [
        ("perl", "code")
    ]
    assert [(lang, w.text) for lang, w in nested_of(_segment("python3.12 -c code")).code] == [
        ("python", "code")
    ]
    assert nested_of(_segment("python3 -m http.server")).stdin_reader == ""
    assert nested_of(_segment("node")).stdin_reader == "node"
    found = nested_of(_segment("find /srv -name x -exec rm -rf {} ;"))
    assert [w.text for w in found.commands[0]] == ["rm", "-rf", "/srv"]
    piped = _segment("xargs -I % rm -rf %", Flow("data", "a\nb c\n"))
    assert [[w.text for w in c] for c in nested_of(piped).commands] == [
        ["rm", "-rf", "a"],
        ["rm", "-rf", "b c"],
    ]
    listed = _segment("xargs rm", Flow("unknown", hints=("/srv/*",)))
    assert [w.text for w in nested_of(listed).commands[0]] == ["rm", "/srv/*"]


@pytest.mark.parametrize(
    ("command", "stdin", "flow"),
    [
        ("echo -e a\\tb", NO_INPUT, Flow("data", "a\tb")),
        ("printf %s-%s a b", NO_INPUT, Flow("data", "a-b")),
        ("curl -s x", NO_INPUT, Flow("download")),
        ("grep x", Flow("download"), Flow("download")),
        ("base64 -d", Flow("data", "bHM="), Flow("data", "ls")),
        ("rev", Flow("data", "sl"), Flow("data", "ls")),
        ("tr a-z n-za-m", Flow("data", "yf"), Flow("encoded")),
        ("base64 -d x.b64", NO_INPUT, Flow("encoded")),
        ("head -n 1", Flow("data", "ls"), Flow("data", "ls")),
        ("find /srv", NO_INPUT, Flow("unknown", hints=("/srv/*",))),
        ("make", Flow("data", "x"), Flow("encoded")),
        ("make", NO_INPUT, Flow("unknown")),
    ],
)
def test_what_a_stage_feeds_the_next(command: str, stdin: Flow, flow: Flow) -> None:
    assert emits(_segment(command, stdin), stdin) == flow


def test_inline_code_is_read_for_shell_outs_deletes_downloads_and_fork_loops() -> None:
    python = scan_code(
        "python", "import os, subprocess; os.system('ls -l'); subprocess.run(['rm', '-rf', 'x'])"
    )
    assert python.commands == ["ls -l", "rm -rf x"]
    assert scan_code("python", "import shutil; shutil.rmtree('/srv')").commands == [
        "rm -rf -- '/srv'"
    ]
    assert scan_code("ruby", 'FileUtils.rm_rf("~")').commands == ["rm -rf -- ~"]
    assert scan_code("perl", "my $x = `id`; system 'ls'").commands == ["id", "ls"]
    assert scan_code("python", 'exec("print(1)")').code == ["print(1)"]
    fetch = "import urllib.request as u; exec(u.urlopen('https://x').read())"
    assert scan_code("python", fetch).download_exec
    assert not scan_code(
        "python", "import urllib.request as u; print(u.urlopen('x').status)"
    ).download_exec
    assert scan_code("perl", "fork while fork").fork_bomb
    assert not scan_code("python", "print('fork')").fork_bomb
    # the pipe's command itself ("sh"), then what is printed into a shell
    assert scan_code("awk", 'BEGIN { print "ls" | "sh" }').commands == ["sh", "ls\nsh"]

"""What one pipeline stage feeds the next: known text, a download, encoded text, or unknown.

A downloader (``curl``, ``wget``, ``nc``, ...) emits a ``download``, and whatever a download
passes through stays one (``curl | tee x | base64 -d | sh``). ``echo``, ``printf`` and a
here-doc emit ``data`` whose text is known; ``cat``, ``grep``, ``head``... pass it on;
``base64 -d``, ``rev`` and ``xxd -r -p`` are decoded here; any other transformation of known
text, and any decoder, emits ``encoded`` text that cannot be read before it runs.
"""

from __future__ import annotations

import binascii

from toolwire.safety.bash._model import NO_INPUT, UNKNOWN_INPUT, Flow, Segment
from toolwire.safety.bash._words import SOMETHING, UNKNOWN, decode_ansi_c

__all__ = [
    "DOWNLOADERS",
    "as_source",
    "combine",
    "emits",
    "foreign",
    "is_decoder",
    "is_downloader",
    "printed_text",
]

DOWNLOADERS = frozenset(
    {
        "curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "xhs", "lwp-request",
        "lwp-download", "GET", "lynx", "links", "elinks", "w3m", "nc", "ncat", "netcat", "socat",
        "telnet", "ftp", "tftp", "curlie", "httpie",
    }
)  # fmt: skip
"""Programs that bring bytes from the network."""
_DECODERS = frozenset(
    {
        "base64", "base32", "basenc", "xxd", "uudecode", "rev", "tr", "gunzip", "zcat", "bzcat",
        "bunzip2", "xzcat", "unxz", "zstdcat", "unzstd", "lzcat", "uncompress", "gzip", "bzip2",
        "xz", "zstd", "openssl", "gpg", "age", "iconv", "recode", "unzip", "7z",
    }
)  # fmt: skip
_PASS_THROUGH = frozenset(
    {
        "cat", "tee", "head", "tail", "grep", "egrep", "fgrep", "sort", "uniq", "stdbuf", "pv",
        "buffer", "tac", "less", "more", "dd",
    }
)  # fmt: skip
_LISTERS = frozenset({"find", "ls", "fd", "fdfind", "locate", "du", "tree"})
_ECHO_FLAGS = frozenset({"-n", "-e", "-E", "-ne", "-en", "-nE", "-En", "-neE", "-eE"})


def is_downloader(segment: Segment) -> bool:
    """Whether ``segment`` fetches from the network (``openssl s_client`` included)."""
    program = segment.program
    if program == "openssl":
        return "s_client" in segment.argv
    return program in DOWNLOADERS


def is_decoder(segment: Segment) -> bool:
    """Whether ``segment`` decodes, decompresses, decrypts or transliterates its input."""
    program = segment.program
    if program in ("gzip", "bzip2", "xz", "zstd", "openssl", "gpg"):
        return any(word in ("-d", "--decode", "--decompress", "-D", "enc") for word in segment.argv)
    return program in _DECODERS


def emits(segment: Segment, stdin: Flow) -> Flow:
    """What ``segment`` writes to its standard output, given what it reads."""
    if is_downloader(segment) or stdin.kind == "download":
        return Flow("download")
    program = segment.program
    if program == UNKNOWN:
        return Flow("encoded")  # a hidden program's output is no code anyone has read
    printed = printed_text(segment)
    if printed is not None:
        return Flow("data", printed)
    if stdin.kind == "data":
        decoded = _decode(segment, stdin.text)
        if decoded is not None:
            return Flow("data", decoded)
        return stdin if program in _PASS_THROUGH else Flow("encoded")
    if is_decoder(segment) or stdin.kind == "encoded":
        return Flow("encoded")
    if program == "cat" and len(segment.argv) == 1:
        return stdin if stdin.kind != "none" else UNKNOWN_INPUT
    if program in _LISTERS or program == "cat":
        paths = tuple(word for word in segment.argv[1:] if not word.startswith("-")) or (".",)
        if program in _LISTERS:  # what a lister prints is everything under its paths
            paths = tuple(path.rstrip("/") + "/*" for path in paths)
        return Flow("unknown", hints=paths)
    return UNKNOWN_INPUT


def printed_text(segment: Segment) -> str | None:
    """What an ``echo`` or ``printf`` prints, when the line says it (else ``None``)."""
    program = segment.program
    argv = segment.argv
    if program == "echo":
        index = 1
        escapes = False
        while index < len(argv) and argv[index] in _ECHO_FLAGS:
            escapes = escapes or "e" in argv[index]
            index += 1
        text = " ".join(argv[index:])
        return decode_ansi_c(text) if escapes else text
    if program == "printf" and len(argv) > 1 and argv[1] != "-v":
        return _printf(argv[1], list(argv[2:]))
    return None


def _printf(template: str, args: list[str]) -> str:
    out: list[str] = []
    index = 0
    while index < len(template):
        char = template[index]
        if char != "%" or index + 1 >= len(template):
            out.append(char)
            index += 1
            continue
        directive = template[index + 1]
        if directive == "%":
            out.append("%")
        elif directive in "sbdcq":
            value = args.pop(0) if args else ""
            out.append(decode_ansi_c(value) if directive == "b" else value)
        else:
            out.append(UNKNOWN)
        index += 2
    return decode_ansi_c("".join(out)) + (" " + " ".join(args) if args else "")


def _decode(segment: Segment, text: str) -> str | None:
    program = segment.program
    argv = segment.argv
    try:
        if program == "base64" and any(w in ("-d", "--decode", "-D") for w in argv):
            return binascii.a2b_base64(text.encode("ascii", "ignore")).decode("utf-8", "replace")
        if program == "xxd" and "-r" in argv and ("-p" in argv or "-ps" in argv):
            hex_digits = "".join(char for char in text if char in "0123456789abcdefABCDEF")
            return bytes.fromhex(hex_digits[: len(hex_digits) // 2 * 2]).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None
    if program == "rev" and len(argv) == 1:
        return "\n".join(line[::-1] for line in text.split("\n"))
    return None


def as_source(text: str) -> str:
    """``text`` with its unknown parts written as shell that `words` reads back as unknown, for
    judging it as code again (`HOME` stays: the parser reads it as a word character)."""
    if UNKNOWN not in text and SOMETHING not in text:
        return text
    return text.replace(UNKNOWN, "${__toolwire_unknown__}").replace(
        SOMETHING, "${__toolwire_unknown__:?}"
    )


def combine(flows: list[Flow]) -> Flow:
    """What several commands in a row (a list, a group, a substitution) write together: a
    download or encoded text wins, then the known texts joined, then unknown."""
    if len(flows) <= 1:
        return flows[0] if flows else NO_INPUT
    found = foreign(flows)
    if found is not None:
        return found
    data = [flow.text for flow in flows if flow.kind == "data"]
    if data:
        return Flow("data", "\n".join(data))
    if any(flow.kind == "unknown" for flow in flows):
        return Flow("unknown", hints=tuple(hint for flow in flows for hint in flow.hints))
    return NO_INPUT


def foreign(flows: list[Flow]) -> Flow | None:
    """A download among ``flows``, else encoded text, else ``None``."""
    kinds = {flow.kind for flow in flows}
    if "download" in kinds:
        return Flow("download")
    if "encoded" in kinds:
        return Flow("encoded")
    return None

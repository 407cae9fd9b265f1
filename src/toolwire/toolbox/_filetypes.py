"""Telling text from binary, and naming a binary file's type from its first bytes."""

from __future__ import annotations

import mimetypes

__all__ = ["SNIFF_BYTES", "describe_binary", "is_binary"]

SNIFF_BYTES = 8192
"""How many leading bytes decide whether a file is binary."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or a format built on it: docx, xlsx, jar, wheel)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"MZ", "Windows executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"OggS", "Ogg media"),
    (b"fLaC", "FLAC audio"),
    (b"ID3", "MP3 audio"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
)


def _unprintable(magic: bytes) -> bool:
    return any(byte < 0x20 or byte > 0x7E for byte in magic)


# Signatures made of printable letters ("MZ", "BZh", "ID3") also open ordinary text files, so
# only the ones a text file cannot start with decide; the others only name the type.
_BINARY_SIGNATURES = tuple(m for m, _ in _MAGIC if _unprintable(m) or m == b"%PDF-")


def is_binary(data: bytes) -> bool:
    """Whether ``data`` looks binary: a NUL byte, or a signature no text file starts with."""
    head = data[:SNIFF_BYTES]
    return b"\x00" in head or head.startswith(_BINARY_SIGNATURES)


def describe_binary(data: bytes, path: str) -> str:
    """A short name of the file's type: from its signature, else its extension."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP image"
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "unknown binary data"

"""The fixture's sample media: a 1×1 PNG and a short silent WAV, built in code (base64)."""

from __future__ import annotations

import base64
import struct
import zlib

__all__ = ["PNG_BASE64", "WAV_BASE64"]


def _png_1x1_red() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1×1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte, then one red pixel
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _wav_silence(samples: int = 800, rate: int = 8000) -> bytes:
    data = b"\x00\x00" * samples  # 16-bit mono silence, 0.1 s at 8 kHz
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


PNG_BASE64 = base64.b64encode(_png_1x1_red()).decode("ascii")
"""A 1×1 red PNG."""
WAV_BASE64 = base64.b64encode(_wav_silence()).decode("ascii")
"""0.1 s of 16-bit mono silence at 8 kHz."""

"""Media in requests: the size of an image a request embeds, read from the image's header in a
``data:`` URL, and whether a request asks for a media answer only.

Providers bill images by their size (OpenAI by 512-pixel tiles, Anthropic by area), and a
request that inlines an image as ``data:image/png;base64,...`` carries that size in the first
bytes of the file. Only those bytes are decoded; nothing is loaded from a URL, and an image
whose header is not one of PNG, GIF, JPEG or WebP, or is damaged, has no size (None).
"""

from __future__ import annotations

import base64
import binascii
import re

_DATA_URL = re.compile(r"data:image/[\w.+-]+;base64,", re.IGNORECASE)
# JPEG puts its size in the frame header, after any metadata (EXIF, ICC profiles, thumbnails);
# 256 KiB of decoded bytes covers real photos without reading a huge image whole.
_HEAD_BYTES = 256 * 1024
# Start-of-frame markers carry the size; C4 (Huffman tables), C8 and CC (arithmetic coding) do not.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def data_url_image_size(url: str) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of the image in a base64 ``data:`` URL, or None."""
    match = _DATA_URL.match(url)
    if match is None:
        return None
    chars = _HEAD_BYTES // 3 * 4
    encoded = re.sub(r"\s+", "", url[match.end(): match.end() + chars + 1024])[:chars]
    encoded = encoded[: len(encoded) // 4 * 4]
    try:
        head = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        return None
    return image_size(head)


def image_size(data: bytes) -> tuple[int, int] | None:
    """The size recorded in the header of a PNG, GIF, JPEG or WebP file's first bytes."""
    size: tuple[int, int] | None
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        size = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    elif data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        size = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    elif data.startswith(b"\xff\xd8"):
        size = _jpeg_size(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        size = _webp_size(data)
    else:
        size = None
    if size is None or size[0] <= 0 or size[1] <= 0:
        return None
    return size


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            pos += 2
            continue
        length = int.from_bytes(data[pos + 2: pos + 4], "big")
        if marker in _SOF:
            if pos + 9 > len(data):
                return None
            height = int.from_bytes(data[pos + 5: pos + 7], "big")
            width = int.from_bytes(data[pos + 7: pos + 9], "big")
            return width, height
        if length < 2:
            return None
        pos += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def media_answer(modalities: object) -> bool:
    """Whether a request's output modalities (Gemini's ``responseModalities``, the ``modalities``
    of a chat completion) ask for a media answer: all media (an image, speech), or an image or a
    video beside text (``["image", "text"]``, which image models served through a chat API need).
    The text then only comments the picture, and an output token limit would cut the picture off;
    speech beside text (``["text", "audio"]``) is a spoken text answer, which a limit does bound."""
    if not isinstance(modalities, list) or not modalities or not all(isinstance(m, str) for m in modalities):
        return False
    kinds = {m.strip().lower() for m in modalities}
    return kinds <= {"image", "audio", "video"} or bool(kinds & {"image", "video"})

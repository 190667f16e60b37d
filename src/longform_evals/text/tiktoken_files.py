"""tiktoken's encoding files, written from the ranks the `quicktok` dependency ships.

tiktoken downloads an encoding's file on first use, which a machine without internet cannot do
(Inspect's `mockllm/model` counts usage with o200k; the reference BooookScore package tokenizes
with cl100k). quicktok ships the same ranks as ``data/<name>.vocab``: ``<u32 count>`` then per
token ``<u16 length><bytes><u32 rank>``, little-endian. Written in tiktoken's own format (base64
token, space, rank, newline) under the name tiktoken caches the encoding's URL by, a file
passes tiktoken's sha256 check; :func:`write_tiktoken_cache` refuses one that would not.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENCODINGS", "TiktokenFile", "quicktok_ranks", "write_tiktoken_cache"]


@dataclass(frozen=True)
class TiktokenFile:
    """Where tiktoken fetches an encoding, the sha256 it requires, and quicktok's name for it."""

    url: str
    sha256: str
    quicktok_name: str


_BLOB = "https://openaipublic.blob.core.windows.net/encodings"
ENCODINGS = {
    "o200k_base": TiktokenFile(
        f"{_BLOB}/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "o200k",
    ),
    "cl100k_base": TiktokenFile(
        f"{_BLOB}/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "cl100k",
    ),
}
"""tiktoken's encoding name -> its file (as `tiktoken_ext/openai_public.py` states them)."""


def quicktok_ranks(encoding: str) -> list[tuple[int, bytes]]:
    """(rank, token bytes) of ``encoding`` from quicktok's vocabulary file, by rank.

    Raises:
        KeyError: for an encoding not in :data:`ENCODINGS`.
        ValueError: if the file is not laid out as expected (bytes left over).
    """
    import quicktok

    name = ENCODINGS[encoding].quicktok_name
    path = Path(quicktok.__file__).parent / "data" / f"{name}.vocab"
    data = path.read_bytes()
    (count,) = struct.unpack_from("<I", data, 0)
    offset, ranks = 4, []
    for _ in range(count):
        (length,) = struct.unpack_from("<H", data, offset)
        token = data[offset + 2 : offset + 2 + length]
        (rank,) = struct.unpack_from("<I", data, offset + 2 + length)
        ranks.append((rank, token))
        offset += 2 + length + 4
    if offset != len(data):
        raise ValueError(f"{path}: {len(data) - offset} bytes left over after {count} tokens")
    return sorted(ranks)


def write_tiktoken_cache(encoding: str, cache_dir: Path) -> Path:
    """Write tiktoken's file of ``encoding`` into ``cache_dir`` (use as TIKTOKEN_CACHE_DIR).

    Raises:
        ValueError: if what quicktok ships is not tiktoken's file (its sha256 differs).
    """
    file = ENCODINGS[encoding]
    blob = b"".join(
        base64.b64encode(token) + b" " + str(rank).encode() + b"\n"
        for rank, token in quicktok_ranks(encoding)
    )
    digest = hashlib.sha256(blob).hexdigest()
    if digest != file.sha256:
        raise ValueError(f"quicktok's {encoding} is not tiktoken's: sha256 {digest}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / hashlib.sha1(file.url.encode()).hexdigest()
    path.write_bytes(blob)
    return path

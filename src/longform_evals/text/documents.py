"""Chunking of multi-document inputs along document boundaries.

Mode ``"natural"`` keeps each document whole, one unit per document. Mode ``"tokens:N"`` cuts
each document separately with :func:`~longform_evals.text.chunking.chunk_text` at ``N`` tokens;
mode ``"words:N"`` packs whole sentences greedily into chunks of at most ``N`` whitespace words
(MiniCheck's way of chunking; a longer sentence is a chunk of its own). No chunk ever spans two
documents, and a document's chunks join back to it exactly in every mode.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from .chunking import chunk_text
from .packing import greedy_groups
from .sentences import sentence_spans
from .tokens import DEFAULT_ENCODING, TokenizerLike, get_tokenizer

__all__ = ["DocChunk", "chunk_documents", "join_documents", "parse_chunk_mode"]

_MODE = re.compile(r"(tokens|words):([1-9][0-9]*)")
_ACCEPTED = (
    "'natural', 'tokens:N' or 'words:N' with N a positive integer (e.g. 'tokens:1024', 'words:400')"
)


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
    """Parse a chunking mode string and return its limit.

    Args:
        mode: ``"natural"``, ``"tokens:N"`` or ``"words:N"``.

    Returns:
        ``None`` for ``"natural"``, else the limit ``N`` (tokens or words).

    Raises:
        ValueError: If ``mode`` has none of these forms.
    """
    return _parse(mode)[1]


def _parse(mode: str) -> tuple[str, int | None]:
    if mode == "natural":
        return "natural", None
    match = _MODE.fullmatch(mode) if isinstance(mode, str) else None
    if match is None:
        raise ValueError(f"unknown chunking mode {mode!r}; expected {_ACCEPTED}")
    return match.group(1), int(match.group(2))


def _word_chunks(doc: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) of sentence-packed chunks of at most ``limit`` words, covering ``doc``."""
    spans = sentence_spans(doc, by_line=True)
    if not spans:
        return [(0, len(doc))]
    groups = greedy_groups([len(doc[a:b].split()) for a, b in spans], limit)
    starts = [spans[i][0] for i, _ in groups]
    # Text before the first sentence belongs to the first chunk, text between chunks to the
    # earlier one, so the chunks tile the document.
    bounds = [0, *starts[1:], len(doc)]
    return list(pairwise(bounds))


def chunk_documents(
    documents: Sequence[str],
    mode: str = "natural",
    tokenizer: TokenizerLike = DEFAULT_ENCODING,
) -> list[DocChunk]:
    """Chunk several documents without ever crossing a document boundary.

    Args:
        documents: The documents, in order.
        mode: ``"natural"`` (one chunk per document), ``"tokens:N"`` (chunks of at most
            ``N`` tokens, cut by :func:`~longform_evals.text.chunking.chunk_text`) or
            ``"words:N"`` (whole sentences packed into chunks of at most ``N`` words).
        tokenizer: Anything :func:`~longform_evals.text.tokens.get_tokenizer` accepts.

    Returns:
        The chunks, ordered by document and then by position within the document.

    Raises:
        TypeError: If ``documents`` is a single string or holds a non-string.
        ValueError: If ``mode`` is malformed, ``documents`` is empty, or a document is empty
            or only whitespace.
    """
    kind, limit = _parse(mode)
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
        elif kind == "words":
            out.extend(
                DocChunk(i, n, doc[a:b], tok.count(doc[a:b]), a, b)
                for n, (a, b) in enumerate(_word_chunks(doc, limit))
            )
        else:
            out.extend(
                DocChunk(i, c.index, c.text, c.n_tokens, c.start, c.end)
                for c in chunk_text(doc, limit, tok)
            )
    return out


def join_documents(documents: Sequence[str]) -> str:
    """Lay out documents as one text: ``Document i:`` headers (from 1), blank-line separated.

    The layout of every prompt that shows several documents at once (summarizers and the
    faithfulness judge's ``full`` mode).
    """
    return "\n\n".join(f"Document {i}:\n{d}" for i, d in enumerate(documents, start=1))

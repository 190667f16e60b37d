"""Greedy packing of consecutive items (sentences) into groups under a length limit.

One rule serves every sentence packer of the project (MiniCheck's document chunks, the
`words:N` document chunking, NexusSum's compression pieces): items stay in order, a group
closes when the next item would take its total over the limit, and an item longer than the
limit on its own forms a group by itself (it is never cut).
"""

from __future__ import annotations

from collections.abc import Sequence

from .sentences import sentence_spans
from .tokens import Tokenizer, count_many

__all__ = ["greedy_groups", "join_pieces", "pack_sentence_spans"]


def greedy_groups(lengths: Sequence[int], limit: int) -> list[tuple[int, int]]:
    """Index ranges ``[start, end)`` of consecutive items packed greedily under ``limit``.

    Raises:
        ValueError: If ``limit`` is not positive.
    """
    if limit <= 0:
        raise ValueError(f"packing limit must be positive, got {limit}")
    groups: list[tuple[int, int]] = []
    used = 0
    for i, n in enumerate(lengths):
        if groups and used + n <= limit:
            groups[-1] = (groups[-1][0], i + 1)
            used += n
        else:
            groups.append((i, i + 1))
            used = n
    return groups


def pack_sentence_spans(text: str, limit: int, tokenizer: Tokenizer) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of runs of whole sentences of at most ``limit`` tokens.

    Sentence lengths are counted one by one, so a run's own count may differ from their sum
    by a token or so at the joins. A run spans from its first sentence's start to its last
    one's end.
    """
    spans = sentence_spans(text, by_line=True)
    lengths = count_many(tokenizer, [text[a:b] for a, b in spans])
    return [(spans[i][0], spans[j - 1][1]) for i, j in greedy_groups(lengths, limit)]


def join_pieces(text: str, runs: Sequence[tuple[int, int]], pieces: Sequence[str]) -> str:
    """Join rewritten ``pieces`` of the ``runs`` of ``text``, in order, keeping a paragraph
    break where the original gap between two runs had a line break (else one space)."""
    parts: list[str] = []
    for k, piece in enumerate(pieces):
        if k:
            gap = text[runs[k - 1][1] : runs[k][0]]
            parts.append("\n\n" if "\n" in gap else " ")
        parts.append(piece.strip())
    return "".join(parts)

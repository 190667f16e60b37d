"""Which summaries are merged together, and how much earlier context goes with them (pure).

Hierarchical merging packs as many consecutive summaries into one merge call as the token
budget allows. Every level must leave fewer summaries than it started with, or the merging
would never end; :func:`pack_merge_groups` guarantees that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from longform_evals.text import TokenizerLike, get_tokenizer, sentence_spans

__all__ = [
    "chunk_summary_tokens",
    "group_overflows",
    "join_summaries",
    "pack_merge_groups",
    "trim_prior_context",
]


def join_summaries(summaries: Sequence[str]) -> str:
    """Lay out consecutive summaries for a merge prompt, numbered in story order."""
    return "\n\n".join(f"Summary {i}:\n{s}" for i, s in enumerate(summaries, start=1))


def pack_merge_groups(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Pack consecutive items greedily into groups whose total length fits ``budget``.

    An item longer than the budget on its own forms a group by itself. When no two
    neighbours fit together (greedy packing would leave as many groups as items), items are
    paired regardless of the budget so the level still makes progress; callers detect both
    cases with :func:`group_overflows`.

    Args:
        lengths: The length (tokens) of each item, in order.
        budget: The most tokens a group should take.

    Returns:
        Groups of item indices covering ``0 .. len(lengths) - 1`` in order, each non-empty.
        With two or more items there are always fewer groups than items.

    Raises:
        ValueError: If a length is negative.
    """
    if any(n < 0 for n in lengths):
        raise ValueError("lengths must be non-negative")
    groups: list[list[int]] = []
    total = 0
    for i, n in enumerate(lengths):
        if groups and total + n <= budget:
            groups[-1].append(i)
            total += n
        else:
            groups.append([i])
            total = n
    if len(lengths) >= 2 and len(groups) == len(lengths):
        # Nothing fits together: force pairs, or merging would loop forever.
        groups = [list(range(i, min(i + 2, len(lengths)))) for i in range(0, len(lengths), 2)]
    return groups


def group_overflows(
    groups: Sequence[Sequence[int]], lengths: Sequence[int], budget: int
) -> tuple[int, int]:
    """Count the groups that exceed ``budget``.

    Args:
        groups: Groups from :func:`pack_merge_groups`.
        lengths: The item lengths the groups were packed from.
        budget: The budget they were packed for.

    Returns:
        ``(oversized_singles, forced_groups)``: single items too long for the budget, and
        groups of several items over the budget (forced pairs).
    """
    singles = forced = 0
    for group in groups:
        if sum(lengths[i] for i in group) > budget:
            if len(group) == 1:
                singles += 1
            else:
                forced += 1
    return singles, forced


def trim_prior_context(text: str, max_tokens: int, tokenizer: TokenizerLike = "cl100k_base") -> str:
    """Shorten earlier context to at most ``max_tokens`` tokens, keeping its end.

    The end of the previous summary is what the next parts continue from, so whole sentences
    are kept from the end backwards; if even the last sentence is too long, its last tokens
    are kept.

    Args:
        text: The previous merged summary.
        max_tokens: The most tokens the context may take.
        tokenizer: Anything :func:`~longform_evals.text.get_tokenizer` accepts.

    Returns:
        ``text`` itself when it fits; otherwise a suffix of whole sentences that fits, or the
        last tokens of the text; ``""`` when ``max_tokens <= 0``.
    """
    if max_tokens <= 0:
        return ""
    tok = get_tokenizer(tokenizer)
    if tok.count(text) <= max_tokens:
        return text
    spans = sentence_spans(text, by_line=True)
    kept_start: int | None = None
    for start, _ in reversed(spans):
        if tok.count(text[start:].strip()) > max_tokens:
            break
        kept_start = start
    if kept_start is not None:
        return text[kept_start:].strip()
    ids = tok.encode(text)
    n = max_tokens
    while n > 0:
        tail = tok.decode(ids[-n:])
        # A cut inside a multi-byte character decodes to U+FFFD; take one token fewer then.
        if not tail.startswith("\ufffd") and tok.count(tail) <= max_tokens:
            return tail.lstrip()
        n -= 1
    return ""


def chunk_summary_tokens(
    n_chunks: int, merge_budget: int, max_summary_tokens: int, min_ratio: float = 0.25
) -> int:
    """Return the token limit of each chunk (level-0) summary.

    Each chunk summary gets an equal share of one merge call's budget, so that all of them
    fit into a single merge when possible (fewer levels, less loss), but never more than
    ``max_summary_tokens`` and never less than ``min_ratio`` of it (so a book with many
    chunks still gets informative chunk summaries; those are then merged over more levels).

    Args:
        n_chunks: Number of chunks.
        merge_budget: Tokens available for the summaries in one merge call.
        max_summary_tokens: Token limit of a merged (and the final) summary.
        min_ratio: Smallest share of ``max_summary_tokens`` a chunk summary may get.

    Returns:
        The token limit, between ``ceil(min_ratio * max_summary_tokens)`` (at least 1) and
        ``max_summary_tokens``; exactly ``max_summary_tokens`` for a single chunk.
    """
    if n_chunks <= 1:
        return max_summary_tokens
    floor = max(1, min(max_summary_tokens, math.ceil(min_ratio * max_summary_tokens)))
    return max(floor, min(max_summary_tokens, merge_budget // n_chunks))

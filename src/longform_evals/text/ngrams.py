"""Trigram statistics for summaries: novelty against the source and internal repetition.

Words are lower-cased runs of letters, digits and underscores (``\\w+``), so punctuation and
case never make a trigram novel.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["novel_trigram_pct", "repeated_trigram_pct", "trigrams", "words"]

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Return the lower-cased words of ``text``."""
    return _WORD.findall(text.lower())


def trigrams(tokens: Sequence[str]) -> list[tuple[str, str, str]]:
    """Return the consecutive word trigrams of ``tokens``, in order, repeats included."""
    return list(zip(tokens, tokens[1:], tokens[2:], strict=False))


def novel_trigram_pct(summary: str, source: str) -> float:
    """Percentage of the summary's distinct trigrams that never occur in the source.

    Args:
        summary: The generated text.
        source: The text it summarizes.

    Returns:
        A value in ``[0, 100]``; ``0.0`` when the summary has fewer than three words.
    """
    mine = set(trigrams(words(summary)))
    if not mine:
        return 0.0
    theirs = set(trigrams(words(source)))
    return 100.0 * len(mine - theirs) / len(mine)


def repeated_trigram_pct(text: str) -> float:
    """Percentage of trigram occurrences in ``text`` that repeat an earlier one.

    Args:
        text: The text to inspect.

    Returns:
        A value in ``[0, 100)``; ``0.0`` when the text has fewer than three words.
    """
    grams = trigrams(words(text))
    if not grams:
        return 0.0
    return 100.0 * (len(grams) - len(set(grams))) / len(grams)

"""Word limits and the checks a generated summary must pass (pure functions).

The BooookScore reference code asks for a summary of ``round(0.65 * token_limit)`` words, and
regenerates a summary that is empty, too long or does not end like a sentence, lowering the
requested word count by 10 % per retry. These helpers hold those rules so that every strategy
applies them the same way and tests can check them without a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "RETRY_SHRINK",
    "SAFETY_TOKENS",
    "SENTENCE_END",
    "TRUNCATED_STOP_REASONS",
    "WORD_RATIO",
    "Candidate",
    "choose_best",
    "count_words",
    "is_finished",
    "retry_word_limit",
    "summary_problems",
    "word_limit",
]

WORD_RATIO = 0.65
"""Words per token asked for (reference: ``word_limit = 0.65 * token_limit``)."""

RETRY_SHRINK = 0.10
"""Fraction by which the requested word count drops on each retry."""

SENTENCE_END = frozenset(".!?\"'\u201d\u2019\u2026")
"""Characters a finished summary may end with (the reference's set plus curly quotes and …)."""

SAFETY_TOKENS = 20
"""Tokens every call keeps free (as the reference does): counts of joined texts are not
exactly the sums of their parts, and the model's own tokenizer may count differently."""

TRUNCATED_STOP_REASONS = frozenset({"max_tokens", "model_length"})
"""Stop reasons meaning the model was cut off, so the text is unfinished whatever it ends with."""


def word_limit(token_limit: int, ratio: float = WORD_RATIO) -> int:
    """Return the word count to ask for when a summary may take ``token_limit`` tokens.

    Args:
        token_limit: The most tokens the summary may take.
        ratio: Words per token (0.65 in the reference implementation).

    Returns:
        ``round(ratio * token_limit)``, at least 1.
    """
    return max(1, round(token_limit * ratio))


def retry_word_limit(limit: int, attempt: int) -> int:
    """Return the word count to ask for on attempt ``attempt`` (0 = the first try).

    Each retry asks for 10 % fewer words than the one before (compounding), so a model that
    overshoots is steered back under the limit it is checked against.

    Args:
        limit: The word limit of the first try.
        attempt: How many tries came before this one.

    Returns:
        ``round(limit * 0.9 ** attempt)``, at least 1.
    """
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt}")
    return max(1, round(limit * (1.0 - RETRY_SHRINK) ** attempt))


def count_words(text: str) -> int:
    """Count whitespace-separated words (the unit of every word limit)."""
    return len(text.split())


def is_finished(text: str) -> bool:
    """Return whether ``text`` ends like a complete sentence (trailing whitespace ignored)."""
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] in SENTENCE_END


def summary_problems(
    text: str, limit: int | None = None, stop_reason: str | None = None
) -> list[str]:
    """List what is wrong with a generated summary; an empty list means it is accepted.

    Args:
        text: The generated summary.
        limit: The most words allowed; ``None`` skips the length check.
        stop_reason: The model's stop reason; a cut-off output is unfinished.

    Returns:
        Any of ``"empty"``, ``"over_limit"``, ``"unfinished"``, in that order.
    """
    if not text.strip():
        return ["empty"]
    problems = []
    if limit is not None and count_words(text) > limit:
        problems.append("over_limit")
    if stop_reason in TRUNCATED_STOP_REASONS or not is_finished(text):
        problems.append("unfinished")
    return problems


@dataclass(frozen=True)
class Candidate:
    """One generated summary and what was wrong with it."""

    text: str
    problems: tuple[str, ...] = ()

    @property
    def words(self) -> int:
        """Number of words in the text."""
        return count_words(self.text)

    @property
    def accepted(self) -> bool:
        """Whether the candidate passed every check."""
        return not self.problems

    @property
    def finished(self) -> bool:
        """Whether the candidate is non-empty and complete (it may still be too long)."""
        return "empty" not in self.problems and "unfinished" not in self.problems


def choose_best(candidates: Sequence[Candidate]) -> Candidate:
    """Pick the candidate to keep when no try passed every check (or the first that did).

    Preference: the first accepted candidate; else the shortest finished one (closest to the
    limit); else the longest non-empty one (it keeps the most content); else the first.

    Args:
        candidates: The tries, in order.

    Returns:
        The chosen candidate.

    Raises:
        ValueError: If ``candidates`` is empty.
    """
    if not candidates:
        raise ValueError("no candidates to choose from")
    for candidate in candidates:
        if candidate.accepted:
            return candidate
    finished = [c for c in candidates if c.finished]
    if finished:
        return min(finished, key=lambda c: c.words)
    non_empty = [c for c in candidates if c.text.strip()]
    if non_empty:
        return max(non_empty, key=lambda c: c.words)
    return candidates[0]

"""Cheap text signals of a confusing summary sentence, for a fitted coherence judge.

A small judge misses things a few lines of counting can see: a capitalised name or an acronym
the summary never introduced, a sentence that repeats an earlier one, a jump away from the
sentence before it. Each signal below is computed from the summary's sentences alone (no
source, no model), so it costs nothing next to a judge call; a fitted judge
(`longform_evals.judges.coherence.fitted`) weighs them together with the judge's own
probabilities. On people's labels of GPT-4 book summaries (BooookScore's span annotations,
`benchmarks/coherence_human_fit.py`) the strongest alone are the sentence's position and
length: later and longer sentences hold more of what readers flagged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

__all__ = ["FEATURES", "sentence_features"]

FEATURES: tuple[str, ...] = (
    "position",
    "log_words",
    "new_names",
    "new_acronyms",
    "max_overlap_earlier",
    "overlap_previous",
    "novel_content",
)
"""The signals, in the order :func:`sentence_features` gives them:

- `position`: index / number of sentences (0 for the first);
- `log_words`: log(1 + words in the sentence);
- `new_names`: capitalised words (not acronyms), not first in their sentence, never seen earlier
  in the summary;
- `new_acronyms`: words of two or more capitals never seen earlier;
- `max_overlap_earlier`: the largest content-word Jaccard overlap with any earlier sentence
  (near-duplicates score high);
- `overlap_previous`: the content-word Jaccard overlap with the sentence just before (a low
  value is a jump of topic);
- `novel_content`: the share of the sentence's content words the summary has not used before.
"""

_WORD = re.compile(r"[^\W\d_][\w'\-]*|\d+", re.UNICODE)
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "those",
        "these",
        "to",
        "was",
        "we",
        "were",
        "which",
        "who",
        "with",
        "you",
    ]
)


def _words(sentence: str) -> list[str]:
    return _WORD.findall(sentence)


def _content(words: Sequence[str]) -> frozenset[str]:
    return frozenset(w.lower() for w in words if len(w) > 2 and w.lower() not in _FUNCTION_WORDS)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def sentence_features(sentences: Sequence[str]) -> list[tuple[float, ...]]:
    """The :data:`FEATURES` of every sentence of one summary, in order."""
    n = len(sentences)
    seen_words: set[str] = set()
    seen_content: set[str] = set()
    earlier: list[frozenset[str]] = []
    out: list[tuple[float, ...]] = []
    for i, sentence in enumerate(sentences):
        words = _words(sentence)
        content = _content(words)
        acronyms = [w for w in words if len(w) >= 2 and w.isupper()]
        names = [
            w
            for j, w in enumerate(words)
            if j > 0 and w[0].isupper() and not w.isupper() and w.lower() not in _FUNCTION_WORDS
        ]
        overlaps = [_jaccard(content, c) for c in earlier]
        out.append(
            (
                i / n if n else 0.0,
                math.log1p(len(words)),
                float(sum(1 for w in names if w not in seen_words)),
                float(sum(1 for w in acronyms if w not in seen_words)),
                max(overlaps, default=0.0),
                overlaps[-1] if overlaps else 0.0,
                len(content - seen_content) / len(content) if content else 0.0,
            )
        )
        seen_words.update(words)
        seen_content |= content
        earlier.append(content)
    return out

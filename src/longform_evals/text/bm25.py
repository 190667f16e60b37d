"""Okapi BM25 ranking of a small set of texts (the pages of one document), pure Python.

Terms are lower-cased runs of letters and digits, without a short list of English function
words and without stemming. The inverse document frequency is the always-positive form
``ln(1 + (N - df + 0.5) / (df + 0.5))``, so a term found in most pages still counts a little
instead of counting against a page; a query term repeated in the query counts once per
occurrence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["BM25", "STOPWORDS", "terms"]

_TERM = re.compile(r"[^\W_]+")

_FUNCTION_WORDS = """
    a an the and or but if then so of to in on at by for from with about as into onto than
    is are was were be been being am do does did done has have had having it its this that
    these those there here what which who whom whose when where why how i you he she we they
    me him her us them my your his our their not no yes can could would should will shall
    may might must s t
"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())
"""Words too common to tell pages apart."""


def terms(text: str) -> list[str]:
    """The terms of ``text``: lower-cased words and numbers, function words left out."""
    return [t for t in _TERM.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    """A BM25 index over ``texts``.

    Args:
        texts: The texts to rank (their order is their index).
        k1: Term-frequency saturation (1.5, the usual default).
        b: Length normalisation (0.75, the usual default).
    """

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        self._counts = [Counter(terms(t)) for t in texts]
        self._lengths = [sum(c.values()) for c in self._counts]
        n = len(texts)
        self._avg = (sum(self._lengths) / n) if n else 0.0
        df: Counter[str] = Counter()
        for counts in self._counts:
            df.update(counts.keys())
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def scores(self, query: str) -> list[float]:
        """The score of every text for ``query``, in text order."""
        out = []
        for counts, length in zip(self._counts, self._lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self._avg) if self._avg else self.k1
            score = 0.0
            for term in terms(query):
                tf = counts.get(term, 0)
                if tf:
                    score += self._idf[term] * tf * (self.k1 + 1) / (tf + norm)
            out.append(score)
        return out

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best texts, best first (ties: earlier text first)."""
        scores = self.scores(query)
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[: max(0, k)]

"""Per-position analysis of a support matrix: attribution, faithfulness and coverage.

These follow Wan et al., "On Positional Bias of Faithfulness for Long-form Summarization"
Section 4.2 (attribution-based per-position faithfulness, Figure 2) and
Appendix C.2 (per-position coverage, Figure 6). The paper gives the idea but no formula and
its public code has no analysis script, so the exact definitions below are this module's
choices; each function's docstring states what it computes.

All functions take ``values`` of shape (n_docs, n_sentences), NaN = missing; they are pure.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt

from longform_evals.analysis.reduce import FloatArray, nan_reduce

Ties = Literal["first", "split"]
"""How a sentence whose best support is shared by several documents is attributed."""

IntArray = npt.NDArray[np.int64]


def _check_threshold(threshold: float | None) -> None:
    if threshold is not None and math.isnan(threshold):
        raise ValueError("threshold must be a number or None, not NaN")


def best_support(values: FloatArray) -> FloatArray:
    """Each sentence's highest support over documents (NaN when none is readable)."""
    return nan_reduce(values, "max", axis=0)


def attribution(values: FloatArray) -> IntArray:
    """For each sentence, the document with the highest support.

    Ties go to the lowest document index; a sentence with no readable value gets -1.

    Args:
        values: Support matrix, shape (n_docs, n_sentences), NaN = missing.

    Returns:
        Integer array of shape (n_sentences,).
    """
    best = best_support(values)
    # NaN never equals anything, so missing cells are never the argmax.
    is_best = values == best[np.newaxis, :]
    first = np.argmax(is_best, axis=0).astype(np.int64)
    out: IntArray = np.where(np.isnan(best), np.int64(-1), first)
    return out


def _attribution_weights(values: FloatArray, ties: Ties) -> FloatArray:
    """Weights w[i, j]: how much of sentence j is attributed to document i (columns sum to 1).

    All-NaN sentences get an all-zero column (they are attributed nowhere).
    """
    n_docs, n_sent = values.shape
    weights = np.zeros((n_docs, n_sent), dtype=np.float64)
    if ties == "first":
        attributed = attribution(values)
        cols = np.flatnonzero(attributed >= 0)
        weights[attributed[cols], cols] = 1.0
        return weights
    if ties != "split":
        raise ValueError(f"unknown ties {ties!r}; expected 'first' or 'split'")
    best = best_support(values)
    is_best = (values == best[np.newaxis, :]).astype(np.float64)
    n_best = is_best.sum(axis=0)
    split: FloatArray = np.divide(is_best, n_best, out=weights, where=n_best > 0)
    return split


def position_faithfulness(
    values: FloatArray, threshold: float | None = 0.5, ties: Ties = "first"
) -> list[float | None]:
    """Attribution-based faithfulness of the summary at each document position (§4.2).

    The paper (§4.2) attributes each summary sentence to the document it is "discussing",
    taken as the document with the maximum faithfulness score, and scores the sentence by
    that maximum; per-position faithfulness is then read off the sentences attributed to
    each position. This removes the coverage effect: with five disjoint documents and five
    sentences each faithful to exactly one, every position scores 1.0, not 0.2 (the
    paper's own example).

    Exactly, with ``best_j = max_i values[i, j]`` over readable cells and ``w[i, j]`` the
    attribution weight of sentence j to document i (``ties="first"``: 1 for the lowest
    index reaching ``best_j``, else 0; ``ties="split"``: ``1/k`` for each of the k
    documents reaching it)::

        faithfulness_i = sum_j w[i, j] * f(best_j) / sum_j w[i, j]

    where ``f(b) = 1 if b >= threshold else 0``, or ``f(b) = b`` when ``threshold`` is None
    (the mean best support, closest to the paper's plots of MiniCheck probabilities). The
    paper does not say which of the two it plots; a share of supported sentences is the
    default here because the project's judges give Yes/No answers.

    Sentences with no readable value are left out. A position to which no sentence is
    attributed gives None (the paper draws these as gaps in its lines, §5.2 / Figure 4).

    Caveat (not discussed in the paper): with binary 0/1 judges every unsupported sentence
    ties at 0 across all documents, so ``ties="first"`` charges all of them to document 0
    and makes position 0 look unfaithful. ``ties="split"`` spreads them evenly instead.

    Args:
        values: Support matrix, shape (n_docs, n_sentences), NaN = missing.
        threshold: Support at or above which a sentence counts as faithful; None for the
            mean best support.
        ties: ``"first"`` (as :func:`attribution`) or ``"split"``.

    Returns:
        One entry per document position: a value in [0, 1], or None.
    """
    _check_threshold(threshold)
    weights = _attribution_weights(values, ties)
    best = best_support(values)
    readable = ~np.isnan(best)
    if threshold is None:
        score = np.where(readable, best, 0.0)
    else:
        score = (readable & (best >= threshold)).astype(np.float64)
    mass = weights.sum(axis=1)
    hits = weights @ score
    return [float(h / m) if m > 0 else None for h, m in zip(hits, mass, strict=True)]


def position_coverage(values: FloatArray, threshold: float | None = 0.5) -> list[float]:
    """How much of the summary each document position supports (Appendix C.2, Figure 6).

    Appendix C.2 computes coverage "by using the faithfulness score of all documents",
    i.e. the summary's faithfulness measured against each document separately, without
    attribution (the per-document view §4.2 calls "confounded by coverage", following
    Huang et al., 2024). Exactly::

        coverage_i = |{j : values[i, j] >= threshold}| / |{j : values[i, j] readable}|

    or, when ``threshold`` is None, the mean of the readable ``values[i, j]``. A sentence
    may be supported by several documents, so the entries need not sum to 1. A document
    with no readable value gives NaN.

    Args:
        values: Support matrix, shape (n_docs, n_sentences), NaN = missing.
        threshold: Support at or above which a sentence counts as supported; None for the
            mean support.

    Returns:
        One float per document position.
    """
    _check_threshold(threshold)
    if threshold is None:
        per_doc = nan_reduce(values, "mean", axis=1)
    else:
        supported = np.where(np.isnan(values), np.nan, (values >= threshold).astype(np.float64))
        per_doc = nan_reduce(supported, "mean", axis=1)
    return [float(x) for x in per_doc]

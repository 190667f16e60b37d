"""Judge support values per (document, summary sentence) pair, and the views built on them.

A faithfulness judge (Wan et al., "On Positional Bias of Faithfulness for Long-form
Summarization", §2.3) gives ``M(d_i, s_j)`` in [0, 1] for
each document ``d_i`` and summary sentence ``s_j``; an unreadable answer is NaN. The summary
score is ``AGG_S over sentences of AGG_D over documents`` with ``AGG in {max, mean, min}``,
or the "full" mode where one call sees all documents at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from longform_evals.analysis.agreement import reaches
from longform_evals.analysis.positions import (
    IntArray,
    Ties,
    attribution,
    position_coverage,
    position_faithfulness,
)
from longform_evals.analysis.reduce import (
    MERGES,
    FloatArray,
    Merge,
    check_merge,
    nan_reduce,
    nan_reduce_1d,
)


def decide(score: float, threshold: float) -> bool | None:
    """Binary decision for a score: ``score >= threshold``, or None when the score is NaN.

    Note MiniCheck labels with a strict ``p > 0.5``; pass a threshold just above 0.5 to
    reproduce that on a score of exactly 0.5.
    """
    if math.isnan(score):
        return None
    return reaches(score, threshold)


def _as_float_array(data: Any, what: str) -> FloatArray:
    """A read-only float64 copy of ``data``, with a clear error when it is not numeric."""
    try:
        raw = np.asarray(data)
        # numpy would silently parse strings like "0.5"; a judge's text belongs to the parser.
        if raw.dtype.kind in "USV":
            raise ValueError(f"got dtype {raw.dtype}")
        arr = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be numeric (NaN for missing): {exc}") from exc
    # Values outside [0, 1] mean a judge or parser bug upstream; fail rather than skew means.
    flat = np.atleast_1d(arr)
    bad = ~np.isnan(flat) & ((flat < 0.0) | (flat > 1.0))
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{what} must lie in [0, 1] or be NaN; found {float(flat[first])} at index {first}"
        )
    arr.setflags(write=False)
    return arr


def _none_to_nan(xs: Sequence[float | None]) -> list[float]:
    return [math.nan if x is None else float(x) for x in xs]


@dataclass(frozen=True, eq=False)
class SupportMatrix:
    """Support of each summary sentence by each document, as judged; NaN = missing.

    Attributes:
        values: Shape (n_docs, n_sentences); ``values[i, j]`` is the support of sentence j
            given document i alone. Stored as a read-only float64 copy.
        full: Optional shape (n_sentences,); support of each sentence given all documents
            at once (the paper's "full" mode). Read-only float64 copy, or None.

    Raises:
        ValueError: If ``values`` is not 2-D, has zero documents or zero sentences, holds a
            value outside [0, 1] other than NaN, or ``full`` is not 1-D of length n_sentences.
    """

    values: FloatArray
    full: FloatArray | None = None

    def __post_init__(self) -> None:
        values = _as_float_array(self.values, "values")
        if values.ndim != 2:
            raise ValueError(
                f"values must be 2-D (n_docs, n_sentences); got {values.ndim}-D "
                f"with shape {values.shape}"
            )
        if values.shape[0] == 0:
            raise ValueError("values has zero documents (shape[0] == 0)")
        if values.shape[1] == 0:
            raise ValueError("values has zero summary sentences (shape[1] == 0)")
        # Frozen dataclass: assigning the validated copies needs object.__setattr__.
        object.__setattr__(self, "values", values)
        if self.full is not None:
            full = _as_float_array(self.full, "full")
            if full.ndim != 1 or full.shape[0] != values.shape[1]:
                raise ValueError(
                    f"full must have shape ({values.shape[1]},) = (n_sentences,); got {full.shape}"
                )
            object.__setattr__(self, "full", full)

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[float | None]],
        full: Sequence[float | None] | None = None,
    ) -> SupportMatrix:
        """Build from one row per document (one entry per sentence); None becomes NaN.

        Raises:
            ValueError: If rows differ in length, or any constructor check fails.
        """
        lengths = {len(row) for row in rows}
        if len(lengths) > 1:
            raise ValueError(f"rows must all have one entry per sentence; lengths {lengths}")
        n_sent = lengths.pop() if lengths else 0
        data = np.array([_none_to_nan(row) for row in rows], dtype=np.float64)
        data = data.reshape(len(rows), n_sent)
        return cls(data, None if full is None else np.array(_none_to_nan(full)))

    # Compares array contents (NaN equal to NaN); defining __eq__ also makes it unhashable.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SupportMatrix):
            return NotImplemented
        if (self.full is None) != (other.full is None):
            return False
        same_full = (
            self.full is None
            or other.full is None
            or np.array_equal(self.full, other.full, equal_nan=True)
        )
        return same_full and (
            self.values.shape == other.values.shape
            and np.array_equal(self.values, other.values, equal_nan=True)
        )

    @property
    def n_docs(self) -> int:
        """Number of documents (rows)."""
        return int(self.values.shape[0])

    @property
    def n_sentences(self) -> int:
        """Number of summary sentences (columns)."""
        return int(self.values.shape[1])

    # --- Aggregation (the positional-bias paper, §2.3, Tables 3 and 7) ---

    def sentence_scores(self, doc_merge: Merge) -> FloatArray:
        """AGG_D over documents for each sentence, ignoring NaN; NaN for an all-NaN column."""
        return nan_reduce(self.values, check_merge(doc_merge), axis=0)

    def aggregate(self, doc_merge: Merge, sentence_merge: Merge) -> float:
        """The summary score AGG_S over sentences of AGG_D over documents.

        Each sentence's column is first reduced over documents ignoring NaN; a sentence
        with no readable value is missing and skipped by the sentence reducer.

        Returns:
            The score, or NaN when no sentence has a readable value.
        """
        scores = self.sentence_scores(doc_merge)
        return nan_reduce_1d(scores, check_merge(sentence_merge))

    def full_aggregate(self, sentence_merge: Merge) -> float:
        """AGG_S over the full-mode values, ignoring NaN; NaN if absent or all missing."""
        if self.full is None:
            return math.nan
        return nan_reduce_1d(self.full, check_merge(sentence_merge))

    def all_aggregations(self) -> dict[str, float]:
        """Every aggregation, keyed ``f"{doc_merge}_{sentence_merge}"``.

        ``"max_mean"`` is max over documents, then mean over sentences (the paper's best
        split strategy). Nine keys always; plus ``"full_max"``, ``"full_mean"``,
        ``"full_min"`` (AGG_S over ``full``) when ``full`` is present.
        """
        out = {f"{d}_{s}": self.aggregate(d, s) for d in MERGES for s in MERGES}
        if self.full is not None:
            out.update({f"full_{s}": self.full_aggregate(s) for s in MERGES})
        return out

    # --- Missing values ---

    def missing_count(self) -> int:
        """Number of missing (NaN) cells in ``values`` (``full`` is not counted)."""
        return int(np.isnan(self.values).sum())

    def missing_sentences(self) -> int:
        """Number of sentences with no readable value for any document."""
        return int(np.isnan(self.values).all(axis=0).sum())

    # --- Positions (the paper's §4.2, Appendix C.2); definitions in positions.py ---

    def attribution(self) -> IntArray:
        """Per sentence, the document with the highest support (ties → lowest; all-NaN → -1)."""
        return attribution(self.values)

    def position_faithfulness(
        self, threshold: float | None = 0.5, ties: Ties = "first"
    ) -> list[float | None]:
        """Attribution-based faithfulness per document position (§4.2).

        See :func:`longform_evals.analysis.positions.position_faithfulness` for the exact
        definition: among sentences attributed to position i, the share whose best support
        is ``>= threshold`` (or their mean best support when ``threshold`` is None); None
        where no sentence is attributed to i.
        """
        return position_faithfulness(self.values, threshold, ties)

    def position_coverage(self, threshold: float | None = 0.5) -> list[float]:
        """Share of readable sentences each document supports (``>= threshold``) (App. C.2).

        See :func:`longform_evals.analysis.positions.position_coverage`.
        """
        return position_coverage(self.values, threshold)

    def reorder(self, order: Sequence[int]) -> SupportMatrix:
        """The same judgments with documents permuted: new row k is old row ``order[k]``.

        ``full`` is unchanged (it was judged on one fixed order; a new order needs new calls).

        Raises:
            ValueError: If ``order`` is not a permutation of ``range(n_docs)``.
        """
        idx = [int(i) for i in order]
        if sorted(idx) != list(range(self.n_docs)):
            raise ValueError(f"order must be a permutation of range({self.n_docs}); got {idx}")
        return SupportMatrix(self.values[idx], self.full)

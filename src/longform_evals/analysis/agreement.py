"""Agreement of a metric or judge with human labels: balanced accuracy, ROC AUC, thresholds.

One label meaning everywhere: a label is :data:`PROBLEM` (1) when the unit has the flaw a
metric or judge should find (unfaithful, unsupported, incoherent, a wrong answer) and
:data:`NO_PROBLEM` (0) when it has not; a score is higher = more likely a problem; a score
flags a problem when ``score >= threshold``. A caller whose labels say 1 = faithful converts
them at its boundary with :func:`problem_labels`; a caller whose score is a support (higher =
less likely a problem) calls :func:`support_auc` and :func:`support_threshold`, the exact
mirrors of :func:`roc_auc` and :func:`best_threshold`. LongFormFact (Wan et al., 2025)
reports balanced accuracy (BACC) to account for class imbalance, with each metric's threshold
tuned on held-out data.

Everything here is a pure function of its arguments; missing values (None predictions, NaN or
None scores) are skipped, never guessed. The metrics themselves are scikit-learn's
(``balanced_accuracy_score``, ``roc_auc_score``); this module adds the missing-value handling,
the label checks and the one-class conventions, settled before scikit-learn is called so that
none of its warnings reaches the caller. Balanced accuracy treats the two classes alike, so
flipping labels and predictions together gives the same number bit for bit; the AUC does
not: scikit-learn integrates the ROC curve, and flipping the labels and negating the scores
can change its last digits (and so a printed figure at an exact decimal half). Hence the
support functions: each computes what a support caller always computed, with the classes
named in this module's meaning, and no figure moves. scikit-learn is imported inside the
functions: it takes seconds to import, and Inspect's entry point loads modules that import
this one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = [
    "NO_PROBLEM",
    "PROBLEM",
    "SCORE_TOLERANCE",
    "BalancedAccuracy",
    "balanced_accuracy",
    "best_threshold",
    "comparable",
    "problem_labels",
    "reaches",
    "roc_auc",
    "support_auc",
    "support_threshold",
]

_FloatArray = npt.NDArray[np.float64]
_BoolArray = npt.NDArray[np.bool_]

PROBLEM = 1
"""The label of a unit with the flaw a metric or judge should find (the one label meaning)."""
NO_PROBLEM = 0
"""The label of a unit without it."""


def problem_labels(labels: Sequence[int]) -> list[int]:
    """Labels in this module's meaning from labels whose 1 means faithful, supported or right:
    ``1 - label``.

    Raises:
        ValueError: If a label is not 0 or 1 (bools accepted).
    """
    for i, label in enumerate(labels):
        if label not in (0, 1) or isinstance(label, float):
            raise ValueError(f"labels must be 0 or 1; labels[{i}] is {label!r}")
    return [PROBLEM - int(label) for label in labels]


class BalancedAccuracy(NamedTuple):
    """A balanced accuracy with the number of pairs it rests on.

    Attributes:
        value: The balanced accuracy in [0, 1], or NaN when no pair was usable.
        n_used: Number of (label, prediction) pairs counted.
        n_skipped: Number of pairs left out because the prediction was None.
    """

    value: float
    n_used: int
    n_skipped: int


SCORE_TOLERANCE = 1e-12
"""Scores closer than this (relative, above 1) are the same score when they are compared
(ranked, held against a threshold): a mean of equal values can differ from them in the last
bits depending on how many there were and in what order they were added, and that difference
must not rank one summary above another. (Rounding to 12 places, the earlier rule, split such
a pair when it straddled a rounding boundary: p = 0.3509307974545 over 1 and 34 sentences.)"""


def comparable(values: npt.ArrayLike) -> _FloatArray:
    """``values`` for ranking among themselves: each run of finite values that lie within
    :data:`SCORE_TOLERANCE` of their neighbour (sorted) made its smallest value, so float noise
    ties; other values (and infinities, NaN) stay as they are."""
    out = np.array(values, dtype=np.float64, ndmin=1)
    finite = np.flatnonzero(np.isfinite(out))
    if finite.size < 2:
        return out
    order = finite[np.argsort(out[finite], kind="stable")]
    ranked = out[order]
    apart = np.diff(ranked) > SCORE_TOLERANCE * np.maximum(1.0, np.abs(ranked[1:]))
    bounds = [0, *(np.flatnonzero(apart) + 1).tolist(), ranked.size]
    for start, end in itertools.pairwise(bounds):
        run = ranked[start:end]
        # the run's value: its smallest, or that rounded to 12 places (0.1, not
        # 0.09999999999999999) where every member is that close to it
        value = round(float(run[0]), 12)
        close = np.abs(run - value) <= SCORE_TOLERANCE * max(1.0, abs(value))
        ranked[start:end] = value if close.all() else run[0]
    out[order] = ranked
    return out


def reaches(value: float, threshold: float) -> bool:
    """``value >= threshold``, a value within :data:`SCORE_TOLERANCE` below it included (float
    noise does not decide a verdict). NaN reaches nothing."""
    return bool(value >= threshold - SCORE_TOLERANCE * max(1.0, abs(threshold)))


def _check_labels(labels: Sequence[int], n: int, what: str) -> _BoolArray:
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels but {n} {what}")
    out = np.zeros(n, dtype=bool)
    for i, label in enumerate(labels):
        if label not in (0, 1) or isinstance(label, float):
            raise ValueError(f"labels must be 0 or 1; labels[{i}] is {label!r}")
        out[i] = bool(label)
    return out


def _bacc(tp: int, pos: int, tn: int, neg: int) -> float:
    """Mean recall over the classes present; NaN when neither is (for threshold grids)."""
    recalls = [hits / total for hits, total in ((tp, pos), (tn, neg)) if total > 0]
    return sum(recalls) / len(recalls) if recalls else math.nan


def balanced_accuracy(
    labels: Sequence[int], predictions: Sequence[bool | int | None]
) -> BalancedAccuracy:
    """Balanced accuracy of binary predictions against binary labels.

    The mean of the recall on problems (label 1) and the recall on the other units (label 0);
    the two classes play symmetric parts, so flipping labels and predictions together gives
    the same number. When only one class occurs among the usable pairs, the result is the
    recall of that class (so predicting the present class everywhere still scores 1). Pairs
    whose prediction is None (e.g. an unparsable judge answer) are left out and counted.

    Args:
        labels: Human labels, 0 or 1 (bools accepted): 1 = problem.
        predictions: Predicted labels: bool, 0/1 (1 = flagged as a problem), or None for "no
            prediction".

    Returns:
        A :class:`BalancedAccuracy` ``(value, n_used, n_skipped)``; ``value`` is NaN when no
        pair is usable.

    Raises:
        ValueError: If the lengths differ or a label or prediction is not 0/1 (or None).
    """
    gold = _check_labels(labels, len(predictions), "predictions")
    keep = np.zeros(len(predictions), dtype=bool)
    pred = np.zeros(len(predictions), dtype=bool)
    for i, p in enumerate(predictions):
        if p is None:
            continue
        if p not in (0, 1) or isinstance(p, float):
            raise ValueError(f"predictions must be 0, 1, a bool or None; predictions[{i}] is {p!r}")
        keep[i] = True
        pred[i] = bool(p)
    gold, pred = gold[keep], pred[keep]
    n_used = int(keep.sum())
    skipped = len(predictions) - n_used
    if n_used == 0:
        return BalancedAccuracy(math.nan, 0, skipped)
    if gold.all() or not gold.any():
        # One class only: scikit-learn would warn and average over the class present; say so
        # here instead. The recall of that class is the share of predictions that match it.
        return BalancedAccuracy(float(np.mean(pred == gold[0])), n_used, skipped)
    from sklearn.metrics import balanced_accuracy_score

    return BalancedAccuracy(float(balanced_accuracy_score(gold, pred)), n_used, skipped)


def _usable(
    labels: Sequence[int], scores: Sequence[float | None]
) -> tuple[_BoolArray, _FloatArray]:
    """Labels and scores of the pairs whose score is a number (not None, not NaN), the scores
    :func:`comparable`."""
    gold = _check_labels(labels, len(scores), "scores")
    values = comparable([math.nan if s is None else float(s) for s in scores])
    keep = ~np.isnan(values)
    return gold[keep], values[keep]


def roc_auc(labels: Sequence[int], scores: Sequence[float | None]) -> float:
    """Area under the ROC curve: the chance a problem outscores a unit without one.

    scikit-learn's ``roc_auc_score`` (a tie between a problem and another unit counts half),
    fed the ranks of the scores: the AUC depends only on their order, and scikit-learn refuses
    infinities. Scores that are NaN or None are skipped.

    Args:
        labels: Human labels, 0 or 1: 1 = problem.
        scores: Metric scores, higher = more likely a problem; infinities are allowed.

    Returns:
        The AUC in [0, 1], or NaN when the usable pairs lack a class.

    Raises:
        ValueError: If the lengths differ or a label is not 0/1.
    """
    gold, values = _usable(labels, scores)
    return _auc(gold, values)


def support_auc(labels: Sequence[int], support: Sequence[float | None]) -> float:
    """:func:`roc_auc` for a support score (higher = less likely a problem): the chance a unit
    without a problem is more supported than a problem, the AUC of the negated support.

    Computed as scikit-learn ranks it, the units without a problem as its positive class: the
    same number as before labels took one meaning, where negating the score for
    :func:`roc_auc` can differ in the last digits.

    Args:
        labels: Human labels, 0 or 1: 1 = problem.
        support: Support scores, higher = more faithful; infinities are allowed.

    Returns:
        The AUC in [0, 1], or NaN when the usable pairs lack a class.

    Raises:
        ValueError: As :func:`roc_auc`.
    """
    gold, values = _usable(labels, support)
    return _auc(~gold, values)


def _auc(above: _BoolArray, values: _FloatArray) -> float:
    """The AUC of ``values`` for the class ``above`` (the units that should score higher)."""
    if above.all() or not above.any():
        return math.nan  # one class (or nothing) left: no positive-negative pair to compare
    from sklearn.metrics import roc_auc_score

    ranks = np.unique(values, return_inverse=True)[1].astype(np.float64)
    return float(roc_auc_score(above, ranks))


def best_threshold(
    labels: Sequence[int],
    scores: Sequence[float | None],
    candidates: Sequence[float] | None = None,
) -> float:
    """The threshold that maximizes balanced accuracy on the given data (for calibration).

    A score flags a problem when ``score >= threshold``. Tune it on a calibration split and
    apply it to another; on the same data the result is optimistic.

    Default candidates: the smallest score (everything flagged), the midpoints between
    consecutive distinct scores (so the threshold sits in the gap, not on a seen score), and
    ``inf`` (nothing flagged). Ties between candidates go to the smallest one. When only one
    class occurs, balanced accuracy is that class's recall (see :func:`balanced_accuracy`).

    Args:
        labels: Human labels, 0 or 1: 1 = problem.
        scores: Metric scores, higher = more likely a problem; NaN or None scores are skipped.
        candidates: Thresholds to choose from, instead of the default ones.

    Returns:
        The best threshold, or NaN when no score is usable.

    Raises:
        ValueError: If the lengths differ, a label is not 0/1, or ``candidates`` is empty or
            holds NaN.
    """
    gold, values = _usable(labels, scores)
    return _threshold_search(gold, values, candidates)


def support_threshold(
    labels: Sequence[int],
    support: Sequence[float | None],
    candidates: Sequence[float] | None = None,
) -> float:
    """:func:`best_threshold` for a support score (higher = less likely a problem): the
    threshold at which a unit counts as supported when ``support >= threshold`` and is flagged
    as a problem when it is not.

    The exact mirror of :func:`best_threshold` on the negated score with the flag at
    ``-support > -threshold``: the same candidates (the smallest support, which supports
    everything, the midpoints, and ``inf``, which flags everything), ties going to the
    smallest support threshold. Negating the score for :func:`best_threshold` instead would
    flag at ``support <= threshold``, another split on a tie.

    Args:
        labels: Human labels, 0 or 1: 1 = problem.
        support: Support scores, higher = more faithful; NaN or None scores are skipped.
        candidates: Thresholds to choose from, instead of the default ones.

    Returns:
        The best support threshold, or NaN when no score is usable.

    Raises:
        ValueError: As :func:`best_threshold`.
    """
    gold, values = _usable(labels, support)
    return _threshold_search(~gold, values, candidates)


def _threshold_search(
    above: _BoolArray, values: _FloatArray, candidates: Sequence[float] | None
) -> float:
    """The smallest candidate threshold t maximizing the balanced accuracy of ``values >= t``
    against the class ``above`` (the units that should reach the threshold)."""
    # The counting below is kept rather than scikit-learn's ``roc_curve``: that curve only
    # visits the seen scores (not the midpoints or a caller's candidates) and warns when a
    # class is missing, while two sorted searches give every candidate's counts at once.
    if candidates is not None:
        grid = np.array([float(c) for c in candidates], dtype=np.float64)
        if grid.size == 0 or np.isnan(grid).any():
            raise ValueError("candidates must be a non-empty sequence of numbers (no NaN)")
    if values.size == 0:
        return math.nan
    if candidates is None:
        distinct = np.unique(values)
        lower, upper = distinct[:-1], distinct[1:]
        with np.errstate(over="ignore", invalid="ignore"):
            mids = lower / 2.0 + upper / 2.0
        # Where rounding (adjacent floats) or infinities give no midpoint strictly above the
        # lower value (a NaN compares False too), use the upper value: it splits the same way.
        mids = np.where(mids > lower, mids, upper)
        grid = np.concatenate([distinct[:1], mids, [math.inf]])
    grid = np.unique(grid)  # sorted ascending, so the first maximum is the smallest threshold
    pos_scores = np.sort(values[above])
    neg_scores = np.sort(values[~above])
    # tp: units of the class `above` with score >= t; tn: the others with score < t.
    tp = len(pos_scores) - np.searchsorted(pos_scores, grid, side="left")
    tn = np.searchsorted(neg_scores, grid, side="left")
    baccs = [
        _bacc(int(a), len(pos_scores), int(b), len(neg_scores)) for a, b in zip(tp, tn, strict=True)
    ]
    return float(grid[int(np.argmax(baccs))])

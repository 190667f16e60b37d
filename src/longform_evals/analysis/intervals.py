"""Bootstrap confidence intervals over samples, and ranks that are shared where two rows'
scores cannot be told apart.

Every interval the package reports comes from this module: one resampling scheme (units drawn
with replacement, percentile interval, fixed seed) stands behind every number, with two units.

* Samples, :func:`bootstrap_interval`: the leaderboard's per-cell means, order sensitivity
  and per-position faithfulness. Resampling is done by scipy (``scipy.stats.bootstrap``) over
  sample indices, so a statistic may look at a whole row per sample (all orders of one
  document, say).
* Clusters, :func:`cluster_weights` and :func:`percentile_interval`: the judge cards
  (`analysis/judge_agreement/`), whose units (the sentences of one summary) are not
  independent, so whole summaries are drawn. A draw is a matrix of weights (how often each
  cluster was drawn in each replicate), shared by every figure of the card, and a replicate
  where a figure is undefined is left out of that figure's interval (scipy resamples one
  statistic at a time and cannot skip replicates).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 0

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A statistic with its bootstrap interval; ``low``/``high`` are NaN below two samples."""

    value: float
    low: float
    high: float
    n: int
    confidence: float = CONFIDENCE

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    def contains(self, x: float) -> bool:
        return self.defined and self.low <= x <= self.high

    def overlaps(self, other: Interval) -> bool:
        """Whether the two intervals share a point (undefined intervals overlap anything)."""
        if not (self.defined and other.defined):
            return True
        return self.low <= other.high and other.low <= self.high

    def as_dict(self) -> dict[str, float | int]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


def _rows(data: Sequence[float] | Sequence[Sequence[float]] | FloatArray) -> FloatArray:
    array = np.asarray(data, dtype=np.float64)
    if array.ndim == 0:
        raise ValueError("bootstrap needs one value (or one row) per sample, got a scalar")
    return array


def bootstrap_interval(
    data: Sequence[float] | Sequence[Sequence[float]] | FloatArray,
    statistic: Callable[[FloatArray], float] | None = None,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """The ``statistic`` of ``data`` with a percentile bootstrap interval over its samples.

    Args:
        data: One value per sample, or one row per sample (first axis = samples).
        statistic: Maps an array of rows to a number; the mean of the values by default.
        confidence: Coverage of the interval.
        resamples: Bootstrap resamples.
        seed: Seed of the resampling, fixed so a report is reproducible (the order of the
            samples does not matter).

    Raises:
        ValueError: If ``data`` holds a NaN (count missing samples before, never drop them
            silently) or no sample at all.
    """
    rows = _rows(data)
    if rows.shape[0] == 0:
        raise ValueError("bootstrap needs at least one sample, got none")
    if np.isnan(rows).any():
        raise ValueError(
            "bootstrap data holds NaN; count missing samples and pass only readable ones"
        )
    n = rows.shape[0]
    # Work on a sorted copy: the same samples in another order (Inspect hands metrics their
    # samples in completion order) must give the same numbers for the same seed.
    keys = rows.reshape(n, -1).T[::-1]  # first column sorts first
    if len(keys):
        rows = rows[np.lexsort(keys)]
    stat = statistic or (lambda x: float(np.mean(x)))
    value = float(stat(rows))
    if n < 2:
        return Interval(value, math.nan, math.nan, n, confidence)
    if np.allclose(rows, rows[0], rtol=1e-12, atol=0.0):
        # Every resample is the same data (up to rounding: x - (x - d) is not d to the last
        # bit, and an interval ulps wide could then miss its own value); scipy would also warn
        # about a degenerate distribution.
        return Interval(value, value, value, n, confidence)
    # Imported here: scipy.stats takes most of a second to import, and the task modules that
    # Inspect's entry point loads import this module (the entry point must stay light).
    from scipy import stats

    result = stats.bootstrap(
        (np.arange(n),),
        lambda idx: stat(rows[idx.astype(int)]),
        vectorized=False,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(value, float(ci.low), float(ci.high), n, confidence)


def cluster_weights(n_clusters: int, resamples: int = RESAMPLES, seed: int = SEED) -> FloatArray:
    """The cluster bootstrap's draw: weights (replicates x clusters), how often each cluster
    is drawn in each replicate. Drawing ``n_clusters`` clusters with replacement is a
    multinomial draw of the counts; the draw depends only on ``seed`` and the number of
    clusters (callers index the clusters in a fixed order, such as their sorted ids)."""
    rng = np.random.default_rng(seed)
    probs = np.full(n_clusters, 1.0 / n_clusters)
    return np.asarray(rng.multinomial(n_clusters, probs, size=resamples), dtype=np.float64)


def percentile_interval(
    replicates: FloatArray, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """The percentile interval of bootstrap replicates (NaN replicates are the caller's to
    leave out), clipped to their range against rounding in the interpolation."""
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(replicates, [tail, 1.0 - tail])
    return float(max(lo, replicates.min())), float(min(hi, replicates.max()))


def paired_difference(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """Mean of ``a - b`` over samples both rows scored (same order), with its interval."""
    x, y = _rows(a), _rows(b)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in shape: {x.shape} vs {y.shape}")
    return bootstrap_interval(x - y, confidence=confidence, resamples=resamples, seed=seed)


def shared_ranks(
    scores: Sequence[Mapping[str, float]],
    *,
    higher_is_better: bool = True,
) -> list[int]:
    """Rank rows so that rows which cannot be told apart share a rank.

    A row's rank is 1 + the number of rows *clearly* better than it. Two rows are compared
    on the samples both scored (by id) with a paired bootstrap of the mean difference;
    "clearly" means the interval of the difference excludes 0. Rows with no sample in
    common are compared by their own intervals, which must not overlap.

    Args:
        scores: Per row, a mapping from sample key (id and epoch) to its score; missing
            samples are absent.
        higher_is_better: Direction of the metric.
    """
    sign = 1.0 if higher_is_better else -1.0

    def better(i: int, j: int) -> bool:
        common = sorted(set(scores[i]) & set(scores[j]))
        if len(common) >= 2:
            diff = paired_difference(
                [sign * scores[i][k] for k in common], [sign * scores[j][k] for k in common]
            )
            return diff.defined and diff.low > 0
        mine = bootstrap_interval([sign * v for v in scores[i].values()])
        theirs = bootstrap_interval([sign * v for v in scores[j].values()])
        return not mine.overlaps(theirs) and mine.value > theirs.value

    usable = [i for i, s in enumerate(scores) if s]
    ranks = []
    for j in range(len(scores)):
        if not scores[j]:
            ranks.append(0)  # nothing to rank
            continue
        ranks.append(1 + sum(1 for i in usable if i != j and better(i, j)))
    return ranks

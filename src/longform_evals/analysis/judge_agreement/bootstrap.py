"""The cluster bootstrap over summaries (the draw and the percentile interval are
`analysis/intervals.py`'s, the package's one bootstrap), and the unit-level inputs reduced to
per-summary counts once, so every replicate is a weighted sum."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from longform_evals.analysis.intervals import cluster_weights, percentile_interval
from longform_evals.analysis.judge_agreement.records import (
    MIN_USABLE_SHARE,
    Figure,
    FloatArray,
    IntArray,
    Replicates,
    Unit,
    checked_label,
    checked_probability,
)

# --- the bootstrap -------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """A figure's point estimate and the function giving its bootstrap replicates."""

    name: str
    value: float
    n: int
    note: str | None
    replicates: Replicates | None


def nan_ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """num / den, NaN where den is 0 (without a division warning)."""
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def draw_weights(n_clusters: int, n_boot: int, seed: int) -> FloatArray:
    """Weights (replicates x summaries): how often each summary is drawn in each replicate
    (the cluster draw of the package's one bootstrap, :func:`~longform_evals.analysis.
    intervals.cluster_weights`)."""
    return cluster_weights(n_clusters, n_boot, seed)


def finish_figure(
    spec: Spec, reps: FloatArray | None, n_boot: int, n_clusters: int, confidence: float
) -> Figure:
    """Turn a spec and its replicates into a Figure with a percentile interval."""
    skipped = 0 if reps is None else int(np.isnan(reps).sum())
    notes = [spec.note] if spec.note else []
    low = high = math.nan
    if math.isnan(spec.value):
        pass
    elif n_clusters < 2:
        notes.append("fewer than two summaries to resample: no interval")
    elif n_boot == 0 or reps is None:
        notes.append("no bootstrap replicates: no interval")
    else:
        usable = reps[~np.isnan(reps)]
        if usable.size < MIN_USABLE_SHARE * n_boot or usable.size == 0:
            notes.append(
                f"defined in only {usable.size} of {n_boot} bootstrap replicates "
                f"(fewer than {MIN_USABLE_SHARE:.0%}): no interval"
            )
        else:
            low, high = percentile_interval(usable, confidence)
    return Figure(spec.value, low, high, spec.n, "; ".join(notes) or None, skipped)


# --- unit-level inputs ---------------------------------------------------------------------


@dataclass(frozen=True)
class UnitArrays:
    """The units as arrays: labels -1 = missing, cluster = index of the summary id."""

    cluster: IntArray  # (n_units,)
    human: npt.NDArray[np.int8]  # (n_units, n_annotators)
    annotators: tuple[str, ...]
    reference: npt.NDArray[np.int8]  # majority label, -1 = no human label
    judge: npt.NDArray[np.int8]  # judge flag, -1 = none
    p: FloatArray  # judge probability, NaN = none


def read_units(units: Sequence[Unit], cluster_of: Mapping[str, int]) -> UnitArrays:
    names = sorted(
        {name for unit in units for name, label in unit.human.items() if label is not None}
    )
    column = {name: j for j, name in enumerate(names)}
    n = len(units)
    human = np.full((n, len(names)), -1, dtype=np.int8)
    judge = np.full(n, -1, dtype=np.int8)
    p = np.full(n, math.nan)
    cluster = np.zeros(n, dtype=np.intp)
    for i, unit in enumerate(units):
        cluster[i] = cluster_of[unit.summary_id]
        for name, label in unit.human.items():
            value = checked_label(label, f"units[{i}].human[{name!r}]")
            if value >= 0:
                human[i, column[name]] = value
        judge[i] = checked_label(unit.judge_flag, f"units[{i}].judge_flag")
        p[i] = checked_probability(unit.judge_p, f"units[{i}].judge_p")
    flagged = (human == 1).sum(axis=1)
    rated = (human >= 0).sum(axis=1)
    # Majority of the labels given; a tie counts as flagged (2 * flagged >= rated).
    reference = np.where(rated == 0, -1, (2 * flagged >= rated).astype(np.int8)).astype(np.int8)
    return UnitArrays(cluster, human, tuple(names), reference, judge, p)


def cluster_sums(cluster: IntArray, n_clusters: int, *columns: npt.ArrayLike) -> FloatArray:
    """Per-summary sums of each column: an array (summaries x columns)."""
    if not columns:
        return np.zeros((n_clusters, 0))
    sums = [
        np.bincount(cluster, weights=np.asarray(c, dtype=np.float64), minlength=n_clusters)
        for c in columns
    ]
    return np.asarray(np.stack(sums, axis=1), dtype=np.float64).reshape(n_clusters, len(columns))

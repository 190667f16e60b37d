"""Metrics for order-perturbation runs (Wan et al., "On Positional Bias of Faithfulness for
Long-form Summarization": Tables 4 and 5; Figures 2 and 4).

* :func:`order_means`: the mean score under each document order (from
  ``sample_metadata["order_name"]``, set by
  :func:`~longform_evals.analysis.ordering.expand_orders`) and their max - min, the
  ``sensitivity``;
* :func:`by_document_count`: the mean score per number of input documents (§4.4, from
  ``sample_metadata["n_documents"]``, set by
  :func:`~longform_evals.analysis.ordering.expand_prefixes`);
* :func:`position_profile`: the mean per-position faithfulness (``score.metadata
  ["position_faithfulness"]`` of the faithfulness scorer), position by position;
* :func:`bacc_by_order_sensitivity`: the interval of LongFormFact's BACC order sensitivity
  (the value itself is :func:`~longform_evals.scorers.meta_evaluation.bacc_by_order`'s).

All return dicts; Inspect logs each entry as its own metric. Every number comes with a 95 %
percentile bootstrap interval over samples (``<key>_ci_low``, ``<key>_ci_high``) from
:func:`~longform_evals.analysis.intervals.bootstrap_interval`, the function behind every
interval the package reports; samples a number could not use are counted, not dropped.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Value, metric

from longform_evals.analysis.agreement import reaches
from longform_evals.analysis.intervals import FloatArray, Interval, bootstrap_interval
from longform_evals.analysis.ordering import (
    order_table,
    sensitivity,
    sensitivity_interval,
    sort_orders,
)
from longform_evals.scorers.meta_evaluation import recorded_threshold, summary_label

__all__ = [
    "bacc_by_order_rows",
    "bacc_by_order_sensitivity",
    "by_document_count",
    "order_means",
    "position_profile",
]

_UNORDERED = "original"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    v = float(value)
    return None if math.isnan(v) else v


def _interval(values: Sequence[float]) -> Interval:
    """The mean with its bootstrap interval; all NaN when there is no value."""
    if not values:
        return Interval(math.nan, math.nan, math.nan, 0)
    return bootstrap_interval(values)


def _with_interval(key: str, ci: Interval) -> dict[str, float]:
    return {key: ci.value, f"{key}_ci_low": ci.low, f"{key}_ci_high": ci.high}


def _order_name(s: SampleScore) -> str:
    return str((s.sample_metadata or {}).get("order_name", _UNORDERED))


def _source(s: SampleScore, index: int) -> Hashable:
    """The input a sample was expanded from: its orders share ``source_id``
    (:func:`~longform_evals.analysis.ordering.expand_orders`); any other sample is its own."""
    meta = s.sample_metadata or {}
    if "order_name" in meta and meta.get("source_id") is not None:
        return ("source", str(meta["source_id"]))
    return ("sample", index)


def _sensitivity_entries(ci: Interval, missing: int) -> dict[str, float]:
    return {
        "sensitivity_ci_low": ci.low,
        "sensitivity_ci_high": ci.high,
        "sensitivity_n": float(ci.n),
        "sensitivity_missing": float(missing),
    }


@metric
def order_means() -> Metric:
    """Mean score per document order, plus ``sensitivity`` = max - min of those means.

    Samples without ``order_name`` in their metadata count as ``original``. Keys come in
    the order original, top, middle, bottom (only orders that occur), then any other
    order names, each followed by its ``_ci_low`` / ``_ci_high`` (bootstrap over that
    order's samples); then ``sensitivity`` with ``sensitivity_ci_low`` /
    ``sensitivity_ci_high`` (bootstrap over inputs, each resampled with all its orders),
    ``sensitivity_n`` (inputs scored under every order: the interval rests on them) and
    ``sensitivity_missing`` (inputs lacking a readable score under some order, left out of
    the interval). NaN and non-numeric values are ignored by the means.
    """

    def compute(scores: list[SampleScore]) -> Value:
        groups: dict[str, list[float]] = defaultdict(list)
        entries: list[tuple[Hashable, str, float]] = []
        for i, s in enumerate(scores):
            name = _order_name(s)
            v = _number(s.score.value)
            groups[name].extend([] if v is None else [v])
            entries.append((_source(s, i), name, math.nan if v is None else v))
        if not groups:
            return {}
        result: dict[str, float] = {}
        for name in sort_orders(groups):
            result.update(_with_interval(name, _interval(groups[name])))
        result["sensitivity"] = sensitivity({n: result[n] for n in groups})
        table = order_table(entries)
        result.update(_sensitivity_entries(sensitivity_interval(table.rows), table.missing))
        return result

    return compute


@metric
def position_profile(order: str | None = None) -> Metric:
    """Mean of ``score.metadata["position_faithfulness"]`` per position, ignoring None.

    Args:
        order: Only samples with this ``order_name`` (``None``: all samples).

    Returns:
        A metric giving, up to the longest profile, ``pos_<i>`` with ``pos_<i>_ci_low``,
        ``pos_<i>_ci_high`` (bootstrap over samples) and ``pos_<i>_n`` (samples with a
        sentence attributed to position i: the mean and its interval rest on them); a
        position no sample has a value for is NaN. Then ``missing``: samples whose profile
        is absent or holds a value that is neither a number nor None, left out entirely.
    """

    def compute(scores: list[SampleScore]) -> Value:
        columns: list[list[float]] = []
        missing = 0
        for s in scores:
            if order is not None and (s.sample_metadata or {}).get("order_name") != order:
                continue
            profile = (s.score.metadata or {}).get("position_faithfulness")
            if not isinstance(profile, list) or any(
                v is not None and _number(v) is None for v in profile
            ):
                missing += 1
                continue
            while len(columns) < len(profile):
                columns.append([])
            for i, value in enumerate(profile):
                v = _number(value)
                if v is not None:  # None: no sentence attributed to this position
                    columns[i].append(v)
        result: dict[str, float] = {}
        for i, column in enumerate(columns):
            ci = _interval(column)
            result.update(_with_interval(f"pos_{i + 1}", ci))
            result[f"pos_{i + 1}_n"] = float(ci.n)
        result["missing"] = float(missing)
        return result

    return compute


@metric
def by_document_count() -> Metric:
    """Mean score per number of input documents: ``{"docs_1": .., "docs_2": .., ...}``, each
    followed by its ``_ci_low`` / ``_ci_high`` (bootstrap over samples).

    Samples without ``n_documents`` in their metadata count by their ``documents`` list
    length. NaN and non-numeric values are ignored.
    """

    def compute(scores: list[SampleScore]) -> Value:
        groups: dict[int, list[float]] = defaultdict(list)
        for s in scores:
            meta = s.sample_metadata or {}
            k = meta.get("n_documents")
            if not isinstance(k, int):
                k = len(meta.get("documents") or [])
            v = _number(s.score.value)
            groups[k].extend([] if v is None else [v])
        result: dict[str, float] = {}
        for k in sorted(groups):
            result.update(_with_interval(f"docs_{k}", _interval(groups[k])))
        return result

    return compute


def bacc_by_order_rows(rows: FloatArray) -> FloatArray:
    """BACC (0-100) per order, averaged over subsets, of rows ``[subset, label, prediction
    per order...]`` (label and predictions 0/1). The rows keep the dataset's meaning (1 =
    faithful, predicted at ``score >= threshold``), not ``analysis/agreement.py``'s 1 =
    problem: the formula treats the two classes alike, but the bootstrap sorts the rows by
    their content before drawing, so flipped rows would give another interval.

    The same numbers as :func:`~longform_evals.scorers.meta_evaluation.bacc_by_order` on the
    same samples (mean recall over the classes present in a subset, unweighted mean over
    subsets), written over an array so that it can be bootstrapped.
    """
    subsets, labels, predicted = rows[:, 0], rows[:, 1] == 1, rows[:, 2:] == 1
    per_subset = []
    for subset in np.unique(subsets):
        here = subsets == subset
        recalls = [
            hits[members].mean(axis=0)
            for hits, members in ((predicted, here & labels), (~predicted, here & ~labels))
            if members.any()
        ]
        per_subset.append(np.mean(recalls, axis=0))
    out: FloatArray = 100.0 * np.mean(per_subset, axis=0)
    return out


@metric
def bacc_by_order_sensitivity(threshold: float | None = None, key: str = "faithfulness") -> Metric:
    """The bootstrap interval of ``bacc_by_order``'s ``sensitivity``, logged beside it as
    ``bacc_by_order_sensitivity_ci_low`` / ``_ci_high``.

    Labelled records scored under every order are resampled whole (all their orders
    together); ``n`` counts them and ``missing`` the labelled records lacking a readable
    score under some order, left out of the interval (``bacc_by_order`` still uses their
    other orders). Thresholds as :func:`~longform_evals.scorers.meta_evaluation.bacc`.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        entries: list[tuple[Hashable, str, float]] = []
        known: dict[Hashable, tuple[float, float]] = {}
        subsets: dict[str, int] = {}
        for i, s in enumerate(scores):
            label = summary_label(s.sample_metadata)
            if label is None:  # not part of BACC at all
                continue
            v = _number(s.score.value)
            t = threshold if threshold is not None else recorded_threshold(s, key, scores)
            predicted = math.nan if v is None or math.isnan(t) else float(reaches(v, t))
            source = _source(s, i)
            subset = str((s.sample_metadata or {}).get("subset", "all"))
            known[source] = (float(subsets.setdefault(subset, len(subsets))), float(label))
            entries.append((source, _order_name(s), predicted))
        table = order_table(entries)
        extra = np.array([known[s] for s in table.sources], dtype=np.float64).reshape(-1, 2)
        ci = sensitivity_interval(np.hstack([extra, table.rows]), bacc_by_order_rows)
        return {
            "ci_low": ci.low,
            "ci_high": ci.high,
            "n": float(ci.n),
            "missing": float(table.missing),
        }

    return compute

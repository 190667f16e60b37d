"""lm-eval's aggregations are the Inspect task's own metrics, on the same per-sample values.

Every metric an lm-eval task declares is one metric of one value of the Inspect task's
scorers (named as :func:`inspect_results` names the log's results), aggregated by the very
function Inspect runs for it: ``inspect_mean`` is Inspect's ``mean()``, ``inspect_accuracy``
its ``accuracy()``, ``inspect_count`` the suite's ``count()``, and LongFormFact's
``<value>_bacc`` / ``<value>_auc`` the task's ``bacc()`` / ``auc()`` of that value (the
subsets' average, Inspect's ``bacc_avg`` / ``auc_avg``). As Inspect does for a scorer's value
dict, NaN values (unscorable samples) are left out before the metric runs; the task's
``scored``, ``empty_summary`` and ``no_sentences`` counts say how many there were.

Only model usage (``inner_calls``, ``judge_tokens``, ...) and a plain model's ``unparsed``
LongFormFact verdicts are lm-eval's own (``nanmean``): Inspect reports usage per model, not as
a metric, and has no plain-model verdicts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.log import EvalScore
from inspect_ai.scorer import Metric, SampleScore, Score, accuracy, mean

from longform_evals.scorers.results import result_values
from longform_evals.scorers.scorer_table import count

JUDGE_STATISTICS = ("bacc", "auc")
"""LongFormFact's per-value metrics (against people's labels)."""

LMEVAL_ONLY = ("inner_calls", "inner_tokens", "judge_calls", "judge_tokens", "unparsed")
"""Metrics with no Inspect counterpart (usage; a plain model's unreadable verdicts)."""


def _numbers(items: Sequence[Any]) -> list[SampleScore]:
    scores = []
    for i, item in enumerate(items):
        value = math.nan if item is None else float(item)
        if not math.isnan(value):
            scores.append(SampleScore(score=Score(value=value), sample_id=i))
    return scores


def _run(metric: Callable[[], Metric], items: Sequence[Any], empty: float) -> float:
    scores = _numbers(items)
    return float(metric()(scores)) if scores else empty  # type: ignore[arg-type]


def inspect_mean(items: Sequence[Any]) -> float:
    """Inspect's ``mean()`` of the values that are numbers (NaN when none is)."""
    return _run(mean, items, math.nan)


def inspect_accuracy(items: Sequence[Any]) -> float:
    """Inspect's ``accuracy()`` of the values that are numbers (NaN when none is)."""
    return _run(accuracy, items, math.nan)


def inspect_count(items: Sequence[Any]) -> float:
    """The suite's ``count()`` metric: how many samples have the value 1."""
    return _run(count, items, 0.0)


def nanmean(items: Sequence[Any]) -> float:
    """Mean of the values that are numbers (NaN when none is): lm-eval-only metrics."""
    kept = [float(x) for x in items if x is not None and not math.isnan(float(x))]
    return sum(kept) / len(kept) if kept else math.nan


def judge_metric_name(key: str, statistic: str) -> str:
    """The lm-eval name of LongFormFact's ``statistic`` (bacc, auc) of value ``key``: the
    headline ``faithfulness`` value keeps the bare names."""
    return statistic if key == "faithfulness" else f"{key}_{statistic}"


def split_judge_metric(name: str) -> tuple[str, str] | None:
    """(value key, statistic) of a LongFormFact bacc/auc metric name, else None."""
    if name in JUDGE_STATISTICS:
        return "faithfulness", name
    key, _, statistic = name.rpartition("_")
    return (key, statistic) if key and statistic in JUDGE_STATISTICS else None


def inspect_results(scores: Sequence[EvalScore]) -> dict[str, float]:
    """An Inspect log's results (``log.results.scores``) under the lm-eval metric names: each
    value's point result (mean, accuracy or count), named by its key, or ``<scorer>_<key>`` for
    a key several scorers give (as the per-document values are named); LongFormFact's
    ``bacc_avg`` / ``auc_avg`` of each value under :func:`judge_metric_name`."""
    found = result_values(scores)
    shared = Counter(key for _, key in found)
    out: dict[str, float] = {}
    for (scorer, key), results in found.items():
        name = key if shared[key] == 1 else f"{scorer}_{key}"
        judged = [s for s in JUDGE_STATISTICS if f"{s}_avg" in results]
        for statistic in judged:
            out[judge_metric_name(name, statistic)] = results[f"{statistic}_avg"]
        if not judged:
            out[name] = results["point"]
    return out


__all__ = [
    "JUDGE_STATISTICS",
    "LMEVAL_ONLY",
    "inspect_accuracy",
    "inspect_count",
    "inspect_mean",
    "inspect_results",
    "judge_metric_name",
    "nanmean",
    "split_judge_metric",
]

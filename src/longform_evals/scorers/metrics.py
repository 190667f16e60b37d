"""Metrics over the samples that have a value.

Inspect already leaves NaN values out of metrics and reports them as `unscored_samples`; these
differ from its `mean`/`stderr` only when no sample has a value, where they give NaN instead
of 0 (a BooookScore of 0 would claim every sentence was confusing).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float

_to_float = value_to_float()


def _present(scores: list[SampleScore]) -> list[float]:
    values = [_to_float(s.score.value) for s in scores]
    return [v for v in values if not math.isnan(v)]


@metric
def nanmean() -> Metric:
    """Mean over the samples that have a value (NaN when none has)."""

    def compute(scores: list[SampleScore]) -> float:
        values = _present(scores)
        return sum(values) / len(values) if values else float("nan")

    return compute


@metric
def nanstderr() -> Metric:
    """Standard error of the mean over the samples that have a value."""

    def compute(scores: list[SampleScore]) -> float:
        values = _present(scores)
        n = len(values)
        if n < 2:
            return 0.0 if n else float("nan")
        mean = sum(values) / n
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        return math.sqrt(var / n)

    return compute

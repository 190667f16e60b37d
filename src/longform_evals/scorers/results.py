"""An Inspect log's results, read the one way every surface reads them.

Inspect computes each metric once, from the per-sample values, and records it in
``log.results.scores``: one entry per scorer value (its key, or the scorer's name for a scalar)
with the metrics' results by name (``mean``, ``accuracy``, ``longform_evals/count``,
``longform_evals/bacc_avg`` for a metric that returns a dict). The leaderboard and the
lm-eval agreement test read those numbers through :func:`result_values` instead of computing
them again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.log import EvalScore

POINT_METRICS = ("mean", "accuracy", "count")
"""A value's point result is the first of these its entry has."""


def result_values(scores: Sequence[EvalScore]) -> dict[tuple[str, str], dict[str, float]]:
    """Per (scorer, value key), its metrics' results by short name (the package prefix
    dropped: ``count``, ``bacc_avg``), plus ``point``: its mean, accuracy or count."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for entry in scores:
        found = {
            name.rpartition("/")[2]: float(result.value) for name, result in entry.metrics.items()
        }
        point = next((found[m] for m in POINT_METRICS if m in found), math.nan)
        out[(entry.scorer, entry.name)] = {**found, "point": point}
    return out


__all__ = ["POINT_METRICS", "result_values"]

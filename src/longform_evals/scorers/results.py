"""An Inspect log's results, read the one way every surface reads them.

Inspect computes each metric once, from the per-sample values, and records it in
``log.results.scores``: one entry per scorer value with Inspect's own metrics of it (``mean``,
``stderr``, ``accuracy``), and one entry per scorer with the package's figures under their own
names (``scored``, ``bacc_avg``, ``max_mean_bacc_avg``, ``precision``: see
`scorers/scorer_table.py`, which says why). :func:`result_values` gives every result by what it
is a figure of: the value (its key) and the metric, named as Inspect names a per-key metric less
the package prefix (``count`` of ``scored``, ``bacc_avg`` of ``max_mean``), the same for a log
written when the package's figures were per-key metrics (``longform_evals/count``). The
leaderboard and the lm-eval agreement test read those numbers through it instead of computing
them again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.log import EvalScore

from longform_evals.scorers.scorer_table import figure_address

POINT_METRICS = ("mean", "accuracy", "count")
"""A value's point result is the first of these its entry has."""


def result_values(scores: Sequence[EvalScore]) -> dict[tuple[str, str], dict[str, float]]:
    """Per (scorer, value key), its metrics' results by short name (``mean``, ``count``,
    ``bacc_avg``, ``agreement_card_precision``), plus ``point``: its mean, accuracy or
    count."""
    found: dict[tuple[str, str], dict[str, float]] = {}
    for entry in scores:
        for name, result in entry.metrics.items():
            key, metric = figure_address(entry.name, name, result)
            found.setdefault((entry.scorer, key), {})[metric] = float(result.value)
    return {
        address: {
            **results,
            "point": next((results[m] for m in POINT_METRICS if m in results), math.nan),
        }
        for address, results in found.items()
    }


__all__ = ["POINT_METRICS", "result_values"]

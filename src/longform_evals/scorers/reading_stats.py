"""A scorer that reports the reading solvers' cost and compression as metrics."""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.scorer_table import means

__all__ = ["READING_STATS", "reading_stats", "reading_stats_values"]

READING_STATS = (
    "compression_rate",
    "pages_looked_up",
    "words_consumed",
    "words_sent",
    "context_words_max",
    "lookup_fallbacks",
    "pagination_fallbacks",
)
"""Values reported per sample (``pages_looked_up`` as a count); each gets a ``mean``, a row of
the scorer's own entry of the results."""


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return float(len(value))
    return math.nan


def reading_stats_values(info: Any) -> dict[str, float]:
    """The numbers of ``metadata["reading"]`` (NaN for any that is missing)."""
    info = info if isinstance(info, dict) else {}
    return {key: _number(info.get(key)) for key in READING_STATS}


# Inspect's `mean` of each value, as the rows of the scorer's own entry of the results
# (`scorers/scorer_table.py`): seven entries of long names would not fit side by side.
@scorer(metrics=[means(list(READING_STATS))])
def reading_stats() -> Scorer:
    """Compression rate, pages looked up, words consumed and sent, and fallbacks of a reading
    solver, from ``metadata["reading"]``. Never fails a sample: missing numbers are NaN."""

    async def score(state: TaskState, target: Target) -> Score:
        info = state.metadata.get("reading")
        values = reading_stats_values(info)
        explanation = None if isinstance(info, dict) else "no metadata['reading'] to report"
        return Score(value=values, explanation=explanation)

    return unless_limited(score)

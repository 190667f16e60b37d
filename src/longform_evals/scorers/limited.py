"""The `limited` scorer: 1 for a sample stopped by an Inspect limit, so the results table
counts the stopped samples (every other scorer leaves them unscored, `limits.py`)."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from longform_evals.scorers.limits import (
    LIMIT_REASON,
    describe_limit,
    limit_stop,
    unless_limited,
    unscored_after_limit,
)

__all__ = ["LIMIT_REASON", "limit_stop", "limited", "unless_limited", "unscored_after_limit"]


@scorer(metrics={"limited": [mean()]})
def limited() -> Scorer:
    """1 for a sample stopped by a token, message, time, working-time or cost limit, else 0
    (the metric is the share of samples stopped)."""

    async def score(state: TaskState, target: Target) -> Score:
        event = limit_stop()
        if event is None:
            return Score(value={"limited": 0.0})
        return Score(
            value={"limited": 1.0},
            explanation=unscored_after_limit(event).explanation,
            metadata={"limit": describe_limit(event)},
        )

    return score

"""Samples stopped by an Inspect limit are reported as limited, not scored as finished.

With `--token-limit`, `--message-limit`, `--time-limit`, `--working-limit` or a cost limit,
Inspect stops a sample where it is and still scores its state. For a multi-step summarizer
that state is an unfinished summary (often none at all), so a score of it would be a score
of the limit, not of the strategy. Every scorer of the package therefore returns Inspect's
"unscored" sentinel for such a sample (kept in the log with the limit named, left out of
the metrics and counted in the scorer's `unscored_samples`), and the `limited` scorer counts
the stopped samples in the results table.
"""

from __future__ import annotations

from inspect_ai.event import SampleLimitEvent
from inspect_ai.log import transcript
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

LIMIT_REASON = "limit"
"""`Score.reason` of a sample stopped by a limit."""


def limit_stop() -> SampleLimitEvent | None:
    """The limit event that stopped the current sample, if one did."""
    for event in reversed(transcript().events):
        if isinstance(event, SampleLimitEvent):
            return event
    return None


def _describe(event: SampleLimitEvent) -> dict[str, object]:
    return {"type": event.type, "limit": event.limit, "message": event.message}


def unscored_after_limit(event: SampleLimitEvent) -> Score:
    """The score of a sample a limit stopped: unscored, with the limit named."""
    limit = "" if event.limit is None else f" ({event.limit:g})"
    return Score.unscored(
        reason=LIMIT_REASON,
        explanation=f"not scored: the sample was stopped by its {event.type} limit{limit}: "
        f"{event.message}",
        metadata={"limit": _describe(event)},
    )


def unless_limited(score: Scorer) -> Scorer:
    """Wrap a scorer's score function: a sample stopped by a limit is not scored."""

    async def checked(state: TaskState, target: Target) -> Score | None:
        event = limit_stop()
        if event is not None:
            return unscored_after_limit(event)
        return await score(state, target)

    return checked


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
            metadata={"limit": _describe(event)},
        )

    return score

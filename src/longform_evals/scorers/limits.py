"""Samples stopped by an Inspect limit are reported as limited, not scored as finished.

With `--token-limit`, `--message-limit`, `--time-limit`, `--working-limit` or a cost limit,
Inspect stops a sample where it is and still scores its state. For a multi-step summarizer
that state is an unfinished summary (often none at all), so a score of it would be a score
of the limit, not of the strategy. Every scorer of the package therefore wraps its score
function in :func:`unless_limited`: Inspect's "unscored" sentinel for such a sample (kept in
the log with the limit named, left out of the metrics and counted in the scorer's
`unscored_samples`). The `limited` scorer (`limited.py`) counts the stopped samples.
"""

from __future__ import annotations

from inspect_ai.event import SampleLimitEvent
from inspect_ai.log import transcript
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState

__all__ = ["LIMIT_REASON", "describe_limit", "limit_stop", "unless_limited", "unscored_after_limit"]

LIMIT_REASON = "limit"
"""`Score.reason` of a sample stopped by a limit."""


def limit_stop() -> SampleLimitEvent | None:
    """The limit event that stopped the current sample, if one did."""
    for event in reversed(transcript().events):
        if isinstance(event, SampleLimitEvent):
            return event
    return None


def describe_limit(event: SampleLimitEvent) -> dict[str, object]:
    return {"type": event.type, "limit": event.limit, "message": event.message}


def unscored_after_limit(event: SampleLimitEvent) -> Score:
    """The score of a sample a limit stopped: unscored, with the limit named."""
    limit = "" if event.limit is None else f" ({event.limit:g})"
    return Score.unscored(
        reason=LIMIT_REASON,
        explanation=f"not scored: the sample was stopped by its {event.type} limit{limit}: "
        f"{event.message}",
        metadata={"limit": describe_limit(event)},
    )


def unless_limited(score: Scorer) -> Scorer:
    """Wrap a scorer's score function: a sample stopped by a limit is not scored."""

    async def checked(state: TaskState, target: Target) -> Score | None:
        event = limit_stop()
        if event is not None:
            return unscored_after_limit(event)
        return await score(state, target)

    return checked

"""Length control: how close the completion's length is to a requested number of words.

The Length Adherence Rate (LAR) is the share of summaries whose length is within a tolerance
of the target: the mean of this scorer's ``within``. NexusSum (Kim et al., 2025) reports LAR
of about 0.99 for targets of 900 and 1,200 words without stating the tolerance; we use
±10 % of the target by default, and the tolerance is a parameter, so LAR figures are only
comparable at the same tolerance. Words are whitespace-separated tokens.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from longform_evals.scorers.limits import unless_limited

_KEYS = ("words", "length_ratio", "within")


def _positive(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        return None
    return float(value)


def length_control_values(text: str, target_words: float, tolerance: float) -> dict[str, float]:
    """Words of ``text``, their ratio to ``target_words``, and 1.0 if within the tolerance.

    ``within`` is 1.0 when ``|words - target| <= tolerance * target``, else 0.0.
    """
    n = len(text.split())
    return {
        "words": float(n),
        "length_ratio": n / target_words,
        "within": 1.0 if abs(n - target_words) <= tolerance * target_words else 0.0,
    }


@scorer(metrics={key: [mean()] for key in _KEYS})
def length_control(target_words: float | None = None, tolerance: float = 0.1) -> Scorer:
    """Length of the completion against a target number of words.

    Args:
        target_words: The requested length in words; None reads it per sample from
            ``metadata["target_words"]``.
        tolerance: Allowed relative deviation for ``within`` (0.1 = ±10 %).

    Returns:
        A scorer with values ``words``, ``length_ratio`` (words / target) and ``within``
        (0 or 1); the mean of ``within`` is the Length Adherence Rate.

    Raises:
        ValueError: If ``target_words`` is not positive or ``tolerance`` is negative; when
            scoring, if a sample has neither a parameter target nor a positive
            ``metadata["target_words"]``.
    """
    if target_words is not None and _positive(target_words) is None:
        raise ValueError(f"target_words must be a positive number, not {target_words!r}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
        raise ValueError(f"tolerance must be a non-negative number, not {tolerance!r}")

    async def score(state: TaskState, target: Target) -> Score:
        goal = _positive(target_words) if target_words is not None else None
        source = "parameter"
        if goal is None:
            raw = state.metadata.get("target_words")
            goal = _positive(raw)
            source = "metadata"
            if goal is None:
                raise ValueError(
                    f"sample {state.sample_id!r}: no target length; pass target_words= to "
                    f"length_control or set metadata['target_words'] (got {raw!r})"
                )
        completion = state.output.completion if state.output else ""
        values = length_control_values(completion, goal, float(tolerance))
        return Score(
            value=dict(values),
            answer=completion,
            explanation=f"{values['words']:.0f} words for a target of {goal:g} "
            f"(ratio {values['length_ratio']:.2f}, tolerance ±{tolerance:.0%})",
            metadata={"target_words": goal, "tolerance": float(tolerance), "target_from": source},
        )

    return unless_limited(score)

"""Summaries (or answers) without words: not judged, NaN with a counted reason.

A text is unscorable when it is blank (`empty_summary`) or when none of its sentences holds a
word, i.e. a letter or digit in any script (`no_sentences`: "...", "!!! ???"). Judging such
fragments would score punctuation ("... !!! ???" was a BooookScore of 100), so the scorers give
their headline values NaN, name the reason in `Score.metadata["unscorable"]`, and add to the
value dict `empty_summary` and `no_sentences` (0/1) and `scored` (1 when the headline value is
a number), each counted in the scorer's own entry of the results (`counts` of
`longform_evals.scorers.scorer_table`: `scored` 12, `empty_summary` 0), so the results table
says how many samples a mean is over. Wordless fragments of an otherwise worded text ("He left.
!!!") are not judged either; they are listed in `Score.metadata["wordless_fragments"]`.

Judged scorers (`check_text(..., judged=True)`) also look for text addressed to the judge in
the sentences they will judge (`longform_evals.judges.injection`): the cues go to
`Score.metadata["injection_suspect"]` and the value `injection_suspect` (0/1, counted beside
the others) counts the samples; the verdicts are not changed by it. A judged text whose judging
would pass a work limit (too many sentences, judge calls or judged characters:
`longform_evals.text.work_limits`) is not judged either: its headline values are NaN, the value
`over_limit` (0/1, counted too) counts it and `Score.metadata["over_limit"]` holds the line
naming the limit and the variable that raises it.

Inspect 0.3.285 already leaves NaN values out of a dict-valued scorer's per-key metrics (and
out of its epoch reducers), so the headline `mean` / `stderr` stay Inspect's own; its `mean()`
called on NaN values is NaN, though. `nan_mean` and `nan_stderr` are NaN-aware versions for
places that hand a metric NaN values themselves.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float

from longform_evals.judges.text_check import (
    INJECTION_SUSPECT,
    OVER_LIMIT,
    READING_DECIDED,
    REASONS,
    SCORED,
)
from longform_evals.scorers.scorer_table import counts


def _numbers(scores: list[SampleScore]) -> npt.NDArray[np.float64]:
    to_float = value_to_float()
    values = np.array([to_float(s.score.value) for s in scores], dtype=np.float64)
    numbers: npt.NDArray[np.float64] = values[~np.isnan(values)]
    return numbers


@metric
def nan_mean() -> Metric:
    """Mean of the values that are numbers (NaN ones left out); NaN when none is."""

    def compute(scores: list[SampleScore]) -> float:
        values = _numbers(scores)
        return float(np.mean(values)) if values.size else math.nan

    return compute


@metric
def nan_stderr() -> Metric:
    """Standard error of `nan_mean`; 0 below two numbers, as Inspect's `stderr`."""

    def compute(scores: list[SampleScore]) -> float:
        values = _numbers(scores)
        if values.size < 2:
            return 0.0
        return float(np.std(values, ddof=1) / np.sqrt(values.size))

    return compute


def unscorable_keys(judged: bool = False) -> tuple[str, ...]:
    """The values a scorer counts: `empty_summary`, `no_sentences` and `scored` (and
    `injection_suspect` and `over_limit` for a judged scorer)."""
    return (*REASONS, SCORED, *((INJECTION_SUSPECT, OVER_LIMIT) if judged else ()))


def reading_metrics() -> list[Metric]:
    """The count of :data:`~longform_evals.judges.text_check.READING_DECIDED`, the sentences
    whose score a reading decided (summed over samples), for the scorers that judge readings."""
    return [counts([READING_DECIDED])]


def unscorable_metrics(judged: bool = False) -> list[Metric]:
    """The counts of :func:`unscorable_keys`, a metric of the scorer's own entry (list it before
    the per-key metrics: `@scorer(metrics=[*unscorable_metrics(), {...}])`)."""
    return [counts(list(unscorable_keys(judged)))]

"""Summary statistics of BooookScore's Table 2: length, novel trigrams, repeated trigrams."""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.scorer_table import means
from longform_evals.text import count_tokens, novel_trigram_pct, repeated_trigram_pct, words

_KEYS = ("summary_tokens", "summary_words", "novel_trigrams_pct", "repeated_trigrams_pct")


def summary_statistics_values(summary: str, source: str | None) -> dict[str, float]:
    """Length in cl100k tokens and words; % novel trigrams vs the source (NaN without one);
    % repeated trigrams within the summary."""
    return {
        "summary_tokens": float(count_tokens(summary)),
        "summary_words": float(len(words(summary))),
        "novel_trigrams_pct": novel_trigram_pct(summary, source) if source else math.nan,
        "repeated_trigrams_pct": repeated_trigram_pct(summary),
    }


# Inspect's `mean` of each value, as the rows of the scorer's own entry of the results
# (`scorers/scorer_table.py`): four entries of one long name each would not fit side by side.
@scorer(metrics=[means(list(_KEYS))])
def summary_statistics() -> Scorer:
    """Length and trigram statistics of the completion; the source is `metadata["document"]`."""

    async def score(state: TaskState, target: Target) -> Score:
        summary = state.output.completion if state.output else ""
        source = state.metadata.get("document")
        return Score(
            value=summary_statistics_values(summary, source if isinstance(source, str) else None),
            answer=summary,
        )

    return unless_limited(score)

"""lm-eval task hooks of the longform tasks (the YAML files name these with `!function`).

LongFormFact's per-value metrics (``max_min_bacc``, ``full_mean_auc``, ...) are looked up by
name: each is the task's own bacc/auc metric of that value (`judge_aggregation`).
"""

from collections.abc import Callable, Sequence

from longform_evals.lmeval.hooks import (
    auc,
    bacc,
    inspect_accuracy,
    inspect_count,
    inspect_mean,
    judge_aggregation,
    load,
    nanmean,
    prescore,
    process_results,
)


def __getattr__(name: str) -> Callable[[Sequence[str]], float]:
    return judge_aggregation(name)


__all__ = [
    "auc",
    "bacc",
    "inspect_accuracy",
    "inspect_count",
    "inspect_mean",
    "load",
    "nanmean",
    "prescore",
    "process_results",
]

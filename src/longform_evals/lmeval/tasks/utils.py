"""lm-eval task hooks of the longform tasks (the YAML files name these with `!function`).

Every name is looked up in :mod:`longform_evals.lmeval.hooks`, so its ``__all__`` is the one
list of hooks. LongFormFact's per-value metrics (``max_min_bacc``, ``full_mean_auc``, ...) are
looked up by name too: each is the task's own bacc/auc metric of that value
(`judge_aggregation`).
"""

from collections.abc import Callable
from typing import Any

from longform_evals.lmeval import hooks

__all__ = hooks.__all__


def __getattr__(name: str) -> Callable[..., Any]:
    if name in hooks.__all__:
        hook: Callable[..., Any] = getattr(hooks, name)
        return hook
    return hooks.judge_aggregation(name)

"""Inspect's cache for the calls of multi-step solvers, on by default.

A book summarized by hierarchical merging takes dozens of calls; when the run dies half-way
(a kill, a provider outage, a sample error), a rerun or `inspect eval-retry` restarts the
sample from scratch. With every finished call in Inspect's cache, the restarted sample reads
the calls it already made and repeats no finished step.

The cache key is Inspect's (model, generation settings including any seed, the full prompt,
which holds the step's inputs) plus the model's identity (see
:mod:`longform_evals.models.identity`), the sample id, the epoch (each epoch samples anew) and
the try number (a retry with the same prompt must not get the rejected answer back).
"""

from __future__ import annotations

from inspect_ai.model import CachePolicy, Model
from inspect_ai.solver import TaskState

from longform_evals.models.calls import CacheChoice


def step_key(state: TaskState, enabled: bool, attempt: int = 0) -> CacheChoice:
    """The cache choice of one call of a multi-step solver: the sample and the try in the key
    (the call path adds the model's identity)."""
    return CacheChoice(enabled, {"sample": str(state.sample_id), "attempt": str(attempt)})


def step_cache(
    state: TaskState, model: Model, enabled: bool, attempt: int = 0
) -> CachePolicy | bool:
    """The cache policy of one call of a multi-step solver (False when caching is off)."""
    return step_key(state, enabled, attempt).policy(model)

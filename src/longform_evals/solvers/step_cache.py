"""Inspect's cache for the calls of multi-step solvers, on by default.

A book summarized by hierarchical merging takes dozens of calls; when the run dies half-way
(a kill, a provider outage, a sample error), a rerun or `inspect eval-retry` restarts the
sample from scratch. With every finished call in Inspect's cache, the restarted sample reads
the calls it already made and repeats no finished step.

The cache key is Inspect's (model, generation settings including any seed, the full prompt,
which holds the step's inputs) plus the sample id, the epoch (each epoch samples anew), the
try number (a retry with the same prompt must not get the rejected answer back) and the
model's arguments (`-M path=...` can make one model name two different models).
"""

from __future__ import annotations

import hashlib
import json

from inspect_ai.model import CachePolicy, Model
from inspect_ai.solver import TaskState


def model_args_fingerprint(model: Model) -> str:
    """A short digest of the model's `-M` arguments ('' when it has none)."""
    if not model.model_args:
        return ""
    text = json.dumps(model.model_args, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def step_cache(
    state: TaskState, model: Model, enabled: bool, attempt: int = 0
) -> CachePolicy | bool:
    """The cache policy of one call of a multi-step solver (False when caching is off)."""
    if not enabled:
        return False
    scopes = {"sample": str(state.sample_id), "attempt": str(attempt)}
    if fingerprint := model_args_fingerprint(model):
        scopes["model_args"] = fingerprint
    return CachePolicy(expiry=None, per_epoch=True, scopes=scopes)

"""Rough calls and tokens of a task variant, for ``longform run --dry-run``: each sample
estimated by the function its task card names (`tasks/costs.py`, where the figures are
explained)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.tasks.cards import task_card
from longform_evals.tasks.costs import Cost

__all__ = ["Cost", "sample_cost", "variant_cost"]


def sample_cost(
    task: str, args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """Estimated cost of one sample of ``task`` with ``args``, judged by ``judge``; an
    argument left unset is what the run would use (`TaskCard.completed`: the task's default,
    or the strategy's own)."""
    card = task_card(task)
    return card.cost(card.completed(args), sample, per_doc, judge)


def variant_cost(
    task: str, args: Mapping[str, Any], samples: Sequence[Sample], judge: str | None = None
) -> Cost:
    """Estimated total cost of ``samples`` of one task variant (one model, one epoch)."""
    per_doc = Counter(str((s.metadata or {}).get("doc_id", s.id)) for s in samples)
    total = Cost()
    for s in samples:
        key = str((s.metadata or {}).get("doc_id", s.id))
        total += sample_cost(task, args, s, per_doc[key], judge)
    return total

"""A sample's reference texts, the helper every scorer against references shares (ROUGE,
BERTScore, the LLM raters): no scorer imports another scorer's module for it."""

from __future__ import annotations

from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

__all__ = ["reference_texts"]


def reference_texts(state: TaskState, target: Target) -> list[str]:
    """The reference texts of a sample: its `target` (a string or a list), or, when the target
    is empty, `metadata["references"]`.

    Raises:
        ValueError: naming the sample when there is no reference, or a reference is blank or
            not text.
    """
    refs: object = list(target)
    if not any(isinstance(r, str) and r.strip() for r in target):
        refs = state.metadata.get("references")
    if not isinstance(refs, list) or not refs:
        raise ValueError(
            f"sample {state.sample_id!r} has no reference texts: give them as the sample's "
            "target (a string or a list of strings) or as metadata['references']"
        )
    bad = [i for i, r in enumerate(refs) if not isinstance(r, str) or not r.strip()]
    if bad:
        raise ValueError(f"sample {state.sample_id!r}: references {bad} are blank or not text")
    return [str(r) for r in refs]

"""The step kind of every judge call, registered where the judges are defined.

Every judge of a scorer (the coherence judge and probes, the faithfulness judge, MiniCheck-7B,
the LLM raters) tallies its calls' tokens under :data:`JUDGE`
(:mod:`longform_evals.models.step_usage`), and is registered as a judgement, so the call path
checks that its settings reach the provider.
"""

from __future__ import annotations

from typing import Final

from longform_evals.models.step_usage import register_step_kind

__all__ = ["JUDGE"]

JUDGE: Final = register_step_kind(
    "judge",
    "every judge call of a scorer (the coherence judge and probes, the faithfulness judge, "
    "MiniCheck-7B, the LLM raters; the local MiniCheck classifiers make no model call)",
    judgement=True,
)

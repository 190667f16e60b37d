"""The model a judged scorer asks, chosen as Inspect's own model-graded scorers choose it.

Every judged scorer takes ``model`` and ``model_role`` like Inspect's ``model_graded_qa``: a
model given by name (or as a ``Model``) is the judge; otherwise the model bound to
``model_role`` (``grader`` by default) is, and where that role is unbound Inspect falls back to
the evaluated model. So one evaluation can judge coherence with one model and faithfulness
with another (``booookscore(model="openai/gpt-4o")``, ``faithfulness(model_role="verifier")``).
"""

from __future__ import annotations

from inspect_ai.model import Model, get_model

GRADER_ROLE = "grader"
"""The default role of every judge of the suite (``--model-role grader=...``)."""


def grader_model(model: str | Model | None = None, model_role: str | None = GRADER_ROLE) -> Model:
    """The judge: ``model`` when given, else the model bound to ``model_role``."""
    if isinstance(model, Model):
        return model
    if model:
        return get_model(model)
    return get_model(role=model_role) if model_role else get_model()

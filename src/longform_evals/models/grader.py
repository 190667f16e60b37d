# inspect-evals-lint: ignore-file[IEBP001] -- called inside the judged scorers, at run time
# inspect-evals-lint: ignore-file[IEBP002] -- an unbound role runs self_judged, with a warning
"""The model a judged scorer asks, chosen as Inspect's own model-graded scorers choose it.

Every judged scorer takes ``model`` and ``model_role`` like Inspect's ``model_graded_qa``: a
model given by name (or as a ``Model``) is the judge; otherwise the model bound to
``model_role`` (``grader`` by default) is, and where that role is unbound Inspect falls back to
the evaluated model. So one evaluation can judge coherence with one model and faithfulness
with another (``booookscore(model="openai/gpt-4o")``, ``faithfulness(model_role="verifier")``).
"""

from __future__ import annotations

import logging

from inspect_ai.model import Model, get_model

from longform_evals.inspect_private import with_role

logger = logging.getLogger(__name__)

GRADER_ROLE = "grader"
"""The default role of every judge of the suite (``--model-role grader=...``)."""


def grader_model(model: str | Model | None = None, model_role: str | None = GRADER_ROLE) -> Model:
    """The judge: ``model`` when given, else the model bound to ``model_role``.

    The judge's calls are always logged under a role (``model_role``, or ``grader``), also
    where it falls back to the evaluated model: Inspect rebuilds an interrupted sample's output
    from the last call of the role of its first call, which without a role of its own would be
    the judge's last answer instead of the summary.
    """
    role = model_role or GRADER_ROLE
    if isinstance(model, Model):
        return with_role(model, role)
    if model:
        return with_role(get_model(model), role)
    judge = get_model(role=model_role) if model_role else get_model()
    return with_role(judge, role)


_warned: set[str] = set()


def self_judged(judge: Model | str, producer: str | None) -> bool:
    """Whether ``judge`` (a model, or its name) is judging its own output: it is the model
    under evaluation (the sample's active model) and that model wrote the output
    (``producer``, the output's `model`; a given summary, `given`, was written by none).

    Where it is, a warning goes to the log (once per judge and process; every score records
    `self_judged`): with no `grader` role bound, Inspect lets the evaluated model judge
    itself, which flatters it.
    """
    if not producer or producer in {"given", "lm-eval"}:
        return False
    try:
        evaluated = get_model()
    except Exception:  # no active model outside an eval: nothing is being evaluated
        return False
    if str(judge) != str(evaluated):
        return False
    if str(judge) not in _warned:
        _warned.add(str(judge))
        logger.warning(
            "the judge %s is the model under evaluation and judges its own output; bind "
            "another judge with --model-role %s=<model> (scores say self_judged)",
            judge,
            GRADER_ROLE,
        )
    return True

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
import threading

from inspect_ai.model import Model, get_model, model_roles

from longform_evals.inspect_private import with_role

logger = logging.getLogger(__name__)

GRADER_ROLE = "grader"
"""The default role of every judge of the suite (``--model-role grader=...``)."""


def grader_model(model: str | Model | None = None, model_role: str | None = GRADER_ROLE) -> Model:
    """The judge: ``model`` when given, else the model bound to ``model_role``.

    The judge's calls are always logged under a role (``model_role``, or ``grader``), also
    where it falls back to the evaluated model: Inspect rebuilds an interrupted sample's output
    from the last call of the role of its first call, which without a role of its own would be
    the judge's last answer instead of the summary. A fallback is noted
    (:func:`self_judged` warns of it; a judge the user named or bound is their choice).
    """
    role = model_role or GRADER_ROLE
    if isinstance(model, Model):
        return with_role(model, role)
    if model:
        return with_role(get_model(model), role)
    if model_role and model_role in model_roles():
        return with_role(get_model(role=model_role), role)
    judge = with_role(get_model(), role)  # the evaluated model, the role being unbound
    with _LOCK:
        _fell_back[str(judge)] = model_role
    return judge


_LOCK = threading.Lock()
_fell_back: dict[str, str | None] = {}
"""Judges :func:`grader_model` took for want of a bound role, by name, with that role (None:
the scorer asked for no role)."""
_warned: set[str] = set()


def fallbacks_noted() -> bool:
    """Whether any judge was taken for want of a bound role since the fallbacks were last
    forgotten."""
    with _LOCK:
        return bool(_fell_back)


def forget_fallbacks() -> None:
    """Forget which judges fell back (a new run in the same process)."""
    with _LOCK:
        _fell_back.clear()


def self_judged(judge: Model | str, producer: str | None) -> bool:
    """Whether ``judge`` (a model, or its name) is judging its own output: it is the model
    under evaluation (the sample's active model) and that model wrote the output
    (``producer``, the output's `model`; a given summary, `given`, was written by none).

    Every score records it. Where the judge is the evaluated model only because the judge's
    role was left unbound (Inspect then lets the evaluated model judge), a warning goes to the
    log, once per judge and process, naming the role to bind: a judge judging itself flatters
    itself. A judge the user chose (bound to the role, or given to the scorer by name) is
    their decision, and said nothing of.
    """
    if not producer or producer in {"given", "lm-eval"}:
        return False
    try:
        evaluated = get_model()
    except Exception:  # no active model outside an eval: nothing is being evaluated
        return False
    name = str(judge)
    if name != str(evaluated):
        return False
    chosen = isinstance(judge, Model) and judge.role is not None and judge.role in model_roles()
    with _LOCK:
        fell_back = not chosen and name in _fell_back
        role = _fell_back.get(name)
        warn = fell_back and name not in _warned
        if warn:
            _warned.add(name)
    if warn:
        fix = (
            f"bind another judge with --model-role {role}=<model>"
            if role
            else "give the scorer another judge (model=...)"
        )
        logger.warning(
            "the judge %s is the model under evaluation and judges its own output, since no "
            "judge was bound to its role; %s (scores say self_judged)",
            judge,
            fix,
        )
    return True

"""The one call path of the suite: every model call of a strategy or a judge goes through
:func:`generate`.

A call's bookkeeping is the same everywhere: Inspect's cache keyed by the model's identity and
the caller's scopes (:func:`~longform_evals.models.identity.cache_policy`), the output's tokens
tallied under the call's step kind (:mod:`~longform_evals.models.step_usage`), the progress
board advanced (:mod:`longform_evals.progress`), and, for a call that asks for
log-probabilities, a provider's refusal turned into one error naming the fix
(:mod:`~longform_evals.models.logprobs`). A judge's call (a step kind registered as a
judgement) is also checked against what reached its provider
(:mod:`~longform_evals.models.judge_requests`), and its failure is one short error naming the
judge (:mod:`~longform_evals.models.judge_errors`). Here it is written once, so a new strategy
or judge cannot forget a part of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field

from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model, ModelOutput

from longform_evals.models.identity import cache_policy
from longform_evals.models.judge_errors import call_error
from longform_evals.models.judge_requests import check_judge_request, watched
from longform_evals.models.logprobs import note_missing_logprobs, refusal
from longform_evals.models.spend_gate import BudgetExhausted, reserved
from longform_evals.models.step_usage import (
    StepKind,
    check_step_kind,
    is_judgement,
    record_step_usage,
)
from longform_evals.progress import BOARD

__all__ = ["CacheChoice", "generate"]


@dataclass(frozen=True)
class CacheChoice:
    """Whether a call uses Inspect's cache, and what its key adds to the model's identity
    (a multi-step solver's sample and try, :mod:`~longform_evals.solvers.common.step_cache`)."""

    enabled: bool = True
    scopes: Mapping[str, str] = field(default_factory=dict)

    def policy(self, model: Model) -> CachePolicy | bool:
        """Inspect's cache policy for a call to `model` (False when caching is off)."""
        return cache_policy(model, self.enabled, **self.scopes)


async def generate(
    model: Model,
    input: str | list[ChatMessage],
    config: GenerateConfig,
    *,
    step: StepKind,
    cache: CacheChoice | bool,
    progress: str | None = None,
) -> ModelOutput:
    """`model.generate` with the suite's bookkeeping (module docstring).

    Args:
        model: The model to call.
        input: The prompt or the conversation.
        config: The generation settings; with ``logprobs`` set the call asks for
            log-probabilities.
        step: The registered step kind the call's tokens are tallied under.
        cache: Whether the call is cached (a bare flag adds no scopes to the key).
        progress: The progress phase whose done count the call advances (the caller plans
            it); None for calls the board does not count.

    Raises:
        ValueError: If ``step`` is not registered (before any call is made).
        LogprobsRefusedError: If the provider refused the request for log-probabilities; the
            message names the fix.
        JudgeCallError: If a judge's call failed otherwise (its message names the judge and
            the gist of the provider's error; a limit and the package's own providers'
            errors are raised unchanged).
        JudgeSettingsError: If a judge's provider sent a request without the temperature,
            token cap or log-probabilities of ``config``.
        BudgetExhausted: If a plan's budget has no room for the call (``longform run``); the
            call is not made.
    """
    check_step_kind(step)
    judgement = is_judgement(step)
    choice = cache if isinstance(cache, CacheChoice) else CacheChoice(cache)
    try:
        with watched(model, config) if judgement else nullcontext():
            async with reserved(model, input, config):  # a plan's budget, when one runs
                output = await model.generate(input, config=config, cache=choice.policy(model))
    except BudgetExhausted:
        raise
    except Exception as exc:
        refused = refusal(model, exc) if config.logprobs else None
        explained = refused or (call_error(model, exc) if judgement else None)
        if explained is None:
            raise
        raise explained from exc
    if judgement:
        check_judge_request(model, config, output)
    if config.logprobs:
        note_missing_logprobs(model, output)
    record_step_usage(step, output)
    if progress is not None:
        BOARD.done(progress)
    return output

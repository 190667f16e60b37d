"""What the call path does when a call asks for log-probabilities and does not get them.

A provider that refuses them (OpenAI's Responses API in front of a llama.cpp server answers
HTTP 400) would fail every call of a run, one sample at a time: the refusal becomes one
:class:`LogprobsRefusedError` naming the fix (a :class:`JudgeCallError`, short as every
judge's failure is). A provider that answers but drops them is announced once, since a judge's
yes/no answers are then read from their words.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, Model, ModelOutput

from longform_evals.models.announce import announce
from longform_evals.models.judge_errors import (
    SERVED_MODELS_DOC,
    SERVER_FIX,
    JudgeCallError,
    error_gist,
)

__all__ = [
    "SERVED_MODELS_DOC",
    "LogprobsRefusedError",
    "has_logprobs",
    "logprobs_missing",
    "note_missing_logprobs",
    "refusal",
    "refusal_advice",
]


class LogprobsRefusedError(JudgeCallError):
    """The judge's provider refused a request for log-probabilities."""


def has_logprobs(output: ModelOutput) -> bool:
    """Whether the provider returned log-probabilities for the answer."""
    logprobs = output.choices[0].logprobs if output.choices else None
    return bool(logprobs and logprobs.content)


def refusal_advice(model: str) -> str:
    """How to get log-probabilities from `model`'s provider."""
    # Not `-M responses_api=false`: for a model name Inspect does not know, its chat
    # completions drop the judge's temperature (docs/running.md).
    if model.startswith("openai/"):
        return (
            "Inspect's `openai` provider sends the Responses API, which OpenAI-compatible "
            "servers (llama.cpp, vLLM, TGI) do not support with log-probabilities: "
            f"{SERVER_FIX}"
        )
    return (
        "use a provider that returns log-probabilities for chat completions (for a server, "
        f"{SERVER_FIX}), or a judge mode that reads words (coherence: "
        "`-T judge_mode=sentence`)"
    )


def refusal(model: Model, exc: Exception) -> LogprobsRefusedError | None:
    """The error to raise instead of `exc` when it is the provider refusing a request for
    log-probabilities; None for any other error (raise it unchanged)."""
    if "logprob" not in str(exc).lower():
        return None
    return LogprobsRefusedError(
        f"the judge {model} refused a request for log-probabilities "
        f"({error_gist(exc, about='logprob')}). "
        f"{refusal_advice(str(model))} ({SERVED_MODELS_DOC})."
    )


def note_missing_logprobs(model: Model, output: ModelOutput) -> None:
    """Announce, once per model, an answer without the log-probabilities it was asked for."""
    if output.completion and not has_logprobs(output):
        announce(
            ("no logprobs", str(model)),
            f"the judge {model} returned no log-probabilities although they were asked "
            "for: its yes/no answers are read from their words instead (P(yes) 0 or 1, so "
            f"calibrated thresholds act on words). {refusal_advice(str(model))} "
            f"({SERVED_MODELS_DOC}).",
        )


_ANSWERED: dict[str, str | None] = {}
"""What :func:`logprobs_missing` found per judge (and base URL) in this process."""
_ASK = "Is the sky blue on a clear day? Answer yes or no."


async def logprobs_missing(model: Model) -> str | None:
    """Why ``model``'s provider gives no log-probabilities (None when it gives them), found by
    one call of a single token asking for them (through Inspect's model API, so the call is
    in the log), once per model and process. A provider that refuses the request counts as
    giving none; any other error is raised."""
    key = f"{model}@{model.api.base_url or ''}"
    if key not in _ANSWERED:
        config = GenerateConfig(temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=2)
        try:
            output = await model.generate(_ASK, config=config)
        except Exception as exc:
            refused = refusal(model, exc)
            if refused is None:
                raise
            _ANSWERED[key] = f"its provider refused a request for them ({error_gist(exc)})"
        else:
            _ANSWERED[key] = None if has_logprobs(output) else "its provider answered without them"
    return _ANSWERED[key]

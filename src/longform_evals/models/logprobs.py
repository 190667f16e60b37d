"""What the call path does when a call asks for log-probabilities and does not get them.

A provider that refuses them (OpenAI's Responses API in front of a llama.cpp server answers
HTTP 400) would fail every call of a run, one sample at a time: the refusal becomes one
:class:`LogprobsRefusedError` naming the fix. A provider that answers but drops them is
announced once, since a judge's yes/no answers are then read from their words.
"""

from __future__ import annotations

from inspect_ai.model import Model, ModelOutput

from longform_evals.models.announce import announce

__all__ = [
    "SERVED_MODELS_DOC",
    "LogprobsRefusedError",
    "has_logprobs",
    "note_missing_logprobs",
    "refusal",
    "refusal_advice",
]

SERVED_MODELS_DOC = "docs/running.md#served-and-api-models"


class LogprobsRefusedError(RuntimeError):
    """The judge's provider refused a request for log-probabilities."""


def has_logprobs(output: ModelOutput) -> bool:
    """Whether the provider returned log-probabilities for the answer."""
    logprobs = output.choices[0].logprobs if output.choices else None
    return bool(logprobs and logprobs.content)


def refusal_advice(model: str) -> str:
    """How to get log-probabilities from `model`'s provider."""
    if model.startswith("openai/"):
        return (
            "Inspect's `openai` provider sends the Responses API, which OpenAI-compatible "
            "servers (llama.cpp, vLLM, TGI) do not support with log-probabilities: add "
            "`-M responses_api=false` (for a role: `--model-role "
            "'grader={model: ..., model_args: {responses_api: false}}'`), or name the "
            "server's model as `openai-api/<service>/<model>` with <SERVICE>_BASE_URL set"
        )
    return (
        "use a provider that returns log-probabilities for chat completions (for a server: "
        "`openai-api/<service>/<model>`), or a judge mode that reads words (coherence: "
        "`-T judge_mode=sentence`)"
    )


def _gist(exc: Exception) -> str:
    """The line of a provider's error that says what was wrong (its text may hold the whole
    request)."""
    lines = [line.strip() for line in str(exc).splitlines() if "logprob" in line.lower()]
    gist = lines[-1] if lines else str(exc).strip()
    return f"{type(exc).__name__}: {gist[:300]}"


def refusal(model: Model, exc: Exception) -> LogprobsRefusedError | None:
    """The error to raise instead of `exc` when it is the provider refusing a request for
    log-probabilities; None for any other error (raise it unchanged)."""
    if "logprob" not in str(exc).lower():
        return None
    return LogprobsRefusedError(
        f"the judge {model} refused a request for log-probabilities ({_gist(exc)}). "
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

"""What a run says aloud about its judge while it runs, besides what the log's metadata holds.

A judge that runs without a calibration, that returns no log-probabilities when asked for them,
or whose answers go unread more than :data:`UNREADABLE_SHARE` of the time is announced with a
warning line, once per run and judge: Inspect shows warnings in its display (also with
`--display plain` and in CI) and keeps them in the log. A judge whose provider refuses
log-probabilities stops the run with one error naming the fix
(:class:`LogprobsRefusedError`), instead of one failed call per sample.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model, ModelOutput

from longform_evals.judges.yes_no import has_logprobs

__all__ = [
    "UNREADABLE_SHARE",
    "LogprobsRefusedError",
    "announce",
    "generate_with_logprobs",
    "note_readings",
]

logger = logging.getLogger(__name__)

UNREADABLE_SHARE = 0.10
"""Above this share of unreadable answers a judge is announced."""
MIN_READINGS = 20
"""Readings before the share is trusted (two unreadable answers of five say little)."""
SERVED_MODELS_DOC = "docs/running.md#served-and-api-models"

_LOCK = threading.Lock()
_ANNOUNCED: set[tuple[str, ...]] = set()


@dataclass
class _Tally:
    read: int = 0
    unread: int = 0


_TALLIES: dict[tuple[str, str], _Tally] = {}


def announce(key: tuple[str, ...], message: str) -> bool:
    """Log `message` as a warning the first time `key` is seen in this process; True if it
    was logged now."""
    with _LOCK:
        if key in _ANNOUNCED:
            return False
        _ANNOUNCED.add(key)
    logger.warning(message)
    return True


def note_readings(judge: str, kind: str, read: int, unread: int) -> None:
    """Add a sample's readable and unreadable judge answers to the run's tally for `judge`
    and `kind` (coherence, faithfulness, raters), and announce the judge once the share of
    unreadable ones passes :data:`UNREADABLE_SHARE` over at least :data:`MIN_READINGS`."""
    with _LOCK:
        tally = _TALLIES.setdefault((judge, kind), _Tally())
        tally.read += read
        tally.unread += unread
        total = tally.read + tally.unread
        share = tally.unread / total if total else 0.0
        unread_now = tally.unread
    if total >= MIN_READINGS and share > UNREADABLE_SHARE:
        announce(
            ("unreadable", judge, kind),
            f"{kind} judge {judge}: {unread_now} of {total} answers unreadable so far "
            f"({share:.0%}, above {UNREADABLE_SHARE:.0%}); they are left out of the scores and "
            "counted in each score's metadata. A judge that cannot keep the answer format "
            "needs another mode or a stronger model (docs/judges.md).",
        )


def announce_uncalibrated(judge: str, kind: str, source: str) -> None:
    """Warn once that `judge` runs `kind` judgements on default thresholds."""
    announce(
        ("uncalibrated", judge, kind),
        f"{kind} judge {judge} has no calibration ({source}): its thresholds are defaults, "
        "not fitted to this model, so its flags may mean little. Calibrate it "
        "(docs/judges.md) or pass a calibration file; a model served by `longform serve` "
        "under a packaged model's name uses that model's calibration.",
    )


class LogprobsRefusedError(RuntimeError):
    """The judge's provider refused a request for log-probabilities."""


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


async def generate_with_logprobs(
    model: Model,
    input: str | list[ChatMessage],
    config: GenerateConfig,
    cache: bool | CachePolicy,
) -> ModelOutput:
    """`model.generate` for a call that asks for log-probabilities.

    Raises:
        LogprobsRefusedError: the provider refused the request because of them; the message
            names the fix.
    """
    try:
        output = await model.generate(input, config=config, cache=cache)
    except Exception as exc:
        if "logprob" not in str(exc).lower():
            raise
        raise LogprobsRefusedError(
            f"the judge {model} refused a request for log-probabilities ({_gist(exc)}). "
            f"{refusal_advice(str(model))} ({SERVED_MODELS_DOC})."
        ) from exc
    if config.logprobs and output.completion and not has_logprobs(output):
        announce(
            ("no logprobs", str(model)),
            f"the judge {model} returned no log-probabilities although they were asked "
            "for: its yes/no answers are read from their words instead (P(yes) 0 or 1, so "
            f"calibrated thresholds act on words). {refusal_advice(str(model))} "
            f"({SERVED_MODELS_DOC}).",
        )
    return output

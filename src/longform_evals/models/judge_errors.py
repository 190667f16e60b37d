"""Short errors for a judge whose call fails or whose settings do not reach its provider.

A provider's error can hold the whole request (Inspect's `ModelGenerateError` carries up to
200 lines of it), and a judge makes hundreds of calls: what stops a run says one short thing,
which judge, the gist of what went wrong and, where the suite knows it, the fix. The
provider's own error stays chained (``raise ... from``) for the traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from inspect_ai.util import LimitExceededError

from longform_evals.models.request_settings import MissedSetting

__all__ = [
    "SERVED_MODELS_DOC",
    "SERVER_FIX",
    "JudgeCallError",
    "JudgeSettingsError",
    "call_error",
    "error_gist",
    "settings_error",
]

SERVED_MODELS_DOC: Final = "docs/running.md#served-and-api-models"
SERVER_FIX: Final = (
    "name the server's model `openai-api/<service>/<model>` with <SERVICE>_BASE_URL set"
)
"""How to reach an OpenAI-compatible server (llama.cpp, vLLM, TGI) so a judge gets what it
asks for."""

_GIST_CHARS: Final = 300


class JudgeCallError(RuntimeError):
    """A judge's call failed; the message names the judge and the gist of the error."""


class JudgeSettingsError(RuntimeError):
    """The request a judge's provider sent left out settings the judge was called with."""


def error_gist(exc: BaseException, about: str | None = None) -> str:
    """The error's type and the line that says what was wrong, at most a few hundred
    characters (a provider's error text may hold the whole request).

    Args:
        exc: The error.
        about: A word the telling line holds (lowercase); else the last line is taken.
    """
    text = getattr(exc, "provider_message", None)
    cause = exc.__cause__ if text and exc.__cause__ is not None else exc
    if not isinstance(text, str) or not text.strip():
        text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    telling = [line for line in lines if about in line.lower()] if about else []
    gist = (telling or lines or [""])[-1]
    if len(gist) > _GIST_CHARS:
        gist = gist[: _GIST_CHARS - 3] + "..."
    return f"{type(cause).__name__}: {gist}"


def call_error(model: object, exc: Exception) -> JudgeCallError | None:
    """The short error to raise instead of `exc`, out of a call of the judge `model`; None to
    raise `exc` unchanged: an Inspect limit (the sample is stopped, not failed) or an error of
    this package's own providers (a replay miss, a scripted model without a rule), whose
    message already names the model and the fix."""
    if isinstance(exc, LimitExceededError) or type(exc).__module__.startswith("longform_evals."):
        return None
    return JudgeCallError(f"the judge {model} failed: {error_gist(exc)}")


def settings_error(model: object, missed: Sequence[MissedSetting]) -> JudgeSettingsError:
    """The error of a judge whose provider's request left out `missed` settings."""
    what = "; ".join(f"{m.asked} asked, {m.sent} sent" for m in missed)
    name = str(model)
    if name.startswith("openai/"):
        advice = (
            "Inspect's `openai` provider sends a model name it does not know as an OpenAI "
            "reasoning model, without temperature; for a server, "
        )
    else:
        advice = "Use a provider that sends them; for a server, "
    return JudgeSettingsError(
        f"the judge {name} did not send the settings it was called with ({what}): its "
        f"scores would not compare with the same judge's elsewhere. {advice}{SERVER_FIX} "
        f"({SERVED_MODELS_DOC})."
    )

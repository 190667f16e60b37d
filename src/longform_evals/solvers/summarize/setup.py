"""What every single-document summarizer sets up from the shared settings, in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from longform_evals.solvers.common.question_focus import Focus, FocusedPrompts
from longform_evals.solvers.common.recording import Tries
from longform_evals.solvers.settings import DEFAULT_TEMPERATURE, SummarySettings
from longform_evals.solvers.summarize.artifacts import FinalStep
from longform_evals.text import TokenizerLike

__all__ = ["Summarizer", "summarizer"]


@dataclass(frozen=True)
class Summarizer:
    """A summarizer's settings, its sampling and retries, its templates and its last step."""

    settings: SummarySettings
    tries: Tries
    prompts: FocusedPrompts
    final: FinalStep


def summarizer(
    settings: SummarySettings | None,
    folder: str,
    names: Sequence[str],
    artifacts: bool,
    tries: tuple[int, float | None],
    tokenizer: TokenizerLike,
) -> Summarizer:
    """Load the templates ``names`` of the strategy's prompt folder ``folder`` (those of its
    ``focused/`` subfolder when the settings give a question key) and the shared
    artifact-removal step (on by default when ``artifacts``); ``tries``: the most tries per call
    and the temperature of retries. Raises on a bad prompts folder at once."""
    settings = settings or SummarySettings()
    temperature = settings.temperature_or(DEFAULT_TEMPERATURE)
    prompts = FocusedPrompts(
        Focus(settings.question_key, tokenizer), folder, names, settings.prompts_dir
    )
    cleaning = settings.remove_artifacts_or(artifacts)
    final = FinalStep.load(cleaning, settings.prompts_dir, temperature)
    return Summarizer(settings, Tries(temperature, *tries), prompts, final)

"""Summarize the whole document in one call, truncated to the context window if needed."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import PromptTemplate
from longform_evals.solvers.common.question_focus import QUESTION_FIELD, Focus
from longform_evals.solvers.common.recording import SummaryRun, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, word_limit
from longform_evals.solvers.common.truncation import TruncationPolicy, truncate_to_budget
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.setup import summarizer
from longform_evals.text import TokenizerLike, get_tokenizer

__all__ = ["full_context", "one_call_prompt"]

_POLICIES = ("first", "last", "middle")


def one_call_prompt(settings: SummarySettings, document: str, question: str | None = None) -> str:
    """The prompt :func:`full_context` sends first for ``document`` when it fits the window
    (the plain template, or the focused one with ``question`` when the settings name a
    question key); lm-eval's plain models are asked with it."""
    template = Focus(settings.question_key).load("summarize", "full", settings.prompts_dir)
    if question is not None and QUESTION_FIELD in template.fields:
        template = template.fill(**{QUESTION_FIELD: question})
    return template.render(text=document, word_limit=word_limit(settings.summary_tokens))


@solver
def full_context(
    settings: SummarySettings | None = None,
    truncation: TruncationPolicy = "first",
    max_tries: int = 6,
    retry_temperature: float | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
) -> Solver:
    """Summarize the document in a single call (the truncation baseline).

    When the prompt, the document and the summary's tokens of output do not fit in the
    context window, the document is cut on token boundaries: ``"first"`` keeps the
    beginning, ``"last"`` the end, ``"middle"`` half the budget from each end (the dropped
    middle is replaced by a ``[...]`` line). ``metadata["truncation"]`` records
    ``truncated``, ``kept_tokens``, ``dropped_tokens`` and ``policy``.

    Args:
        settings: The shared settings (default: :class:`SummarySettings` defaults): the
            context window, the summary's token limit (the prompt asks for 0.65 times as
            many words), the temperature (0.5 by default, as in the paper), artifact removal
            (off by default), the prompts folder overriding ``summarize/full.txt`` (and
            ``artifacts.txt``), the question key (``summarize/focused/full.txt``; see
            :mod:`..common.question_focus`) and caching (Inspect's cache, keyed by sample,
            epoch and try, so a rerun repeats no finished step).
        truncation: Which part of an over-long document to keep.
        max_tries: Tries for a summary that is empty, too long or unfinished.
        retry_temperature: Temperature of retries (``None``: the temperature; the
            BooookScore reference code uses 1.0).
        tokenizer: Counts tokens for every budget (cl100k_base by default).

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If ``truncation`` is unknown or no document would fit the window; at
            run time, if focus is on and a sample has no question.
    """
    if truncation not in _POLICIES:
        raise ValueError(f"unknown truncation {truncation!r}; use one of {', '.join(_POLICIES)}")
    setup = summarizer(
        settings, "summarize", ("full",), False, (max_tries, retry_temperature), tokenizer
    )
    settings, tries, prompts, final = setup.settings, setup.tries, setup.prompts, setup.final
    budget = _document_budget(prompts.planning()["full"], settings, tokenizer)
    counters = ("truncated_tokens", *final.counters)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        prompt = prompts.bind(state)["full"]
        run = SummaryRun(state, "full_context", tokenizer, counters, settings.cache)
        run.plan(1)
        cut = truncate_to_budget(document, budget, truncation, run.tokenizer)
        state.metadata["truncation"] = cut.as_metadata()
        run.stats["truncated_tokens"] = cut.dropped_tokens
        outcome = await run.summarize(
            lambda words: prompt.render(text=cut.text, word_limit=words),
            settings.summary_tokens,
            tries,
            step="full",
        )
        run.record("full", 0, 0, outcome)
        await final.finish(run, outcome.text)
        return state

    return solve


def _document_budget(
    template: PromptTemplate, settings: SummarySettings, tokenizer: TokenizerLike
) -> int:
    """Tokens left for the document after the prompt, the summary and the safety margin."""
    summary_tokens = settings.summary_tokens
    limit = word_limit(summary_tokens)
    overhead = get_tokenizer(tokenizer).count(template.render(text="", word_limit=limit))
    budget = settings.context_window - overhead - summary_tokens - SAFETY_TOKENS
    if budget <= 0:
        raise ValueError(
            f"context_window={settings.context_window} leaves no room for the document after "
            f"the prompt ({overhead} tokens) and max_summary_tokens={summary_tokens}"
        )
    return budget

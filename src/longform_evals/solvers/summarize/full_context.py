"""Summarize the whole document in one call, truncated to the context window if needed."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import SummaryRun, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, word_limit
from longform_evals.solvers.common.truncation import TruncationPolicy, truncate_to_budget
from longform_evals.solvers.settings import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_SUMMARY_TOKENS,
    DEFAULT_TEMPERATURE,
)
from longform_evals.solvers.summarize.artifacts import ARTIFACT_COUNTERS, clean_artifacts
from longform_evals.text import TokenizerLike, get_tokenizer

__all__ = ["full_context"]

_POLICIES = ("first", "last", "middle")


@solver
def full_context(
    context_window: int = DEFAULT_CONTEXT_WINDOW,
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS,
    truncation: TruncationPolicy = "first",
    temperature: float = DEFAULT_TEMPERATURE,
    max_tries: int = 6,
    retry_temperature: float | None = None,
    remove_artifacts: bool = False,
    tokenizer: TokenizerLike = "cl100k_base",
    prompts_dir: str | None = None,
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """Summarize the document in a single call (the truncation baseline).

    When the prompt, the document and ``max_summary_tokens`` of output do not fit in
    ``context_window`` tokens, the document is cut on token boundaries: ``"first"`` keeps the
    beginning, ``"last"`` the end, ``"middle"`` half the budget from each end (the dropped
    middle is replaced by a ``[...]`` line). ``metadata["truncation"]`` records
    ``truncated``, ``kept_tokens``, ``dropped_tokens`` and ``policy``.

    Args:
        context_window: Tokens the model can read and write in one call.
        max_summary_tokens: Token limit of the summary; the prompt asks for 0.65 times as
            many words.
        truncation: Which part of an over-long document to keep.
        temperature: Sampling temperature (0.5 in the paper).
        max_tries: Tries for a summary that is empty, too long or unfinished.
        retry_temperature: Temperature of retries (``None``: ``temperature``; the
            BooookScore reference code uses 1.0).
        remove_artifacts: Clean the summary with the artifact-removal prompt afterwards.
        tokenizer: Counts tokens for every budget (cl100k_base by default).
        prompts_dir: Optional folder overriding ``summarize/full.txt`` (and ``artifacts.txt``).
        question_key: Focus the summary on the question in ``metadata[question_key]``
            (``summarize_focused/full.txt``; see :mod:`..common.question_focus`). ``None``: no
            question.
        cache: Cache every model call (Inspect's cache, keyed by sample, epoch and try), so
            a rerun or ``inspect eval-retry`` repeats no finished step; False: no caching.

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If ``truncation`` is unknown or no document would fit the window; at
            run time, if focus is on and a sample has no question.
    """
    if truncation not in _POLICIES:
        raise ValueError(f"unknown truncation {truncation!r}; use one of {', '.join(_POLICIES)}")
    focus = Focus(question_key, tokenizer)
    template = focus.load("summarize", "full", prompts_dir)
    cleaner = load_prompt("summarize", "artifacts", prompts_dir) if remove_artifacts else None
    limit = word_limit(max_summary_tokens)
    overhead = get_tokenizer(tokenizer).count(
        focus.planning(template).render(text="", word_limit=limit)
    )
    budget = context_window - overhead - max_summary_tokens - SAFETY_TOKENS
    if budget <= 0:
        raise ValueError(
            f"context_window={context_window} leaves no room for the document after the "
            f"prompt ({overhead} tokens) and max_summary_tokens={max_summary_tokens}"
        )
    counters = ("truncated_tokens", *(ARTIFACT_COUNTERS if cleaner else ()))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        prompt = focus.bind(state)(template)
        run = SummaryRun(state, "full_context", tokenizer, counters, cache)
        run.plan(1)
        cut = truncate_to_budget(document, budget, truncation, run.tokenizer)
        state.metadata["truncation"] = cut.as_metadata()
        run.stats["truncated_tokens"] = cut.dropped_tokens
        outcome = await run.generate(
            lambda words: prompt.render(text=cut.text, word_limit=words),
            limit,
            max_tokens=max_summary_tokens,
            temperature=temperature,
            max_tries=max_tries,
            check_limit=limit,
            retry_temperature=retry_temperature,
        )
        run.record("full", 0, 0, outcome)
        summary = outcome.text
        if cleaner is not None:
            summary = await clean_artifacts(run, summary, cleaner, temperature)
        run.finish(summary)
        return state

    return solve

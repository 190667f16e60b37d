"""Incremental updating (BooookScore, Appendix A.2): one running summary, updated per chunk.

The first chunk is summarized; each later chunk updates the running summary. Whenever the
running summary grows past ``max_summary_tokens`` it is compressed (temperature 1, as in the
paper). Artifact removal runs at the end by default, as in the paper's pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import PromptTemplate
from longform_evals.solvers.common.recording import Step, SummaryRun, Tries, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, count_words, word_limit
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.setup import summarizer
from longform_evals.text import Chunk, TokenizerLike, chunk_text, get_tokenizer

__all__ = ["INCREMENTAL_COUNTERS", "growth_target", "incremental_update"]

_Render: TypeAlias = Callable[[int], str]

_NAMES = ("init", "update", "compress")

INCREMENTAL_COUNTERS = ("chunks", "updates", "compressions", "context_overflows")

MIN_TARGET_WORDS = 50
"""Smallest word count a running summary is asked for (early steps of a long book)."""

COMPRESSION_TOLERANCE = 1.2
"""A compressed summary may exceed its word target by 20 % (the reference's tolerance)."""


def growth_target(limit: int, step: int, n_steps: int) -> int:
    """Return the word count asked for after reading ``step + 1`` of ``n_steps`` chunks.

    The running summary grows in proportion to how much of the book has been read, reaching
    ``limit`` at the last chunk (as the reference code does), but is never asked to be
    shorter than ``MIN_TARGET_WORDS`` (or ``limit``, if that is smaller).

    Args:
        limit: Word limit of the final summary.
        step: Index of the chunk just read, from 0.
        n_steps: Number of chunks.

    Returns:
        The word target.
    """
    share = round(limit * (step + 1) / max(1, n_steps))
    return max(min(MIN_TARGET_WORDS, limit), min(limit, share))


@dataclass(frozen=True)
class _Budget:
    """Token budgets of one configuration, fixed when the solver is created."""

    limit: int  # words of the final summary
    max_summary_tokens: int  # beyond it the running summary is compressed
    update_tokens: int  # output tokens of one update
    overhead: int  # tokens of the update prompt without summary and text
    context_window: int


@solver
def incremental_update(
    settings: SummarySettings | None = None,
    compression_temperature: float = 1.0,
    max_tries: int = 6,
    retry_temperature: float | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
) -> Solver:
    """Summarize a long document by incremental updating.

    Args:
        settings: The shared settings (default: :class:`SummarySettings` defaults): the
            chunk size (2048 in the paper), the context window, the most tokens the running
            summary may keep (G_n, 900 in the paper; beyond it the summary is compressed;
            prompts ask for 0.65 times as many words, growing with the share of the book
            read), the temperature of the first summary and updates (0.5 by default),
            artifact removal on the final summary (on by default, as in the paper's
            pipeline), the prompts folder overriding the ``summarize/`` templates, the
            question key focusing the first summary, updates and compressions (the
            ``summarize/focused/`` templates; see :mod:`..common.question_focus`) and caching
            (Inspect's cache, keyed by sample, epoch and try, so a rerun repeats no finished
            step).
        compression_temperature: Sampling temperature of compression (1.0 in the paper).
        max_tries: Tries per call for an empty or unfinished summary (and, for compression,
            one still over its target); retries ask for 10 % fewer words each.
        retry_temperature: Temperature of retried updates (``None``: the temperature).
        tokenizer: Counts tokens for chunking and budgets (cl100k_base by default).

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If a chunk, the running summary and an update cannot fit the window;
            at run time, if focus is on and a sample has no question.
    """
    setup = summarizer(
        settings, "summarize", _NAMES, True, (max_tries, retry_temperature), tokenizer
    )
    settings, tries, prompts, final = setup.settings, setup.tries, setup.prompts, setup.final
    budget = _make_budget(prompts.planning()["update"], settings, tokenizer)
    counters = (*INCREMENTAL_COUNTERS, *final.counters)
    compression = Tries(compression_temperature, max_tries)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bound = prompts.bind(state)
        run = SummaryRun(state, "incremental_update", tokenizer, counters, settings.cache)
        chunks = chunk_text(document, settings.chunk_size, run.tokenizer)
        run.stats["chunks"] = len(chunks)
        run.plan(len(chunks))
        summary = ""
        for j, chunk in enumerate(chunks):
            target = growth_target(budget.limit, j, len(chunks))
            summary = await _update(run, budget, bound, tries, summary, chunk, target, j)
            if run.count(summary) > budget.max_summary_tokens:
                summary = await _compress(
                    run, budget, bound["compress"], compression, summary, target, j
                )
        await final.finish(run, summary)
        return state

    return solve


def _make_budget(
    update_prompt: PromptTemplate, settings: SummarySettings, tokenizer: TokenizerLike
) -> _Budget:
    """Work out the update budget, failing early on a configuration that cannot work."""
    max_summary_tokens, chunk_size = settings.summary_tokens, settings.chunk_size
    limit = word_limit(max_summary_tokens)
    overhead = get_tokenizer(tokenizer).count(
        update_prompt.render(summary="", text="", word_limit=limit)
    )
    # An update may overshoot the limit (compression then shrinks it), so it gets up to twice
    # the summary's room, but at least the room of one summary.
    update_tokens = min(
        2 * max_summary_tokens,
        settings.context_window - overhead - chunk_size - max_summary_tokens - SAFETY_TOKENS,
    )
    if update_tokens < max_summary_tokens:
        raise ValueError(
            f"chunk_size={chunk_size} + 2 * max_summary_tokens={max_summary_tokens} + the "
            f"update prompt ({overhead} tokens) exceed context_window={settings.context_window}"
        )
    return _Budget(limit, max_summary_tokens, update_tokens, overhead, settings.context_window)


async def _update(
    run: SummaryRun,
    budget: _Budget,
    prompts: Mapping[str, PromptTemplate],
    tries: Tries,
    summary: str,
    chunk: Chunk,
    target: int,
    index: int,
) -> str:
    """Summarize the first chunk, or update the running ``summary`` with a later one."""
    if index == 0:
        render = _init_render(prompts["init"], chunk.text)
    else:
        render = _update_render(prompts["update"], summary, chunk.text)
        needed = budget.overhead + run.count(summary) + chunk.n_tokens + budget.update_tokens
        if needed + SAFETY_TOKENS > budget.context_window:
            run.bump("context_overflows")
    step: Step = "chunk" if index == 0 else "update"
    outcome = await run.generate(
        render,
        target,
        step=step,
        max_tokens=budget.update_tokens,
        temperature=tries.temperature,
        max_tries=tries.max_tries,
        check_limit=None,  # an over-long update is compressed, not regenerated
        retry_temperature=tries.retry_temperature,
    )
    run.record(step, 0, index, outcome)
    run.bump("updates", 1 if index else 0)
    return outcome.text


async def _compress(
    run: SummaryRun,
    budget: _Budget,
    template: PromptTemplate,
    tries: Tries,
    summary: str,
    target: int,
    index: int,
) -> str:
    """Shorten the running summary to about ``target`` words (temperature 1 in the paper)."""
    words = count_words(summary)
    run.bump("compressions")
    outcome = await run.generate(
        lambda w: template.render(summary=summary, words=words, word_limit=w),
        target,
        step="compress",
        max_tokens=budget.max_summary_tokens,
        temperature=tries.temperature,
        max_tries=tries.max_tries,
        check_limit=min(budget.limit, round(target * COMPRESSION_TOLERANCE)),
    )
    run.record("compress", 0, index, outcome)
    return outcome.text


def _init_render(template: PromptTemplate, text: str) -> _Render:
    return lambda words: template.render(text=text, word_limit=words)


def _update_render(template: PromptTemplate, summary: str, text: str) -> _Render:
    return lambda words: template.render(summary=summary, text=text, word_limit=words)

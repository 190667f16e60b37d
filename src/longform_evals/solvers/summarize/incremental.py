"""Incremental updating (BooookScore, Appendix A.2): one running summary, updated per chunk.

The first chunk is summarized; each later chunk updates the running summary. Whenever the
running summary grows past ``max_summary_tokens`` it is compressed (temperature 1, as in the
paper). Artifact removal runs at the end by default, as in the paper's pipeline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import Outcome, SummaryRun, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, count_words, word_limit
from longform_evals.solvers.settings import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_SUMMARY_TOKENS,
    DEFAULT_TEMPERATURE,
)
from longform_evals.solvers.summarize.artifacts import ARTIFACT_COUNTERS, clean_artifacts
from longform_evals.text import TokenizerLike, chunk_text, get_tokenizer

__all__ = ["INCREMENTAL_COUNTERS", "growth_target", "incremental_update"]

_Render: TypeAlias = Callable[[int], str]

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


@solver
def incremental_update(
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS,
    temperature: float = DEFAULT_TEMPERATURE,
    compression_temperature: float = 1.0,
    max_tries: int = 6,
    remove_artifacts: bool = True,
    retry_temperature: float | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
    prompts_dir: str | None = None,
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """Summarize a long document by incremental updating.

    Args:
        chunk_size: Most tokens per chunk (2048 in the paper).
        context_window: Tokens the model can read and write in one call.
        max_summary_tokens: Most tokens the running summary may keep (G_n, 900 in the
            paper); beyond it the summary is compressed. Prompts ask for 0.65 times as many
            words, growing with the share of the book read.
        temperature: Sampling temperature of the first summary and updates (0.5).
        compression_temperature: Sampling temperature of compression (1.0 in the paper).
        max_tries: Tries per call for an empty or unfinished summary (and, for compression,
            one still over its target); retries ask for 10 % fewer words each.
        remove_artifacts: Clean the final summary with the artifact-removal prompt.
        retry_temperature: Temperature of retried updates (``None``: ``temperature``).
        tokenizer: Counts tokens for chunking and budgets (cl100k_base by default).
        prompts_dir: Optional folder overriding the ``summarize/`` templates.
        question_key: Focus the first summary, the updates and compressions on the
            question in ``metadata[question_key]`` (the ``summarize_focused/`` templates;
            see :mod:`..common.question_focus`). ``None``: no question.
        cache: Cache every model call (Inspect's cache, keyed by sample, epoch and try), so
            a rerun or ``inspect eval-retry`` repeats no finished step; False: no caching.

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If a chunk, the running summary and an update cannot fit the window;
            at run time, if focus is on and a sample has no question.
    """
    focus = Focus(question_key, tokenizer)
    init_prompt = focus.load("summarize", "init", prompts_dir)
    update_prompt = focus.load("summarize", "update", prompts_dir)
    compress_prompt = focus.load("summarize", "compress", prompts_dir)
    cleaner = load_prompt("summarize", "artifacts", prompts_dir) if remove_artifacts else None
    limit = word_limit(max_summary_tokens)
    overhead = get_tokenizer(tokenizer).count(
        focus.planning(update_prompt).render(summary="", text="", word_limit=limit)
    )
    # An update may overshoot the limit (compression then shrinks it), so it gets up to twice
    # the summary's room, but at least the room of one summary.
    update_tokens = min(
        2 * max_summary_tokens,
        context_window - overhead - chunk_size - max_summary_tokens - SAFETY_TOKENS,
    )
    if update_tokens < max_summary_tokens:
        raise ValueError(
            f"chunk_size={chunk_size} + 2 * max_summary_tokens={max_summary_tokens} + the "
            f"update prompt ({overhead} tokens) exceed context_window={context_window}"
        )
    counters = (*INCREMENTAL_COUNTERS, *(ARTIFACT_COUNTERS if cleaner else ()))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bind = focus.bind(state)
        init, update, compress = bind(init_prompt), bind(update_prompt), bind(compress_prompt)
        run = SummaryRun(state, "incremental_update", tokenizer, counters, cache)
        chunks = chunk_text(document, chunk_size, run.tokenizer)
        run.stats["chunks"] = len(chunks)
        run.plan(len(chunks))
        summary = ""
        for j, chunk in enumerate(chunks):
            target = growth_target(limit, j, len(chunks))
            if j == 0:
                render = _init_render(init, chunk.text)
            else:
                render = _update_render(update, summary, chunk.text)
                if (
                    overhead + run.count(summary) + chunk.n_tokens + update_tokens + SAFETY_TOKENS
                    > context_window
                ):
                    run.bump("context_overflows")
            outcome = await run.generate(
                render,
                target,
                max_tokens=update_tokens,
                temperature=temperature,
                max_tries=max_tries,
                check_limit=None,  # an over-long update is compressed, not regenerated
                retry_temperature=retry_temperature,
            )
            run.record("chunk" if j == 0 else "update", 0, j, outcome)
            run.bump("updates", 1 if j else 0)
            summary = outcome.text
            if run.count(summary) > max_summary_tokens:
                summary = await _compress(run, compress, summary, target, j)
        if cleaner is not None:
            summary = await clean_artifacts(run, summary, cleaner, temperature)
        run.finish(summary)
        return state

    async def _compress(
        run: SummaryRun, template: PromptTemplate, summary: str, target: int, index: int
    ) -> str:
        words = count_words(summary)
        run.bump("compressions")
        outcome: Outcome = await run.generate(
            lambda w: template.render(summary=summary, words=words, word_limit=w),
            target,
            max_tokens=max_summary_tokens,
            temperature=compression_temperature,
            max_tries=max_tries,
            check_limit=min(limit, round(target * COMPRESSION_TOLERANCE)),
        )
        run.record("compress", 0, index, outcome)
        return outcome.text

    return solve


def _init_render(template: PromptTemplate, text: str) -> _Render:
    return lambda words: template.render(text=text, word_limit=words)


def _update_render(template: PromptTemplate, summary: str, text: str) -> _Render:
    return lambda words: template.render(summary=summary, text=text, word_limit=words)

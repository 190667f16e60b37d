"""NexusSum's stages as solvers of their own: preprocessor, summarizer and compressor.

Each can run alone or follow another solver: :func:`nexus_preprocess` leaves its chunks in
``metadata["nexus_chunks"]`` for :func:`nexus_summarize`, and :func:`nexus_compress` shortens
whatever summary the solver before it left. The full pipeline is
:func:`longform_evals.solvers.nexus.pipeline.nexus_sum`; the work of each stage lives there.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import SummaryRun, document_of
from longform_evals.solvers.nexus.pipeline import (
    CHUNKS_KEY,
    NEXUS_COUNTERS,
    NEXUS_KEY,
    Ending,
    NexusOptions,
    copy_counts,
    new_info,
    nexus_info,
    preprocess_dialogue,
    start_chunks,
    summarize_chunks,
)
from longform_evals.solvers.settings import NEXUS_DEFAULTS, SummarySettings

__all__ = ["nexus_compress", "nexus_preprocess", "nexus_summarize"]


def _current_summary(state: TaskState) -> str:
    summary: Any = state.metadata.get("summary") or state.output.completion
    if not isinstance(summary, str) or not summary.strip():
        raise ValueError(f"sample {state.sample_id!r}: there is no summary to compress")
    return summary


def _start(
    state: TaskState, settings: SummarySettings, options: NexusOptions
) -> tuple[SummaryRun, list[str]]:
    """Start the sample's trace and report, and split its document into scene chunks."""
    run = SummaryRun(state, "nexus_sum", options.tokenizer, NEXUS_COUNTERS, settings.cache)
    info = state.metadata[NEXUS_KEY] = new_info(None)
    return run, start_chunks(run, info, document_of(state), options)


@solver
def nexus_preprocess(
    settings: SummarySettings | None = None, options: NexusOptions | None = None
) -> Solver:
    """NexusSum's preprocessor alone: rewrite dialogue as prose, chunk by chunk.

    Leaves the chunks in ``metadata["nexus_chunks"]`` for :func:`nexus_summarize`; the
    document itself is not changed. Starts the sample's summary trace. ``settings`` (default
    :data:`~longform_evals.solvers.settings.NEXUS_DEFAULTS`) give the temperature, prompts
    folder and caching; ``options`` the scene chunks and tries (:class:`NexusOptions`).
    """
    settings, options = settings or NEXUS_DEFAULTS, options or NexusOptions()
    options.check()
    tries = options.tries(settings)
    template = load_prompt("nexus_sum", "dialogue", settings.prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, chunks = _start(state, settings, options)
        chunks = await preprocess_dialogue(run, chunks, template, tries)
        copy_counts(run, state.metadata[NEXUS_KEY])
        state.metadata[CHUNKS_KEY] = chunks
        return state

    return solve


@solver
def nexus_summarize(
    settings: SummarySettings | None = None, options: NexusOptions | None = None
) -> Solver:
    """NexusSum's summarizer alone: summarize scene chunks and join them (S_0).

    Uses the chunks :func:`nexus_preprocess` left (continuing its trace), else splits the
    document into scene chunks itself. With a question key in ``settings``, focused on that
    question.
    """
    settings, options = settings or NEXUS_DEFAULTS, options or NexusOptions()
    options.check()
    tries = options.tries(settings)
    focus = Focus(settings.question_key, options.tokenizer)
    chunk_prompt = focus.load("nexus_sum", "chunk", settings.prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        template = focus.bind(state)(chunk_prompt)
        given: Any = state.metadata.get(CHUNKS_KEY)
        if isinstance(given, list) and all(isinstance(c, str) for c in given) and given:
            run = SummaryRun(state, None, options.tokenizer, NEXUS_COUNTERS, settings.cache)
            chunks: list[str] = given
        else:
            run, chunks = _start(state, settings, options)
        summary = await summarize_chunks(run, chunks, template, tries)
        run.finish(summary)
        return state

    return solve


@solver
def nexus_compress(
    settings: SummarySettings | None = None,
    options: NexusOptions | None = None,
    rewrite: bool = False,
) -> Solver:
    """NexusSum's compressor alone: shorten the current summary to the target words.

    Compresses ``metadata["summary"]`` (else the last output), so it can follow any
    summarization solver; continues that solver's trace and counters. ``settings`` (default
    :data:`~longform_evals.solvers.settings.NEXUS_DEFAULTS`) give the target words, the
    temperature, prompts folder, question key (compression and the rewrite keep to that
    question) and caching; ``options`` δ, rounds and tries (:class:`NexusOptions`).

    Raises:
        ValueError: If the target words, ``chunk_tokens`` or ``max_tries`` is below 1, or
            ``max_rounds`` below 0.
    """
    settings, options = settings or NEXUS_DEFAULTS, options or NexusOptions()
    target_words = settings.summary_words
    options.check(target_words)
    tries = options.tries(settings)
    focus = Focus(settings.question_key, options.tokenizer)
    compress_prompt = focus.load("nexus_sum", "compress", settings.prompts_dir)
    rewrite_prompt = focus.load("nexus_sum", "rewrite", settings.prompts_dir) if rewrite else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        summary = _current_summary(state)
        bind = focus.bind(state)
        rewrite_template = bind(rewrite_prompt) if rewrite_prompt else None
        ending = Ending(bind(compress_prompt), rewrite_template, target_words, options, tries)
        run = SummaryRun(state, None, options.tokenizer, NEXUS_COUNTERS, settings.cache)
        await ending.finish(run, summary, nexus_info(state, target_words))
        return state

    return solve

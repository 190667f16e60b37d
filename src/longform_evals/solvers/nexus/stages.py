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
    check_at_least,
    compress_summary,
    copy_counts,
    new_info,
    nexus_info,
    preprocess_dialogue,
    rewrite_summary,
    start_chunks,
    summarize_chunks,
)
from longform_evals.solvers.nexus.scenes import DEFAULT_SCENE_WORDS
from longform_evals.solvers.settings import NEXUS_TEMPERATURE
from longform_evals.text import TokenizerLike

__all__ = ["nexus_compress", "nexus_preprocess", "nexus_summarize"]


def _current_summary(state: TaskState) -> str:
    summary: Any = state.metadata.get("summary") or state.output.completion
    if not isinstance(summary, str) or not summary.strip():
        raise ValueError(f"sample {state.sample_id!r}: there is no summary to compress")
    return summary


@solver
def nexus_preprocess(
    scenes_per_chunk: int = 8,
    temperature: float = NEXUS_TEMPERATURE,
    max_tries: int = 3,
    scene_words: int = DEFAULT_SCENE_WORDS,
    prompts_dir: str | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
    cache: bool = True,
) -> Solver:
    """NexusSum's preprocessor alone: rewrite dialogue as prose, chunk by chunk.

    Leaves the chunks in ``metadata["nexus_chunks"]`` for :func:`nexus_summarize`; the
    document itself is not changed. Starts the sample's summary trace.
    """
    check_at_least("scenes_per_chunk", scenes_per_chunk, 1)
    template = load_prompt("nexus_sum", "dialogue", prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = SummaryRun(state, "nexus_sum", tokenizer, NEXUS_COUNTERS, cache)
        info = state.metadata[NEXUS_KEY] = new_info(None)
        chunks = start_chunks(run, info, document_of(state), scenes_per_chunk, scene_words)
        chunks = await preprocess_dialogue(run, chunks, template, temperature, max_tries)
        copy_counts(run, info)
        state.metadata[CHUNKS_KEY] = chunks
        return state

    return solve


@solver
def nexus_summarize(
    scenes_per_chunk: int = 8,
    temperature: float = NEXUS_TEMPERATURE,
    max_tries: int = 3,
    scene_words: int = DEFAULT_SCENE_WORDS,
    prompts_dir: str | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """NexusSum's summarizer alone: summarize scene chunks and join them (S_0).

    Uses the chunks :func:`nexus_preprocess` left (continuing its trace), else splits the
    document into scene chunks itself. With ``question_key``, focused on that question.
    """
    check_at_least("scenes_per_chunk", scenes_per_chunk, 1)
    focus = Focus(question_key, tokenizer)
    chunk_prompt = focus.load("nexus_sum", "chunk", prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        template = focus.bind(state)(chunk_prompt)
        given: Any = state.metadata.get(CHUNKS_KEY)
        if isinstance(given, list) and all(isinstance(c, str) for c in given) and given:
            run = SummaryRun(state, None, tokenizer, NEXUS_COUNTERS, cache)
            chunks: list[str] = given
        else:
            run = SummaryRun(state, "nexus_sum", tokenizer, NEXUS_COUNTERS, cache)
            info = state.metadata[NEXUS_KEY] = new_info(None)
            chunks = start_chunks(run, info, document_of(state), scenes_per_chunk, scene_words)
        summary = await summarize_chunks(run, chunks, template, temperature, max_tries)
        run.finish(summary)
        return state

    return solve


@solver
def nexus_compress(
    target_words: int = 900,
    chunk_tokens: int = 300,
    temperature: float = NEXUS_TEMPERATURE,
    max_rounds: int = 10,
    max_tries: int = 3,
    rewrite: bool = False,
    prompts_dir: str | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """NexusSum's compressor alone: shorten the current summary to ``target_words`` words.

    Compresses ``metadata["summary"]`` (else the last output), so it can follow any
    summarization solver; continues that solver's trace and counters. With
    ``question_key``, compression (and the rewrite) keep to that question.

    Raises:
        ValueError: If ``target_words``, ``chunk_tokens`` or ``max_tries`` is below 1, or
            ``max_rounds`` below 0.
    """
    check_at_least("target_words", target_words, 1)
    check_at_least("chunk_tokens", chunk_tokens, 1)
    check_at_least("max_tries", max_tries, 1)
    check_at_least("max_rounds", max_rounds, 0)
    focus = Focus(question_key, tokenizer)
    compress_prompt = focus.load("nexus_sum", "compress", prompts_dir)
    rewrite_prompt = focus.load("nexus_sum", "rewrite", prompts_dir) if rewrite else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        summary = _current_summary(state)
        bind = focus.bind(state)
        template = bind(compress_prompt)
        rewrite_template = bind(rewrite_prompt) if rewrite_prompt else None
        run = SummaryRun(state, None, tokenizer, NEXUS_COUNTERS, cache)
        info = nexus_info(state, target_words)
        summary = await compress_summary(
            run,
            summary,
            template,
            info,
            target_words,
            chunk_tokens,
            temperature,
            max_rounds,
            max_tries,
        )
        if rewrite_template is not None:
            summary = await rewrite_summary(
                run, summary, rewrite_template, target_words, temperature, max_tries
            )
        run.finish(summary)
        return state

    return solve

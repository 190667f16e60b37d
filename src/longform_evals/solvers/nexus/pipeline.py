"""NexusSum: dialogue-to-prose preprocessing, scene-chunk summaries, iterative compression.

The pipeline (METHODS.md §3) has three stages, each a chunk-and-concatenate pass:

1. *Preprocessor*: the document is split into scenes (:mod:`.scenes`), grouped 8 at a time;
   each group with dialogue is rewritten as third-person prose (groups without dialogue pass
   through unchanged, without a call).
2. *Summarizer*: every group of (preprocessed) scenes is summarized on its own, all at once;
   the summaries, in order, form the first summary S_0.
3. *Compressor*: while the summary has more than θ (``target_words``) words, it is cut into
   runs of whole sentences of at most δ (``chunk_tokens``) tokens, each run is shortened
   (all at once) and the results are joined, for at most 10 rounds. A round that does not
   shrink the summary ends the loop (``compress_stalled``) and its output is discarded.

An optional last call rewrites the summary for readability. Every call uses temperature 0.3.
With ``question_key`` the summarizer, compressor and rewrite prompts carry the sample's
question (the ``nexus_sum_focused/`` templates, :mod:`..common.question_focus`); the
preprocessor does not, since rewriting dialogue as prose is the same whatever is asked.
The stages are also solvers of their own (:func:`nexus_preprocess`, :func:`nexus_summarize`,
:func:`nexus_compress`); the last one compresses any summary an earlier solver left.

Reported in ``metadata["nexus_sum"]``: ``target_words``, ``scenes``, ``chunks``,
``scene_fallback``, ``dialogue_groups``, ``preprocess_skipped``, ``initial_words`` (S_0),
``rounds``, ``lengths`` (words after each round, a stalled round included),
``compress_stalled``, ``reached_target``; counters also go to ``summary_stats``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect, span

from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import Outcome, SummaryRun, document_of
from longform_evals.solvers.common.summary_limits import count_words
from longform_evals.solvers.nexus.scenes import (
    DEFAULT_SCENE_WORDS,
    group_scenes,
    has_dialogue,
    split_scenes,
)
from longform_evals.solvers.settings import NEXUS_TEMPERATURE
from longform_evals.text import TokenizerLike
from longform_evals.text.packing import join_pieces, pack_sentence_spans

__all__ = [
    "CHUNKS_KEY",
    "CHUNK_SEPARATOR",
    "NEXUS_COUNTERS",
    "NEXUS_KEY",
    "compress_summary",
    "nexus_sum",
    "preprocess_dialogue",
    "rewrite_summary",
    "scene_chunks",
    "summarize_chunks",
]

NEXUS_KEY = "nexus_sum"

CHUNK_SEPARATOR = "\n\n"
"""What joins the chunk summaries into S_0."""
"""Metadata key of the pipeline's report."""

CHUNKS_KEY = "nexus_chunks"
"""Metadata key where the stage solver `nexus_preprocess` leaves the chunks for
`nexus_summarize` (:mod:`.stages`)."""

NEXUS_COUNTERS = (
    "scenes",
    "chunks",
    "dialogue_groups",
    "preprocess_skipped",
    "compress_rounds",
    "compress_calls",
    "compress_stalled",
    "compress_skipped",
    "oversized_sentences",
    "rewrite_rejects",
)

CHUNK_SUMMARY_RATIO = 0.2
"""Words asked of a chunk summary per word of the chunk (the paper gives no figure)."""
MIN_CHUNK_SUMMARY_WORDS = 40
COMPRESS_RATIO = 0.6
"""Words asked of a compressed piece per word of the piece; δ still sets the pace, since a
model shortens a small piece less than a large one."""
REWRITE_TOLERANCE = 1.1
"""A readability rewrite longer than this times max(θ, its input) is not used."""


def new_info(target_words: int | None) -> dict[str, Any]:
    return {
        "target_words": target_words,
        "scenes": 0,
        "chunks": 0,
        "scene_fallback": False,
        "dialogue_groups": 0,
        "preprocess_skipped": 0,
        "initial_words": None,
        "rounds": 0,
        "lengths": [],
        "compress_stalled": False,
        "reached_target": None,
    }


def nexus_info(state: TaskState, target_words: int | None = None) -> dict[str, Any]:
    """The sample's NexusSum report, created on first use."""
    info = state.metadata.get(NEXUS_KEY)
    if not isinstance(info, dict):
        info = state.metadata[NEXUS_KEY] = new_info(target_words)
    if target_words is not None:
        info["target_words"] = target_words
    return info


def _room(run: SummaryRun, text: str) -> int:
    """Output tokens for a call that rewrites ``text`` at about its length or less."""
    n = run.count(text)
    return n + max(256, n // 2)


def scene_chunks(
    document: str, scenes_per_chunk: int = 8, scene_words: int = DEFAULT_SCENE_WORDS
) -> tuple[list[str], int, bool]:
    """Split ``document`` into scenes and join them ``scenes_per_chunk`` at a time.

    Returns:
        The chunk texts (joined, the document), the number of scenes, and whether scenes
        were cut by length because the document had no scene marks.
    """
    scenes = split_scenes(document, scene_words)
    groups = group_scenes(scenes, scenes_per_chunk)
    chunks = ["".join(s.text for s in group) for group in groups]
    return chunks, len(scenes), bool(scenes) and scenes[0].fallback


async def preprocess_dialogue(
    run: SummaryRun,
    chunks: Sequence[str],
    template: PromptTemplate,
    temperature: float = NEXUS_TEMPERATURE,
    max_tries: int = 3,
) -> list[str]:
    """Rewrite the dialogue of every chunk that has some as third-person prose (concurrently).

    Chunks without dialogue are returned unchanged and counted in ``preprocess_skipped``.
    """
    todo = [i for i, chunk in enumerate(chunks) if has_dialogue(chunk)]
    run.bump("dialogue_groups", len(todo))
    run.bump("preprocess_skipped", len(chunks) - len(todo))

    async def rewrite(text: str) -> Outcome:
        return await run.generate(
            lambda _words: template.render(text=text.strip()),
            1,  # no word limit is asked for
            max_tokens=_room(run, text),
            temperature=temperature,
            max_tries=max_tries,
            check_limit=None,
        )

    async with span("preprocess", type="nexus_stage"):
        outcomes = await collect(*(rewrite(chunks[i]) for i in todo))
    result = list(chunks)
    for i, outcome in zip(todo, outcomes, strict=True):
        run.record("preprocess", 0, i, outcome)
        result[i] = outcome.text
    return result


async def summarize_chunks(
    run: SummaryRun,
    chunks: Sequence[str],
    template: PromptTemplate,
    temperature: float = NEXUS_TEMPERATURE,
    max_tries: int = 3,
    summary_ratio: float = CHUNK_SUMMARY_RATIO,
) -> str:
    """Summarize every chunk on its own (concurrently) and join the summaries in order."""

    async def summarize(text: str) -> Outcome:
        limit = max(MIN_CHUNK_SUMMARY_WORDS, round(count_words(text) * summary_ratio))
        return await run.generate(
            lambda words: template.render(text=text.strip(), word_limit=words),
            limit,
            max_tokens=_room(run, text),  # generous: length is checked later
            temperature=temperature,
            max_tries=max_tries,
            check_limit=None,
        )

    async with span("summarize", type="nexus_stage"):
        outcomes = await collect(*(summarize(c) for c in chunks))
    for i, outcome in enumerate(outcomes):
        run.record("chunk", 0, i, outcome)
    return CHUNK_SEPARATOR.join(o.text for o in outcomes)


async def compress_summary(
    run: SummaryRun,
    summary: str,
    template: PromptTemplate,
    info: dict[str, Any],
    target_words: int,
    chunk_tokens: int = 300,
    temperature: float = NEXUS_TEMPERATURE,
    max_rounds: int = 10,
    max_tries: int = 3,
    compress_ratio: float = COMPRESS_RATIO,
) -> str:
    """Compress ``summary`` round by round until it has at most ``target_words`` words.

    Stops after ``max_rounds`` rounds or at a round that does not shrink the summary
    (counted in ``compress_stalled``; that round's output is discarded). Updates ``info``.
    """

    async def shorten(piece: str) -> Outcome:
        words = count_words(piece)
        run.bump("compress_calls")
        return await run.generate(
            lambda limit: template.render(text=piece, words=words, word_limit=limit),
            max(1, int(words * compress_ratio)),
            max_tokens=_room(run, piece),
            temperature=temperature,
            max_tries=max_tries,
            check_limit=None,  # a round that fails to shrink is caught as a whole
        )

    words = count_words(summary)
    lengths: list[int] = []
    stalled = False
    info.update(initial_words=words, target_words=target_words)
    while words > target_words and len(lengths) < max_rounds:
        level = len(lengths) + 1
        runs = pack_sentence_spans(summary, chunk_tokens, run.tokenizer)
        run.bump(
            "oversized_sentences", sum(run.count(summary[a:b]) > chunk_tokens for a, b in runs)
        )
        async with span(f"compress round {level}", type="nexus_stage"):
            outcomes = await collect(*(shorten(summary[a:b]) for a, b in runs))
        for i, outcome in enumerate(outcomes):
            run.record("compress", level, i, outcome)
        run.bump("compress_rounds")
        shorter = join_pieces(summary, runs, [o.text for o in outcomes])
        lengths.append(count_words(shorter))
        if lengths[-1] >= words:
            stalled = True
            run.bump("compress_stalled")
            break
        summary, words = shorter, lengths[-1]
    if not lengths:
        run.bump("compress_skipped")
    info.update(
        rounds=len(lengths),
        lengths=lengths,
        compress_stalled=stalled,
        reached_target=words <= target_words,
    )
    return summary


async def rewrite_summary(
    run: SummaryRun,
    summary: str,
    template: PromptTemplate,
    target_words: int | None = None,
    temperature: float = NEXUS_TEMPERATURE,
    max_tries: int = 3,
) -> str:
    """Ask for a more readable version of ``summary``; keep the original if it grew too long."""
    words = count_words(summary)
    outcome = await run.generate(
        lambda _limit: template.render(summary=summary, words=words),
        words,
        max_tokens=_room(run, summary),
        temperature=temperature,
        max_tries=max_tries,
        check_limit=None,
    )
    allowed = REWRITE_TOLERANCE * max(words, target_words or 0)
    if count_words(outcome.text) > allowed:
        run.bump("rewrite_rejects")
        outcome = Outcome(summary, outcome.tries, False, [*outcome.rejected, ["over_limit"]])
    run.record("rewrite", 0, 0, outcome)
    return outcome.text


def check_at_least(name: str, value: int, least: int) -> None:
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")


@solver
def nexus_sum(
    target_words: int = 900,
    chunk_tokens: int = 300,
    scenes_per_chunk: int = 8,
    temperature: float = NEXUS_TEMPERATURE,
    max_rounds: int = 10,
    preprocess: bool = True,
    compress: bool = True,
    rewrite: bool = False,
    max_tries: int = 3,
    scene_words: int = DEFAULT_SCENE_WORDS,
    prompts_dir: str | None = None,
    tokenizer: TokenizerLike = "cl100k_base",
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """Summarize a narrative with the NexusSum pipeline.

    Args:
        target_words: θ, the most words the final summary should have.
        chunk_tokens: δ, the most tokens of a piece the compressor shortens in one call.
        scenes_per_chunk: Scenes per preprocessing and summarizing call (8 in the paper).
        temperature: Sampling temperature of every call (0.3 in the paper).
        max_rounds: Most compression rounds (10 in the paper).
        preprocess: Rewrite dialogue as prose first (off: the ablation without P).
        compress: Compress the joined chunk summaries (off: the ablation without C).
        rewrite: Finish with a readability rewrite.
        max_tries: Tries per call for an empty or unfinished output.
        scene_words: Size of scenes when the text has no scene marks, and the most words
            of a scene before it is cut (see :mod:`.scenes`).
        prompts_dir: Optional folder overriding the ``nexus_sum/`` templates.
        tokenizer: Counts tokens for δ and the trace.
        question_key: Focus chunk summaries, compression and rewrite on the question in
            ``metadata[question_key]`` (the ``nexus_sum_focused/`` templates). ``None``: no
            question.
        cache: Cache every model call (Inspect's cache, keyed by sample, epoch and try), so
            a rerun or ``inspect eval-retry`` repeats no finished step; False: no caching.

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]`` and
        its report in ``metadata["nexus_sum"]``.

    Raises:
        ValueError: If ``target_words``, ``chunk_tokens``, ``scenes_per_chunk``,
            ``scene_words`` or ``max_tries`` is below 1, or ``max_rounds`` below 0; at run
            time, if focus is on and a sample has no question.
    """
    for name, value, least in [
        ("target_words", target_words, 1),
        ("chunk_tokens", chunk_tokens, 1),
        ("scenes_per_chunk", scenes_per_chunk, 1),
        ("scene_words", scene_words, 1),
        ("max_tries", max_tries, 1),
        ("max_rounds", max_rounds, 0),
    ]:
        check_at_least(name, value, least)
    focus = Focus(question_key, tokenizer)
    dialogue = load_prompt("nexus_sum", "dialogue", prompts_dir) if preprocess else None
    chunk_prompt = focus.load("nexus_sum", "chunk", prompts_dir)
    compress_prompt = focus.load("nexus_sum", "compress", prompts_dir) if compress else None
    rewrite_prompt = focus.load("nexus_sum", "rewrite", prompts_dir) if rewrite else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bind = focus.bind(state)
        chunk_template = bind(chunk_prompt)
        compress_template = bind(compress_prompt) if compress_prompt else None
        rewrite_template = bind(rewrite_prompt) if rewrite_prompt else None
        run = SummaryRun(state, "nexus_sum", tokenizer, NEXUS_COUNTERS, cache)
        info = state.metadata[NEXUS_KEY] = new_info(target_words)
        chunks = start_chunks(run, info, document, scenes_per_chunk, scene_words)
        if dialogue is not None:
            chunks = await preprocess_dialogue(run, chunks, dialogue, temperature, max_tries)
            copy_counts(run, info)
        summary = await summarize_chunks(run, chunks, chunk_template, temperature, max_tries)
        if compress_template is not None:
            summary = await compress_summary(
                run,
                summary,
                compress_template,
                info,
                target_words,
                chunk_tokens,
                temperature,
                max_rounds,
                max_tries,
            )
        else:
            words = count_words(summary)
            info.update(initial_words=words, reached_target=words <= target_words)
        if rewrite_template is not None:
            summary = await rewrite_summary(
                run, summary, rewrite_template, target_words, temperature, max_tries
            )
        run.finish(summary)
        return state

    return solve


def start_chunks(
    run: SummaryRun, info: dict[str, Any], document: str, per_chunk: int, scene_words: int
) -> list[str]:
    """Split the document into scene chunks and report the split."""
    chunks, n_scenes, fallback = scene_chunks(document, per_chunk, scene_words)
    run.stats.update(scenes=n_scenes, chunks=len(chunks))
    run.plan(len(chunks))
    info.update(scenes=n_scenes, chunks=len(chunks), scene_fallback=fallback)
    return chunks


def copy_counts(run: SummaryRun, info: dict[str, Any]) -> None:
    info["dialogue_groups"] = run.stats["dialogue_groups"]
    info["preprocess_skipped"] = run.stats["preprocess_skipped"]

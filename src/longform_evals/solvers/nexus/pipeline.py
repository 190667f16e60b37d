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
question (the ``nexus_sum/focused/`` templates, :mod:`..common.question_focus`); the
preprocessor does not, since rewriting dialogue as prose is the same whatever is asked.
The stages are also solvers of their own (:func:`nexus_preprocess`, :func:`nexus_summarize`,
:func:`nexus_compress`); the last one compresses any summary an earlier solver left.

Reported in ``metadata["nexus_sum"]``: ``target_words``, ``scenes``, ``chunks``,
``scene_fallback``, ``dialogue_groups``, ``preprocess_skipped``, ``initial_words`` (S_0),
``rounds``, ``lengths`` (words after each round, a stalled round included), ``pieces`` (calls
of each round), ``compress_stalled``, ``compress_stop`` (why compression ended),
``compress_call_bound``, ``reached_target``; counters also go to ``summary_stats``, and the
calls and wall seconds of each stage (``preprocess``, ``summarize``, ``compress``,
``rewrite``) to ``metadata["summary_stages"]``.

Calls per sample are bounded: with T = ``max_tries``, g chunks (d of them with dialogue),
R = ``max_rounds`` and P = :func:`most_pieces` of S_0, at most
d + T x (g + R x P + 1 with the rewrite): the preprocessor is not retried.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import Outcome, Step, SummaryRun, Tries, document_of
from longform_evals.solvers.common.summary_limits import count_words
from longform_evals.solvers.costs import Cost, calls, summary_shape
from longform_evals.solvers.nexus.scenes import (
    DEFAULT_SCENE_WORDS,
    group_scenes,
    has_dialogue,
    split_scenes,
)
from longform_evals.solvers.settings import NEXUS_DEFAULTS, NEXUS_TEMPERATURE, SummarySettings
from longform_evals.text import TokenizerLike
from longform_evals.text.packing import join_pieces, pack_sentence_spans

__all__ = [
    "CHUNKS_KEY",
    "CHUNK_SEPARATOR",
    "NEXUS_COUNTERS",
    "NEXUS_KEY",
    "NexusOptions",
    "compress_summary",
    "nexus_cost",
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
    "preprocess_fallbacks",
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
TOKENS_PER_WORD = 1.3
"""English prose, for an output room asked in words."""
REWRITE_TOLERANCE = 1.1
"""A readability rewrite longer than this times max(θ, its input) is not used."""


@dataclass(frozen=True)
class NexusOptions:
    """What NexusSum and its stages take besides the shared :class:`SummarySettings`.

    Attributes:
        chunk_tokens: δ, the most tokens of a piece the compressor shortens in one call.
        scenes_per_chunk: Scenes per preprocessing and summarizing call (8 in the paper).
        max_rounds: Most compression rounds (10 in the paper).
        max_tries: Tries per call for an empty or unfinished output.
        scene_words: Size of scenes when the text has no scene marks, and the most words
            of a scene before it is cut (see :mod:`.scenes`).
        tokenizer: Counts tokens for δ and the trace.
    """

    chunk_tokens: int = 300
    scenes_per_chunk: int = 8
    max_rounds: int = 10
    max_tries: int = 3
    scene_words: int = DEFAULT_SCENE_WORDS
    tokenizer: TokenizerLike = "cl100k_base"

    def check(self, target_words: int | None = None) -> None:
        """Raise ValueError on a value below its least (1; ``max_rounds``: 0)."""
        least = {"chunk_tokens": 1, "scenes_per_chunk": 1, "scene_words": 1, "max_tries": 1}
        values: dict[str, Any] = {**self._repr_params_(), "target_words": target_words}
        for name, at_least in [("target_words", 1), *least.items(), ("max_rounds", 0)]:
            if values[name] is not None and values[name] < at_least:
                raise ValueError(f"{name} must be at least {at_least}, got {values[name]}")

    def tries(self, settings: SummarySettings) -> Tries:
        """Temperature (0.3 unless set) and tries of every NexusSum call."""
        return Tries(settings.temperature_or(NEXUS_TEMPERATURE), self.max_tries)

    def _repr_params_(self) -> dict[str, Any]:
        """The fields, for the solver's parameters in the eval log (Inspect calls this)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # shallow: no deep copies


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
        "pieces": [],
        "compress_stalled": False,
        "compress_stop": None,
        "compress_call_bound": 0,
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


def most_pieces(tokens: int, chunk_tokens: int) -> int:
    """The most pieces a compression round of a summary of ``tokens`` tokens is cut into.

    Runs of whole sentences are packed greedily up to δ = ``chunk_tokens``, so any two
    neighbouring runs hold more than δ tokens together, and a summary of t tokens gives at
    most ⌈2t/δ⌉ runs; one more covers the few tokens sentence-by-sentence counting adds at
    the joins. Taken on S_0, it bounds every round: rounds shrink the summary in words, and
    a round that would need more pieces (a summary grown in tokens) is not run
    (``compress_stop`` ``"call_bound"``), so compression makes at most
    ``max_tries x max_rounds x most_pieces(S_0)`` calls.
    """
    return max(1, math.ceil(2 * tokens / chunk_tokens) + 1)


def _room(run: SummaryRun, text: str, words: int | None = None) -> int:
    """Output tokens for a call that rewrites ``text`` at about its length or less, or, asked
    for ``words`` words, at most three times that many (a summary that long has failed
    anyway, and a model stuck in a loop stops there instead of at the chunk's length)."""
    n = run.count(text)
    room = n + max(256, n // 2)
    if words is None:
        return room
    return min(room, max(256, math.ceil(3 * words * TOKENS_PER_WORD)))


async def _rewrite(
    run: SummaryRun,
    render: Callable[[int], str],
    words: int,
    text: str,
    tries: Tries,
    step: Step,
    room_words: int | None = None,
) -> Outcome:
    """One call of trace step ``step`` that rewrites ``text`` into about ``words`` words; its
    length is not checked (a stage checks lengths as a whole). ``room_words``: the output
    room follows these asked words rather than ``text``'s length (:func:`_room`)."""
    return await run.generate(
        render,
        words,
        step=step,
        max_tokens=_room(run, text, room_words),
        temperature=tries.temperature,
        max_tries=tries.max_tries,
        check_limit=None,
    )


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
    run: SummaryRun, chunks: Sequence[str], template: PromptTemplate, tries: Tries
) -> list[str]:
    """Rewrite the dialogue of every chunk that has some as third-person prose (concurrently).

    Chunks without dialogue are returned unchanged and counted in ``preprocess_skipped``;
    each rewrite is one call, not retried: a rewrite that was cut off or empty is not used,
    the chunk is kept as it was and counted in ``preprocess_fallbacks`` (a model that loops
    until its token limit would loop again, at the cost of a whole chunk's tokens per try).
    """
    todo = [i for i, chunk in enumerate(chunks) if has_dialogue(chunk)]
    run.bump("dialogue_groups", len(todo))
    run.bump("preprocess_skipped", len(chunks) - len(todo))

    def render(text: str) -> Callable[[int], str]:
        return lambda _words: template.render(text=text.strip())

    once = Tries(tries.temperature, 1)  # not retried: a rejected rewrite has a fallback
    async with run.stage("preprocess"):
        # 1: no word limit is asked for
        outcomes = await collect(
            *(_rewrite(run, render(chunks[i]), 1, chunks[i], once, "preprocess") for i in todo)
        )
    result = list(chunks)
    for i, outcome in zip(todo, outcomes, strict=True):
        if not outcome.accepted:  # cut off or empty in every try: a part of the text would
            run.bump("preprocess_fallbacks")  # be lost, so the chunk keeps its dialogue
            outcome = Outcome(chunks[i], outcome.tries, False, outcome.rejected)
        run.record("preprocess", 0, i, outcome)
        result[i] = outcome.text
    return result


async def summarize_chunks(
    run: SummaryRun, chunks: Sequence[str], template: PromptTemplate, tries: Tries
) -> str:
    """Summarize every chunk on its own (concurrently) and join the summaries in order."""

    async def summarize(text: str) -> Outcome:
        limit = max(MIN_CHUNK_SUMMARY_WORDS, round(count_words(text) * CHUNK_SUMMARY_RATIO))
        return await _rewrite(  # room for 3x the words asked: the length is checked later
            run,
            lambda words: template.render(text=text.strip(), word_limit=words),
            limit,
            text,
            tries,
            "chunk",
            room_words=limit,
        )

    async with run.stage("summarize"):
        outcomes = await collect(*(summarize(c) for c in chunks))
    for i, outcome in enumerate(outcomes):
        run.record("chunk", 0, i, outcome)
    return CHUNK_SEPARATOR.join(o.text for o in outcomes)


async def _compress_round(
    run: SummaryRun,
    summary: str,
    runs: list[tuple[int, int]],
    level: int,
    template: PromptTemplate,
    tries: Tries,
) -> str:
    """One compression round: each span of ``summary`` shortened, all at once, and the
    shortened pieces joined in its place."""

    async def shorten(piece: str) -> Outcome:
        words = count_words(piece)
        run.bump("compress_calls")
        asked = max(1, int(words * COMPRESS_RATIO))
        return await _rewrite(  # a round that fails to shrink is caught as a whole
            run,
            lambda limit: template.render(text=piece, words=words, word_limit=limit),
            asked,
            piece,
            tries,
            "compress",
        )

    async with run.stage("compress", f"compress round {level}"):
        outcomes = await collect(*(shorten(summary[a:b]) for a, b in runs))
    for i, outcome in enumerate(outcomes):
        run.record("compress", level, i, outcome)
    run.bump("compress_rounds")
    return join_pieces(summary, runs, [o.text for o in outcomes])


async def compress_summary(
    run: SummaryRun,
    summary: str,
    template: PromptTemplate,
    info: dict[str, Any],
    target_words: int,
    options: NexusOptions,
    tries: Tries,
) -> str:
    """Compress ``summary`` round by round until it has at most ``target_words`` words.

    Stops (``info["compress_stop"]``) at the target (``"target"``), after
    ``options.max_rounds`` rounds (``"rounds"``), at a round that does not shrink the summary
    (``"stalled"``, also counted in ``compress_stalled``; that round's output is discarded),
    or before a round that would take more calls than :func:`most_pieces` allows
    (``"call_bound"``). Updates ``info``, with the pieces of each round and the bound.
    """
    words = count_words(summary)
    most = most_pieces(run.count(summary), options.chunk_tokens)
    lengths: list[int] = []
    pieces: list[int] = []
    stop = "target"
    info.update(initial_words=words, target_words=target_words)
    while words > target_words:
        if len(lengths) == options.max_rounds:
            stop = "rounds"
            break
        level = len(lengths) + 1
        runs = pack_sentence_spans(summary, options.chunk_tokens, run.tokenizer)
        if len(runs) > most:  # only if a round made the summary longer in tokens
            stop = "call_bound"
            break
        run.bump(
            "oversized_sentences",
            sum(run.count(summary[a:b]) > options.chunk_tokens for a, b in runs),
        )
        pieces.append(len(runs))
        shorter = await _compress_round(run, summary, runs, level, template, tries)
        lengths.append(count_words(shorter))
        if lengths[-1] >= words:
            stop = "stalled"
            run.bump("compress_stalled")
            break
        summary, words = shorter, lengths[-1]
    if not lengths:
        run.bump("compress_skipped")
    info.update(
        rounds=len(lengths),
        lengths=lengths,
        pieces=pieces,
        compress_stalled=stop == "stalled",
        compress_stop=stop,
        compress_call_bound=tries.max_tries * options.max_rounds * most,
        reached_target=words <= target_words,
    )
    return summary


async def rewrite_summary(
    run: SummaryRun,
    summary: str,
    template: PromptTemplate,
    target_words: int | None,
    tries: Tries,
) -> str:
    """Ask for a more readable version of ``summary``; keep the original if it grew too long."""
    words = count_words(summary)
    async with run.stage("rewrite"):
        outcome = await _rewrite(
            run,
            lambda _limit: template.render(summary=summary, words=words),
            words,
            summary,
            tries,
            "rewrite",
        )
    allowed = REWRITE_TOLERANCE * max(words, target_words or 0)
    if count_words(outcome.text) > allowed:
        run.bump("rewrite_rejects")
        outcome = Outcome(summary, outcome.tries, False, [*outcome.rejected, ["over_limit"]])
    run.record("rewrite", 0, 0, outcome)
    return outcome.text


@dataclass(frozen=True)
class Ending:
    """The last stages for one sample: compression and the readability rewrite, each
    optional (``None``: skipped), with what they need."""

    compress: PromptTemplate | None
    rewrite: PromptTemplate | None
    target_words: int
    options: NexusOptions
    tries: Tries

    async def finish(self, run: SummaryRun, summary: str, info: dict[str, Any]) -> None:
        """Compress and rewrite ``summary`` (as set) and write it as the sample's summary."""
        if self.compress is not None:
            summary = await compress_summary(
                run, summary, self.compress, info, self.target_words, self.options, self.tries
            )
        else:
            words = count_words(summary)
            info.update(initial_words=words, reached_target=words <= self.target_words)
        if self.rewrite is not None:
            summary = await rewrite_summary(
                run, summary, self.rewrite, self.target_words, self.tries
            )
        run.finish(summary)


@solver
def nexus_sum(
    settings: SummarySettings | None = None,
    options: NexusOptions | None = None,
    preprocess: bool = True,
    compress: bool = True,
    rewrite: bool = False,
) -> Solver:
    """Summarize a narrative with the NexusSum pipeline.

    Args:
        settings: The shared settings (default: :data:`NEXUS_DEFAULTS`, a 900-word target):
            θ, the most words the final summary should have (``target_words``, else the
            words of ``max_summary_tokens``), the temperature of every call (0.3 unless
            set, as in the paper), the prompts folder overriding the ``nexus_sum/``
            templates, the question key focusing chunk summaries, compression and rewrite
            (the ``nexus_sum/focused/`` templates) and caching (Inspect's cache, keyed by
            sample, epoch and try, so a rerun repeats no finished step).
        options: NexusSum's own settings (:class:`NexusOptions`: δ, scenes per chunk,
            rounds, tries, scene size, tokenizer).
        preprocess: Rewrite dialogue as prose first (off: the ablation without P).
        compress: Compress the joined chunk summaries (off: the ablation without C).
        rewrite: Finish with a readability rewrite.

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]`` and
        its report in ``metadata["nexus_sum"]``.

    Raises:
        ValueError: If the target words, ``chunk_tokens``, ``scenes_per_chunk``,
            ``scene_words`` or ``max_tries`` is below 1, or ``max_rounds`` below 0; at run
            time, if focus is on and a sample has no question.
    """
    settings, options = settings or NEXUS_DEFAULTS, options or NexusOptions()
    target_words = settings.summary_words
    options.check(target_words)
    tries = options.tries(settings)
    focus = Focus(settings.question_key, options.tokenizer)
    folder = settings.prompts_dir
    dialogue = load_prompt("nexus_sum", "dialogue", folder) if preprocess else None
    chunk_prompt = focus.load("nexus_sum", "chunk", folder)
    compress_prompt = focus.load("nexus_sum", "compress", folder) if compress else None
    rewrite_prompt = focus.load("nexus_sum", "rewrite", folder) if rewrite else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bind = focus.bind(state)
        run = SummaryRun(state, "nexus_sum", options.tokenizer, NEXUS_COUNTERS, settings.cache)
        info = state.metadata[NEXUS_KEY] = new_info(target_words)
        chunks = start_chunks(run, info, document, options)
        if dialogue is not None:
            chunks = await preprocess_dialogue(run, chunks, dialogue, tries)
            copy_counts(run, info)
        summary = await summarize_chunks(run, chunks, bind(chunk_prompt), tries)
        compress_template = bind(compress_prompt) if compress_prompt else None
        rewrite_template = bind(rewrite_prompt) if rewrite_prompt else None
        ending = Ending(compress_template, rewrite_template, target_words, options, tries)
        await ending.finish(run, summary, info)
        return state

    return solve


def start_chunks(
    run: SummaryRun, info: dict[str, Any], document: str, options: NexusOptions
) -> list[str]:
    """Split the document into scene chunks and report the split."""
    chunks, n_scenes, fallback = scene_chunks(
        document, options.scenes_per_chunk, options.scene_words
    )
    run.stats.update(scenes=n_scenes, chunks=len(chunks))
    run.plan(len(chunks))
    info.update(scenes=n_scenes, chunks=len(chunks), scene_fallback=fallback)
    return chunks


def copy_counts(run: SummaryRun, info: dict[str, Any]) -> None:
    info["dialogue_groups"] = run.stats["dialogue_groups"]
    info["preprocess_skipped"] = run.stats["preprocess_skipped"]


def nexus_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """A dialogue-to-prose rewrite of each chunk (with ``preprocess``; chunks without dialogue
    are skipped, so this is at most), a summary of each, then one compression round of the
    joined summaries (with ``compress``; a round runs only while the summary is too long).

    A chunk is ``scenes_per_chunk`` scenes; scenes are cut where the text marks them, else every
    ``scene_words`` words, which is what this counts (the token counts do not show the marks:
    a text with scene marks of fewer words has more chunks than counted)."""
    options = NexusOptions()
    _, _, cap = summary_shape(args)
    per_chunk = options.scenes_per_chunk * options.scene_words
    n = sum(max(1, math.ceil(tokens / TOKENS_PER_WORD / per_chunk)) for tokens in docs)
    chunk = per_chunk * TOKENS_PER_WORD
    cost = calls(n, chunk, chunk / 2, "chunk_summary")
    if args["preprocess"]:
        cost += calls(n, chunk, chunk, "preprocess")
    if args["compress"]:
        cost += calls(1, n * cap / 2, cap, "compression")
    return cost

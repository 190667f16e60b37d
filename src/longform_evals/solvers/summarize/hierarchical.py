"""Hierarchical merging (BooookScore, Appendix A.1): summarize chunks, then merge summaries.

Level 0 summarizes every chunk (all calls at once). Each higher level packs as many
consecutive summaries as fit into one merge call, passing the previous merged summary of the
same level as earlier context, until one summary is left.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect, span

from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.question_focus import Focus
from longform_evals.solvers.common.recording import Outcome, SummaryRun, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, word_limit
from longform_evals.solvers.settings import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_SUMMARY_TOKENS,
    DEFAULT_TEMPERATURE,
)
from longform_evals.solvers.summarize.artifacts import ARTIFACT_COUNTERS, clean_artifacts
from longform_evals.solvers.summarize.merge_packing import (
    chunk_summary_tokens,
    group_overflows,
    pack_merge_groups,
    trim_prior_context,
)
from longform_evals.text import TokenizerLike, chunk_text, get_tokenizer

__all__ = ["HIERARCHICAL_COUNTERS", "hierarchical_merge", "join_summaries"]

HIERARCHICAL_COUNTERS = (
    "chunks",
    "levels",
    "merges",
    "chunk_summary_tokens",
    "context_trims",
    "oversized_groups",
    "forced_pairs",
)

_Summarize = Callable[[Callable[[int], str], int], Awaitable[Outcome]]


def join_summaries(summaries: Sequence[str]) -> str:
    """Lay out consecutive summaries for a merge prompt, numbered in story order."""
    return "\n\n".join(f"Summary {i}:\n{s}" for i, s in enumerate(summaries, start=1))


@dataclass(frozen=True)
class _Plan:
    """Token budgets of one configuration, fixed when the solver is created."""

    chunk_size: int
    max_summary_tokens: int
    merge_budget: int  # tokens for the summaries in one merge call
    context_tokens: int  # tokens for the earlier context in one merge call
    item_overhead: int  # tokens a summary's label and separator add


@solver
def hierarchical_merge(
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS,
    temperature: float = DEFAULT_TEMPERATURE,
    max_tries: int = 6,
    remove_artifacts: bool = False,
    retry_temperature: float | None = None,
    context_fraction: float = 0.2,
    min_chunk_summary_ratio: float = 0.25,
    tokenizer: TokenizerLike = "cl100k_base",
    prompts_dir: str | None = None,
    question_key: str | None = None,
    cache: bool = True,
) -> Solver:
    """Summarize a long document by hierarchical merging.

    Args:
        chunk_size: Most tokens per chunk (2048 in the paper).
        context_window: Tokens the model can read and write in one call.
        max_summary_tokens: Token limit of merged summaries and of the final one (900 in
            the paper, G_n); prompts ask for 0.65 times as many words.
        temperature: Sampling temperature of every call (0.5 in the paper).
        max_tries: Tries for a summary that is empty, over its word limit or unfinished;
            each retry asks for 10 % fewer words, and after the last the best is kept.
        remove_artifacts: Clean the final summary with the artifact-removal prompt.
        retry_temperature: Temperature of retries (``None``: ``temperature``; the
            BooookScore reference code uses 1.0).
        context_fraction: Share of a merge call's room given to the earlier context (the
            reference uses 0.2).
        min_chunk_summary_ratio: Smallest share of ``max_summary_tokens`` a chunk summary
            may be limited to when many chunks share one merge call.
        tokenizer: Counts tokens for chunking and budgets (cl100k_base by default).
        prompts_dir: Optional folder overriding the ``summarize/`` templates.
        question_key: Focus chunk summaries and merges on the question in
            ``metadata[question_key]`` (the ``summarize_focused/`` templates; see
            :mod:`..common.question_focus`). ``None``: no question.
        cache: Cache every model call (Inspect's cache, keyed by sample, epoch and try), so
            a rerun or ``inspect eval-retry`` repeats no finished step; False: no caching.

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If a chunk and its summary, or the merge prompts, cannot fit the window;
            at run time, if focus is on and a sample has no question.
    """
    focus = Focus(question_key, tokenizer)
    chunk_prompt = focus.load("summarize", "chunk", prompts_dir)
    merge_prompt = focus.load("summarize", "merge", prompts_dir)
    context_prompt = focus.load("summarize", "merge_context", prompts_dir)
    cleaner = load_prompt("summarize", "artifacts", prompts_dir) if remove_artifacts else None
    plan = _make_plan(
        focus.planning(chunk_prompt),
        focus.planning(context_prompt),
        chunk_size,
        context_window,
        max_summary_tokens,
        context_fraction,
        tokenizer,
    )
    counters = (*HIERARCHICAL_COUNTERS, *(ARTIFACT_COUNTERS if cleaner else ()))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bind = focus.bind(state)
        prompts = (bind(merge_prompt), bind(context_prompt))
        chunk_template = bind(chunk_prompt)
        run = SummaryRun(state, "hierarchical_merge", tokenizer, counters, cache)

        async def summarize(render: Callable[[int], str], token_limit: int) -> Outcome:
            limit = word_limit(token_limit)
            return await run.generate(
                render,
                limit,
                max_tokens=token_limit,
                temperature=temperature,
                max_tries=max_tries,
                check_limit=limit,
                retry_temperature=retry_temperature,
            )

        chunks = chunk_text(document, plan.chunk_size, run.tokenizer)
        level0 = chunk_summary_tokens(
            len(chunks), plan.merge_budget, plan.max_summary_tokens, min_chunk_summary_ratio
        )
        run.stats.update(chunks=len(chunks), chunk_summary_tokens=level0)
        run.plan(len(chunks))

        def chunk_render(text: str) -> Callable[[int], str]:
            return lambda words: chunk_template.render(text=text, word_limit=words)

        # Spans group each level's calls in the log viewer; collect() runs the chunk
        # summaries concurrently (one span each) and cancels the rest if one fails.
        async with span("level 0", type="summary_level"):
            outcomes = await collect(*(summarize(chunk_render(c.text), level0) for c in chunks))
        for i, outcome in enumerate(outcomes):
            run.record("chunk", 0, i, outcome)
        summaries = [o.text for o in outcomes]

        level = 0
        while len(summaries) > 1:
            level += 1
            async with span(f"level {level}", type="summary_level"):
                summaries = await _merge_level(run, plan, summaries, level, summarize, prompts)
        run.stats["levels"] = level + 1
        summary = summaries[0]
        if cleaner is not None:
            summary = await clean_artifacts(run, summary, cleaner, temperature)
        run.finish(summary)
        return state

    return solve


async def _merge_level(
    run: SummaryRun,
    plan: _Plan,
    summaries: list[str],
    level: int,
    summarize: _Summarize,
    prompts: tuple[PromptTemplate, PromptTemplate],
) -> list[str]:
    """Merge one level; merges run in order because each sees the previous one's result."""
    merge_prompt, context_prompt = prompts
    lengths = [run.count(s) + plan.item_overhead for s in summaries]
    groups = pack_merge_groups(lengths, plan.merge_budget)
    singles, forced = group_overflows(groups, lengths, plan.merge_budget)
    run.bump("oversized_groups", singles)
    run.bump("forced_pairs", forced)
    run.plan(len(groups))
    merged: list[str] = []
    for index, group in enumerate(groups):
        text = join_summaries([summaries[i] for i in group])
        if merged:
            context = trim_prior_context(merged[-1], plan.context_tokens, run.tokenizer)
            if context != merged[-1]:
                run.bump("context_trims")
            render = _render_with_context(context_prompt, context, text)
        else:
            render = _render(merge_prompt, text)
        outcome = await summarize(render, plan.max_summary_tokens)
        run.record("merge", level, index, outcome)
        run.bump("merges")
        merged.append(outcome.text)
    return merged


def _render(template: PromptTemplate, summaries: str) -> Callable[[int], str]:
    return lambda words: template.render(summaries=summaries, word_limit=words)


def _render_with_context(
    template: PromptTemplate, context: str, summaries: str
) -> Callable[[int], str]:
    return lambda words: template.render(context=context, summaries=summaries, word_limit=words)


def _make_plan(
    chunk_prompt: PromptTemplate,
    context_prompt: PromptTemplate,
    chunk_size: int,
    context_window: int,
    max_summary_tokens: int,
    context_fraction: float,
    tokenizer: TokenizerLike,
) -> _Plan:
    """Work out the merge budgets, failing early on a configuration that cannot work."""
    if not 0.0 <= context_fraction < 1.0:
        raise ValueError(f"context_fraction must be in [0, 1), got {context_fraction}")
    tok = get_tokenizer(tokenizer)
    limit = word_limit(max_summary_tokens)
    chunk_overhead = tok.count(chunk_prompt.render(text="", word_limit=limit))
    if chunk_overhead + chunk_size + max_summary_tokens > context_window:
        raise ValueError(
            f"chunk_size={chunk_size} + max_summary_tokens={max_summary_tokens} + the prompt "
            f"({chunk_overhead} tokens) exceed context_window={context_window}"
        )
    merge_overhead = tok.count(context_prompt.render(context="", summaries="", word_limit=limit))
    room = context_window - merge_overhead - max_summary_tokens - SAFETY_TOKENS
    context_tokens = int(context_fraction * room)
    merge_budget = room - context_tokens
    if merge_budget < 2 * max_summary_tokens:
        raise ValueError(
            f"context_window={context_window} leaves room for fewer than two summaries of "
            f"max_summary_tokens={max_summary_tokens} in a merge call"
        )
    item_overhead = tok.count(join_summaries(["", ""])) - tok.count(join_summaries([""]))
    return _Plan(chunk_size, max_summary_tokens, merge_budget, context_tokens, item_overhead)

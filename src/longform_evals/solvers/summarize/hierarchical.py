"""Hierarchical merging (BooookScore, Appendix A.1): summarize chunks, then merge summaries.

Level 0 summarizes every chunk (all calls at once). Each higher level packs as many
consecutive summaries as fit into one merge call, passing the previous merged summary of the
same level as earlier context, until one summary is left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from longform_evals.prompts import PromptTemplate
from longform_evals.solvers.common.recording import SummaryRun, Tries, document_of
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, word_limit
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.merge_packing import (
    chunk_summary_tokens,
    group_overflows,
    join_summaries,
    pack_merge_groups,
    trim_prior_context,
)
from longform_evals.solvers.summarize.setup import summarizer
from longform_evals.text import TokenizerLike, chunk_text, get_tokenizer

__all__ = ["HIERARCHICAL_COUNTERS", "hierarchical_merge"]

_NAMES = ("chunk", "merge", "merge_context")

HIERARCHICAL_COUNTERS = (
    "chunks",
    "levels",
    "merges",
    "chunk_summary_tokens",
    "context_trims",
    "oversized_groups",
    "forced_pairs",
)


@dataclass(frozen=True)
class _Plan:
    """Token budgets of one configuration, fixed when the solver is created."""

    chunk_size: int
    max_summary_tokens: int
    merge_budget: int  # tokens for the summaries in one merge call
    context_tokens: int  # tokens for the earlier context in one merge call
    item_overhead: int  # tokens a summary's label and separator add
    min_chunk_summary_ratio: float


@solver
def hierarchical_merge(
    settings: SummarySettings | None = None,
    max_tries: int = 6,
    retry_temperature: float | None = None,
    context_fraction: float = 0.2,
    min_chunk_summary_ratio: float = 0.25,
    tokenizer: TokenizerLike = "cl100k_base",
) -> Solver:
    """Summarize a long document by hierarchical merging.

    Args:
        settings: The shared settings (default: :class:`SummarySettings` defaults): the
            chunk size (2048 in the paper), the context window, the token limit of merged
            summaries and of the final one (900 in the paper, G_n; prompts ask for 0.65
            times as many words), the temperature of every call (0.5 by default, as in the
            paper), artifact removal on the final summary (off by default), the prompts
            folder overriding the ``summarize/`` templates, the question key focusing chunk
            summaries and merges (the ``summarize/focused/`` templates; see
            :mod:`..common.question_focus`) and caching (Inspect's cache, keyed by sample,
            epoch and try, so a rerun repeats no finished step).
        max_tries: Tries for a summary that is empty, over its word limit or unfinished;
            each retry asks for 10 % fewer words, and after the last the best is kept.
        retry_temperature: Temperature of retries (``None``: the temperature; the
            BooookScore reference code uses 1.0).
        context_fraction: Share of a merge call's room given to the earlier context (the
            reference uses 0.2).
        min_chunk_summary_ratio: Smallest share of the summary's token limit a chunk summary
            may be limited to when many chunks share one merge call.
        tokenizer: Counts tokens for chunking and budgets (cl100k_base by default).

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: If a chunk and its summary, or the merge prompts, cannot fit the window;
            at run time, if focus is on and a sample has no question.
    """
    setup = summarizer(
        settings, "summarize", _NAMES, False, (max_tries, retry_temperature), tokenizer
    )
    settings, tries, prompts, final = setup.settings, setup.tries, setup.prompts, setup.final
    plan = _make_plan(
        prompts.planning(), settings, context_fraction, min_chunk_summary_ratio, tokenizer
    )
    counters = (*HIERARCHICAL_COUNTERS, *final.counters)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        document = document_of(state)
        bound = prompts.bind(state)
        run = SummaryRun(state, "hierarchical_merge", tokenizer, counters, settings.cache)
        summaries = await _summarize_chunks(run, plan, document, bound["chunk"], tries)
        level = 0
        while len(summaries) > 1:
            level += 1
            async with run.stage(f"level {level}"):
                summaries = await _merge_level(run, plan, summaries, level, bound, tries)
        run.stats["levels"] = level + 1
        await final.finish(run, summaries[0])
        return state

    return solve


async def _summarize_chunks(
    run: SummaryRun, plan: _Plan, document: str, template: PromptTemplate, tries: Tries
) -> list[str]:
    """Level 0: summarize every chunk of ``document``."""
    chunks = chunk_text(document, plan.chunk_size, run.tokenizer)
    level0 = chunk_summary_tokens(
        len(chunks), plan.merge_budget, plan.max_summary_tokens, plan.min_chunk_summary_ratio
    )
    run.stats.update(chunks=len(chunks), chunk_summary_tokens=level0)
    run.plan(len(chunks))

    def render(text: str) -> Callable[[int], str]:
        return lambda words: template.render(text=text, word_limit=words)

    # Spans group each level's calls in the log viewer; collect() runs the chunk
    # summaries concurrently (one span each) and cancels the rest if one fails.
    async with run.stage("level 0"):
        outcomes = await collect(
            *(run.summarize(render(c.text), level0, tries, step="chunk") for c in chunks)
        )
    for i, outcome in enumerate(outcomes):
        run.record("chunk", 0, i, outcome)
    return [o.text for o in outcomes]


async def _merge_level(
    run: SummaryRun,
    plan: _Plan,
    summaries: list[str],
    level: int,
    prompts: Mapping[str, PromptTemplate],
    tries: Tries,
) -> list[str]:
    """Merge one level; merges run in order because each sees the previous one's result."""
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
            render = _render_with_context(prompts["merge_context"], context, text)
        else:
            render = _render(prompts["merge"], text)
        outcome = await run.summarize(render, plan.max_summary_tokens, tries, step="merge")
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
    prompts: Mapping[str, PromptTemplate],
    settings: SummarySettings,
    context_fraction: float,
    min_chunk_summary_ratio: float,
    tokenizer: TokenizerLike,
) -> _Plan:
    """Work out the merge budgets, failing early on a configuration that cannot work."""
    if not 0.0 <= context_fraction < 1.0:
        raise ValueError(f"context_fraction must be in [0, 1), got {context_fraction}")
    tok = get_tokenizer(tokenizer)
    chunk_size, window = settings.chunk_size, settings.context_window
    max_summary_tokens = settings.summary_tokens
    limit = word_limit(max_summary_tokens)
    chunk_overhead = tok.count(prompts["chunk"].render(text="", word_limit=limit))
    if chunk_overhead + chunk_size + max_summary_tokens > window:
        raise ValueError(
            f"chunk_size={chunk_size} + max_summary_tokens={max_summary_tokens} + the prompt "
            f"({chunk_overhead} tokens) exceed context_window={window}"
        )
    merge_overhead = tok.count(
        prompts["merge_context"].render(context="", summaries="", word_limit=limit)
    )
    room = window - merge_overhead - max_summary_tokens - SAFETY_TOKENS
    context_tokens = int(context_fraction * room)
    merge_budget = room - context_tokens
    if merge_budget < 2 * max_summary_tokens:
        raise ValueError(
            f"context_window={window} leaves room for fewer than two summaries of "
            f"max_summary_tokens={max_summary_tokens} in a merge call"
        )
    item_overhead = tok.count(join_summaries(["", ""])) - tok.count(join_summaries([""]))
    return _Plan(
        chunk_size,
        max_summary_tokens,
        merge_budget,
        context_tokens,
        item_overhead,
        min_chunk_summary_ratio,
    )

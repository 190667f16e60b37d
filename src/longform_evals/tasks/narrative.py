"""Narrative summarization against references: BookSum with length control.

    inspect eval longform_evals/booksum --model gguf/qwen2.5-coder-1.5b -T strategy=nexus_sum
    inspect eval longform_evals/booksum --model openai/gpt-4o -T data=chapters.jsonl \
        -T strategy=hierarchical -T target_words=600 -T coherence=true

Strategies: `full` (one call, truncated to the window), `hierarchical` (merging),
`incremental` (updating) and `nexus_sum` (preprocess, summarize, compress to the target).
Scored with ROUGE-1/2/L and BERTScore (best over references; the packaged MiniLM model by
default, so the numbers are not comparable to roberta-large ones), the length adherence
(`within` = within ±`tolerance` of `target_words`; its mean is the LAR) and length ratio,
the summary statistics, and BooookScore coherence on request.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from longform_evals.data.booksum import load_booksum, load_booksum_hf
from longform_evals.scorers.bertscore import bertscore
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.scorers.length_control import length_control
from longform_evals.scorers.rouge import rouge
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.solvers.limits import WORD_RATIO
from longform_evals.solvers.nexus_sum import nexus_sum
from longform_evals.tasks.booookscore import strategy_solver

NARRATIVE_STRATEGIES = ("full", "hierarchical", "incremental", "nexus_sum")


def narrative_solver(
    strategy: str,
    target_words: int,
    chunk_size: int,
    context_window: int,
    temperature: float | None,
    prompts_dir: str | None,
) -> Solver:
    """The summarizer for a strategy; every one is asked for about `target_words` words."""
    if strategy == "nexus_sum":
        return nexus_sum(
            target_words=target_words,
            temperature=0.3 if temperature is None else temperature,
            prompts_dir=prompts_dir,
        )
    if strategy not in NARRATIVE_STRATEGIES:
        raise ValueError(
            f"unknown strategy {strategy!r}; use one of {', '.join(NARRATIVE_STRATEGIES)}"
        )
    # The BooookScore solvers ask for WORD_RATIO words per token of max_summary_tokens.
    return strategy_solver(
        strategy,  # type: ignore[arg-type]
        chunk_size,
        context_window,
        max(1, round(target_words / WORD_RATIO)),
        0.5 if temperature is None else temperature,
        None,
        prompts_dir,
    )


def narrative_scorers(target_words: int, tolerance: float, coherence: bool) -> list[Scorer]:
    scorers = [
        rouge(),
        bertscore(),
        length_control(target_words=target_words, tolerance=tolerance),
        summary_statistics(),
    ]
    return [*scorers, booookscore_scorer()] if coherence else scorers


@task
def booksum(
    data: str | None = None,
    level: str | None = None,
    strategy: str = "hierarchical",
    target_words: int = 900,
    tolerance: float = 0.1,
    chunk_size: int = 2048,
    context_window: int = 8192,
    temperature: float | None = None,
    coherence: bool = False,
    prompts_dir: str | None = None,
) -> Task:
    """BookSum chapters or books, summarized and compared with the reference summaries.

    Args:
        data: a local JSONL (`doc_id`, `title`, `text`, `summaries`, `level`); when omitted,
            HF `kmfoda/booksum` (chapter level, test split; needs internet and `datasets`).
        level: keep only `chapter` or `book` records of a local file.
        strategy: `full`, `hierarchical`, `incremental` or `nexus_sum`.
        target_words: the summary length asked for (NexusSum's θ; the others are asked for
            about this many words) and the length-adherence target.
        tolerance: length adherence: within tolerance * target_words of it (default 10 %).
        chunk_size: chunk tokens of hierarchical / incremental.
        context_window: the summarizer's window in tokens.
        temperature: sampling temperature (default: 0.3 for nexus_sum, 0.5 otherwise).
        coherence: also score BooookScore coherence (the `grader` role judges).
        prompts_dir: folder overriding prompt templates.
    """
    if target_words < 1:
        raise ValueError(f"target_words must be >= 1, got {target_words}")
    samples = load_booksum(data, level=level) if data is not None else load_booksum_hf()
    return Task(
        dataset=MemoryDataset(samples, name="booksum"),
        solver=narrative_solver(
            strategy, target_words, chunk_size, context_window, temperature, prompts_dir
        ),
        scorer=narrative_scorers(target_words, tolerance, coherence),
        version="1.0.0",
    )

# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""The BooookScore task: summarize books with a strategy, then judge the summaries' coherence.

inspect eval longform_evals/booookscore --model gguf/qwen2.5-coder-1.5b -T chunk_size=512
inspect eval tasks/booookscore.py --model openai/gpt-4o -T strategy=incremental
inspect eval tasks/booookscore.py --model X --model-role grader=openai/gpt-4o
inspect eval tasks/booookscore.py --model X -T score_only=true -T data=summaries.jsonl
"""

from __future__ import annotations

from typing import Annotated, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from longform_evals.data.books import bundled_books_dir, load_books, load_summaries
from longform_evals.data.sources import DATA_SOURCE_KEY, local_source
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.judges.coherence.paper import SentenceLayout
from longform_evals.scorers.booookscore import RepeatedSentences
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.scorers.limited import limited
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.solvers.settings import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_SUMMARY_TOKENS,
    DEFAULT_TEMPERATURE,
)
from longform_evals.solvers.strategies import SummarySettings, check_strategy, summary_solver
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.tasks import papers, snapshot_fixtures
from longform_evals.tasks.arguments import strict_parameters
from longform_evals.tasks.card import Headline, TaskCard
from longform_evals.tasks.costs import booookscore_cost
from longform_evals.tasks.parameters import (
    COUNT,
    DATA,
    SCORING,
    SETTINGS,
    CacheCalls,
    ChunkSize,
    ContextWindow,
    DataFile,
    Param,
    PromptsDir,
    StrategyName,
    SummaryTokens,
    Temperature,
)
from longform_evals.vocabulary import ScorerMode


@task
@strict_parameters
def booookscore(
    strategy: StrategyName = "hierarchical",
    data: DataFile = None,
    chunk_size: ChunkSize = DEFAULT_CHUNK_SIZE,
    context_window: ContextWindow = DEFAULT_CONTEXT_WINDOW,
    max_summary_tokens: SummaryTokens = DEFAULT_MAX_SUMMARY_TOKENS,
    temperature: Temperature = DEFAULT_TEMPERATURE,
    remove_artifacts: Annotated[bool | None, SETTINGS] = None,
    judge_mode: Annotated[ScorerMode, SCORING] = "auto",
    judge_batch: Annotated[int, Param("scoring", COUNT)] = 0,
    judge_layout: Annotated[SentenceLayout, SCORING] = "quoted",
    judge_cache: Annotated[bool, SCORING] = True,
    judge_readings: Annotated[bool, SCORING] = True,
    repeated_sentences: Annotated[RepeatedSentences, SCORING] = "once",
    score_only: Annotated[bool, DATA] = False,
    prompts_dir: PromptsDir = None,
    cache: CacheCalls = True,
) -> Task:
    """Book-length summarization scored with BooookScore and summary statistics.

    Args:
        strategy: a summary strategy of the registry (`strategy_names("summary")` of
            `longform_evals.solvers.strategies`): the paper's `hierarchical` (merging) and
            `incremental` (updating), the baseline `full` (one call, truncated to the
            context window when needed), or any other registered (docs/strategies.md).
        data: a .txt book, a folder of .txt books, or JSONL with id/title/text; the bundled
            stories when omitted. With `score_only`, JSONL with id/summary (optional text).
        chunk_size: tokens per chunk (cl100k), the paper's default 2048.
        context_window: the summarizer's context window in tokens.
        max_summary_tokens: maximum summary length G_n, the paper's default 900.
        temperature: summarization temperature (the paper's 0.5).
        remove_artifacts: strip "in this segment"-style artifacts (default: only for
            incremental updating, as in the paper).
        judge_mode: `auto`, `sentence`, `batched` or `probe` (see the scorer).
        judge_batch: sentences per judge call; > 0 selects batched mode.
        judge_layout: `sentence` mode prompt, `quoted` or `numbered` (see the scorer).
        judge_cache: cache judge calls so summaries can be re-scored without new calls.
        judge_readings: also judge each sentence judged clear without its suspect pieces
            (in another language, naming the verdict word, or addressed to the judge),
            keeping the most confusing verdict: a defence against notes to the judge that
            costs nothing for sentences without such pieces; false: as written only.
        repeated_sentences: how a sentence the summary repeats word for word counts: `once`
            (the default, as the official package's `get_score` counts it: one unit, with its
            last occurrence's verdict) or `each` (every occurrence). Every occurrence is
            judged either way (docs/booookscore.md).
        score_only: score the summaries given in `data` instead of generating them.
        prompts_dir: folder overriding any packaged prompt template.
        cache: cache every summarizer call (Inspect's cache, no expiry; keyed by sample,
            epoch and try), so a rerun or `inspect eval-retry` of a half-finished sample
            repeats no finished step; false: no caching.

    Returns:
        The task; the judge is the `grader` model role (the evaluated model by default).
    """
    mode: ScorerMode = "batched" if judge_batch > 0 else judge_mode
    scorers = [
        booookscore_scorer(
            CoherenceJudging(
                mode=mode,
                batch_size=judge_batch if judge_batch > 0 else 10,
                cache=judge_cache,
                prompts_dir=prompts_dir,
                layout=judge_layout,
                readings=judge_readings,
            ),
            repeated_sentences=repeated_sentences,
        ),
        summary_statistics(),
        limited(),
    ]
    if score_only:
        if data is None:
            raise ValueError("score_only needs -T data=<JSONL with id and summary per line>")
        return Task(
            dataset=MemoryDataset(load_summaries(data), name="booookscore_given"),
            solver=given_summary(),
            scorer=scorers,
            version="1.7.0",
            metadata={DATA_SOURCE_KEY: local_source(data)},
        )
    check_strategy(strategy)
    return Task(
        dataset=MemoryDataset(load_books(data), name="booookscore_books"),
        solver=summary_solver(
            strategy,
            SummarySettings(
                chunk_size=chunk_size,
                context_window=context_window,
                max_summary_tokens=max_summary_tokens,
                temperature=temperature,
                remove_artifacts=remove_artifacts,
                prompts_dir=prompts_dir,
                cache=cache,
            ),
        ),
        scorer=scorers,
        version="1.7.0",
        metadata={DATA_SOURCE_KEY: _books_source(data)},
    )


def _books_source(data: str | None) -> dict[str, Any]:
    """What the log records of the books: the file or folder given, or the bundled stories
    (named so, with their digest)."""
    if data is not None:
        return local_source(data)
    return {**local_source(str(bundled_books_dir())), "name": "bundled stories"}


CARD = TaskCard(
    name="booookscore",
    factory=booookscore,
    title="BooookScore: coherence of book-length summaries, judged sentence by sentence",
    papers=(papers.BOOOOKSCORE,),
    family="summary",
    headlines=(Headline("booookscore", "booookscore", "BooookScore"),),
    cost=booookscore_cost,
    strategy_family="summary",
    judged_by="grader",
    judge_mode=True,
    calibration_kind="coherence_probe",
    snapshot=snapshot_fixtures.BOOOOKSCORE,
)

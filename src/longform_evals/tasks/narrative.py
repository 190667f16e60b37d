# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""Narrative summarization against references: BookSum and SQuALITY with length control.

    inspect eval longform_evals/booksum --model gguf/qwen2.5-coder-1.5b -T strategy=nexus_sum
    inspect eval longform_evals/booksum --model openai/gpt-4o -T data=chapters.jsonl \
        -T strategy=hierarchical -T target_words=600 -T coherence=true
    inspect eval longform_evals/squality --model openai/gpt-4o -T data=squality/dev.jsonl \
        -T strategy=nexus_sum -T compress=false

Strategies: every one in `solvers.strategies`: `full` (one call, truncated to the window),
`hierarchical` (merging), `incremental` (updating) and `nexus_sum` (preprocess, summarize,
compress to the target).
Scored with ROUGE-1/2/L and BERTScore (best over references; the packaged MiniLM model by
default, so the numbers are not comparable to roberta-large ones), the length adherence
(`within` = within ±`tolerance` of `target_words`; its mean is the LAR) and length ratio,
the summary statistics, and BooookScore coherence on request. SQuALITY summaries answer a
question about the story: every strategy's prompts carry it (`solvers.common.question_focus`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from longform_evals.data.booksum import BOOKSUM_HF_DATASET, load_booksum, load_booksum_hf
from longform_evals.data.sources import DATA_SOURCE_KEY, Published, data_source
from longform_evals.data.squality import SQUALITY_HF_DATASET, load_squality, load_squality_hf
from longform_evals.scorers.bertscore import bertscore
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.scorers.length_control import length_control
from longform_evals.scorers.limited import limited
from longform_evals.scorers.rouge import rouge
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.solvers.settings import DEFAULT_CHUNK_SIZE, DEFAULT_CONTEXT_WINDOW
from longform_evals.solvers.strategies import SummarySettings, summary_solver
from longform_evals.tasks import papers, snapshot_fixtures
from longform_evals.tasks.arguments import call_arguments, strict_parameters
from longform_evals.tasks.card import Headline, TaskCard, with_coherence
from longform_evals.tasks.costs import narrative_cost
from longform_evals.tasks.parameters import (
    DATA,
    CacheCalls,
    ChunkSize,
    Coherence,
    ContextWindow,
    DataFile,
    PromptsDir,
    Revision,
    Stage,
    StrategyName,
    StrategyTemperature,
    TargetWords,
    Tolerance,
    chosen_options,
    role_names,
    sharing,
)
from longform_evals.tasks.snapshot_fixtures import SnapshotFixture

BOOKSUM_PUBLISHED = Published(BOOKSUM_HF_DATASET, "test")
SQUALITY_PUBLISHED = Published(SQUALITY_HF_DATASET, "validation")

SQUALITY_TARGET_WORDS = 200
"""SQuALITY references run to about 225 words on average (median about 165, middle half
115-315 words, in the 60 references of three dev stories); 200 sits between the two."""


def narrative_scorers(target_words: int, tolerance: float, coherence: bool) -> list[Scorer]:
    """ROUGE, BERTScore, length control and summary statistics (and BooookScore)."""
    if target_words < 1:
        raise ValueError(f"target_words must be >= 1, got {target_words}")
    scorers = [
        rouge(),
        bertscore(),
        length_control(target_words=target_words, tolerance=tolerance),
        summary_statistics(),
    ]
    return [*scorers, booookscore_scorer(), limited()] if coherence else [*scorers, limited()]


def _narrative_task(
    factory: Callable[..., Task],
    samples: Callable[[], list[Sample]],
    source: dict[str, Any],
    question_key: str | None = None,
) -> Task:
    """The narrative task ``factory`` is building, from its arguments (`call_arguments`; its
    parameters' roles say which are settings and options): scorers and
    solver first (a bad strategy fails before the data is read), then the samples; ``source``
    (where they came from) goes into the log's metadata."""
    task_args = call_arguments()
    scorers = narrative_scorers(
        task_args["target_words"], task_args["tolerance"], task_args["coherence"]
    )
    name = factory.__name__
    settings = SummarySettings(
        **{key: task_args[key] for key in role_names(factory, "settings")},
        question_key=question_key,
    )
    # nexus_sum's stages (`preprocess`, `compress`) are options: only a stage switched off is
    # passed, which the strategies without stages refuse
    solver = summary_solver(task_args["strategy"], settings, **chosen_options(factory, task_args))
    return Task(
        dataset=MemoryDataset(samples(), name=name),
        solver=solver,
        scorer=scorers,
        headline_metric=_HEADLINES[0].inspect_headline(),
        version="1.3.0",
        metadata={DATA_SOURCE_KEY: source},
    )


def _narrative_parameters(
    strategy: StrategyName = "hierarchical",
    tolerance: Tolerance = 0.1,
    chunk_size: ChunkSize = DEFAULT_CHUNK_SIZE,
    context_window: ContextWindow = DEFAULT_CONTEXT_WINDOW,
    temperature: StrategyTemperature = None,
    coherence: Coherence = False,
    prompts_dir: PromptsDir = None,
    preprocess: Stage = True,
    compress: Stage = True,
    cache: CacheCalls = True,
) -> None:
    """The parameters every narrative task takes (`sharing`), after its own.

    Args:
        strategy: a summary strategy of the registry (`strategy_names("summary")` of
            `longform_evals.solvers.strategies`; docs/strategies.md describes the packaged
            ones), NexusSum's pipeline `nexus_sum` among them.
        tolerance: length adherence: within tolerance * target_words of it (default 10 %).
        chunk_size: chunk tokens of hierarchical / incremental.
        context_window: the summarizer's window in tokens.
        temperature: sampling temperature (default: 0.3 for nexus_sum, 0.5 otherwise).
        coherence: also score BooookScore coherence (the `grader` role judges).
        prompts_dir: folder overriding prompt templates.
        preprocess: nexus_sum only: rewrite dialogue as prose first (false: the ablation).
        compress: nexus_sum only: compress to `target_words` (false: the ablation).
        cache: cache every summarizer call (Inspect's cache, no expiry; keyed by sample,
            epoch and try), so a rerun or `inspect eval-retry` of a half-finished sample
            repeats no finished step; false: no caching.
    """


@task
@strict_parameters
@sharing(_narrative_parameters)
def booksum(
    data: DataFile = None,
    level: Annotated[str | None, DATA] = None,
    target_words: TargetWords = 900,
    revision: Revision = BOOKSUM_PUBLISHED.pin.revision,
    **shared: Any,
) -> Task:
    """BookSum chapters or books, summarized and compared with the reference summaries.

    Args:
        data: a local JSONL (`doc_id`, `title`, `text`, `summaries`, `level`); when omitted,
            HF `kmfoda/booksum` (chapter level, test split; needs internet and `datasets`).
        level: keep only `chapter` or `book` records of a local file.
        target_words: the summary length asked for (NexusSum's θ; the others are asked for
            about this many words) and the length-adherence target.
        revision: the commit, branch or tag of the HF dataset to read (default: the one the
            suite pins, `data/sources.py`); recorded in the log's metadata.
    """
    source = data_source(data, BOOKSUM_PUBLISHED, revision)

    def samples() -> list[Sample]:
        if data is not None:
            return load_booksum(data, level=level)
        return load_booksum_hf(revision=revision)

    return _narrative_task(booksum, samples, source)


@task
@strict_parameters
@sharing(_narrative_parameters)
def squality(
    data: DataFile = None,
    target_words: TargetWords = SQUALITY_TARGET_WORDS,
    focus: Annotated[bool, DATA] = True,
    split: Annotated[str, DATA] = "validation",
    revision: Revision = SQUALITY_PUBLISHED.pin.revision,
    **shared: Any,
) -> Task:
    """SQuALITY: question-focused summaries of short stories, against four references each.

    One sample per (story, question); the strategy's prompts carry the question after the
    story text (the `focused/` templates of its prompt folder), so questions about one story
    share the prefix.
    A question without reference summaries is a `DataError` when the data is loaded.

    Args:
        data: a local SQuALITY v1.3 JSONL (one story per line with its questions and
            responses); when omitted, HF `pszemraj/SQuALITY-v1.3` (needs internet and
            `datasets`).
        target_words: the summary length asked for and the length-adherence target; 200 by
            default because SQuALITY's references average about 225 words (median about
            165).
        focus: put the question in the prompts (false: generic summaries of the story,
            scored against the question's references); the prompts are then the `focused/`
            templates of the strategy's folder (`summarize/focused/`, `nexus_sum/focused/`).
        split: the HF split when `data` is omitted.
        revision: as for `booksum` (of HF `pszemraj/SQuALITY-v1.3`).
    """
    source = data_source(data, SQUALITY_PUBLISHED, revision, split)

    def samples() -> list[Sample]:
        if data is not None:
            return load_squality(data)
        return load_squality_hf(split, revision=revision)

    return _narrative_task(squality, samples, source, "question" if focus else None)


_HEADLINES = (
    Headline("rouge", "rougeL", "ROUGE-L", scale=100),
    Headline("bertscore", "bertscore_f1", "BERTScore F1", scale=100),
    Headline("length_control", "within", "LAR", scale=100),
    Headline("booookscore", "booookscore", "BooookScore"),
)


def _card(
    name: str,
    factory: Callable[..., Task],
    snapshot: SnapshotFixture,
    title: str,
    published: Published,
    dataset_paper: str,
) -> TaskCard:
    return TaskCard(
        name=name,
        factory=factory,
        title=title,
        papers=(dataset_paper, papers.NEXUSSUM, papers.BOOOOKSCORE),
        published=published,
        family="summary",
        headlines=_HEADLINES,
        cost=narrative_cost,
        strategy_family="summary",
        judged_by="grader",
        judged_when=with_coherence,
        snapshot=snapshot,
    )


BOOKSUM_CARD = _card(
    "booksum",
    booksum,
    snapshot_fixtures.BOOKSUM,
    "BookSum: chapter summaries against study-guide references",
    BOOKSUM_PUBLISHED,
    papers.BOOKSUM,
)
SQUALITY_CARD = _card(
    "squality",
    squality,
    snapshot_fixtures.SQUALITY,
    "SQuALITY: question-focused summaries of short stories against four references",
    SQUALITY_PUBLISHED,
    papers.SQUALITY,
)

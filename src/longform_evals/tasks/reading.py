# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""Reading long documents: QuALITY, NarrativeQA and QMSum with any reading strategy.

    inspect eval longform_evals/quality --model gguf/qwen2.5-coder-1.5b \
        -T data=../shared/data/quality/quality_5_articles.jsonl -T strategy=read_agent_p
    inspect eval longform_evals/narrativeqa --model openai/gpt-4o-mini -T strategy=gist_memory
    inspect eval longform_evals/qmsum --model M -T data=qmsum/val -T query_types=specific

`strategy` is a reading strategy of the registry (`strategy_names("reading")` of
`longform_evals.solvers.strategies`; docs/reading.md describes the packaged ones, from `full`
and `truncate_first` to ReadAgent's `read_agent_p`). Multiple-choice answers
are scored by accuracy (unparseable answers counted); free-form answers by the LLM raters
(LR-1, LR-2; the `grader` role) and ROUGE. Every task also reports the reading cost:
compression rate, pages looked up, words consumed per question.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from longform_evals.data.narrativeqa import (
    NARRATIVEQA_HF_DATASET,
    load_narrativeqa,
    load_narrativeqa_hf,
)
from longform_evals.data.qmsum import load_qmsum
from longform_evals.data.quality import QUALITY_HF_DATASET, load_quality, load_quality_hf
from longform_evals.data.sources import DATA_SOURCE_KEY, Published, data_source, local_source
from longform_evals.scorers.limited import limited
from longform_evals.scorers.llm_raters import llm_raters
from longform_evals.scorers.qa_accuracy import choice_accuracy
from longform_evals.scorers.reading_stats import reading_stats
from longform_evals.scorers.rouge import rouge
from longform_evals.solvers.reading.strategies import reading
from longform_evals.solvers.settings import ReadingSettings
from longform_evals.tasks import papers, snapshot_fixtures
from longform_evals.tasks.arguments import call_arguments, comma_list, strict_parameters
from longform_evals.tasks.card import Headline, TaskCard
from longform_evals.tasks.costs import answered_cost, rated_answer_cost
from longform_evals.tasks.parameters import (
    DATA,
    AnswerTokens,
    CacheCalls,
    Conditional,
    DataFile,
    ItemSubset,
    Pages,
    PromptsDir,
    RaterRule,
    ReaderLayout,
    RequiredData,
    Revision,
    StrategyName,
    Words,
    chosen_options,
    role_names,
    sharing,
)

QUALITY_PUBLISHED = Published(QUALITY_HF_DATASET, "validation")
NARRATIVEQA_PUBLISHED = Published(NARRATIVEQA_HF_DATASET, "test")


def _task(
    factory: Callable[..., Task],
    samples: list[Sample],
    scorers: list[Scorer],
    source: dict[str, Any],
    headline: Headline,
) -> Task:
    """The reading task ``factory`` is building (its arguments: `call_arguments`; its
    parameters' roles say which are options): the strategy named
    there with the options (the parameters whose role is ``option``, `tasks/parameters.py`)
    the user set (None: the strategy's default) and the shared settings; ``source`` (where
    the samples came from) goes into the log's metadata, ``headline`` (its card's first) is
    Inspect's headline metric."""
    task_args = call_arguments()
    answer_max_tokens = task_args["answer_max_tokens"]
    settings = ReadingSettings(
        prompts_dir=task_args["prompts_dir"],
        cache=task_args["cache"],
        **({} if answer_max_tokens is None else {"answer_max_tokens": answer_max_tokens}),
    )
    name = factory.__name__
    offered = role_names(factory, "option")
    options = chosen_options(factory, task_args)
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=reading(task_args["strategy"], settings, offered=offered, **options),
        scorer=[*scorers, reading_stats(), limited()],
        headline_metric=headline.inspect_headline(),
        version="1.4.0",
        metadata={DATA_SOURCE_KEY: source},
    )


def _reading_parameters(
    strategy: StrategyName = "read_agent_p",
    max_pages: Pages = None,
    layout: ReaderLayout = None,
    conditional: Conditional = None,
    k: Pages = None,
    words: Words = None,
    min_words: Words = None,
    max_words: Words = None,
    answer_max_tokens: AnswerTokens = None,
    prompts_dir: PromptsDir = None,
    cache: CacheCalls = True,
) -> None:
    """The parameters every reading task takes (`sharing`), after its own.

    Args:
        strategy: the reading strategy (see the module docstring).
        max_pages: ReadAgent look-up budget (pages per question).
        layout: ReadAgent-P's answer after its look-up: `follow_up` (default; a second
            turn showing only the pages asked for) or `in_place` (the paper's prompt).
        conditional: ReadAgent / GistMem: show the question while gisting (gists are then
            made per question, not shared).
        k: pages retrieved by `bm25` / `embedding`.
        words: words kept by `truncate_first` / `truncate_last`.
        min_words: pagination: smallest page (default: the paper's per-dataset value).
        max_words: pagination: largest page.
        answer_max_tokens: answer length limit.
        prompts_dir: folder overriding `read_agent/` prompts.
        cache: cache every model call of the strategy (Inspect's cache, no expiry), so a
            rerun or `inspect eval-retry` repeats no finished call; false: no caching.
    """


@task
@strict_parameters
@sharing(_reading_parameters)
def quality(
    data: DataFile = None,
    hard_only: Annotated[bool, DATA] = False,
    revision: Revision = QUALITY_PUBLISHED.pin.revision,
    **shared: Any,
) -> Task:
    """QuALITY: four-way multiple-choice questions on 2-8k-word articles and stories.

    Args:
        data: a local JSONL in QuALITY's own layout; when omitted, HF `emozilla/quality`
            (validation split; needs internet and `datasets`).
        hard_only: keep only the questions marked hard.
        revision: the commit, branch or tag of the HF dataset to read (default: the one the
            suite pins, `data/sources.py`); recorded in the log's metadata.
    """
    source = data_source(data, QUALITY_PUBLISHED, revision)
    if data is not None:
        samples = load_quality(data, hard_only=hard_only)
    else:
        samples = load_quality_hf(hard_only=hard_only, revision=revision)
    return _task(quality, samples, [choice_accuracy()], source, QUALITY_CARD.headlines[0])


@task
@strict_parameters
@sharing(_reading_parameters)
def narrativeqa(
    data: DataFile = None,
    kind: Annotated[str | None, DATA] = None,
    summaries_only: Annotated[bool, DATA] = False,
    rater_rule: RaterRule = "auto",
    revision: Revision = NARRATIVEQA_PUBLISHED.pin.revision,
    **shared: Any,
) -> Task:
    """NarrativeQA: free-form questions on books and movie scripts (or their summaries).

    Args:
        data: a local JSONL (`question`, `answer` list, `passage`: plot-summary mode, as the
            shared test-tiny file); when omitted, HF `deepmind/narrativeqa` test split (full
            stories, several GB; needs internet and `datasets`).
        kind: `gutenberg` (books) or `movie` (scripts); both when omitted.
        summaries_only: with the HF data, read the plot summaries instead of the stories.
        rater_rule: how LR-1 / LR-2 are read: `auto` (calibrated P(yes) thresholds when the
            grader has a calibration, else the verdict words), `verdicts` or `calibrated`.
        revision: as for `quality` (of HF `deepmind/narrativeqa`).
    """
    source = data_source(data, NARRATIVEQA_PUBLISHED, revision)
    if data is not None:
        samples = load_narrativeqa(data, kind=kind)
    else:
        samples = load_narrativeqa_hf(kind=kind, summaries_only=summaries_only, revision=revision)
    scorers = [llm_raters(rule=rater_rule), rouge()]
    return _task(narrativeqa, samples, scorers, source, _RATED[0])


@task
@strict_parameters
@sharing(_reading_parameters)
def qmsum(
    data: RequiredData,
    query_types: ItemSubset = None,
    rater_rule: RaterRule = "auto",
    **shared: Any,
) -> Task:
    """QMSum: general and specific queries on meeting transcripts (free-form answers).

    Args:
        data: QMSum's own layout: a `.jsonl` of meetings, one meeting `.json`, or a folder of
            them (the repository's `data/ALL/val`, say).
        query_types: `general`, `specific` or both (comma-separated); both when omitted.
        rater_rule: as for `narrativeqa`.
    """
    types = comma_list(query_types) or ["general", "specific"]
    samples = load_qmsum(data, query_types=types)
    scorers = [llm_raters(rule=rater_rule), rouge()]
    return _task(qmsum, samples, scorers, local_source(data), _RATED[0])


_RATED = (
    Headline("llm_raters", "lr1", "LR-1", scale=100),
    Headline("llm_raters", "lr2", "LR-2", scale=100),
    Headline("rouge", "rougeL", "ROUGE-L", scale=100),
)

QUALITY_CARD = TaskCard(
    name="quality",
    factory=quality,
    title="QuALITY: multiple-choice questions on long articles and stories",
    papers=(papers.QUALITY, papers.READAGENT),
    published=QUALITY_PUBLISHED,
    family="reading",
    headlines=(Headline("choice_accuracy", "correct", "accuracy", scale=100),),
    cost=answered_cost,
    strategy_family="reading",
    snapshot=snapshot_fixtures.QUALITY,
)


def _rated_card(name: str, factory: Callable[..., Task], **card: Any) -> TaskCard:
    """A free-form reading task: answers rated by LR-1 and LR-2 (the `grader`), and ROUGE."""
    return TaskCard(
        name=name,
        factory=factory,
        family="reading",
        headlines=_RATED,
        cost=rated_answer_cost,
        strategy_family="reading",
        judged_by="grader",
        calibration_kind="raters",
        **card,
    )


NARRATIVEQA_CARD = _rated_card(
    "narrativeqa",
    narrativeqa,
    title="NarrativeQA: free-form questions on books and movie scripts",
    papers=(papers.NARRATIVEQA, papers.READAGENT),
    published=NARRATIVEQA_PUBLISHED,
    snapshot=snapshot_fixtures.NARRATIVEQA,
)
QMSUM_CARD = _rated_card(
    "qmsum",
    qmsum,
    title="QMSum: general and specific queries on meeting transcripts",
    papers=(papers.QMSUM, papers.READAGENT),
    data_required=True,
    snapshot=snapshot_fixtures.QMSUM,
)

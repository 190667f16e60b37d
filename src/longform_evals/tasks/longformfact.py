# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""LongFormFact: how well does a faithfulness metric agree with human labels?

    inspect eval longform_evals/longformfact --model gguf/qwen2.5-coder-1.5b \
        -T data_dir=../shared/data/longformfact
    inspect eval longform_evals/longformfact --model openai/gpt-4o -T subsets=qmsum,multinews

The summaries are given (no generation); the evaluated model is the faithfulness judge (or
bind `--model-role grader=...`). Every aggregation (nine AGG_S-of-AGG_D views plus `full`) is
scored from one support matrix per summary, and reported as balanced accuracy (BACC, 0-100)
against the human labels, per subset and averaged over subsets (the paper's Tables 3 and 7),
with the threshold-free ROC AUC beside it. The threshold is the judge's calibrated one (chosen
on the project's planted set, recorded in each score), a fixed `-T threshold=`, or chosen on a
part of the data itself (`-T calibrate=0.5`: BACC then covers the other part only).
"""

from __future__ import annotations

import logging
from typing import Annotated

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, mean

from longform_evals.analysis import Merge
from longform_evals.analysis.ordering import expand_orders
from longform_evals.data.longformfact import (
    LONGFORMFACT_REPOSITORY,
    LoadReport,
    load_longformfact_remote_with_report,
    load_longformfact_with_report,
)
from longform_evals.data.sources import DATA_SOURCE_KEY, Published, data_source
from longform_evals.judges.faithfulness.judging import VALUE_KEYS
from longform_evals.judges.faithfulness.support import JudgeOptions
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.meta_evaluation import auc, bacc, bacc_by_order
from longform_evals.scorers.order_metrics import bacc_by_order_sensitivity
from longform_evals.scorers.scorer_table import keyed, metric_name
from longform_evals.scorers.unscorable import reading_metrics, unscorable_metrics
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.tasks import papers, snapshot_fixtures
from longform_evals.tasks.arguments import comma_list, similarity_embedder, strict_parameters
from longform_evals.tasks.card import Headline, TaskCard
from longform_evals.tasks.costs import judged_summary_cost
from longform_evals.tasks.parameters import (
    DATA,
    OPEN_FRACTION,
    POSITIVE,
    SCORING,
    DataFile,
    ItemSubset,
    JudgeText,
    Param,
    PromptsDir,
    Revision,
    Threshold,
)

PUBLISHED = Published(LONGFORMFACT_REPOSITORY)
RECORDS_KEY = "records"
"""The task metadata key of the load's counts: records loaded (per subset) and skipped."""
logger = logging.getLogger(__name__)


def _samples(
    data_dir: str | None,
    subsets: list[str] | None,
    on_mismatch: str,
    order_names: list[str] | None,
    ranking: str,
    revision: str,
) -> tuple[list[Sample], LoadReport]:
    """The records (local or published), each multi-document one under every order asked,
    and what the load kept and skipped."""
    if data_dir is not None:
        samples, report = load_longformfact_with_report(data_dir, subsets, on_mismatch=on_mismatch)  # type: ignore[arg-type]
    else:
        samples, report = load_longformfact_remote_with_report(
            subsets,
            on_mismatch=on_mismatch,  # type: ignore[arg-type]
            revision=revision,
        )
    if report.skipped:
        logger.warning(
            "longformfact: %d record(s) skipped (on_mismatch=skip), %d loaded; the log's "
            "metadata lists them under 'records': %s",
            report.n_skipped,
            report.n_loaded,
            report.skipped[0],
        )
    if not order_names:
        return samples, report
    multi = [s for s in samples if len((s.metadata or {}).get("documents") or []) > 1]
    if not multi:
        raise ValueError("orders needs multi-document records; the selection has none")
    embed = similarity_embedder(ranking)
    return expand_orders(multi, order_names, embed, reference_key="summary"), report


def _metrics(
    threshold: float | None, calibrate: float | None, by_order: bool
) -> list[Metric | dict[str, list[Metric]]]:
    """BACC and AUC of every aggregation against the human labels (and BACC per order, with
    the bootstrap interval of its sensitivity), in the scorer's own entry of the results
    (`scorers/scorer_table.py`): `bacc_avg`, `bacc_<subset>`, `auc_avg`, ... of the
    scorer's `faithfulness` value, `<aggregation>_bacc_avg`, ... of the others."""

    def per_key(key: str) -> list[Metric]:
        out = [bacc(threshold, key=key, calibrate=calibrate), auc()]
        if by_order:
            out += [bacc_by_order(threshold, key=key), bacc_by_order_sensitivity(threshold, key)]
        return [keyed(m, key, judge_figure_stem(key, m)) for m in out]

    figures = [m for key in VALUE_KEYS for m in per_key(key)]
    return [
        *figures,
        *unscorable_metrics(judged=True),
        *reading_metrics(),
        {"missing_rate": [mean()]},
    ]


def judge_figure_stem(key: str, metric: Metric) -> str | None:
    """What a figure of value `key` is named before its entry (`_avg`, `_qmsum`): the metric's
    own name (`bacc`) for the `faithfulness` value, `<key>_<metric>` (`max_min_bacc`) for the
    other aggregations."""
    return None if key == "faithfulness" else f"{key}_{metric_name(metric)}"


@task
@strict_parameters
def longformfact(
    data_dir: DataFile = None,
    subsets: ItemSubset = None,
    doc_merge: Annotated[Merge, SCORING] = "max",
    sentence_merge: Annotated[Merge, SCORING] = "mean",
    chunking: JudgeText = None,
    include_full: Annotated[bool, SCORING] = True,
    threshold: Threshold = None,
    calibrate: Annotated[float | None, Param("scoring", OPEN_FRACTION)] = None,
    prompt: JudgeText = None,
    orders: ItemSubset = None,
    ranking: Annotated[str, DATA] = "embedding",
    max_tokens: Annotated[int, Param("scoring", POSITIVE)] = 1,
    on_mismatch: Annotated[str, DATA] = "raise",
    prompts_dir: PromptsDir = None,
    retrieval: JudgeText = None,
    revision: Revision = PUBLISHED.pin.revision,
) -> Task:
    """Meta-evaluation of the LLM faithfulness judge on LongFormFact.

    Args:
        data_dir: a folder of LongFormFact `.jsonl` files or one file; when omitted the
            published files are downloaded (needs internet).
        subsets: subsets to keep (comma-separated or a list); all when omitted.
        doc_merge: AGG_D of the main `faithfulness` value (every aggregation is reported).
        sentence_merge: AGG_S of the main value.
        chunking: how the judge reads documents: `natural`, `tokens:N` or `words:N`; default:
            the judge's calibration, else `natural`.
        include_full: also judge each sentence against all documents at once (`full_*`).
        threshold: a summary is predicted faithful when its score is at or above it; default:
            the judge's calibrated threshold per aggregation, else 0.5.
        calibrate: a fraction in (0, 1): choose each aggregation's threshold on that part of
            the samples (stable hash of the id) and report BACC on the rest.
        prompt: the `faithfulness/` prompt (`judge`, `judge_examples`); default: calibrated.
        orders: document orders to score every multi-document summary under (any of
            original, top, middle, bottom; the most important document is the one the record
            ranks first, else the one most similar to the summary), for the metric-side order
            experiment (Table 4 of Wan et al., "On Positional Bias of Faithfulness for
            Long-form Summarization"): BACC per order and its sensitivity are added, the
            sensitivity with a 95 % bootstrap interval over records.
            Single-document records are left out in this mode (order cannot matter).
        ranking: with `orders`, how documents are ranked against the summary when a record
            has no ranking: `embedding` (packaged sentence embedder; the `embed` extra),
            `embedding:<folder>` or `lexical`.
        max_tokens: judge answer length; 1 reads only yes/no (P(yes) from log-probabilities).
        on_mismatch: `raise` (default: an error naming the file, line and counts) or `skip`
            for a sentence-level record whose sentences (NLTK's `sent_tokenize`, as the labels
            were made) are not as many as its labels; skipped records are listed in the log's
            metadata (`records`) and counted there.
        prompts_dir: folder overriding the `faithfulness/` prompt.
        retrieval: which source units the judge reads for each sentence: `all`, or
            `<retriever>:<k>` (`bm25`, `embedding`, `fused`): the k units most related to it
            (docs/faithfulness.md); default: the judge's calibration.
        revision: the commit, branch or tag of the published files (GitHub
            `meetdavidwan/longformfact`) to download when `data_dir` is omitted (default: the
            one the suite pins, `data/sources.py`); recorded in the log's metadata.
    """
    order_names = comma_list(orders)
    source = data_source(data_dir, PUBLISHED, revision)
    # the scorer first: a bad judge setting fails before any data is read (or downloaded)
    scorer = faithfulness(
        doc_merge=doc_merge,
        sentence_merge=sentence_merge,
        chunking=chunking,
        include_full=include_full,
        threshold=threshold,
        judge_options=JudgeOptions(
            max_tokens=max_tokens, prompt=prompt, prompts_dir=prompts_dir, retrieval=retrieval
        ),
    )
    samples, report = _samples(
        data_dir, comma_list(subsets), on_mismatch, order_names, ranking, revision
    )
    return Task(
        dataset=MemoryDataset(samples, name="longformfact"),
        solver=given_summary(),
        scorer=scorer,
        metrics=_metrics(threshold, calibrate, bool(order_names)),
        headline_metric=CARD.headlines[0].inspect_headline(),
        version="1.8.0",
        metadata={DATA_SOURCE_KEY: source, RECORDS_KEY: report.as_metadata()},
    )


CARD = TaskCard(
    name="longformfact",
    factory=longformfact,
    title="LongFormFact: a faithfulness judge against people's labels of long-form summaries",
    papers=(papers.POSITIONAL_BIAS,),
    published=PUBLISHED,
    family="judge",
    headlines=(
        Headline("faithfulness", "faithfulness", "BACC", result="bacc_avg"),
        Headline("faithfulness", "faithfulness", "AUC", result="auc_avg"),
        Headline("faithfulness", "max_mean", "max/mean BACC", result="bacc_avg"),
        Headline("faithfulness", "max_min", "max/min BACC", result="bacc_avg"),
    ),
    cost=judged_summary_cost,
    # The evaluated model is the judge under study, so there is no separate grader.
    judged_by="evaluated",
    calibration_kind="faithfulness",
    data_parameter="data_dir",
    snapshot=snapshot_fixtures.LONGFORMFACT,
)

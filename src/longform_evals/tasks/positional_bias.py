# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""Positional bias of generated summaries: faithfulness under document-order perturbation.

    inspect eval longform_evals/positional_bias --model openai/gpt-4o \
        -T data=docs.jsonl -T strategy=focus_middle

Each input has several documents. With ``orders=True`` every input is run under four
document orders (original, and its most important document at the top, middle and
bottom; Wan et al., "On Positional Bias of Faithfulness for Long-form Summarization",
§4.3, Table 5), summarized with a §5 strategy
(:func:`~longform_evals.solvers.multidoc.summary.multidoc_summary`) by the evaluated model, and
scored by the faithfulness judge (the ``grader`` role, else the evaluated model). Reported:
mean faithfulness per order and its ``sensitivity`` (max - min), and the mean per-position
faithfulness (Figure 2 / 4), each with a 95 % bootstrap interval over samples
(``_ci_low`` / ``_ci_high``). See docs/positional-bias.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, mean

from longform_evals.analysis import Merge
from longform_evals.analysis.ordering import ORDER_NAMES, expand_orders, expand_prefixes
from longform_evals.data.multidoc import load_multidoc
from longform_evals.data.sources import DATA_SOURCE_KEY, local_source
from longform_evals.judges.faithfulness.support import JudgeOptions
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.order_metrics import (
    by_document_count,
    order_means,
    position_profile,
)
from longform_evals.scorers.scorer_table import headline_metrics, keyed
from longform_evals.scorers.unscorable import reading_metrics, unscorable_metrics
from longform_evals.solvers.settings import DEFAULT_CONTEXT_WINDOW, MultidocSettings
from longform_evals.solvers.strategies import strategy_entry
from longform_evals.tasks import papers, snapshot_fixtures
from longform_evals.tasks.arguments import comma_list, similarity_embedder, strict_parameters
from longform_evals.tasks.card import Headline, TaskCard
from longform_evals.tasks.costs import multidoc_cost
from longform_evals.tasks.parameters import (
    COUNT,
    DATA,
    POSITIVE,
    SCORING,
    CacheCalls,
    ContextWindow,
    ItemSubset,
    JudgeText,
    Param,
    PromptsDir,
    RequiredData,
    StrategyName,
    SummaryTokens,
    Temperature,
    Threshold,
    chosen_options,
)

__all__ = ["positional_bias"]


def _samples(
    data: str, growing: bool, orders: bool, order_names: str | list[str] | None, ranking: str
) -> list[Sample]:
    """The inputs, each under every document order, or as its growing prefixes."""
    samples = load_multidoc(data)
    if growing:
        return expand_prefixes(samples)
    if orders:
        names = comma_list(order_names) or list(ORDER_NAMES)
        return expand_orders(samples, names, similarity_embedder(ranking))
    return samples


def _metrics(growing: bool) -> list[Metric | dict[str, list[Metric]]]:
    """Faithfulness per order (or per document count) and position; judge bookkeeping. The
    figures of the `faithfulness` value sit in the scorer's own entry of the results
    (`scorers/scorer_table.py`: `mean`, `stderr`, `order_means_original`, ...,
    `position_profile_pos_1`, ...)."""
    figures = [by_document_count() if growing else order_means(), position_profile()]
    return [
        *headline_metrics("faithfulness"),
        *(keyed(m, "faithfulness") for m in figures),
        *unscorable_metrics(judged=True),
        *reading_metrics(),
        {"missing_rate": [mean()], "judge_calls": [mean()]},
    ]


@task
@strict_parameters
def positional_bias(
    data: RequiredData,
    strategy: StrategyName = "plain",
    orders: Annotated[bool, DATA] = True,
    order_names: ItemSubset = None,
    growing: Annotated[bool, DATA] = False,
    ranking: Annotated[str, DATA] = "embedding",
    judge_chunking: JudgeText = None,
    doc_merge: Annotated[Merge, SCORING] = "max",
    sentence_merge: Annotated[Merge, SCORING] = "mean",
    threshold: Threshold = None,
    judge_max_tokens: Annotated[int, Param("scoring", POSITIVE)] = 1,
    max_summary_tokens: SummaryTokens = 400,
    context_window: ContextWindow = DEFAULT_CONTEXT_WINDOW,
    temperature: Temperature = 0.5,
    k: Annotated[int, Param("option", POSITIVE)] = 3,
    seed: Annotated[int, Param("option", COUNT)] = 0,
    prompts_dir: PromptsDir = None,
    cache: CacheCalls = True,
    retrieval: JudgeText = None,
) -> Task:
    """Faithfulness of generated multi-document summaries, per document order and position.

    Args:
        data: A JSONL file (see :func:`~longform_evals.data.multidoc.load_multidoc`).
        strategy: A multi-document strategy of the registry
            (:func:`~longform_evals.solvers.strategies.strategy_names` ``("multidoc")``;
            docs/positional-bias.md describes the packaged ones), e.g. `plain`, a focus
            prompt such as `focus_middle`, or order `calibration`.
        orders: Run every input under each order (needs ``ranking`` or ``reference`` per
            input); ``False`` runs the original order only.
        order_names: Subset of original, top, middle, bottom (comma-separated or a list).
        ranking: How the most important document is found when a record gives no
            ``ranking``: ``embedding`` (cosine similarity to the reference with the packaged
            sentence embedder, as the paper; the ``embed`` extra), ``embedding:<folder>``
            (another sentence-transformers model) or ``lexical`` (word overlap).
        growing: Instead of orders, summarize the first 1, 2, ..., n documents of every
            input (§4.4) and report faithfulness per document count (`docs_k` metrics).
        judge_chunking: how the judge reads each document (``natural``, ``tokens:N``,
            ``words:N``; a document's support is the max over its chunks, so profiles stay
            per document); default: the judge's calibration.
        doc_merge: AGG_D of the reported faithfulness (max, as in the paper).
        sentence_merge: AGG_S of the reported faithfulness (mean).
        threshold: Support at or above which a sentence counts as supported (profiles);
            default: the judge's calibrated sentence threshold, else 0.5.
        judge_max_tokens: Judge answer length (1: the yes/no word, all P(yes) needs).
        max_summary_tokens: Token limit of each summary.
        context_window: The summarizer's window; documents are cut fairly to fit it.
        temperature: Summarizer sampling temperature.
        k: Calibration strategy: number of permutations.
        seed: Calibration strategy: permutation seed.
        prompts_dir: Folder overriding ``multidoc/`` and ``faithfulness/`` templates.
        cache: Cache every summarizer call (Inspect's cache, no expiry; keyed by sample,
            epoch and try), so a rerun or `inspect eval-retry` of a half-finished sample
            repeats no finished step; false: no caching.
        retrieval: which units of each document the judge reads for each sentence: `all`,
            or `<retriever>:<k>` (`bm25`, `embedding`, `fused`; docs/faithfulness.md); default:
            the judge's calibration.
    """
    entry = strategy_entry("multidoc", strategy)
    settings = MultidocSettings(
        max_summary_tokens=max_summary_tokens,
        context_window=context_window,
        temperature=temperature,
        prompts_dir=prompts_dir,
        cache=cache,
    )
    # k and seed are the calibration strategy's; another strategy refuses a value set for them
    solver = entry.build(settings, **chosen_options(positional_bias, {"k": k, "seed": seed}))
    samples = _samples(data, growing, orders, order_names, ranking)
    return Task(
        dataset=MemoryDataset(samples, name=f"positional_bias:{Path(data).stem}"),
        solver=solver,
        scorer=faithfulness(
            doc_merge=doc_merge,
            sentence_merge=sentence_merge,
            chunking=judge_chunking,
            threshold=threshold,
            judge_options=JudgeOptions(
                max_tokens=judge_max_tokens, prompts_dir=prompts_dir, retrieval=retrieval
            ),
        ),
        metrics=_metrics(growing),
        version="1.7.0",
        metadata={DATA_SOURCE_KEY: local_source(data)},
    )


CARD = TaskCard(
    name="positional_bias",
    factory=positional_bias,
    title="Positional bias: faithfulness of multi-document summaries as documents move",
    papers=(papers.POSITIONAL_BIAS,),
    family="multidoc",
    headlines=(
        Headline("faithfulness", "faithfulness", "faithfulness", scale=100),
        Headline("faithfulness", "max_mean", "max/mean", scale=100),
        Headline("faithfulness", "max_min", "max/min", scale=100),
    ),
    cost=multidoc_cost,
    strategy_family="multidoc",
    judged_by="grader",
    calibration_kind="faithfulness",
    data_required=True,  # multi-document sets are the user's: no published copy is read
    lm_eval=False,
    snapshot=snapshot_fixtures.POSITIONAL_BIAS,
)

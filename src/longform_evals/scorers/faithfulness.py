"""Faithfulness of a summary to its source documents, from one support matrix.

The judge (the `grader` role) gives a support value for every (document or chunk, summary
sentence) pair; every aggregation AGG_S over sentences of AGG_D over documents (max, mean, min
each: nine) and the position profiles are views of that one matrix, so reporting all of them
costs no call beyond the matrix. `include_full=True` adds the paper's `full` mode: each sentence
judged against all documents at once (one more call per sentence). The prompt, the chunking and
the decision thresholds default to the judge model's calibration when the project has one.
A summary without words is not judged (NaN, the reason counted: see
`longform_evals.scorers.unscorable`), nor are the wordless fragments of a worded one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from longform_evals.analysis import Merge
from longform_evals.judges.faithfulness.judging import (
    AGGREGATIONS,
    FULL_AGGREGATIONS,
    FaithfulnessJudging,
)
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
)
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.scorer_table import headline_metrics
from longform_evals.scorers.unscorable import reading_metrics, unscorable_metrics


@scorer(
    metrics=[
        *headline_metrics("faithfulness"),
        *unscorable_metrics(judged=True),
        *reading_metrics(),
        {
            **{key: [mean()] for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)},
            "missing_rate": [mean()],
            "judge_calls": [mean()],
        },
    ]
)
def faithfulness(
    judge: str = "llm",
    doc_merge: Merge = "max",
    sentence_merge: Merge = "mean",
    chunking: str | None = None,
    include_full: bool = False,
    threshold: float | None = None,
    judge_options: JudgeOptions | Mapping[str, Any] | None = None,
) -> Scorer:
    """Faithfulness of the completion to the sample's documents.

    The judge reads each document in units (`chunking`); a sentence's support by a document is
    the max over that document's units, so the matrix, its aggregations and the position
    profiles are always per document.

    Args:
        judge: a registered faithfulness judge (`judges/registry.py`). `llm`: the
            `grader` model answers yes/no per (unit, sentence), P(yes) read from
            log-probabilities when available; or a MiniCheck judge (`minicheck-roberta-large`,
            `minicheck-deberta-v3-large`, `minicheck-flan-t5-large`: local classifiers, the
            `minicheck` extra and weights on this machine; `minicheck-7b`: through the
            `grader` role), which chunks each text itself and takes the max over its chunks.
        doc_merge: AGG_D, how a sentence's support is reduced over documents.
        sentence_merge: AGG_S, how sentence scores are reduced to the summary's score.
        chunking: how the judge reads a document: `natural` (whole), `tokens:N` (chunks of at
            most N tokens) or `words:N` (whole sentences packed into chunks of at most N
            words). Default: the judge model's calibration (see
            `longform_evals.judges.faithfulness.calibration`), else `natural`.
        include_full: also judge each sentence against all documents at once (`full_*`).
        threshold: support at or above which a sentence counts as supported (position
            profiles) and, for meta-evaluation, a summary as faithful. Default: the
            calibrated thresholds of the judge model (per aggregation), else 0.5.
        judge_options: how the judge is built
            (`longform_evals.judges.faithfulness.support.JudgeOptions`, or a mapping of its
            fields): the LLM judge's `max_tokens` (1 by default: just the
            yes/no word, all P(yes) needs), `cache`, `prompts_dir`, `prompt` (`judge` or
            `judge_examples`; default: the judge model's calibration) and `calibration` (a
            file instead of the packaged one); a MiniCheck judge's `path` (a local folder or
            cached hub id; for `minicheck-7b`, an Inspect model name instead of the `grader`
            role), `device` and `batch_size`; `model` and `model_role`, the judge as Inspect's
            model-graded scorers take it (a model name, else the model bound to the role,
            `grader` by default).

    Returns:
        A scorer whose value holds `faithfulness` (the chosen aggregation), every other
        aggregation, `missing_rate`, `judge_calls`, and `empty_summary`, `no_sentences`,
        `scored` (see `longform_evals.scorers.unscorable`); metadata holds the matrix,
        attribution, the position profiles, the thresholds and where they came from.
    """
    config = FaithfulnessJudging.build(
        judge, doc_merge, sentence_merge, chunking, include_full, threshold, judge_options
    )

    async def score(state: TaskState, target: Target) -> Score:
        return await config.score(state)

    return unless_limited(score)

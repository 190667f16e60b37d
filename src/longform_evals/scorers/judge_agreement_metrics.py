"""Task-level figures of the judge-agreement scorer, from the unit rows each score records.

Each score's metadata holds one row per unit (people's flags, the judge's flag and
probability) and its value the summary's human and judge scores; the figures of
`longform_evals.analysis.judge_agreement` (with their bootstrap intervals over summaries) are
computed once over all of them. `longform judge-card` reads the same rows back from a log
(:func:`rows_of_scores`), so the card and the log's metrics cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, mean, metric

from longform_evals.analysis.judge_agreement import (
    AgreementFigures,
    SummaryRow,
    Unit,
    agreement_figures,
    reference_flag,
)
from longform_evals.scorers.scorer_table import counts, keyed

__all__ = [
    "COUNTED",
    "HEADLINE",
    "agreement_metrics",
    "figures_of_scores",
    "reference_flag",
    "rows_of_scores",
]

HEADLINE: tuple[str, ...] = (
    "precision",
    "recall",
    "f1",
    "balanced_accuracy",
    "roc_auc",
    "judge_flag_rate",
    "human_flag_rate",
    "kappa_judge_mean",
    "kappa_annotators_mean",
    "alpha_with_judge",
    "kendall_tau_summaries",
    "kendall_tau_systems",
)
"""The figures the log reports (each with `_low` and `_high`); the card has all."""


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if math.isnan(value) else float(value)
    return None


def rows_of_scores(
    scores: Iterable[tuple[str, Mapping[str, Any], Mapping[str, Any]]],
) -> tuple[list[Unit], list[SummaryRow]]:
    """Units and summary rows from `(summary id, score value, score metadata)` triples."""
    units: list[Unit] = []
    summaries: list[SummaryRow] = []
    for summary_id, value, meta in scores:
        for row in meta.get("units") or []:
            flag = row.get("judge_flag")
            units.append(
                Unit(
                    summary_id=summary_id,
                    human=dict(row.get("human") or {}),
                    judge_flag=None if flag is None else bool(flag),
                    judge_p=_number(row.get("judge_p")),
                )
            )
        summaries.append(
            SummaryRow(
                summary_id=summary_id,
                system=meta.get("system"),
                group=str(meta.get("group") or summary_id),
                human_score=_number(value.get("human_score")),
                judge_score=_number(value.get("judge_score")),
            )
        )
    return units, summaries


def _triples(scores: list[SampleScore]) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    out: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]] = []
    for s in scores:
        meta = s.score.metadata or {}
        value = s.score.value if isinstance(s.score.value, dict) else {}
        # The metadata names the summary; under a `dict` of metrics, value holds one key only,
        # so the scores are read back from the metadata's copy.
        scores_meta = meta.get("summary_scores") or value
        out.append((str(meta.get("summary_id", s.sample_id)), scores_meta, meta))
    return out


def figures_of_scores(scores: list[SampleScore], n_boot: int, seed: int) -> AgreementFigures:
    """The agreement figures over every scored sample."""
    units, summaries = rows_of_scores(_triples(scores))
    return agreement_figures(units, summaries, n_boot=n_boot, seed=seed)


@metric
def agreement_card(n_boot: int = 1000, seed: int = 0) -> Metric:
    """Every headline figure with its bootstrap interval (`<figure>`, `<figure>_low`,
    `<figure>_high`), over all samples of the task."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        figures = figures_of_scores(scores, n_boot, seed).figures
        out: dict[str, float] = {}
        for name in HEADLINE:
            figure = figures.get(name)
            if figure is None:
                continue
            out[name] = figure.value
            out[f"{name}_low"] = figure.low
            out[f"{name}_high"] = figure.high
        return out

    return compute


COUNTED: tuple[str, ...] = ("summaries", "units", "rated_units", "unjudged_units")
"""The values the scorer's entry counts (summed over summaries)."""


def agreement_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """The scorer's metrics: the counts and the figures once, in the scorer's own entry of the
    results under their own names (`summaries`, `precision`, `precision_low`, ...:
    `scorers/scorer_table.py`), and Inspect's `mean` of each per-summary value.

    The figures are a metric of `summaries` (1 per summary, never NaN): Inspect leaves a NaN
    value out before a metric of it sees the sample, so as a metric of `agreement` (NaN where
    the judge read none of a summary's rated units) the card would lose those summaries'
    people's labels, which the `longform judge-card` report counts."""
    return [
        counts(list(COUNTED)),
        keyed(agreement_card(), "summaries", ""),
        {"agreement": [mean()], "human_score": [mean()], "judge_score": [mean()]},
    ]

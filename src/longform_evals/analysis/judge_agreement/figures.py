"""All the figures of a judge card from its records: every spec, one bootstrap draw."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from longform_evals.analysis.judge_agreement.bootstrap import (
    Spec,
    draw_weights,
    finish_figure,
    read_units,
)
from longform_evals.analysis.judge_agreement.records import (
    CONFIDENCE,
    N_BOOT,
    AgreementFigures,
    Counts,
    Figure,
    SummaryRow,
    SystemMeans,
    Unit,
    checked_score,
)
from longform_evals.analysis.judge_agreement.summaries import summary_level_specs
from longform_evals.analysis.judge_agreement.units import (
    alpha_spec,
    auc_spec,
    confusion_specs,
    kappa_specs,
)

# --- the figures ---------------------------------------------------------------------------


def all_specs(
    units: Sequence[Unit], summaries: Sequence[SummaryRow]
) -> tuple[list[Spec], dict[str, tuple[Spec, Spec]], bool | None, Counts]:
    """Every figure's point estimate and replicate function, and the counts."""
    seen: set[str] = set()
    for row in summaries:
        if row.summary_id in seen:
            raise ValueError(f"summary_id {row.summary_id!r} appears in two summary rows")
        seen.add(row.summary_id)
    ids = sorted({u.summary_id for u in units} | seen)
    cluster_of = {sid: i for i, sid in enumerate(ids)}
    n_clusters = len(ids)

    u = read_units(units, cluster_of)
    has_ref = u.reference >= 0
    used = has_ref & (u.judge >= 0)
    specs = confusion_specs(u, used, n_clusters)
    specs.insert(4, auc_spec(u, used, n_clusters))
    specs.extend(kappa_specs(u, n_clusters))
    specs.append(alpha_spec("alpha_annotators", u.human, u.cluster, n_clusters))
    with_judge = np.concatenate([u.human, u.judge[:, None]], axis=1)
    specs.append(alpha_spec("alpha_with_judge", with_judge, u.cluster, n_clusters))

    scored: list[tuple[int, str | None, str, float, float]] = []
    for i, row in enumerate(summaries):
        h = checked_score(row.human_score, f"summaries[{i}].human_score")
        j = checked_score(row.judge_score, f"summaries[{i}].judge_score")
        if not (math.isnan(h) or math.isnan(j)):
            scored.append((cluster_of[row.summary_id], row.system, row.group, h, j))
    summary_specs, systems, same_order = summary_level_specs(scored, n_clusters)
    specs.extend(summary_specs)

    counts = Counts(
        n_units=len(units),
        n_used=int(used.sum()),
        n_no_human=int((~has_ref).sum()),
        n_unjudged=int((has_ref & (u.judge < 0)).sum()),
        n_no_p=int((used & np.isnan(u.p)).sum()),
        n_annotators=len(u.annotators),
        n_summaries=len(summaries),
        n_summaries_used=len(scored),
        n_summaries_unscored=len(summaries) - len(scored),
        n_summaries_no_system=sum(r[1] is None for r in scored),
        n_systems=len(systems),
        n_clusters=n_clusters,
    )
    return specs, systems, same_order, counts


def agreement_figures(
    units: Sequence[Unit],
    summaries: Sequence[SummaryRow] = (),
    n_boot: int = N_BOOT,
    seed: int = 0,
    *,
    confidence: float = CONFIDENCE,
) -> AgreementFigures:
    """The agreement of a judge with human annotators, with cluster-bootstrap intervals.

    Figures (names of :attr:`AgreementFigures.figures`, in this order), with what ``n``
    counts:

    * ``precision``, ``recall``, ``f1``: the judge's flags against the reference flags
      (scikit-learn; a ratio with a zero denominator is NaN with a note, not 0; F1 is
      ``2tp / (2tp + fp + fn)``, so it is 0, not NaN, when the judge never flags but people
      do). ``n``: used units.
    * ``balanced_accuracy``: the mean recall of flagged and unflagged units; with one
      reference class only, that class's recall (noted). ``n``: used units.
    * ``roc_auc``: of ``judge_p`` against the reference; ``n``: used units with a ``judge_p``.
    * ``judge_flag_rate``, ``human_flag_rate`` (share of used units flagged by the judge, by
      the reference) and ``flag_rate_difference`` (judge minus human). ``n``: used units.
    * ``kappa_judge_vs[<annotator>]``: Cohen's kappa of the judge's flags against one
      annotator's labels, over the units both labelled; ``n``: those units.
    * ``kappa_judge_mean``: the mean of those kappas; ``n``: annotators averaged.
    * ``kappa_annotators_mean``: the mean Cohen's kappa over pairs of annotators (each pair
      over the units both rated, judged or not): the ceiling a judge can be held to. NaN with
      fewer than two annotators. ``n``: pairs averaged.
    * ``alpha_annotators``, ``alpha_with_judge``: Krippendorff's alpha (nominal) of the
      annotators, and of the annotators with the judge as one more coder, over all units
      (units with a single rating do not count); ``n``: units with two ratings or more.
    * ``kendall_tau_summaries``: tau-b between human and judge scores over scored summaries;
      ``n``: those summaries.
    * ``kendall_tau_within_groups``: the mean of tau-b within each group (e.g. the summaries
      of one document), over groups where it is defined; ``n``: those groups.
    * ``kendall_tau_systems``: tau-b between the systems' mean human and mean judge scores
      (over each system's scored summaries); with two systems it is +1 or -1, see
      :attr:`AgreementFigures.same_order`. ``n``: systems.

    A mean of several parts (``kappa_judge_mean``, ``kappa_annotators_mean``) averages the
    parts defined in the data, and a replicate where one of them is undefined is skipped.

    Args:
        units: The judged units (any order; it does not change any number).
        summaries: One row per summary for the summary- and system-level figures.
        n_boot: Bootstrap replicates; 0 gives values without intervals.
        seed: Seed of the resampling.
        confidence: Coverage of the percentile intervals.

    Returns:
        The figures, per-system means, ``same_order`` and the counts.

    Raises:
        ValueError: On a label other than 0/1/None, a ``judge_p`` outside [0, 1], an infinite
            score, a summary id given twice among ``summaries``, a negative ``n_boot`` or a
            ``confidence`` outside (0, 1).
    """
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    specs, systems, same_order, counts = all_specs(units, summaries)
    n_clusters = counts.n_clusters
    weights = draw_weights(n_clusters, n_boot, seed) if n_clusters >= 2 and n_boot > 0 else None

    def finish(spec: Spec) -> Figure:
        reps = None
        if weights is not None and spec.replicates is not None:
            reps = spec.replicates(weights)
        elif weights is not None:
            reps = np.full(n_boot, np.nan)  # undefined in the data: nothing to resample
        return finish_figure(spec, reps, n_boot, n_clusters, confidence)

    return AgreementFigures(
        figures={spec.name: finish(spec) for spec in specs},
        systems={name: SystemMeans(finish(h), finish(j)) for name, (h, j) in systems.items()},
        same_order=same_order,
        counts=counts,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )

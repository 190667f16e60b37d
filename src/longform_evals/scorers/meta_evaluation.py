"""Agreement of a faithfulness metric with human labels, as Inspect metrics (LongFormFact).

Labels come from the sample metadata (`label_level`, `labels`). Summary-level subsets carry one
0/1 label. Sentence-level subsets carry a label per summary sentence (None = not annotated);
for the summary-level comparison a summary counts as faithful only when every annotated
sentence is, the same binarisation the benchmark applies to other annotation schemes (faithful
only at the top of the scale). Predictions are `score >= threshold`, with the threshold given,
or the one the scorer recorded for the score's key (`metadata["thresholds"]`: the judge's
calibrated threshold), or chosen on a calibration part of the samples themselves
(`calibrate=fraction`, BACC then reported on the other part only).

The labels say 1 = faithful and the scores are supports; the labels take the meaning of
`analysis/agreement.py` (1 = problem) where they reach it: :func:`_rows_by_subset` keeps
problem labels, a prediction flags a problem when the score is not `>= threshold`, and the AUC
and the calibrated threshold are the support ones (`support_auc`, `support_threshold`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float

from longform_evals.analysis.agreement import (
    balanced_accuracy,
    problem_labels,
    reaches,
    support_auc,
    support_threshold,
)
from longform_evals.analysis.ordering import ORDER_NAMES, sensitivity

_to_float = value_to_float()


def summary_label(metadata: Mapping[str, Any] | None) -> int | None:
    """The binary summary-level human label of a sample (None when it has none)."""
    if not metadata or "labels" not in metadata:
        return None
    labels = metadata["labels"]
    if metadata.get("label_level") == "sentence":
        annotated = [label for label in labels if label is not None]
        return int(all(label == 1 for label in annotated)) if annotated else None
    return int(labels)


_Rows = list[tuple[int, float, SampleScore]]


def _rows_by_subset(scores: list[SampleScore]) -> dict[str, _Rows]:
    """(problem label, value, score) of the labelled, scored samples, grouped by subset: the
    label is 1 for an unfaithful summary (``analysis/agreement.py``'s meaning)."""
    groups: dict[str, _Rows] = {}
    for s in scores:
        label = summary_label(s.sample_metadata)
        value = _to_float(s.score.value)
        if label is None or math.isnan(value):
            continue
        subset = str((s.sample_metadata or {}).get("subset", "all"))
        groups.setdefault(subset, []).append((problem_labels([label])[0], value, s))
    return groups


def _per_subset(scores: list[SampleScore], statistic: Callable[[_Rows], float]) -> dict[str, float]:
    """The statistic per subset, plus `avg`: the unweighted mean over subsets (as the paper)."""
    out = {name: statistic(rows) for name, rows in _rows_by_subset(scores).items()}
    present = [v for v in out.values() if not math.isnan(v)]
    out["avg"] = sum(present) / len(present) if present else math.nan
    return out


def in_calibration_part(sample_id: object, fraction: float) -> bool:
    """Whether a sample falls in the calibration part: a stable hash of its id, so the split
    is the same in every run and does not depend on sample order."""
    digest = hashlib.sha256(str(sample_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < fraction


def recorded_threshold(
    score: SampleScore, key: str, scores: Sequence[SampleScore] | None = None
) -> float:
    """The threshold the scorer recorded for `key` in the score's metadata.

    A score without one may still have been scored: under several epochs Inspect keeps the
    first epoch's metadata, so a sample whose first epoch a limit stopped carries that epoch's
    metadata and a later epoch's value. It then gets the run's threshold, the one every other
    score of ``scores`` records (a run has one judge); it is an error when they disagree or
    none records one.
    """
    own = (score.score.metadata or {}).get("thresholds") or {}
    if key in own:
        return float(own[key])
    recorded = {
        float(t[key])
        for s in scores or []
        if key in (t := (s.score.metadata or {}).get("thresholds") or {})
    }
    if len(recorded) == 1:
        return recorded.pop()
    found = f"the other scores record {sorted(recorded)}" if recorded else "nor does any other"
    raise ValueError(
        f"sample {score.sample_id!r}: the score records no threshold for {key!r} ({found}); "
        "pass bacc(threshold=...) or use a scorer that records its thresholds"
    )


@metric
def bacc(
    threshold: float | None = None, key: str = "faithfulness", calibrate: float | None = None
) -> Metric:
    """Balanced accuracy (0-100) of `score >= threshold` against summary-level labels, per
    subset and averaged over subsets.

    Args:
        threshold: a fixed threshold; when None, the one the scorer recorded for `key`
            (the judge's calibration), unless `calibrate` is set.
        key: the score value this metric is attached to (to find its recorded threshold).
        calibrate: a fraction in (0, 1): choose the threshold that maximises BACC on that
            part of the samples (by a stable hash of the sample id, pooled over subsets) and
            report BACC on the remaining samples only.
    """
    if calibrate is not None and not 0.0 < calibrate < 1.0:
        raise ValueError(f"calibrate must be a fraction in (0, 1), got {calibrate}")

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if calibrate is None:
            return _bacc_fixed(scores, threshold, key)
        part = {id(s): in_calibration_part(s.sample_id, calibrate) for s in scores}
        calib = [
            row for rows in _rows_by_subset(scores).values() for row in rows if part[id(row[2])]
        ]
        t = support_threshold([label for label, _, _ in calib], [v for _, v, _ in calib])
        report = [s for s in scores if not part[id(s)]]
        return _per_subset(report, lambda rows: _bacc(rows, [t] * len(rows)))

    return compute


def _bacc_fixed(scores: list[SampleScore], threshold: float | None, key: str) -> dict[str, float]:
    """BACC per subset and averaged, at a fixed threshold or the recorded ones."""
    return _per_subset(
        scores,
        lambda rows: _bacc(
            rows,
            [
                threshold if threshold is not None else recorded_threshold(s, key, scores)
                for _, _, s in rows
            ],
        ),
    )


def _bacc(rows: _Rows, thresholds: list[float]) -> float:
    if any(math.isnan(t) for t in thresholds):
        return math.nan
    labels = [label for label, _, _ in rows]
    values = [v for _, v, _ in rows]
    # A summary is predicted faithful at `score >= threshold`, so flagged when it is not.
    flagged = [not reaches(v, t) for v, t in zip(values, thresholds, strict=True)]
    return 100.0 * balanced_accuracy(labels, flagged).value


@metric
def bacc_by_order(threshold: float | None = None, key: str = "faithfulness") -> Metric:
    """Average BACC over subsets under each document order (Table 4 of Wan et al., "On
    Positional Bias of Faithfulness for Long-form Summarization"), and the
    `sensitivity` (max - min over orders). Orders come from `sample_metadata["order_name"]`
    (:func:`~longform_evals.analysis.ordering.expand_orders`); thresholds as :func:`bacc`."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        groups: dict[str, list[SampleScore]] = {}
        for s in scores:
            name = str((s.sample_metadata or {}).get("order_name", "original"))
            groups.setdefault(name, []).append(s)
        names = [n for n in ORDER_NAMES if n in groups] + sorted(set(groups) - set(ORDER_NAMES))
        out: dict[str, float] = {}
        for name in names:
            out[name] = _bacc_fixed(groups[name], threshold, key)["avg"]
        out["sensitivity"] = sensitivity(out) if out else math.nan
        return out

    return compute


@metric
def auc() -> Metric:
    """ROC AUC of the scores against summary-level labels, per subset and averaged."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _per_subset(
            scores,
            lambda rows: support_auc([label for label, _, _ in rows], [v for _, v, _ in rows]),
        )

    return compute

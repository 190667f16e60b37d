"""Agreement of a faithfulness metric with human labels, as Inspect metrics (LongFormFact).

Labels come from the sample metadata (`label_level`, `labels`). Summary-level subsets carry one
0/1 label. Sentence-level subsets carry a label per summary sentence (None = not annotated);
for the summary-level comparison a summary counts as faithful only when every annotated
sentence is, the same binarisation the benchmark applies to other annotation schemes (faithful
only at the top of the scale). Predictions are `score >= threshold`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float

from longform_evals.analysis.agreement import balanced_accuracy, roc_auc

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


def _pairs_by_subset(scores: list[SampleScore]) -> dict[str, tuple[list[int], list[float]]]:
    groups: dict[str, tuple[list[int], list[float]]] = {}
    for s in scores:
        label = summary_label(s.sample_metadata)
        value = _to_float(s.score.value)
        if label is None or math.isnan(value):
            continue
        subset = str((s.sample_metadata or {}).get("subset", "all"))
        labels, values = groups.setdefault(subset, ([], []))
        labels.append(label)
        values.append(value)
    return groups


def _per_subset(
    scores: list[SampleScore], statistic: Callable[[list[int], list[float]], float]
) -> dict[str, float]:
    """The statistic per subset, plus `avg`: the unweighted mean over subsets (as the paper)."""
    out = {
        name: statistic(labels, values)
        for name, (labels, values) in _pairs_by_subset(scores).items()
    }
    present = [v for v in out.values() if not math.isnan(v)]
    out["avg"] = sum(present) / len(present) if present else math.nan
    return out


@metric
def bacc(threshold: float = 0.5) -> Metric:
    """Balanced accuracy (0-100) of `score >= threshold` against summary-level labels, per
    subset and averaged over subsets."""

    def statistic(labels: list[int], values: list[float]) -> float:
        return 100.0 * balanced_accuracy(labels, [v >= threshold for v in values]).value

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _per_subset(scores, statistic)

    return compute


@metric
def auc() -> Metric:
    """ROC AUC of the scores against summary-level labels, per subset and averaged."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _per_subset(scores, roc_auc)

    return compute

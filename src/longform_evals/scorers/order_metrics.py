"""Metrics for order-perturbation runs (Wan et al., "On Positional Bias of Faithfulness for
Long-form Summarization": Tables 4 and 5; Figures 2 and 4).

* :func:`order_means`: the mean score under each document order (from
  ``sample_metadata["order_name"]``, set by
  :func:`~longform_evals.analysis.ordering.expand_orders`) and their max - min, the
  ``sensitivity``;
* :func:`by_document_count`: the mean score per number of input documents (§4.4, from
  ``sample_metadata["n_documents"]``, set by
  :func:`~longform_evals.analysis.ordering.expand_prefixes`);
* :func:`position_profile`: the mean per-position faithfulness (``score.metadata
  ["position_faithfulness"]`` of the faithfulness scorer), position by position.

Both return dicts; Inspect logs each entry as its own metric.
"""

from __future__ import annotations

import math
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from longform_evals.analysis.ordering import ORDER_NAMES, sensitivity

__all__ = ["by_document_count", "order_means", "position_profile"]

_UNORDERED = "original"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    v = float(value)
    return None if math.isnan(v) else v


@metric
def order_means() -> Metric:
    """Mean score per document order, plus ``sensitivity`` = max - min of those means.

    Samples without ``order_name`` in their metadata count as ``original``. Keys come in
    the order original, top, middle, bottom (only orders that occur), then any other
    order names, then ``sensitivity``. NaN and non-numeric values are ignored.
    """

    def compute(scores: list[SampleScore]) -> Value:
        groups: dict[str, list[float]] = defaultdict(list)
        for s in scores:
            name = str((s.sample_metadata or {}).get("order_name", _UNORDERED))
            v = _number(s.score.value)
            if v is not None:
                groups[name].append(v)
            else:
                groups.setdefault(name, [])
        names = [n for n in ORDER_NAMES if n in groups] + sorted(
            n for n in groups if n not in ORDER_NAMES
        )
        means = {n: (sum(groups[n]) / len(groups[n]) if groups[n] else math.nan) for n in names}
        if not means:
            return {}
        result: dict[str, float] = dict(means)
        result["sensitivity"] = sensitivity(means)
        return result

    return compute


@metric
def position_profile(order: str | None = None) -> Metric:
    """Mean of ``score.metadata["position_faithfulness"]`` per position, ignoring None.

    Args:
        order: Only samples with this ``order_name`` (``None``: all samples).

    Returns:
        A metric giving ``{"pos_1": .., "pos_2": .., ...}`` up to the longest profile; a
        position no sample has a value for is NaN.
    """

    def compute(scores: list[SampleScore]) -> Value:
        sums: list[float] = []
        counts: list[int] = []
        for s in scores:
            if order is not None and (s.sample_metadata or {}).get("order_name") != order:
                continue
            profile = (s.score.metadata or {}).get("position_faithfulness")
            if not isinstance(profile, list):
                continue
            while len(sums) < len(profile):
                sums.append(0.0)
                counts.append(0)
            for i, value in enumerate(profile):
                v = _number(value)
                if v is not None:
                    sums[i] += v
                    counts[i] += 1
        return {
            f"pos_{i + 1}": (sums[i] / counts[i] if counts[i] else math.nan)
            for i in range(len(sums))
        }

    return compute


@metric
def by_document_count() -> Metric:
    """Mean score per number of input documents: ``{"docs_1": .., "docs_2": .., ...}``.

    Samples without ``n_documents`` in their metadata count by their ``documents`` list
    length. NaN and non-numeric values are ignored.
    """

    def compute(scores: list[SampleScore]) -> Value:
        groups: dict[int, list[float]] = defaultdict(list)
        for s in scores:
            meta = s.sample_metadata or {}
            k = meta.get("n_documents")
            if not isinstance(k, int):
                k = len(meta.get("documents") or [])
            v = _number(s.score.value)
            if v is not None:
                groups[k].append(v)
            else:
                groups.setdefault(k, [])
        return {
            f"docs_{k}": (sum(groups[k]) / len(groups[k]) if groups[k] else math.nan)
            for k in sorted(groups)
        }

    return compute

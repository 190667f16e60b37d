"""Intervals of the order and position metrics (scorers/order_metrics.py): each is
bootstrap_interval over the right samples, and what could not be used is counted."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Metric, SampleScore, Score

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis.intervals import bootstrap_interval
from longform_evals.scorers.meta_evaluation import bacc_by_order
from longform_evals.scorers.order_metrics import (
    bacc_by_order_rows,
    bacc_by_order_sensitivity,
    by_document_count,
    order_means,
    position_profile,
)

pytestmark = WARNINGS_AS_ERRORS

ORDERS = ("original", "top", "bottom")


def _apply(metric: Metric, scores: list[SampleScore]) -> dict[str, float]:
    # Metric is a union with the deprecated list[Score] signature; ours take SampleScores.
    out = metric(scores)  # type: ignore[arg-type]
    assert isinstance(out, dict)
    return out


def _score(value: float, source: str | None, order: str | None, **meta: Any) -> SampleScore:
    metadata = dict(meta)
    if order is not None:
        metadata["order_name"] = order
    if source is not None:
        metadata["source_id"] = source
    profile = metadata.pop("profile", None)
    return SampleScore(
        score=Score(value=value, metadata={"position_faithfulness": profile}),
        sample_id=f"{source}@{order}",
        sample_metadata=metadata,
    )


def _spread(rows: np.ndarray) -> float:
    means = rows.mean(axis=0)
    return float(means.max() - means.min())


def test_order_means_intervals_are_the_bootstrap_over_samples_and_sources() -> None:
    rng = np.random.default_rng(7)
    table = rng.uniform(0, 1, size=(9, 3))
    table[:, 1] += 0.5  # a clear order effect: "top" scores higher for every source
    scores = [
        _score(float(table[i, j]), f"s{i}", order)
        for i in range(9)
        for j, order in enumerate(ORDERS)
    ]
    result = _apply(order_means(), scores)
    for j, order in enumerate(ORDERS):
        ci = bootstrap_interval(table[:, j])
        assert (result[f"{order}_ci_low"], result[f"{order}_ci_high"]) == (ci.low, ci.high)
    ci = bootstrap_interval(table, _spread)
    assert result["sensitivity"] == pytest.approx(ci.value)
    assert (result["sensitivity_ci_low"], result["sensitivity_ci_high"]) == (ci.low, ci.high)
    assert result["sensitivity_ci_low"] > 0
    assert (result["sensitivity_n"], result["sensitivity_missing"]) == (9, 0)


def test_order_means_count_sources_missing_an_order() -> None:
    scores = [
        _score(v, s, o)
        for s, vs in {"a": (0.2, 0.9, 0.3), "b": (0.4, 0.8, 0.4), "c": (0.1, 0.7, 0.2)}.items()
        for v, o in zip(vs, ORDERS, strict=True)
    ]
    # d's "top" sample was unreadable (Inspect hands the metric its NaN-free samples only,
    # the NaN here stands for one the scorer wrote without a number).
    scores += [_score(0.5, "d", "original"), _score(math.nan, "d", "top")]
    scores += [_score(0.5, "d", "bottom")]
    result = _apply(order_means(), scores)
    assert (result["sensitivity_n"], result["sensitivity_missing"]) == (3, 1)
    complete = np.array([[0.2, 0.9, 0.3], [0.4, 0.8, 0.4], [0.1, 0.7, 0.2]])
    ci = bootstrap_interval(complete, _spread)
    assert (result["sensitivity_ci_low"], result["sensitivity_ci_high"]) == (ci.low, ci.high)
    # The per-order means still use every readable sample (d's original and bottom).
    assert result["original"] == pytest.approx((0.2 + 0.4 + 0.1 + 0.5) / 4)


def test_order_insensitive_scores_give_zero_with_an_interval_holding_zero() -> None:
    scores = [_score(v, f"s{i}", o) for i, v in enumerate((0.1, 0.9, 0.5, 0.7)) for o in ORDERS]
    result = _apply(order_means(), scores)
    assert result["sensitivity"] == 0.0
    assert result["sensitivity_ci_low"] <= 0.0 <= result["sensitivity_ci_high"]
    assert result["sensitivity_n"] == 4


def test_position_profile_intervals_per_position() -> None:
    profiles: list[list[float | None] | None] = [
        [1.0, None, 0.5],
        [0.0, 1.0, 0.25],
        [0.5, 0.0],
        [1.0, 1.0, 1.0],
        None,  # no readable profile: counted
        [0.5, float("nan"), 1.0],  # a NaN where None belongs: not trusted, counted
    ]
    scores = [_score(1.0, f"s{i}", "top", profile=p) for i, p in enumerate(profiles)]
    result = _apply(position_profile(), scores)
    columns = [[1.0, 0.0, 0.5, 1.0], [1.0, 0.0, 1.0], [0.5, 0.25, 1.0]]
    for i, column in enumerate(columns, start=1):
        ci = bootstrap_interval(column)
        assert result[f"pos_{i}"] == pytest.approx(ci.value)
        assert (result[f"pos_{i}_ci_low"], result[f"pos_{i}_ci_high"]) == (ci.low, ci.high)
        assert result[f"pos_{i}_n"] == len(column)
    assert result["missing"] == 2
    single = _apply(position_profile(), [_score(1.0, "s", None, profile=[0.5, None])])
    assert single["pos_1"] == 0.5 and math.isnan(single["pos_1_ci_low"])
    assert math.isnan(single["pos_2"]) and single["pos_2_n"] == 0


def test_by_document_count_intervals() -> None:
    scores = [
        SampleScore(score=Score(value=v), sample_id=i, sample_metadata={"n_documents": k})
        for i, (v, k) in enumerate([(0.2, 1), (0.6, 1), (0.9, 2), (0.7, 2), (math.nan, 2)])
    ]
    result = _apply(by_document_count(), scores)
    ci = bootstrap_interval([0.9, 0.7])
    assert result["docs_2"] == pytest.approx(0.8)
    assert (result["docs_2_ci_low"], result["docs_2_ci_high"]) == (ci.low, ci.high)


# --- LongFormFact's BACC by order ---


def _labelled(
    value: float, source: str, order: str, label: int | None, subset: str = "qmsum"
) -> SampleScore:
    if label is None:  # a sentence-level record with no annotated sentence
        return _score(value, source, order, labels=[None], label_level="sentence", subset=subset)
    return _score(value, source, order, labels=label, label_level="summary", subset=subset)


records = st.lists(
    st.tuples(
        st.sampled_from(["qmsum", "multinews"]),
        st.integers(0, 1),
        st.lists(st.sampled_from([0.0, 1.0]), min_size=3, max_size=3),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(records)
def test_bacc_rows_agree_with_bacc_by_order(recs: list[tuple[str, int, list[float]]]) -> None:
    scores = [
        _labelled(pred, f"r{i}", order, label, subset)
        for i, (subset, label, preds) in enumerate(recs)
        for pred, order in zip(preds, ORDERS, strict=True)
    ]
    expected = _apply(bacc_by_order(threshold=0.5), scores)
    index = {"qmsum": 0.0, "multinews": 1.0}
    rows = np.array([[index[s], label, *preds] for s, label, preds in recs])
    per_order = bacc_by_order_rows(rows)
    for j, order in enumerate(ORDERS):
        assert per_order[j] == pytest.approx(expected[order])
    assert float(per_order.max() - per_order.min()) == pytest.approx(expected["sensitivity"])


def test_bacc_sensitivity_interval() -> None:
    # Faithful records (label 1) are judged faithful only with the key document on top.
    scores: list[SampleScore] = []
    for i in range(10):
        label = i % 2
        for order in ("top", "bottom"):
            value = 1.0 if label and order == "top" else 0.0
            scores.append(_labelled(value, f"r{i}", order, label))
    scores.append(_labelled(0.9, "unlabelled", "top", None))  # not part of BACC at all
    scores.append(_labelled(1.0, "half", "top", 1))  # its bottom sample was unreadable
    sensitivity = _apply(bacc_by_order(threshold=0.5), scores)["sensitivity"]
    result = _apply(bacc_by_order_sensitivity(threshold=0.5), scores)
    assert (result["n"], result["missing"]) == (10, 1)
    assert result["ci_low"] > 0
    assert result["ci_low"] <= 50.0 <= result["ci_high"]
    assert sensitivity == 50.0  # top: both recalls 1; bottom: positives 0, negatives 1
    # The same judge with no order effect: zero, and an interval that holds zero.
    flat = [_labelled(float(i % 3 == 0), f"r{i}", o, i % 2) for i in range(10) for o in ORDERS]
    result = _apply(bacc_by_order_sensitivity(threshold=0.5), flat)
    assert result["ci_low"] == result["ci_high"] == 0.0
    assert _apply(bacc_by_order_sensitivity(threshold=0.5), [])["n"] == 0

"""Balanced accuracy and AUC against human labels, with fixed, recorded or split-calibrated
thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import SampleScore, Score

from longform_evals.analysis.agreement import support_auc, support_threshold
from longform_evals.analysis.reduce import nan_reduce_1d
from longform_evals.scorers.meta_evaluation import (
    auc,
    bacc,
    bacc_by_order,
    in_calibration_part,
    recorded_threshold,
)


def _score(i: int, value: float, label: int, subset: str = "a", t: float = 0.5) -> SampleScore:
    return SampleScore(
        sample_id=f"{subset}-{i}",
        score=Score(value=value, metadata={"thresholds": {"faithfulness": t, "max_min": 0.9}}),
        sample_metadata={"subset": subset, "label_level": "summary", "labels": label},
    )


SCORES = [
    _score(0, 0.9, 1),
    _score(1, 0.6, 1),
    _score(2, 0.55, 0),
    _score(3, 0.2, 0),
    _score(4, 0.8, 1, "b"),
    _score(5, 0.1, 0, "b"),
]


def test_fixed_threshold_per_subset_and_average() -> None:
    out = bacc(0.58)(SCORES)  # type: ignore[arg-type]
    assert out == {"a": 100.0, "b": 100.0, "avg": 100.0}
    out = bacc(0.5)(SCORES)  # type: ignore[arg-type]
    assert out["a"] == 75.0 and out["avg"] == 87.5


def test_recorded_thresholds_are_read_per_key() -> None:
    assert bacc()(SCORES)["a"] == 75.0  # type: ignore[arg-type,index]
    # max_min records 0.9: only the 0.9 summary is predicted faithful in subset a.
    assert bacc(key="max_min")(SCORES)["a"] == 75.0  # type: ignore[arg-type,index]
    assert bacc(key="max_min")(SCORES)["b"] == 50.0  # type: ignore[arg-type,index]


def test_missing_recorded_threshold_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="records no threshold for 'min_max'"):
        bacc(key="min_max")(SCORES)  # type: ignore[arg-type]


def test_a_score_without_thresholds_takes_the_runs_one_and_disagreement_is_refused() -> None:
    # a sample whose first epoch a limit stopped keeps that epoch's metadata: no thresholds
    bare = _score(99, 0.95, 0, "a")
    bare.score.metadata = {"limit": "token"}
    with_bare = [*SCORES, bare]
    assert recorded_threshold(bare, "faithfulness", with_bare) == 0.5
    # 0.95 >= 0.5 predicts faithful, against a label of 0: one of three negatives now missed
    assert bacc()(with_bare)["a"] == pytest.approx(100 * (1 + 1 / 3) / 2)  # type: ignore[arg-type,index]
    other = _score(98, 0.5, 1, "a")
    other.score.metadata = {"thresholds": {"faithfulness": 0.7}}
    with pytest.raises(ValueError, match=r"other scores record \[0.5, 0.7\]"):
        recorded_threshold(bare, "faithfulness", [*with_bare, other])
    with pytest.raises(ValueError, match="nor does any other"):
        recorded_threshold(bare, "faithfulness", [bare])


def test_calibrate_on_a_split_reports_the_rest_only() -> None:
    many = [_score(i, (i % 10) / 10, int(i % 10 >= 6), "a") for i in range(200)]
    out = bacc(calibrate=0.5)(many)  # type: ignore[arg-type]
    assert out["a"] == 100.0  # perfectly separable at 0.55-0.6, found on the other half
    part = [in_calibration_part(s.sample_id, 0.5) for s in many]
    assert 60 < sum(part) < 140  # about half, and the same every time
    assert part == [in_calibration_part(s.sample_id, 0.5) for s in many]
    with pytest.raises(ValueError, match="fraction"):
        bacc(calibrate=1.0)


def test_auc_per_subset() -> None:
    out = auc()(SCORES)  # type: ignore[arg-type]
    assert out["a"] == 1.0 and out["b"] == 1.0
    single = auc()([_score(0, 0.3, 1)])  # type: ignore[arg-type]
    assert math.isnan(single["a"])  # type: ignore[index]


def test_bacc_by_order_and_sensitivity() -> None:
    def ordered(i: int, value: float, label: int, order: str) -> SampleScore:
        s = _score(i, value, label, t=0.5)
        assert s.sample_metadata is not None
        s.sample_metadata["order_name"] = order
        return s

    scores = [
        ordered(0, 0.9, 1, "top"),
        ordered(1, 0.1, 0, "top"),
        ordered(2, 0.4, 1, "bottom"),  # missed under the bottom order
        ordered(3, 0.1, 0, "bottom"),
    ]
    out = bacc_by_order()(scores)  # type: ignore[arg-type]
    assert out == {"top": 100.0, "bottom": 50.0, "sensitivity": 50.0}


@settings(deadline=None)  # sklearn per subset: slower than 200 ms when the machine is busy
@given(
    p=st.floats(min_value=0.0, max_value=1.0),
    sizes=st.lists(st.integers(min_value=1, max_value=40), min_size=4, max_size=16),
)
# a value on a 12-place rounding boundary: the means over 1 and 34 sentences rounded apart
# under the earlier rule (round to 12 places), ranking pure noise
@example(p=0.3509307974545, sizes=[1, 1, 1, 34])
def test_a_judge_with_no_signal_gets_auc_one_half_on_every_subset(
    p: float, sizes: list[int]
) -> None:
    # Every sentence of every summary got the same P(yes) p; the summaries' means over their
    # sentences are mathematically p but can differ in the last bits with the sentence count
    # (0.1 averaged over 3 or 7 sentences): that noise must not rank summaries.
    scores = [
        _score(i, nan_reduce_1d(np.full(n, p), "mean"), i % 2, subset=f"s{i % 3}", t=p)
        for i, n in enumerate(sizes)
    ]
    out = auc()(scores)  # type: ignore[arg-type]
    assert all(v == 0.5 for k, v in out.items() if not math.isnan(v)), out  # type: ignore[union-attr]
    # held against its own value as threshold, every summary is predicted faithful: BACC 50
    # where a subset has both labels, else the recall of the one label it has
    labels: dict[str, set[int]] = {}
    for s in scores:
        labels.setdefault(s.sample_metadata["subset"], set()).add(s.sample_metadata["labels"])  # type: ignore[index]
    expected = {k: 50.0 if len(v) == 2 else 100.0 * max(v) for k, v in labels.items()}
    got = bacc()(scores)  # type: ignore[arg-type]
    assert {k: v for k, v in got.items() if k != "avg"} == expected  # type: ignore[union-attr]


def test_sums_in_another_order_are_the_same_score() -> None:
    labels = [0, 1, 0, 1]  # 1 = unfaithful
    tenths = [nan_reduce_1d(np.full(n, 0.1), "mean") for n in (3, 1, 7, 10)]
    assert len(set(tenths)) > 1  # the noise is real
    assert support_auc(labels, tenths) == 0.5
    assert support_threshold(labels, tenths) == 0.1  # everything supported: no split in noise

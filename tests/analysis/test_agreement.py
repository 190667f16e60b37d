"""Balanced accuracy, ROC AUC and threshold calibration against human labels."""

from __future__ import annotations

import math
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis.agreement import (
    NO_PROBLEM,
    PROBLEM,
    BalancedAccuracy,
    balanced_accuracy,
    best_threshold,
    problem_labels,
    roc_auc,
    support_auc,
    support_threshold,
)

labels_st = st.lists(st.integers(0, 1), min_size=1, max_size=40)


@st.composite
def labelled_predictions(draw: st.DrawFn) -> tuple[list[int], list[int | None]]:
    labels = draw(labels_st)
    preds = draw(
        st.lists(st.none() | st.integers(0, 1), min_size=len(labels), max_size=len(labels))
    )
    return labels, preds


@st.composite
def labelled_scores(draw: st.DrawFn) -> tuple[list[int], list[float]]:
    """Labels with both classes and scores on a coarse grid (ties likely, arithmetic exact)."""
    labels = draw(labels_st.filter(lambda xs: 0 < sum(xs) < len(xs)))
    ints = draw(st.lists(st.integers(-50, 50), min_size=len(labels), max_size=len(labels)))
    return labels, [i / 4 for i in ints]


@st.composite
def scores_with_gaps(draw: st.DrawFn) -> tuple[list[int], list[float | None]]:
    """Labels with scores that may be missing (None, NaN) or infinite, on a coarse grid."""
    labels = draw(labels_st)
    grid = st.integers(-6, 6).map(lambda i: i / 2)
    score = grid | st.sampled_from([None, math.nan, math.inf, -math.inf])
    return labels, draw(st.lists(score, min_size=len(labels), max_size=len(labels)))


def brute_auc(labels: list[int], scores: list[float]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in product(pos, neg))
    return wins / (len(pos) * len(neg))


def bacc_at(labels: list[int], scores: list[float], threshold: float) -> float:
    return balanced_accuracy(labels, [s >= threshold for s in scores]).value


# --- balanced accuracy ---------------------------------------------------------------------


def test_balanced_accuracy_known_values() -> None:
    # 3 positives, 1 negative: recall+ = 2/3, recall- = 1 -> 5/6.
    result = balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0])
    assert isinstance(result, BalancedAccuracy)
    assert result.value == pytest.approx(5 / 6)
    assert (result.n_used, result.n_skipped) == (4, 0)
    value, n_used, n_skipped = balanced_accuracy([1, 0, 1, 0], [True, None, False, False])
    assert value == pytest.approx(0.75)
    assert (n_used, n_skipped) == (3, 1)


def test_balanced_accuracy_one_class_is_that_class_recall() -> None:
    assert balanced_accuracy([1, 1, 1, 1], [1, 1, 1, 0]).value == pytest.approx(0.75)
    assert balanced_accuracy([0, 0], [0, 0]).value == 1.0
    # Only the positives remain once the None prediction is dropped.
    assert balanced_accuracy([1, 0], [1, None]).value == 1.0


def test_balanced_accuracy_nothing_usable_is_nan() -> None:
    result = balanced_accuracy([1, 0], [None, None])
    assert math.isnan(result.value) and result.n_used == 0 and result.n_skipped == 2
    assert math.isnan(balanced_accuracy([], []).value)


@pytest.mark.parametrize(
    ("labels", "preds"),
    [([1, 0], [1]), ([1, 2], [1, 0]), ([1, 0], [1, 2]), ([1, 0], [1, 0.5]), ([1, None], [1, 0])],
)
def test_balanced_accuracy_rejects_bad_input(labels: list[object], preds: list[object]) -> None:
    with pytest.raises(ValueError):
        balanced_accuracy(labels, preds)  # type: ignore[arg-type]


@given(labelled_predictions())
def test_bacc_in_unit_interval(data: tuple[list[int], list[int | None]]) -> None:
    labels, preds = data
    value, n_used, n_skipped = balanced_accuracy(labels, preds)
    assert n_used + n_skipped == len(labels)
    assert n_skipped == sum(p is None for p in preds)
    if n_used:
        assert 0.0 <= value <= 1.0
    else:
        assert math.isnan(value)


@given(labels_st)
def test_bacc_of_perfect_predictions_is_one(labels: list[int]) -> None:
    assert balanced_accuracy(labels, list(labels)).value == 1.0
    assert balanced_accuracy(labels, [bool(y) for y in labels]).value == 1.0


@given(labels_st)
def test_bacc_of_inverted_predictions_is_zero(labels: list[int]) -> None:
    assert balanced_accuracy(labels, [1 - y for y in labels]).value == 0.0


@given(labels_st.filter(lambda xs: 0 < sum(xs) < len(xs)))
def test_bacc_of_constant_predictions_is_one_half(labels: list[int]) -> None:
    assert balanced_accuracy(labels, [1] * len(labels)).value == 0.5
    assert balanced_accuracy(labels, [0] * len(labels)).value == 0.5


# --- ROC AUC -------------------------------------------------------------------------------


def test_roc_auc_known_values() -> None:
    assert roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)
    assert roc_auc([0, 1], [0.5, 0.5]) == 0.5  # a tie counts half
    assert roc_auc([0, 1, 1, 0], [math.nan, 0.2, None, 0.1]) == 1.0  # NaN and None skipped
    assert roc_auc([0, 1, 0, 1], [0.9, math.nan, 0.1, 0.5]) == pytest.approx(0.5)
    assert roc_auc([0, 1], [-math.inf, math.inf]) == 1.0


def test_roc_auc_missing_class_is_nan() -> None:
    assert math.isnan(roc_auc([1, 1], [0.2, 0.3]))
    assert math.isnan(roc_auc([1, 0], [0.2, math.nan]))
    assert math.isnan(roc_auc([], []))


def test_roc_auc_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        roc_auc([1, 0], [0.5])
    with pytest.raises(ValueError):
        roc_auc([1, 3], [0.5, 0.2])


@given(labelled_scores())
def test_roc_auc_matches_pairwise_count(data: tuple[list[int], list[float]]) -> None:
    labels, scores = data
    assert roc_auc(labels, scores) == pytest.approx(brute_auc(labels, scores))


@given(st.integers(1, 20), st.integers(1, 20), st.floats(-1e6, 1e6), st.floats(0.001, 1e3))
def test_roc_auc_of_perfectly_separated_is_one(
    n_pos: int, n_neg: int, cut: float, gap: float
) -> None:
    labels = [1] * n_pos + [0] * n_neg
    scores = [cut + gap] * n_pos + [cut - gap] * n_neg
    assert roc_auc(labels, scores) == 1.0
    assert roc_auc(labels, [-s for s in scores]) == 0.0


@given(labelled_scores())
def test_roc_auc_invariant_to_monotone_transforms(data: tuple[list[int], list[float]]) -> None:
    labels, scores = data
    auc = roc_auc(labels, scores)
    rank_of = {v: i for i, v in enumerate(sorted(set(scores)))}
    for transform in (
        lambda x: 2 * x + 5,
        lambda x: x**3,
        lambda x: math.exp(x / 8),
        lambda x: float(rank_of[x]),
    ):
        assert roc_auc(labels, [transform(s) for s in scores]) == pytest.approx(auc)
    # A decreasing transform mirrors the AUC.
    assert roc_auc(labels, [-s for s in scores]) == pytest.approx(1 - auc)


# --- one label meaning: converting from 1 = faithful and support scores ---------------------


def test_problem_labels() -> None:
    assert (PROBLEM, NO_PROBLEM) == (1, 0)
    assert problem_labels([1, 0, True, False]) == [0, 1, 0, 1]
    for bad in ([2], [0.0], [None]):
        with pytest.raises(ValueError):
            problem_labels(bad)  # type: ignore[arg-type]


@WARNINGS_AS_ERRORS
@given(scores_with_gaps())
def test_the_converted_figures_are_the_same_numbers(
    data: tuple[list[int], list[float | None]],
) -> None:
    # What a caller with 1 = faithful labels and support scores computed before (the support
    # as the score, faithful as the positive class), against the same data converted: equal
    # bit for bit, not just close.
    faithful, support = data
    flipped = problem_labels(faithful)
    before, after = roc_auc(faithful, support), support_auc(flipped, support)
    assert before == after or (math.isnan(before) and math.isnan(after))
    predicted = [None if s is None else bool(s >= 0.5) for s in support]
    flags = [None if p is None else not p for p in predicted]
    same = balanced_accuracy(faithful, predicted), balanced_accuracy(flipped, flags)
    assert same[0][1:] == same[1][1:]
    assert same[0].value == same[1].value or math.isnan(same[0].value + same[1].value)


@given(labelled_scores())
def test_support_auc_is_the_auc_of_the_negated_support(
    data: tuple[list[int], list[float]],
) -> None:
    # Close, not equal: scikit-learn integrates the curve, which is not exactly symmetric.
    labels, support = data
    assert support_auc(labels, support) == pytest.approx(roc_auc(labels, [-s for s in support]))
    assert support_auc(labels, support) == pytest.approx(1 - roc_auc(labels, support))


def test_support_threshold_known_values() -> None:
    # 1 = unsupported: the low supports are the problems, the threshold sits in the gap.
    assert support_threshold([1, 1, 0, 0], [0.1, 0.3, 0.7, 0.9]) == pytest.approx(0.5)
    # no signal: the smallest support (everything supported) wins the tie
    assert support_threshold([0, 1, 0, 1], [0.2, 0.2, 0.8, 0.8]) == 0.2
    assert support_threshold([1, 0], [0.4, 0.6], candidates=[0.9, 0.1, 0.5]) == 0.5
    assert math.isnan(support_threshold([0, 1], [math.nan, None]))
    with pytest.raises(ValueError):
        support_threshold([0, 1], [0.2, 0.4], candidates=[])


@given(scores_with_gaps())
def test_support_threshold_is_the_faithful_meaning_search(
    data: tuple[list[int], list[float | None]],
) -> None:
    # The search a caller with 1 = faithful labels ran before (positives at `score >= t`).
    faithful, support = data
    expected = best_threshold(faithful, support)
    got = support_threshold(problem_labels(faithful), support)
    assert got == expected or (math.isnan(got) and math.isnan(expected))


@given(labelled_scores())
def test_support_threshold_beats_every_candidate(data: tuple[list[int], list[float]]) -> None:
    labels, support = data

    def flagged_bacc(t: float) -> float:
        return balanced_accuracy(labels, [not s >= t for s in support]).value

    best = flagged_bacc(support_threshold(labels, support))
    assert all(best >= flagged_bacc(t) - 1e-12 for t in [*sorted(set(support)), math.inf])


# --- best threshold ------------------------------------------------------------------------


def test_best_threshold_separable_sits_in_the_gap() -> None:
    labels = [0, 0, 1, 1]
    scores = [0.1, 0.3, 0.7, 0.9]
    threshold = best_threshold(labels, scores)
    assert threshold == pytest.approx(0.5)
    assert bacc_at(labels, scores, threshold) == 1.0


def test_best_threshold_ties_go_to_the_smallest() -> None:
    # Scores carry no signal: every split scores 0.5, so the smallest candidate (the minimum
    # score, i.e. everything flagged) wins.
    assert best_threshold([0, 1, 0, 1], [0.2, 0.2, 0.8, 0.8]) == 0.2
    assert best_threshold([1, 0], [0.4, 0.6], candidates=[0.9, 0.1, 0.5]) == 0.1


def test_best_threshold_anticorrelated_keeps_a_trivial_split() -> None:
    # Every real split is worse than 0.5; the minimum (flag everything) wins the tie with inf
    # (flag nothing).
    assert best_threshold([1, 0], [0.0, 1.0]) == 0.0


def test_best_threshold_given_candidates_and_missing_scores() -> None:
    labels = [0, 1, 1, 0]
    scores = [0.2, 0.6, math.nan, 0.5]
    assert best_threshold(labels, scores, candidates=[0.3, 0.55, 0.7]) == 0.55
    assert math.isnan(best_threshold([0, 1], [math.nan, None]))
    with pytest.raises(ValueError):
        best_threshold(labels, scores, candidates=[])
    with pytest.raises(ValueError):
        best_threshold(labels, scores, candidates=[math.nan])


def test_best_threshold_with_infinite_and_adjacent_scores() -> None:
    tiny = math.nextafter(1.0, 2.0)
    # adjacent floats are one score within SCORE_TOLERANCE: no split between them
    assert best_threshold([0, 1], [1.0, tiny]) == 1.0
    assert best_threshold([0, 1], [1.0, 1.0 + 1e-9]) == 1.0 + 0.5e-9
    assert best_threshold([0, 1], [-math.inf, 0.0]) == 0.0
    assert best_threshold([0, 1], [0.0, math.inf]) == math.inf  # only inf separates them


@given(labelled_scores())
def test_best_threshold_beats_every_candidate(data: tuple[list[int], list[float]]) -> None:
    labels, scores = data
    threshold = best_threshold(labels, scores)
    best = bacc_at(labels, scores, threshold)
    candidates = [*sorted(set(scores)), math.inf]
    assert all(best >= bacc_at(labels, scores, t) - 1e-12 for t in candidates)
    assert 0.5 <= best <= 1.0
    # Same answer when the seen scores themselves are the candidates, up to the split chosen.
    chosen = best_threshold(labels, scores, candidates=candidates)
    assert bacc_at(labels, scores, chosen) == pytest.approx(best)


# --- missing values and infinities: the brute-force numbers, no warnings ---------------------


@WARNINGS_AS_ERRORS
@given(scores_with_gaps())
def test_roc_auc_matches_brute_force_with_gaps(data: tuple[list[int], list[float | None]]) -> None:
    labels, scores = data
    kept = [(y, s) for y, s in zip(labels, scores, strict=True) if s is not None and s == s]
    ys, ss = [y for y, _ in kept], [float(s) for _, s in kept if s is not None]
    if 0 < sum(ys) < len(ys):
        assert roc_auc(labels, scores) == pytest.approx(brute_auc(ys, ss))
    else:
        assert math.isnan(roc_auc(labels, scores))


@WARNINGS_AS_ERRORS
@given(labelled_predictions())
def test_bacc_matches_brute_force_without_warnings(
    data: tuple[list[int], list[int | None]],
) -> None:
    labels, preds = data
    pairs = [(y, p) for y, p in zip(labels, preds, strict=True) if p is not None]
    recalls = [
        sum(p == c for y, p in pairs if y == c) / n
        for c in (0, 1)
        if (n := sum(y == c for y, _ in pairs))
    ]
    expected = sum(recalls) / len(recalls) if recalls else math.nan
    assert balanced_accuracy(labels, preds).value == pytest.approx(expected, nan_ok=True)

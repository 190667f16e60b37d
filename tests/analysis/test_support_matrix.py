"""SupportMatrix: validation, aggregation, NaN handling and order invariance."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis import MERGES, SupportMatrix, decide

# An all-NaN slice must never leak a numpy RuntimeWarning out of the reducers.
pytestmark = WARNINGS_AS_ERRORS

NAN = math.nan

# 3 documents x 4 sentences; sentence 2 is unreadable everywhere, d1/s3 is missing.
ROWS: list[list[float | None]] = [
    [1.0, 0.2, None, 0.0],
    [0.5, 0.8, None, None],
    [0.0, 0.2, None, 0.6],
]
FULL: list[float | None] = [1.0, None, 0.0, 0.5]

# Column reductions over documents: max [1, .8, -, .6], mean [.5, .4, -, .3], min [0, .2, -, 0].
EXPECTED = {
    "max_max": 1.0,
    "max_mean": 2.4 / 3,
    "max_min": 0.6,
    "mean_max": 0.5,
    "mean_mean": 1.2 / 3,
    "mean_min": 0.3,
    "min_max": 0.2,
    "min_mean": 0.2 / 3,
    "min_min": 0.0,
}


def same(a: float, b: float) -> bool:
    """Equal up to float rounding, with NaN equal to NaN."""
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture
def example() -> SupportMatrix:
    return SupportMatrix.from_rows(ROWS, full=FULL)


# --- Aggregation on the hand-computed example ---


@pytest.mark.parametrize(("key", "expected"), sorted(EXPECTED.items()))
def test_aggregate_hand_computed(example: SupportMatrix, key: str, expected: float) -> None:
    doc_merge, sentence_merge = key.split("_")
    assert example.aggregate(doc_merge, sentence_merge) == pytest.approx(expected)  # type: ignore[arg-type]


def test_all_aggregations_keys_and_values(example: SupportMatrix) -> None:
    got = example.all_aggregations()
    assert set(got) == set(EXPECTED) | {"full_max", "full_mean", "full_min"}
    for key, expected in EXPECTED.items():
        assert got[key] == pytest.approx(expected), key
    assert got["full_mean"] == pytest.approx(0.5)
    assert got["full_min"] == 0.0
    assert got["full_max"] == 1.0


def test_all_aggregations_without_full_has_nine_keys() -> None:
    sm = SupportMatrix.from_rows(ROWS)
    assert set(sm.all_aggregations()) == {f"{d}_{s}" for d in MERGES for s in MERGES}
    assert math.isnan(sm.full_aggregate("mean"))


def test_sentence_scores(example: SupportMatrix) -> None:
    np.testing.assert_allclose(example.sentence_scores("max"), [1.0, 0.8, NAN, 0.6])
    np.testing.assert_allclose(example.sentence_scores("mean"), [0.5, 0.4, NAN, 0.3])
    np.testing.assert_allclose(example.sentence_scores("min"), [0.0, 0.2, NAN, 0.0])


def test_unknown_merge_is_rejected(example: SupportMatrix) -> None:
    with pytest.raises(ValueError, match="unknown merge 'median'"):
        example.aggregate("median", "mean")  # type: ignore[arg-type]


# --- Missing values ---


def test_missing_counts(example: SupportMatrix) -> None:
    assert example.missing_count() == 4
    assert example.missing_sentences() == 1


def test_nan_is_ignored_not_zero() -> None:
    # If NaN counted as 0, mean over documents of sentence 0 would be 0.5, not 1.0.
    sm = SupportMatrix.from_rows([[1.0], [None]])
    assert sm.aggregate("mean", "mean") == 1.0
    assert sm.aggregate("min", "min") == 1.0


def test_all_nan_sentence_is_skipped() -> None:
    sm = SupportMatrix.from_rows([[0.0, None], [0.0, None]])
    for d in MERGES:
        for s in MERGES:
            assert sm.aggregate(d, s) == 0.0


def test_all_nan_matrix_gives_nan() -> None:
    sm = SupportMatrix.from_rows([[None, None], [None, None]], full=[None, None])
    assert sm.missing_count() == 4
    assert sm.missing_sentences() == 2
    assert all(math.isnan(v) for v in sm.all_aggregations().values())
    assert len(sm.all_aggregations()) == 12


# --- decide ---


def test_decide() -> None:
    assert decide(0.5, 0.5) is True
    assert decide(0.49, 0.5) is False
    assert decide(NAN, 0.5) is None
    assert decide(float(np.float64(0.7)), 0.5) is True


# --- Validation ---


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.zeros(3), "must be 2-D"),
        (np.zeros((2, 2, 2)), "must be 2-D"),
        (np.zeros((0, 3)), "zero documents"),
        (np.zeros((3, 0)), "zero summary sentences"),
        (np.array([[0.5, 1.5]]), r"\[0, 1\].*1.5 at index \(0, 1\)"),
        (np.array([[-0.1]]), r"\[0, 1\]"),
        (np.array([[np.inf]]), r"\[0, 1\]"),
        (np.array([["0.5"]]), "numeric"),
    ],
)
def test_constructor_validation(values: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SupportMatrix(values)


def test_full_validation() -> None:
    with pytest.raises(ValueError, match=r"full must have shape \(2,\)"):
        SupportMatrix(np.zeros((1, 2)), np.zeros(3))
    with pytest.raises(ValueError, match=r"full must have shape \(2,\)"):
        SupportMatrix(np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="full must lie in"):
        SupportMatrix(np.zeros((1, 2)), np.array([0.0, 2.0]))


def test_from_rows_validation() -> None:
    with pytest.raises(ValueError, match="one entry per sentence"):
        SupportMatrix.from_rows([[0.1, 0.2], [0.3]])
    with pytest.raises(ValueError, match="zero documents"):
        SupportMatrix.from_rows([])
    with pytest.raises(ValueError, match="zero summary sentences"):
        SupportMatrix.from_rows([[], []])


def test_stored_arrays_are_read_only_copies() -> None:
    raw = np.array([[0.1, 0.2]])
    sm = SupportMatrix(raw)
    raw[0, 0] = 0.9
    assert sm.values[0, 0] == 0.1
    with pytest.raises(ValueError):
        sm.values[0, 0] = 0.5
    assert sm.values.dtype == np.float64


def test_equality_treats_nan_as_equal(example: SupportMatrix) -> None:
    assert example == SupportMatrix.from_rows(ROWS, full=FULL)
    assert example != SupportMatrix.from_rows(ROWS)
    assert example != SupportMatrix.from_rows(ROWS, full=[1.0, None, 0.0, 0.4])
    with pytest.raises(TypeError):
        hash(example)


# --- reorder ---


def test_reorder(example: SupportMatrix) -> None:
    moved = example.reorder([2, 0, 1])
    np.testing.assert_array_equal(moved.values[0], example.values[2])
    np.testing.assert_array_equal(moved.values[1], example.values[0])
    np.testing.assert_array_equal(moved.full, example.full)  # equal_nan by default
    assert moved.reorder([1, 2, 0]) == example


@pytest.mark.parametrize("order", [[0, 1], [0, 1, 1], [0, 1, 3], [-1, 0, 1]])
def test_reorder_rejects_non_permutations(example: SupportMatrix, order: list[int]) -> None:
    with pytest.raises(ValueError, match="permutation"):
        example.reorder(order)


# --- Properties ---

CELL = st.one_of(st.floats(0.0, 1.0), st.just(NAN), st.sampled_from([0.0, 1.0]))
MATRICES = arrays(
    np.float64, array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6), elements=CELL
)


def naive_aggregate(values: np.ndarray, doc_merge: str, sentence_merge: str) -> float:
    """Loop-by-loop reference: reduce each column's readable values, then the readable columns."""
    fns: dict[str, Callable[[list[float]], float]] = {
        "max": max,
        "min": min,
        "mean": lambda xs: sum(xs) / len(xs),
    }
    per_sentence: list[float] = []
    for j in range(values.shape[1]):
        col = [float(v) for v in values[:, j] if not math.isnan(v)]
        if col:
            per_sentence.append(fns[doc_merge](col))
    return fns[sentence_merge](per_sentence) if per_sentence else NAN


@settings(max_examples=150, deadline=None)
@given(values=MATRICES, data=st.data())
def test_aggregations_invariant_under_document_reordering(
    values: np.ndarray, data: st.DataObject
) -> None:
    sm = SupportMatrix(values)
    order = data.draw(st.permutations(range(sm.n_docs)))
    before = sm.all_aggregations()
    after = sm.reorder(order).all_aggregations()
    assert before.keys() == after.keys()
    for key in before:
        assert same(before[key], after[key]), (key, before[key], after[key])


@settings(max_examples=150, deadline=None)
@given(values=MATRICES)
def test_aggregations_match_naive_reference(values: np.ndarray) -> None:
    sm = SupportMatrix(values)
    for key, got in sm.all_aggregations().items():
        doc_merge, sentence_merge = key.split("_")
        assert same(got, naive_aggregate(values, doc_merge, sentence_merge)), key
        assert math.isnan(got) or 0.0 <= got <= 1.0
    assert sm.missing_count() == int(np.isnan(values).sum())

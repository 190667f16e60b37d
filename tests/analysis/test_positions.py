"""Attribution and per-position faithfulness / coverage (Wan et al., "On Positional Bias of
Faithfulness for Long-form Summarization", §4.2, Appendix C.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis import SupportMatrix, position_faithfulness

pytestmark = WARNINGS_AS_ERRORS

NAN = math.nan


def profile_equal(a: list[float | None], b: list[float | None]) -> bool:
    """Position profiles equal up to rounding; None and NaN only match themselves."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            if x is not y:
                return False
        elif not ((math.isnan(x) and math.isnan(y)) or math.isclose(x, y, abs_tol=1e-12)):
            return False
    return True


# --- Attribution ---


def test_attribution_picks_best_document() -> None:
    sm = SupportMatrix.from_rows(
        [
            [1.0, 0.2, None, 0.0],
            [0.5, 0.8, None, None],
            [0.0, 0.2, None, 0.6],
        ]
    )
    got = sm.attribution()
    assert got.tolist() == [0, 1, -1, 2]
    assert got.dtype == np.int64


def test_attribution_ties_go_to_lowest_index() -> None:
    sm = SupportMatrix.from_rows(
        [
            [0.2, 0.0, None, 1.0],
            [0.7, 0.0, 0.3, 1.0],
            [0.7, 0.0, 0.3, None],
        ]
    )
    assert sm.attribution().tolist() == [1, 0, 1, 0]


# --- The paper's own example (§4.2): coverage 20 % each, faithfulness 100 % each ---


def test_paper_example_separates_coverage_from_faithfulness() -> None:
    sm = SupportMatrix(np.eye(5))
    assert sm.attribution().tolist() == [0, 1, 2, 3, 4]
    assert sm.position_faithfulness() == [1.0] * 5
    assert sm.position_coverage() == pytest.approx([0.2] * 5)


# --- A constructed lost-in-the-middle profile ---


def test_u_shaped_profile() -> None:
    # 5 documents, 2 sentences each; sentences about the middle document are only weakly
    # supported (0.3), but still attributed to it because the others give 0.1.
    values = np.full((5, 10), 0.1)
    for doc in range(5):
        values[doc, 2 * doc : 2 * doc + 2] = 0.3 if doc == 2 else 0.9
    values[1, 3] = 0.4  # one sentence about document 1 is not supported either
    sm = SupportMatrix(values)
    assert sm.attribution().tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert sm.position_faithfulness() == [1.0, 0.5, 0.0, 1.0, 1.0]
    assert sm.position_faithfulness(threshold=None) == pytest.approx([0.9, 0.65, 0.3, 0.9, 0.9])
    # Coverage: share of the 10 sentences each document supports at >= 0.5.
    assert sm.position_coverage() == pytest.approx([0.2, 0.1, 0.0, 0.2, 0.2])
    # Mean support per document, e.g. document 1: (0.9 + 0.4 + 8 * 0.1) / 10.
    assert sm.position_coverage(threshold=None) == pytest.approx([0.26, 0.21, 0.14, 0.26, 0.26])


def test_positions_with_missing_values() -> None:
    sm = SupportMatrix.from_rows(
        [
            [1.0, 0.2, None, 0.0],
            [0.5, 0.8, None, None],
            [0.0, 0.2, None, 0.6],
        ]
    )
    # The all-NaN sentence is attributed nowhere; each document gets one sentence.
    assert sm.position_faithfulness() == [1.0, 1.0, 1.0]
    assert sm.position_faithfulness(threshold=0.9) == [1.0, 0.0, 0.0]
    assert sm.position_faithfulness(threshold=None) == pytest.approx([1.0, 0.8, 0.6])
    # Coverage counts only readable cells: document 1 has two, both >= 0.5.
    assert sm.position_coverage() == pytest.approx([1 / 3, 1.0, 1 / 3])
    assert sm.position_coverage(threshold=None) == pytest.approx([0.4, 0.65, 0.8 / 3])


def test_position_without_attributed_sentences_is_none() -> None:
    sm = SupportMatrix.from_rows([[1.0, 0.9], [0.0, 0.0], [0.2, 1.0]])
    assert sm.position_faithfulness() == [1.0, None, 1.0]


def test_document_without_readable_values_has_nan_coverage() -> None:
    sm = SupportMatrix.from_rows([[1.0, 0.0], [None, None]])
    coverage = sm.position_coverage()
    assert coverage[0] == 0.5
    assert math.isnan(coverage[1])
    assert sm.position_faithfulness() == [0.5, None]


def test_binary_ties_first_versus_split() -> None:
    # s0 supported by documents 0 and 2, s1 by none, s2 by document 1 only.
    sm = SupportMatrix.from_rows([[1, 0, 0], [0, 0, 1], [1, 0, 0]])
    # "first": s0 and the unsupported s1 both land on document 0.
    assert sm.position_faithfulness(ties="first") == [0.5, 1.0, None]
    # "split": s0 is half d0 / half d2; s1 is a third on each document.
    d0 = 0.5 / (0.5 + 1 / 3)
    assert sm.position_faithfulness(ties="split") == pytest.approx([d0, 1 / (1 + 1 / 3), d0])


def test_invalid_arguments() -> None:
    sm = SupportMatrix(np.eye(2))
    with pytest.raises(ValueError, match="ties"):
        sm.position_faithfulness(ties="last")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NaN"):
        sm.position_faithfulness(threshold=NAN)
    with pytest.raises(ValueError, match="NaN"):
        sm.position_coverage(threshold=NAN)


# --- Properties ---

CELL = st.one_of(st.floats(0.0, 1.0), st.just(NAN), st.sampled_from([0.0, 1.0]))
MATRICES = arrays(
    np.float64, array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6), elements=CELL
)
THRESHOLDS = st.one_of(st.none(), st.floats(0.0, 1.0))


@settings(max_examples=150, deadline=None)
@given(values=MATRICES, threshold=THRESHOLDS, data=st.data())
def test_split_profiles_follow_the_documents(
    values: np.ndarray, threshold: float | None, data: st.DataObject
) -> None:
    # Tie-splitting and coverage do not depend on document order: the profile just moves.
    sm = SupportMatrix(values)
    order = data.draw(st.permutations(range(sm.n_docs)))
    moved = sm.reorder(order)
    faith = sm.position_faithfulness(threshold, ties="split")
    cover: list[float | None] = list(sm.position_coverage(threshold))
    assert profile_equal(
        moved.position_faithfulness(threshold, ties="split"), [faith[k] for k in order]
    )
    assert profile_equal(list(moved.position_coverage(threshold)), [cover[k] for k in order])


@settings(max_examples=150, deadline=None)
@given(values=MATRICES, threshold=THRESHOLDS)
def test_profiles_are_in_range_and_consistent(values: np.ndarray, threshold: float | None) -> None:
    sm = SupportMatrix(values)
    attributed = sm.attribution()
    assert attributed.shape == (sm.n_sentences,)
    assert ((attributed >= -1) & (attributed < sm.n_docs)).all()
    assert int((attributed == -1).sum()) == sm.missing_sentences()
    for ties in ("first", "split"):
        profile = position_faithfulness(values, threshold, ties)
        assert len(profile) == sm.n_docs
        assert all(p is None or 0.0 <= p <= 1.0 + 1e-12 for p in profile)
    first = sm.position_faithfulness(threshold)
    # "first" gives a value exactly at the positions some sentence is attributed to.
    assert [p is not None for p in first] == [i in attributed for i in range(sm.n_docs)]
    # Every readable sentence is attributed to a document whose support equals its best.
    for j, i in enumerate(attributed):
        if i >= 0:
            assert values[i, j] == np.nanmax(values[:, j])

"""Bootstrap intervals over samples and shared ranks (analysis/intervals.py)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis.intervals import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    Interval,
    bootstrap_interval,
    paired_difference,
    shared_ranks,
)

pytestmark = WARNINGS_AS_ERRORS

# Property tests bootstrap many data sets: fewer resamples keep them quick, and the
# properties do not depend on the count.
FAST = 400
PROPERTY = settings(max_examples=40, deadline=None)

values = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
samples = st.lists(values, min_size=2, max_size=40)


def width(ci: Interval) -> float:
    return ci.high - ci.low


def test_defaults_are_the_documented_ones() -> None:
    assert (CONFIDENCE, RESAMPLES, SEED) == (0.95, 2000, 0)
    ci = bootstrap_interval([0.0, 1.0, 0.0, 1.0])
    assert ci.confidence == 0.95 and ci.n == 4
    assert ci.as_dict() == {"value": 0.5, "low": ci.low, "high": ci.high, "n": 4}


@PROPERTY
@given(samples)
def test_interval_contains_the_mean(data: list[float]) -> None:
    ci = bootstrap_interval(data, resamples=FAST)
    assert ci.value == pytest.approx(float(np.mean(data)))
    assert ci.defined and ci.n == len(data)
    slack = 1e-9 * (1 + abs(ci.value))
    assert ci.low - slack <= ci.value <= ci.high + slack


@PROPERTY
@given(st.lists(values, min_size=2, max_size=6, unique=True))
def test_interval_narrows_as_n_grows_for_the_same_spread(base: list[float]) -> None:
    assume(max(base) - min(base) > 1e-3)
    small = bootstrap_interval(base, resamples=FAST)
    large = bootstrap_interval(base * 16, resamples=FAST)
    # Same values, same spread, 16 times the samples: the interval is about 4 times narrower.
    assert width(large) < width(small)
    assert large.contains(small.value)


@given(values, st.integers(2, 30))
def test_constant_data_gives_a_point(value: float, n: int) -> None:
    ci = bootstrap_interval([value] * n)
    assert ci.value == pytest.approx(value)  # np.mean may round in the last place
    assert ci.low == ci.value == ci.high and ci.n == n


def test_one_sample_has_no_interval() -> None:
    ci = bootstrap_interval([0.7])
    assert ci.value == 0.7 and ci.n == 1
    assert math.isnan(ci.low) and math.isnan(ci.high)
    assert not ci.defined and not ci.contains(0.7)
    # An undefined interval cannot tell anything apart.
    assert ci.overlaps(Interval(5.0, 4.0, 6.0, 10))


def test_nan_empty_and_scalar_inputs_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="NaN; count missing samples"):
        bootstrap_interval([0.5, math.nan, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_interval([[0.5, 1.0], [math.nan, 1.0]])
    with pytest.raises(ValueError, match="at least one sample, got none"):
        bootstrap_interval([])
    with pytest.raises(ValueError, match=r"one value .* per sample, got a scalar"):
        bootstrap_interval(np.float64(1.0))  # type: ignore[arg-type]


def test_deterministic_for_a_fixed_seed() -> None:
    data = [0.1, 0.9, 0.4, 0.35, 0.8, 0.0, 1.0]
    assert bootstrap_interval(data) == bootstrap_interval(data)
    assert bootstrap_interval(data, seed=3) == bootstrap_interval(data, seed=3)
    others = {bootstrap_interval(data, seed=s) for s in range(1, 6)}
    assert any(ci != bootstrap_interval(data) for ci in others)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=2, max_size=20), st.randoms())
def test_the_order_of_the_samples_does_not_matter(
    rows: list[tuple[float, float]], rnd: random.Random
) -> None:
    # Metrics get samples in completion order; a fixed seed must still give one interval.
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert bootstrap_interval(shuffled, resamples=FAST) == bootstrap_interval(rows, resamples=FAST)

    def first_minus_second(r: np.ndarray) -> float:
        return float(np.mean(r[:, 0]) - np.mean(r[:, 1]))

    assert bootstrap_interval(shuffled, first_minus_second, resamples=FAST) == (
        bootstrap_interval(rows, first_minus_second, resamples=FAST)
    )


def test_rows_are_resampled_whole() -> None:
    # Column 1 is always column 0 + 1: every resample keeps the pairs, so the difference of
    # the column means is exactly 1 in each and the interval is a point.
    rows = np.array([[x, x + 1.0] for x in (0.0, 3.0, 5.0, 9.0, 2.0)])
    ci = bootstrap_interval(rows, lambda r: float(np.mean(r[:, 1]) - np.mean(r[:, 0])))
    assert (ci.low, ci.value, ci.high) == pytest.approx((1.0, 1.0, 1.0))
    spread = bootstrap_interval(rows, lambda r: float(np.mean(r[:, 0])))
    assert spread.low < spread.value < spread.high


def test_confidence_widens_the_interval() -> None:
    data = [0.0, 1.0, 0.5, 0.2, 0.9, 0.3, 0.6, 0.8]
    assert width(bootstrap_interval(data, confidence=0.99)) > width(bootstrap_interval(data))
    assert width(bootstrap_interval(data, confidence=0.5)) < width(bootstrap_interval(data))


# --- paired differences ---


@PROPERTY
@given(samples, st.floats(0.05, 10))
def test_paired_difference_detects_a_constant_shift(a: list[float], shift: float) -> None:
    b = [x - shift for x in a]
    ci = paired_difference(a, b, resamples=FAST)
    assert ci.value == pytest.approx(shift)
    assert ci.low > 0 and ci.contains(ci.value)
    assert paired_difference(b, a, resamples=FAST).high < 0


@PROPERTY
@given(samples, st.lists(st.floats(0, 5), min_size=1, max_size=20))
def test_paired_difference_does_not_see_a_zero_shift(a: list[float], noise: list[float]) -> None:
    assert paired_difference(a, a, resamples=FAST) == Interval(0.0, 0.0, 0.0, len(a))
    # Differences of +d and -d for every d: mean 0, and the resamples are symmetric about 0.
    x = [float(i) for i in range(2 * len(noise))]
    y = [xi - d for xi, d in zip(x, [*noise, *(-d for d in noise)], strict=True)]
    ci = paired_difference(x, y, resamples=FAST)
    assert ci.value == pytest.approx(0.0, abs=1e-9)
    assert ci.low <= 1e-9 and ci.high >= -1e-9


def test_paired_difference_needs_paired_samples() -> None:
    with pytest.raises(ValueError, match="differ in shape"):
        paired_difference([1.0, 2.0], [1.0, 2.0, 3.0])


# --- shared ranks ---


def _row(scores: list[float], prefix: str = "s") -> dict[str, float]:
    return {f"{prefix}{i}": v for i, v in enumerate(scores)}


def test_shared_ranks_separate_clearly_different_rows() -> None:
    good = _row([0.9, 0.8, 1.0, 0.85, 0.95, 0.9])
    bad = _row([0.1, 0.2, 0.0, 0.15, 0.05, 0.1])
    assert shared_ranks([bad, good]) == [2, 1]
    assert shared_ranks([bad, good], higher_is_better=False) == [1, 2]


def test_shared_ranks_share_a_rank_for_indistinguishable_rows() -> None:
    a = _row([0.5, 0.7, 0.3, 0.6, 0.4])
    b = _row([0.55, 0.65, 0.35, 0.55, 0.45])  # the same up to noise of either sign
    clearly_worse = _row([0.0, 0.1, 0.0, 0.05, 0.0])
    assert shared_ranks([a, b, clearly_worse]) == [1, 1, 3]


def test_shared_ranks_give_rows_without_samples_rank_zero() -> None:
    a = _row([1.0, 0.9, 0.8])
    assert shared_ranks([{}, a, {}]) == [0, 1, 0]
    assert shared_ranks([]) == []


def test_rows_without_common_samples_are_compared_by_their_own_intervals() -> None:
    high = _row([0.9, 1.0, 0.95, 0.9], prefix="x")
    low = _row([0.1, 0.0, 0.05, 0.1], prefix="y")
    near = _row([0.92, 0.97, 0.9, 0.95], prefix="z")
    assert shared_ranks([high, low, near]) == [1, 3, 1]
    # One sample: no interval, so nothing is clearly better or worse than it.
    assert shared_ranks([high, _row([0.0], prefix="w")]) == [1, 1]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=8))
def test_identical_rows_share_their_rank(scores: list[float]) -> None:
    row = _row(scores)
    ranks = shared_ranks([row, dict(row), {k: v - 2.0 for k, v in row.items()}])
    assert ranks[0] == ranks[1] == 1
    assert ranks[2] == 3


def test_a_shift_spread_only_by_rounding_is_a_point() -> None:
    """Found by hypothesis: x - (x - d) differs from d in the last bits, so the resampled means
    spread by a few ulps and the percentile interval could exclude its own value."""
    a = [0.0] * 17 + [1.2345678901234567e3]
    b = [x - 8.539404190183221 for x in a]
    ci = paired_difference(a, b, resamples=FAST)
    assert ci.low == ci.value == ci.high and ci.contains(ci.value)
    assert ci.value == pytest.approx(8.539404190183221)

"""The work limits: read from their variables, and a plan checked against them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.text.work_limits import (
    LIMIT_SETTINGS,
    WorkLimits,
    WorkPlan,
    excess,
    support_plan,
    work_limits,
)


def test_defaults_without_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in LIMIT_SETTINGS.values():
        monkeypatch.delenv(var, raising=False)
    assert work_limits() == WorkLimits()


def test_each_variable_sets_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    for n, (field, var) in enumerate(LIMIT_SETTINGS.items(), start=7):
        monkeypatch.setenv(var, f"{n:,}000")
        assert getattr(work_limits(), field) == n * 1000


@pytest.mark.parametrize("raw", ["0", "-3", "lots", "1.5"])
def test_a_bad_setting_is_named(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("LONGFORM_MAX_SENTENCES", raw)
    with pytest.raises(ValueError, match="LONGFORM_MAX_SENTENCES must be a positive whole"):
        work_limits()


def test_excess_names_the_limit_its_figure_and_its_setting() -> None:
    limits = WorkLimits(max_sentences=10, max_judge_calls=100)
    assert excess(WorkPlan(10, 100, 5, 5), limits) is None
    line = excess(WorkPlan(10, 101, 5, 5), limits, "booookscore")
    assert line is not None and "\n" not in line
    for needle in ("booookscore", "101 judge calls", "limit of 100", "LONGFORM_MAX_JUDGE_CALLS"):
        assert needle in line


def test_support_plan_counts_every_pair_and_its_text() -> None:
    plan = support_plan([100, 50], [10, 20, 30])
    assert plan.calls == 6 and plan.longest_call == 130 and plan.sentences == 3
    assert plan.judged_chars == sum(u + s for u in (100, 50) for s in (10, 20, 30))


def test_support_plan_with_parts_retrieval_and_full() -> None:
    plan = support_plan([100, 50, 70], [10, 20], parts=[5], per_statement=1, full=222)
    assert plan.sentences == 2
    assert plan.calls == 3 + 3  # one unit for each of 3 asked, then each against all at once
    assert plan.longest_call == 222 + 20


@given(
    st.lists(st.integers(1, 500), min_size=1, max_size=8),
    st.lists(st.integers(1, 300), min_size=1, max_size=8),
)
def test_support_plan_matches_the_pairs_it_counts(units: list[int], sentences: list[int]) -> None:
    plan = support_plan(units, sentences)
    pairs = [(u, s) for u in units for s in sentences]
    assert plan.calls == len(pairs)
    assert plan.judged_chars == sum(u + s for u, s in pairs)
    assert plan.longest_call == max(u + s for u, s in pairs)

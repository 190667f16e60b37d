"""The behaviour checks: all pass on the shipped metrics, fail on broken ones, and report."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from longform_evals.analysis import reduce, support_matrix
from longform_evals.analysis.reduce import FloatArray, Merge
from longform_evals.checks.runner import (
    format_table,
    junit_xml,
    metrics,
    run_checks,
    shipped_checks,
)
from longform_evals.checks.spec import Check, Observation, Result
from longform_evals.scorers import length_control, qa_accuracy, rouge, summary_stats

METRICS = [
    "rouge",
    "length_control",
    "summary_statistics",
    "choice_accuracy",
    "faithfulness_aggregation",
]


def _failed(results: list[Result]) -> set[str]:
    return {r.check.id for r in results if not r.passed}


def test_every_shipped_check_passes() -> None:
    results = run_checks(only=METRICS)
    assert not _failed(results), format_table(results)
    assert metrics(r.check for r in results) == METRICS


def test_every_shipped_metric_has_checks() -> None:
    assert metrics(shipped_checks()) == [
        *METRICS,
        "bertscore",
        "order_sensitivity",
        "meta_evaluation",
        "booookscore",
        "faithfulness",
        "llm_raters",
    ]


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_has_an_effect_an_invariance_and_bounds(metric: str) -> None:
    kinds = {c.kind for c in shipped_checks() if c.metric == metric}
    assert kinds & {"direction", "discrimination"} and {"invariance", "bounds"} <= kinds, kinds


def test_check_names_are_unique() -> None:
    ids = [c.id for c in shipped_checks()]
    assert len(ids) == len(set(ids))


# --------------------------------------------------------------------------------------------
# Broken metrics make their checks fail.


def _swapped(real: Callable[[FloatArray, Merge, int], FloatArray]) -> Callable[..., FloatArray]:
    swap: dict[Merge, Merge] = {"max": "min", "min": "max", "mean": "mean"}

    def broken(x: FloatArray, merge: Merge, axis: int) -> FloatArray:
        return real(x, swap[merge], axis)

    return broken


def test_swapped_max_and_min_fail_the_aggregation_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = _swapped(reduce.nan_reduce)
    monkeypatch.setattr(reduce, "nan_reduce", broken)
    monkeypatch.setattr(support_matrix, "nan_reduce", broken)
    failed = _failed(run_checks(only=["faithfulness_aggregation"]))
    assert {
        "faithfulness_aggregation/ordering_bounds",
        "faithfulness_aggregation/planted_sentence_lowers",
    } <= failed


def test_a_rouge_that_ignores_the_answer_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rouge.rouge_values

    # Scores the first reference whatever the answer: every answer looks perfect.
    def broken(
        scorer_: Any, prediction: str, references: Sequence[str], variants: Sequence[str]
    ) -> tuple[dict[str, float], list[dict[str, float]]]:
        return real(scorer_, references[0], references, variants)

    monkeypatch.setattr(rouge, "rouge_values", broken)
    results = run_checks(only=["rouge"])
    assert _failed(results) == {"rouge/other_summary_scores_lower", "rouge/truncation_lowers"}
    assert "FAIL" in format_table(results)


def test_a_whitespace_sensitive_length_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, target_words: float, tolerance: float) -> dict[str, float]:
        n = len(text.split(" "))
        return {"words": n, "length_ratio": n / target_words, "within": 1.0}

    monkeypatch.setattr(length_control, "length_control_values", broken)
    failed = _failed(run_checks(only=["length_control"]))
    assert {
        "length_control/whitespace_invariance",
        "length_control/doubling_leaves_tolerance",
    } <= failed


def test_repeats_not_counted_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary_stats, "repeated_trigram_pct", lambda text: 0.0)
    failed = _failed(run_checks(only=["summary_statistics"]))
    assert failed == {"summary_statistics/duplicated_sentence_repeats"}


def test_a_reader_that_always_reads_a_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(qa_accuracy, "parse_choice", lambda raw, n: 0)
    failed = _failed(run_checks(only=["choice_accuracy"]))
    assert {"choice_accuracy/wrong_letter_lowers", "choice_accuracy/bounds"} <= failed


# --------------------------------------------------------------------------------------------
# Results, errors and the reports.


def _raises() -> Observation:
    raise ZeroDivisionError("planted")


PLANTED = [
    Check("toy", "good", "bounds", "in range", lambda: Observation("0.5", True)),
    Check("toy", "bad", "direction", "goes down", lambda: Observation("up", False, "rose 0.1")),
    Check("other", "boom", "invariance", "unchanged", _raises),
]


def test_a_check_that_raises_is_a_failed_result() -> None:
    good, bad, boom = run_checks(checks=PLANTED)
    assert good.passed and not bad.passed and bad.error is None
    assert not boom.passed and boom.error == "ZeroDivisionError: planted"


def test_only_selects_metrics_and_refuses_unknown_ones() -> None:
    assert [r.check.name for r in run_checks(only=["other"], checks=PLANTED)] == ["boom"]
    with pytest.raises(ValueError, match="no checks for metric"):
        run_checks(only=["rogue"], checks=PLANTED)


def test_the_table_shows_each_check_and_the_failures() -> None:
    table = format_table(run_checks(checks=PLANTED))
    assert "| toy/bad | direction | goes down | up | FAIL: rose 0.1 |" in table
    assert "| toy/good | bounds | in range | 0.5 | pass |" in table
    assert "FAIL: ZeroDivisionError: planted" in table
    assert table.endswith("1 of 3 checks passed, 2 failed.\n")


def test_junit_parses_and_counts_failures() -> None:
    root = ET.fromstring(junit_xml(run_checks(checks=PLANTED)))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["toy", "other"]
    assert [c.get("name") for c in suites["toy"].iter("testcase")] == ["good", "bad"]
    [failure] = suites["toy"].iter("failure")
    assert failure.get("message") == "expected goes down; observed up"
    [error] = suites["other"].iter("error")
    assert error.get("message") == "ZeroDivisionError: planted"


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        Check("toy", "x", "vibes", "?", lambda: Observation("", True))  # type: ignore[arg-type]


def test_the_shipped_junit_has_no_failures() -> None:
    root = ET.fromstring(junit_xml(run_checks(only=["faithfulness_aggregation"])))
    assert root.get("failures") == "0" and root.get("tests") == "5"


def test_a_check_whose_extra_is_missing_is_skipped_naming_it() -> None:
    ran: list[bool] = []

    def observe() -> Observation:
        ran.append(True)
        return Observation("x", False)

    check = Check(
        "m", "needs_extra", "bounds", "-", observe, requires=(("no_such_module_xyz", "embed"),)
    )
    [result] = run_checks(checks=[check])
    assert result.passed and not ran and result.verdict == "skipped"
    assert "no_such_module_xyz (the `embed` extra)" in format_table([result])
    assert "1 skipped for a missing optional extra" in format_table([result])
    assert "<skipped" in junit_xml([result])

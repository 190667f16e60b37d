"""The longformfact meta-evaluation task on the shared excerpt, with a scripted judge."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from longform_evals.scorers.faithfulness import AGGREGATIONS, FULL_AGGREGATIONS
from longform_evals.tasks.longformfact import longformfact

YES = {"Yes": -0.1, "No": -2.4}


def test_longformfact_reports_bacc_for_every_aggregation(shared_data: Path, tmp_path: Path) -> None:
    task = longformfact(data_dir=str(shared_data / "longformfact"))
    judge = get_model(
        "scripted/lff",
        rules=[
            {
                "pattern": "<statement>",
                "response": "Yes.",
                "top_logprobs": {"Yes": -0.1, "No": -2.4},
            }
        ],
        memoize=False,
    )
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == 12
    assert log.results is not None
    by_key = {s.name: s.metrics for s in log.results.scores}
    for key in ("faithfulness", *AGGREGATIONS, *FULL_AGGREGATIONS):
        metrics = by_key[key]
        assert "longform_evals/bacc_avg" in metrics and "longform_evals/auc_avg" in metrics
        assert "longform_evals/bacc_qmsum" in metrics
    # A judge that says "supported" to everything predicts every summary faithful: BACC 50
    # wherever both classes occur.
    assert by_key["max_mean"]["longform_evals/bacc_qmsum"].value == 50.0


def test_subset_filter(shared_data: Path) -> None:
    task = longformfact(data_dir=str(shared_data / "longformfact"), subsets="qmsum,multinews")
    assert len(task.dataset) == 8


def test_orders_score_multi_document_summaries_under_each_order(
    shared_data: Path, tmp_path: Path
) -> None:
    task = longformfact(
        data_dir=str(shared_data / "longformfact"), orders="original,top,bottom", ranking="lexical"
    )
    # Only the multi-document records (multinews, pubmed: 6 of 12), each under 3 orders.
    assert len(task.dataset) == 18
    judge = get_model(
        "scripted/lff",
        rules=[{"pattern": "<statement>", "response": "Yes.", "top_logprobs": YES}],
        memoize=False,
    )
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.results is not None
    metrics = {s.name: s.metrics for s in log.results.scores}["max_mean"]
    for name in ("original", "top", "bottom", "sensitivity"):
        assert f"longform_evals/bacc_by_order_{name}" in metrics
    # A constant judge cannot depend on order.
    assert metrics["longform_evals/bacc_by_order_sensitivity"].value == 0.0

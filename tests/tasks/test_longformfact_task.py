"""The longformfact meta-evaluation task on the shared excerpt, with a scripted judge."""

from __future__ import annotations

import json
import re
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from longform_evals.judges.faithfulness.judging import AGGREGATIONS, FULL_AGGREGATIONS
from longform_evals.scorers.results import result_values
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
    by_key = {key: found for (_, key), found in result_values(log.results.scores).items()}
    for key in ("faithfulness", *AGGREGATIONS, *FULL_AGGREGATIONS):
        metrics = by_key[key]
        assert "bacc_avg" in metrics and "auc_avg" in metrics
        assert "bacc_qmsum" in metrics
    # A judge that says "supported" to everything predicts every summary faithful: BACC 50
    # wherever both classes occur.
    assert by_key["max_mean"]["bacc_qmsum"] == 50.0
    # Inspect's results show them in the scorer's own entry, named whole (and the task's
    # headline is the card's: BACC of the scorer's own aggregation, averaged over subsets).
    [entry] = [s for s in log.results.scores if s.name == "faithfulness"]
    assert {"bacc_avg", "auc_qmsum", "max_mean_bacc_avg", "full_min_auc_multinews"} <= set(
        entry.metrics
    )
    headline = log.results.headline
    assert headline is not None
    assert (headline.scorer, headline.score, headline.metric) == (
        "faithfulness",
        "faithfulness",
        "bacc_avg",
    )


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
    metrics = result_values(log.results.scores)[("faithfulness", "max_mean")]
    for name in ("original", "top", "bottom", "sensitivity"):
        assert f"bacc_by_order_{name}" in metrics
    # A constant judge cannot depend on order.
    assert metrics["bacc_by_order_sensitivity"] == 0.0


_PAIR = re.compile(r"(?s).*<source>\n(.*?)\n</source>\n\n<statement>\n(.*?)\n</statement>")
KEY = "The bridge will reopen in May."
OTHERS = ["The council met on Monday.", "Markets open early on Fridays."]


def lead_biased_judge(text: str, _: int) -> str:
    """Backs a statement only when it is in the first document it is shown (the judge's own
    positional bias): order-blind when documents are judged one by one, not in `full` mode."""
    match = _PAIR.match(text)
    assert match, text[-300:]
    first = match.group(1).split("\n\n")[0]
    return "Yes." if match.group(2).rstrip(".") in first else "No."


def test_orders_report_a_bootstrap_interval_of_the_bacc_sensitivity(tmp_path: Path) -> None:
    # Faithful summaries (label 1) copy the most important document; unfaithful ones make
    # something up. Records alternate so that resamples differ.
    records = [
        {
            "subset": "multinews",
            "documents": [KEY, *OTHERS] if i % 3 else [OTHERS[0], KEY, OTHERS[1]],
            "ranking": [0, 1, 2] if i % 3 else [1, 0, 2],
            "summary": KEY if i % 2 else "The mayor resigned.",
            "faithfulness": i % 2,
            "model": f"system-{i}",  # no two records alike (a repeated record is refused)
        }
        for i in range(10)
    ]
    data = tmp_path / "orders.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    task = longformfact(
        data_dir=str(data), orders="top,bottom", ranking="lexical", threshold=0.5, prompt="judge"
    )
    judge = get_model(
        "scripted/lff", rules=[{"pattern": "<statement>", "response": lead_biased_judge}]
    )
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert log.results is not None
    metrics = {key: found for (_, key), found in result_values(log.results.scores).items()}
    prefix = "bacc_by_order"
    # Judging the whole input at once, the judge misses the key document at the bottom:
    # BACC 100 on top, 50 at the bottom; the interval over records excludes 0.
    full = metrics["full_mean"]
    assert (full[f"{prefix}_top"], full[f"{prefix}_bottom"]) == (100.0, 50.0)
    assert full[f"{prefix}_sensitivity"] == 50.0
    low, high = full[f"{prefix}_sensitivity_ci_low"], full[f"{prefix}_sensitivity_ci_high"]
    assert 0 < low <= 50.0 <= high
    assert (full[f"{prefix}_sensitivity_n"], full[f"{prefix}_sensitivity_missing"]) == (10, 0)
    # Judged document by document, order cannot matter: 0, and an interval holding 0.
    by_document = metrics["max_mean"]
    assert by_document[f"{prefix}_sensitivity"] == 0.0
    low, high = (by_document[f"{prefix}_sensitivity_ci_{e}"] for e in ("low", "high"))
    assert low <= 0.0 <= high

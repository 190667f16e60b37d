"""The package's own metrics under Inspect's epoch reducers.

With `epochs=2` Inspect scores every sample twice, reduces the two scores to one (here by
`mean`), and computes the task's metrics on the reduced scores. The scripted model answers
every epoch the same, so each metric must give exactly what it gives for one epoch: a metric
that read the scores before reduction would count every unit twice, and one that choked on a
reduced score (values averaged, metadata of the first epoch) would fail the run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs, Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import TaskState

from helpers import BOOKS, OFFLINE_RULES, SENTENCE_RULES
from longform_evals.scorers.results import result_values
from longform_evals.scorers.scorer_table import count
from longform_evals.scorers.unscorable import nan_mean, nan_stderr
from longform_evals.tasks.judge_agreement import judge_agreement
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.positional_bias import positional_bias
from longform_evals.tasks.snapshot_fixtures import LONGFORMFACT

MULTIDOC = {
    "id": "harbour",
    "documents": [
        "The council met on Monday and approved the harbour budget.",
        "The bridge will reopen in May after repairs to its deck.",
        "Markets open early on Fridays during the summer months.",
    ],
    "ranking": [1, 0, 2],
}


def _multidoc(tmp: Path) -> str:
    path = tmp / "multidoc.jsonl"
    path.write_text(json.dumps(MULTIDOC) + "\n", encoding="utf-8")
    return str(path)


def _orders(tmp: Path) -> Task:
    return positional_bias(data=_multidoc(tmp), ranking="lexical", cache=False)


def _growing(tmp: Path) -> Task:
    return positional_bias(data=_multidoc(tmp), growing=True, cache=False)


def _longformfact(tmp: Path) -> Task:
    args = {**LONGFORMFACT.args(tmp), "orders": "original,top,bottom", "ranking": "lexical"}
    return longformfact(**args)


def _agreement(tmp: Path) -> Task:
    path = tmp / "summary-gpt4-4096-hier.json"
    path.write_text(json.dumps(BOOKS), encoding="utf-8")
    return judge_agreement(kind="coherence", data=str(path), mode="sentence")


TASKS: dict[str, tuple[Callable[[Path], Task], list[dict[str, Any]], set[str]]] = {
    "positional_bias": (_orders, OFFLINE_RULES, {"order_means", "position_profile"}),
    "positional_bias_growing": (_growing, OFFLINE_RULES, {"by_document_count"}),
    "longformfact": (
        _longformfact,
        OFFLINE_RULES,
        {"bacc", "auc", "bacc_by_order", "bacc_by_order_sensitivity"},
    ),
    "judge_agreement": (_agreement, SENTENCE_RULES, {"agreement_card", "mean", "count"}),
}
"""Case -> (its task, the scripted model's rules, the package metrics it reports)."""


def _run(task: Task, rules: list[dict[str, Any]], folder: Path, epochs: Epochs | None) -> EvalLog:
    model = get_model("scripted/epochs", rules=rules, memoize=False)
    [log] = inspect_eval(task, model=model, epochs=epochs, log_dir=str(folder), display="none")
    assert log.status == "success", log.error
    return log


def _results(log: EvalLog) -> dict[tuple[str, str], float]:
    """(value, metric) -> result, as every surface reads them (`scorers/results.py`)."""
    assert log.results is not None
    return {
        (key, name): value
        for (_, key), results in result_values(log.results.scores).items()
        for name, value in results.items()
        if name != "point"
    }


def _metric_names(results: dict[tuple[str, str], float]) -> set[str]:
    """The metrics among the results (`<metric>[_<key>]`: `bacc_avg`, `count`)."""
    return {name for _, name in results}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@pytest.mark.parametrize("case", sorted(TASKS))
def test_metrics_on_mean_reduced_epochs_equal_one_epoch(case: str, tmp_path: Path) -> None:
    build, rules, metrics = TASKS[case]
    once = _results(_run(build(tmp_path), rules, tmp_path / "one", None))
    reduced_log = _run(build(tmp_path), rules, tmp_path / "two", Epochs(2, "mean"))
    reduced = _results(reduced_log)

    assert reduced_log.eval.config.epochs == 2
    assert reduced_log.results is not None
    assert {s.reducer for s in reduced_log.results.scores} == {"mean"}
    names = _metric_names(reduced)
    assert all(any(n == m or n.startswith(f"{m}_") for n in names) for m in metrics), names
    assert set(reduced) == set(once)
    differ = {k: (once[k], reduced[k]) for k in once if not _same(once[k], reduced[k])}
    assert not differ, differ


@scorer(metrics={"value": [nan_mean(), nan_stderr()], "flagged": [count()]})
def _by_epoch() -> Any:
    """1 then 0 on the two epochs of sample `a` (mean 0.5), 1 on both of `b`, and no number
    on either epoch of `c`; `flagged` 1 on the first epoch of every sample only."""

    async def score(state: TaskState, target: Target) -> Score:
        first = state.epoch == 1
        value = {"a": 1.0 if first else 0.0, "b": 1.0, "c": math.nan}[str(state.sample_id)]
        return Score(value={"value": value, "flagged": 1.0 if first else 0.0})

    return score


def test_nan_aware_metrics_see_one_reduced_score_per_sample(tmp_path: Path) -> None:
    samples = [Sample(id=i, input="?") for i in "abc"]
    task = Task(dataset=MemoryDataset(samples), scorer=_by_epoch())
    log = _run(task, [{"default": "ok"}], tmp_path, Epochs(2, "mean"))
    results = _results(log)
    assert results[("value", "nan_mean")] == pytest.approx(0.75)  # (0.5 + 1) / 2
    assert results[("value", "nan_stderr")] == pytest.approx(0.25)
    assert results[("flagged", "count")] == pytest.approx(1.5)  # 3 x 0.5

"""The same samples through Inspect and through lm-eval give the same values and results.

For every task of the lm-eval folder: the Inspect task run with a strategy and the scripted
model, and lm-eval run with the wrapper of that strategy around the same scripted model, must
report identical values for every metric the lm-eval task declares (model usage aside), and
identical results: every declared metric's lm-eval aggregate equals the Inspect log's result of
the same name (`lmeval.metrics.inspect_results`), and the only declared metrics Inspect does not
report are lm-eval's own (usage). A drift in either path (a loader, a scorer, the document
round trip, the wrappers, an aggregation) fails here.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers import OFFLINE_RULES, has_module

pytest.importorskip("lm_eval")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

import longform_evals
from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import TASKS
from longform_evals.lmeval.hooks import declared_metrics
from longform_evals.lmeval.metrics import (
    LMEVAL_ONLY,
    inspect_results,
    judge_metric_name,
    split_judge_metric,
)
from longform_evals.lmeval.scoring import USAGE_KEYS, score_values
from longform_evals.lmeval.wrappers import WRAPPERS
from longform_evals.reports.leaderboard import HEADLINES, build_leaderboard
from longform_evals.scorers.results import result_values

DATA = Path(longform_evals.__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
LIMIT = 2
LIMITS = {"longformfact": 12}  # every shared row: both labels in several subsets

# task -> (its data arguments, the wrapper, the wrapper's own arguments, the Inspect strategy)
CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any], str | None]] = {
    "quality": (
        {"data": str(DATA / "reading" / "quality_fixture.jsonl")},
        "longform-readagent",
        {},
        "read_agent_p",
    ),
    "narrativeqa": (
        {"data": str(DATA / "reading" / "narrativeqa_fixture.jsonl")},
        "longform-truncate",
        {"words": 200},
        "truncate_first",
    ),
    "qmsum": (
        {"data": str(DATA / "reading" / "qmsum_fixture.jsonl")},
        "longform-readagent",
        {"lookup": "sequential"},
        "read_agent_s",
    ),
    "squality": (
        {"data": str(DATA / "narrative" / "squality_fixture.jsonl")},
        "longform-incremental",
        {"chunk_size": 512},
        "incremental",
    ),
    "booksum": (
        {"data": str(DATA / "narrative" / "booksum_fixture.jsonl")},
        "longform-nexussum",
        {"target_words": 120},
        "nexus_sum",
    ),
    "booookscore": ({}, "longform-hierarchical", {"chunk_size": 512}, "hierarchical"),
    "longformfact": (
        {"data": str(SHARED / "longformfact" / "longformfact_12_examples.jsonl")},
        "longform-truncate",
        {},
        None,
    ),
}
NEEDS = {"squality": "bert_score", "booksum": "bert_score"}


def test_every_task_has_a_case() -> None:
    assert set(CASES) == set(TASKS)


def _scripted() -> Any:
    return get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)


def _inspect_log(
    task: str, args: dict[str, Any], own: dict[str, Any], strategy: str | None
) -> EvalLog:
    spec = TASKS[task]
    task_args = {spec.data_parameter if k == "data" else k: v for k, v in args.items()}
    task_args.update({k: v for k, v in own.items() if k != "lookup"})
    if strategy is not None:
        task_args["strategy"] = strategy
    [log] = inspect_eval(
        TASKS[task].factory(**task_args),
        model=_scripted(),
        limit=LIMITS.get(task, LIMIT),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _lm_eval_results(task: str, args: dict[str, Any], wrapper: str, own: dict[str, Any]) -> Any:
    lm = WRAPPERS[wrapper](inner="scripted/agree", rules=OFFLINE_RULES, memoize=False, **own)
    manager = TaskManager(
        include_path=str(TASK_FOLDER), include_defaults=False, metadata={task: args}
    )
    results = simple_evaluate(
        model=lm,
        tasks=[f"longform_{task}"],
        task_manager=manager,
        limit=LIMITS.get(task, LIMIT),
        log_samples=True,
    )
    assert results is not None
    return results


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


@pytest.mark.parametrize("task", sorted(CASES))
def test_inspect_and_lm_eval_agree(
    task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if NEEDS.get(task) and not has_module(NEEDS[task]):
        pytest.skip(f"{NEEDS[task]} is not installed (the `embed` extra)")
    args, wrapper, own, strategy = CASES[task]
    if task == "longformfact" and not SHARED.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    monkeypatch.setenv("LONGFORM_LMEVAL_LOG_DIR", str(tmp_path / "lm-eval-logs"))
    monkeypatch.chdir(tmp_path)
    log = _inspect_log(task, args, own, strategy)
    limit = LIMITS.get(task, LIMIT)
    assert log.samples is not None and len(log.samples) == limit
    inspect_values = {str(s.id): score_values(s) for s in log.samples}

    # every value the Inspect task reports is one the lm-eval task declares
    # (LongFormFact's values are declared through their bacc/auc metrics)
    declared = set(declared_metrics(task))
    declared |= {split[0] for m in declared if (split := split_judge_metric(m))}
    for values in inspect_values.values():
        assert set(values) <= declared, f"{task}: undeclared {sorted(set(values) - declared)}"

    results = _lm_eval_results(task, args, wrapper, own)
    records = results["samples"][f"longform_{task}"]
    assert len(records) == limit
    compared = [
        m for m in declared_metrics(task) if m not in USAGE_KEYS and not split_judge_metric(m)
    ]
    for record in records:
        expected = inspect_values[record["doc"]["id"]]
        for metric in compared:
            if metric == "unparsed" and task == "longformfact":
                continue  # plain-model verdicts only
            assert metric in expected, f"{task}: Inspect gives no {metric!r}"
            got = record[metric]
            assert _same(float(got), expected[metric]), (task, record["doc"]["id"], metric, got)

    # the results: every declared metric, the same number on both surfaces
    assert log.results is not None
    inspect_numbers = inspect_results(log.results.scores)
    lm_eval_numbers = results["results"][f"longform_{task}"]
    table: dict[str, list[Any]] = {}
    for metric in declared_metrics(task):
        if metric not in inspect_numbers:
            assert metric in LMEVAL_ONLY, f"{task}: Inspect reports no {metric!r}"
            continue
        got = lm_eval_numbers[f"{metric},none"]
        assert _same(float(got), inspect_numbers[metric]), (task, metric, got)
        table[metric] = [inspect_numbers[metric], float(got), ""]
    judged = [m for m in declared_metrics(task) if split_judge_metric(m)]
    if judged:  # the shared rows hold both labels in their subsets: every BACC/AUC is a number
        assert not any(math.isnan(inspect_numbers[m]) for m in judged)

    # the leaderboard shows the same numbers (its headline metrics, at its scale)
    if has_module("pandas") and task in HEADLINES:
        board = build_leaderboard(tmp_path / "logs")
        [row] = board.rows
        shared = Counter(key for _, key in result_values(log.results.scores))
        for metric in HEADLINES[task]:
            if metric.label not in row.metrics:
                continue
            name = metric.key if shared[metric.key] == 1 else f"{metric.scorer}_{metric.key}"
            if metric.result != "point":
                name = judge_metric_name(name, metric.result.removesuffix("_avg"))
            shown = row.metrics[metric.label].value / metric.scale
            assert shown == pytest.approx(float(lm_eval_numbers[f"{name},none"]), rel=1e-12), (
                task,
                metric.label,
            )
            table[name][2] = shown
    # `pytest -s` shows the table (task x metric: Inspect, lm-eval, leaderboard)
    print(f"\n| {task} metric | Inspect | lm-eval | leaderboard | equal |\n|---|---|---|---|---|")
    for name, (a, b, c) in table.items():
        print(f"| {name} | {a:.6g} | {b:.6g} | {'' if c == '' else f'{c:.6g}'} | yes |")

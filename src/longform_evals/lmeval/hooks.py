"""The functions the task folder's YAML files name (through `tasks/utils.py`).

``load`` is each task's ``custom_dataset``, ``prescore`` its filter (scores every completion of
a plain lm-eval model in one Inspect run, leaving the responses as they are),
``process_results`` reads a document's values, and the aggregations are the Inspect task's own
metrics of those values (`lmeval.metrics`: ``inspect_mean``, ``inspect_accuracy``,
``inspect_count``; ``nanmean`` only for usage). The metrics a task reports are the
``metric_list`` of its YAML file, read here so that list is the only one.

LongFormFact measures a judge: under a wrapper the inner model judges through the task's own
faithfulness scorer, and ``bacc`` / ``auc`` (and ``<value>_bacc`` / ``<value>_auc`` for every
other aggregation) are the task's own Inspect metrics of that value (the subsets' average); a
plain lm-eval model answers one yes/no question per summary, and ``bacc`` / ``auc`` compare
its verdicts with the human labels.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import yaml
from inspect_ai.scorer import SampleScore, Score

from longform_evals.analysis.agreement import balanced_accuracy, problem_labels, support_auc
from longform_evals.judges.yes_no import parse_yes_no
from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import LmEvalSetupError, task_spec
from longform_evals.lmeval.docs import build_task, doc_sample, load_docs
from longform_evals.lmeval.metrics import (
    inspect_accuracy,
    inspect_count,
    inspect_mean,
    nanmean,
    split_judge_metric,
)
from longform_evals.lmeval.scoring import Outcome, recalled, score_completions
from longform_evals.scorers.meta_evaluation import summary_label
from longform_evals.scorers.scorer_table import keyed_spec, metric_name


class _TaskYamlLoader(yaml.SafeLoader):  # type: ignore[misc]
    """Reads lm-eval task YAML, keeping a ``!function`` reference as its text."""


_TaskYamlLoader.add_constructor(
    "!function",
    lambda loader, node: str(loader.construct_scalar(node)),
)


def read_task_yaml(path: Path) -> dict[str, Any]:
    """An lm-eval task file as a mapping (``!function`` references kept as text)."""
    loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYamlLoader)
    if not isinstance(loaded, dict):
        raise LmEvalSetupError(f"{path}: not an lm-eval task file")
    return loaded


@functools.cache
def declared_metrics(task: str) -> tuple[str, ...]:
    """The metric names of ``longform_<task>.yaml``."""
    config = read_task_yaml(TASK_FOLDER / f"longform_{task}.yaml")
    return tuple(str(m["metric"]) for m in config.get("metric_list") or [])


def load(task: str, **metadata: Any) -> dict[str, Any]:
    """``custom_dataset`` of every task: the YAML names the task in ``dataset_kwargs``."""
    return load_docs(task, **metadata)


def prescore(resps: Sequence[Sequence[str]], docs: Sequence[Mapping[str, Any]]) -> Any:
    """Score every document's first response (kept for ``process_results``); the responses
    pass through unchanged."""
    score_completions(docs, [r[0] if r else "" for r in resps])
    return resps


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """The document's values under the names its task declares."""
    completion = results[0] if results else ""
    outcome = recalled(doc, completion)
    if task_spec(str(doc["task"])).family == "judge":
        values = _judge_items(doc, completion, outcome)
    else:
        if outcome is None:
            score_completions([doc], [completion])
            outcome = recalled(doc, completion)
        values = dict(outcome.values) if outcome is not None else {}
    declared = declared_metrics(str(doc["task"]))
    return {name: values[name] for name in declared if name in values}


def _judge_items(
    doc: Mapping[str, Any], completion: str, outcome: Outcome | None
) -> dict[str, Any]:
    """LongFormFact: one item (JSON text) for every bacc/auc metric, and the numbers beside."""
    sample = doc_sample(doc)
    meta = sample.metadata or {}
    if outcome is not None:
        score = outcome.scores["faithfulness"]
        item = {
            "task": doc["task"],
            "args": doc["args"],
            "id": str(sample.id),
            "meta": meta,
            "value": score.value,
            "thresholds": (score.metadata or {}).get("thresholds") or {},
        }
        values: dict[str, Any] = dict(outcome.values)
    else:
        verdict = parse_yes_no(completion)
        item = {"label": summary_label(meta), "subset": str(meta.get("subset", "all"))}
        item["verdict"] = None if verdict is None else int(verdict >= 0.5)
        values = {"unparsed": float(verdict is None)}
    text = json.dumps(item, sort_keys=True, default=str)
    declared = declared_metrics(str(doc["task"]))
    return {**values, **{name: text for name in declared if split_judge_metric(name)}}


def _subset_average(per_subset: Mapping[str, float]) -> float:
    present = [v for v in per_subset.values() if not math.isnan(v)]
    return sum(present) / len(present) if present else math.nan


def _task_statistic(rows: Sequence[Mapping[str, Any]], key: str, statistic: str) -> float:
    """The task's own ``statistic`` metric of value ``key`` (its ``avg`` over subsets), run on
    the recorded values as Inspect runs it: NaN values left out."""
    first = rows[0]
    built = build_task(str(first["task"]), json.loads(first["args"]))
    found = [
        spec
        for m in (built.metrics if isinstance(built.metrics, list) else [])
        if (spec := keyed_spec(m)) is not None
        and spec.key == key
        and metric_name(spec.metric) == statistic
    ]
    if not found:
        raise LmEvalSetupError(
            f"longform_{first['task']}: its task has no {statistic} metric of {key!r}"
        )
    metric = cast(Callable[[list[SampleScore]], Any], found[0].metric)
    sample_scores = [
        SampleScore(
            score=Score(value=row["value"][key], metadata={"thresholds": row["thresholds"]}),
            sample_id=row["id"],
            sample_metadata=row["meta"],
        )
        for row in rows
        if row["value"].get(key) is not None and not math.isnan(float(row["value"][key]))
    ]
    if not sample_scores:
        return math.nan
    result = metric(sample_scores)
    return float(result["avg"]) if isinstance(result, dict) else float(result)


def _verdict_statistic(rows: Sequence[Mapping[str, Any]], statistic: str) -> float:
    """A plain model's yes/no verdicts against the labels, per subset and averaged."""
    groups: dict[str, list[tuple[int, int | None]]] = {}
    for row in rows:
        if row["label"] is not None:
            groups.setdefault(row["subset"], []).append((row["label"], row["verdict"]))
    per_subset = {}
    for subset, pairs in groups.items():
        # Labels and verdicts say 1 = faithful; analysis/agreement.py's 1 = problem, so a
        # "no" flags a problem and a verdict is a support score.
        labels = problem_labels([label for label, _ in pairs])
        verdicts = [verdict for _, verdict in pairs]
        if statistic == "bacc":
            flags = [None if v is None else 1 - v for v in verdicts]
            per_subset[subset] = 100.0 * balanced_accuracy(labels, flags).value
        else:
            per_subset[subset] = support_auc(
                labels, [None if v is None else float(v) for v in verdicts]
            )
    return _subset_average(per_subset)


def judge_aggregation(name: str) -> Callable[[Sequence[str]], float]:
    """The aggregation of LongFormFact's metric ``name`` (``bacc``, ``auc``, ``max_min_bacc``,
    ...): the task's own metric of that value under a wrapper; for a plain model, whose
    verdict is its only value, the verdicts' statistic (``bacc`` / ``auc``; NaN for the rest).

    Raises:
        AttributeError: When ``name`` is no bacc/auc metric (as a module attribute lookup).
    """
    split = split_judge_metric(name)
    if split is None:
        raise AttributeError(name)
    key, statistic = split

    def aggregate(items: Sequence[str]) -> float:
        rows = [json.loads(item) for item in items]
        scored = [row for row in rows if "value" in row]
        if scored:
            return _task_statistic(scored, key, statistic)
        return _verdict_statistic(rows, statistic) if key == "faithfulness" else math.nan

    aggregate.__name__ = name
    return aggregate


bacc = judge_aggregation("bacc")
"""LongFormFact: balanced accuracy (0-100) against the human labels."""
auc = judge_aggregation("auc")
"""LongFormFact: ROC AUC against the human labels."""


__all__ = [
    "auc",
    "bacc",
    "inspect_accuracy",
    "inspect_count",
    "inspect_mean",
    "judge_aggregation",
    "load",
    "nanmean",
    "prescore",
    "process_results",
]

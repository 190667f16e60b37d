"""The functions the task folder's YAML files name (through `tasks/utils.py`).

``load`` is each task's ``custom_dataset``, ``prescore`` its filter (scores every completion of
a plain lm-eval model in one Inspect run, leaving the responses as they are),
``process_results`` reads a document's values and ``nanmean`` aggregates them leaving out the
unscorable ones, which each task counts in its own ``unscorable`` metrics. The metrics a task
reports are the ``metric_list`` of its YAML file, read here so that list is the only one.

LongFormFact measures a judge: under a wrapper the inner model judges through the task's own
faithfulness scorer, and ``bacc`` / ``auc`` are the task's own Inspect metrics over those
scores (the subsets' average); a plain lm-eval model answers one yes/no question per summary,
and ``bacc`` / ``auc`` compare its verdicts with the human labels.
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

from longform_evals.analysis.agreement import balanced_accuracy, roc_auc
from longform_evals.judges.yes_no import parse_yes_no
from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import LmEvalSetupError, task_spec
from longform_evals.lmeval.docs import build_task, doc_sample, load_docs
from longform_evals.lmeval.scoring import Outcome, recalled, score_completions
from longform_evals.scorers.meta_evaluation import summary_label


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
    """LongFormFact: items for ``bacc`` / ``auc`` (JSON text), and the numbers beside them."""
    sample = doc_sample(doc)
    meta = sample.metadata or {}
    if outcome is not None:
        score = outcome.scores["faithfulness"]
        item = {"task": doc["task"], "args": doc["args"], "id": str(sample.id), "meta": meta}
        item["score"] = score.model_dump(mode="json")
        values: dict[str, Any] = dict(outcome.values)
    else:
        verdict = parse_yes_no(completion)
        item = {"label": summary_label(meta), "subset": str(meta.get("subset", "all"))}
        item["verdict"] = None if verdict is None else int(verdict >= 0.5)
        values = {"unparsed": float(verdict is None)}
    text = json.dumps(item, sort_keys=True, default=str)
    return {**values, "bacc": text, "auc": text}


def nanmean(items: Sequence[float]) -> float:
    """Mean of the values that are numbers (NaN when none is)."""
    kept = [float(x) for x in items if x is not None and not math.isnan(float(x))]
    return sum(kept) / len(kept) if kept else math.nan


def _subset_average(per_subset: Mapping[str, float]) -> float:
    present = [v for v in per_subset.values() if not math.isnan(v)]
    return sum(present) / len(present) if present else math.nan


def _judge_metric(items: Sequence[str], which: int) -> float:
    """The task's ``which``-th metric of its main aggregation (0: BACC, 1: AUC) on the
    recorded scores, or the same statistic of plain verdicts; the subsets' average."""
    rows = [json.loads(item) for item in items]
    scored = [row for row in rows if "score" in row]
    if scored:
        first = scored[0]
        built = build_task(str(first["task"]), json.loads(first["args"]))
        metrics = built.metrics
        if not isinstance(metrics, dict):
            raise LmEvalSetupError(f"longform_{first['task']}: its task has no metrics per key")
        metric = cast(Callable[[list[SampleScore]], Any], metrics["faithfulness"][which])
        sample_scores = [
            SampleScore(
                score=Score.model_validate(row["score"]),
                sample_id=row["id"],
                sample_metadata=row["meta"],
            )
            for row in scored
        ]
        result = metric(sample_scores)
        return float(result["avg"]) if isinstance(result, dict) else float(result)
    groups: dict[str, list[tuple[int, int | None]]] = {}
    for row in rows:
        if row["label"] is not None:
            groups.setdefault(row["subset"], []).append((row["label"], row["verdict"]))
    per_subset = {}
    for subset, pairs in groups.items():
        labels = [label for label, _ in pairs]
        verdicts = [verdict for _, verdict in pairs]
        if which == 0:
            per_subset[subset] = 100.0 * balanced_accuracy(labels, verdicts).value
        else:
            per_subset[subset] = roc_auc(
                labels, [None if v is None else float(v) for v in verdicts]
            )
    return _subset_average(per_subset)


def bacc(items: Sequence[str]) -> float:
    """LongFormFact: balanced accuracy (0-100) against the human labels."""
    return _judge_metric(items, 0)


def auc(items: Sequence[str]) -> float:
    """LongFormFact: ROC AUC against the human labels."""
    return _judge_metric(items, 1)


__all__ = ["auc", "bacc", "load", "nanmean", "prescore", "process_results"]

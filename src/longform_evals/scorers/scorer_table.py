"""A scorer's own table in Inspect's results: the package's figures under names shown whole.

How Inspect (0.3.285, `inspect_ai/_eval/task/results.py`) names a dict-valued scorer's metrics:

* a metric listed per value key (`@scorer(metrics={"rouge1": [mean()]})`) gets a result entry
  named after the key, and its results are named `registry_log_name(metric)`: the metric's
  registered name, from which only the `inspect_ai/` prefix is removed. A metric of this package
  is registered by `@metric` as `longform_evals/<name>` (`@metric(name=...)` changes only the
  part after the slash), so it shows as `longform_evals/count`, and a metric returning a dict
  as `longform_evals/bacc_avg`, `longform_evals/bacc_qmsum`, ... There is no public way to
  register a metric without its package's prefix.
* a metric listed at the top of the metrics list (`@scorer(metrics=[m, {...}])`) is run on the
  whole values and its results go to one entry named after the scorer: a number under the
  metric's name without the package prefix, and a dict's entries under their own keys, as
  the metric returns them.

Inspect's results table (`inspect_ai/_display/core/results.py`) shows each entry as a small
table, four side by side, the entry's name over one row per result name, and cuts the names of
a row of tables wider than the terminal with an ellipsis: at 100 columns,
`longform_evals/count` read `longform_…`.

So the package's figures are top-level metrics here, each returning a dict named as it
should read: :func:`counts` (how many samples have a 0/1 value at 1: `scored`,
`empty_summary`, ...), :func:`means` (a scorer's statistics, one row each:
`novel_trigrams_pct`, ...) and :func:`keyed` (any metric of one value, run as Inspect runs a
per-key metric: `bacc_avg`, `max_mean_bacc_avg`, `mean` of the scorer's own value). They sit
in the scorer's entry, one table of rows whose names are shown whole; the other values keep
Inspect's own `mean` / `stderr` / `accuracy`, an entry each.
A scorer whose value has a key of its own name (`booookscore`, `faithfulness`) reports that
value's `mean` and `stderr` in its own entry too (:func:`headline_metrics`), so one entry, not
two, is named after it.

:func:`figure_address` tells, for any result of a log, which value and which metric it is a
figure of, the names the suite's readers use (`scorers/results.py`): `scored` of the rouge
entry is the `count` of value `scored`, `max_mean_bacc_avg` the `bacc_avg` of `max_mean`,
whether Inspect logged it in the scorer's entry (this module) or in the value's own entry
(logs written before).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
from inspect_ai.log import EvalMetric
from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Value,
    metric,
    stderr,
    value_to_float,
)
from inspect_ai.scorer import mean as inspect_mean
from inspect_ai.util import registry_info

KEYED = "keyed"
"""The group Inspect records for each result of :func:`keyed` (its registered name)."""
COUNTS = "counts"
"""The group Inspect records for each result of :func:`counts`."""
MEANS = "means"
"""The group Inspect records for each result of :func:`means`."""
COUNT = "count"
"""The metric a count is reported as, in the per-value naming (:func:`count`)."""


@metric
def count() -> Metric:
    """Sum of the values (NaN ones left out): the number of samples flagged 1."""
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> float:
        values = np.array([to_float(s.score.value) for s in scores], dtype=np.float64)
        return float(np.sum(values[~np.isnan(values)]))

    return compute


def key_scores(scores: Sequence[SampleScore], key: str) -> list[SampleScore]:
    """The scores of value `key` alone, as Inspect hands them to a per-key metric: the value
    replaced by the key's (metadata and sample metadata kept), samples whose value of the key
    is NaN left out (and those unscored as a whole, NaN at the root).

    Raises:
        TypeError: for a value that is no dict or lacks `key` (as Inspect raises).
    """
    out: list[SampleScore] = []
    for s in scores:
        value = s.score.value
        if isinstance(value, float) and math.isnan(value):
            continue
        if not isinstance(value, dict):
            raise TypeError(f"metric of value {key!r} given a score that is no dict: {value!r}")
        if key not in value:
            raise TypeError(f"key {key!r} isn't present in the score value dictionary")
        item = value[key]
        if isinstance(item, float) and math.isnan(item):
            continue
        out.append(
            SampleScore(
                score=s.score.model_copy(update={"value": item}),
                sample_id=s.sample_id,
                sample_metadata=s.sample_metadata,
                scorer=s.scorer,
            )
        )
    return out


def _run(metric: Metric, scores: list[SampleScore]) -> Value:
    """`metric` on one key's scores; with none, what Inspect reports: the metric's own result
    on no scores when that is a non-empty dict, else NaN."""
    run: MetricProtocol = metric  # type: ignore[assignment]
    if scores:
        return run(scores)
    try:
        empty = run([])
    except Exception:  # as Inspect's `empty_metric_value`: a metric may refuse no scores
        return math.nan
    if isinstance(empty, Mapping) and empty:
        return empty
    return math.nan


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


@metric
def counts(keys: Sequence[str]) -> Metric:
    """How many samples have each of `keys` at 1: :func:`count` of each value (NaN values left
    out; NaN when no sample has a number), named after the key."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: _number(_run(count(), key_scores(scores, key))) for key in keys}

    return compute


@metric
def means(keys: Sequence[str]) -> Metric:
    """Inspect's `mean` of each of `keys` (NaN values left out; NaN when no sample has a
    number), named after the key: a scorer's statistics as the rows of its own entry."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: _number(_run(inspect_mean(), key_scores(scores, key))) for key in keys}

    return compute


@metric
def keyed(metric: Metric, key: str, name: str | None = None) -> Metric:
    """`metric` of value `key`, run as Inspect runs a metric listed for that key
    (:func:`key_scores`), its results named for the scorer's own entry.

    Args:
        metric: the metric (a number or a dict of numbers).
        key: the value it is a metric of.
        name: what its results are called: a number `name`, a dict's entries `name_<entry>`
            (the entries' own keys when `name` is ""). Default: the metric's own name without
            the package prefix (`bacc` -> `bacc_avg`, `bacc_qmsum`), as Inspect names a
            per-key metric, less the prefix.
    """
    base = metric_name(metric) if name is None else name

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        result = _run(metric, key_scores(scores, key))
        if isinstance(result, Mapping):
            return {_joined(base, str(k)): _number(v) for k, v in result.items()}
        return {base or key: _number(result)}

    _SPECS[compute] = KeyedSpec(key, metric, base)
    return compute


@dataclass(frozen=True)
class KeyedSpec:
    """What a :func:`keyed` metric computes: `metric` of value `key`, its results named
    `base` / `base_<entry>`."""

    key: str
    metric: Metric
    base: str


_SPECS: WeakKeyDictionary[Any, KeyedSpec] = WeakKeyDictionary()


def keyed_spec(metric: object) -> KeyedSpec | None:
    """The :class:`KeyedSpec` of a metric :func:`keyed` made (None for any other metric)."""
    try:
        return _SPECS.get(metric)
    except TypeError:  # not weakly referable: no metric of ours
        return None


def headline_metrics(key: str) -> list[Metric]:
    """Inspect's `mean` and `stderr` of value `key`, named `mean` and `stderr` in the scorer's
    entry: for the value named after its scorer, which would otherwise be a second entry of
    that name."""
    return [keyed(inspect_mean(), key, "mean"), keyed(stderr(), key, "stderr")]


def _joined(base: str, entry: str) -> str:
    return f"{base}_{entry}" if base else entry


def metric_name(metric: object) -> str:
    """A metric's registered name without its package prefix (`bacc`, `mean`)."""
    return _unqualified(str(registry_info(metric).name))


def _unqualified(name: str) -> str:
    return name.rpartition("/")[2]


def figure_address(entry_name: str, key: str, result: EvalMetric) -> tuple[str, str]:
    """(value key, metric name) of one result of a log: `key` is the result's name in its
    entry (`log.results.scores[i].metrics`), `entry_name` the entry's (`EvalScore.name`).

    A result of :func:`counts` (:func:`means`) in a scorer's entry is the `count` (`mean`) of
    the value it is named after; one of :func:`keyed` is its metric's result of its value,
    named as Inspect names a per-key metric less the package prefix (`bacc_avg`); any other
    result is of the entry's own value, named without a package prefix (`mean`, `count` of a
    log written before).
    """
    params = result.params or {}
    if result.group in (COUNTS, MEANS) and isinstance(params.get("keys"), list):
        return result.name, COUNT if result.group == COUNTS else "mean"
    if result.group == KEYED and isinstance(params.get("key"), str):
        inner = params.get("metric")
        inner_name = _unqualified(str(inner.get("name", ""))) if isinstance(inner, dict) else ""
        base = params.get("name")
        base = inner_name if base is None else str(base)
        if result.name == (base or params["key"]):
            leaf = inner_name
        elif not base:
            leaf = _joined(inner_name, result.name)
        elif result.name.startswith(f"{base}_"):
            leaf = _joined(inner_name, result.name[len(base) + 1 :])
        else:
            leaf = result.name
        return str(params["key"]), leaf or result.name
    return entry_name, _unqualified(key)


__all__ = [
    "COUNT",
    "COUNTS",
    "KEYED",
    "MEANS",
    "KeyedSpec",
    "count",
    "counts",
    "figure_address",
    "headline_metrics",
    "key_scores",
    "keyed",
    "keyed_spec",
    "means",
    "metric_name",
]

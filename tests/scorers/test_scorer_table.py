"""A scorer's own entry of Inspect's results (`scorers/scorer_table.py`): the package's figures
named as they should read, computed as Inspect computes a per-key metric, and read back by every
surface as the figure of the value they belong to."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalMetric
from inspect_ai.model import get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from longform_evals.scorers.results import result_values
from longform_evals.scorers.scorer_table import (
    count,
    counts,
    figure_address,
    headline_metrics,
    key_scores,
    keyed,
    keyed_spec,
    means,
    metric_name,
)

NAN = math.nan
VALUES: dict[str, dict[str, float]] = {
    "a": {"quality": 0.5, "scored": 1.0, "empty": 0.0, "size": 10.0},
    "b": {"quality": 1.0, "scored": 1.0, "empty": 0.0, "size": 30.0},
    "c": {"quality": NAN, "scored": 0.0, "empty": 1.0, "size": NAN},
}
"""Three samples' values: `c` is an empty text, unscored (NaN) but counted."""


@metric
def spread() -> Metric:
    """Max - min of the values, and each: a metric returning a dict, as `bacc` does."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [float(s.score.as_float()) for s in scores]
        return {"min": min(values), "max": max(values)} if values else {"min": NAN, "max": NAN}

    return compute


def _sample_scores(values: dict[str, dict[str, float]] = VALUES) -> list[SampleScore]:
    return [SampleScore(score=Score(value=dict(v)), sample_id=k) for k, v in values.items()]


def _run(metric_: Metric, values: dict[str, dict[str, float]] = VALUES) -> dict[str, float]:
    result: Value = metric_(_sample_scores(values))  # type: ignore[call-arg,arg-type]
    assert isinstance(result, dict)
    return {str(k): float(v) for k, v in result.items()}  # type: ignore[arg-type]


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    return a.keys() == b.keys() and all(
        (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == pytest.approx(b[k]) for k in a
    )


def test_counts_and_means_name_each_figure_after_its_value() -> None:
    assert _run(counts(["scored", "empty"])) == {"scored": 2.0, "empty": 1.0}
    assert _run(means(["quality", "size"])) == {"quality": 0.75, "size": 20.0}
    flags = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate([1, 0, NAN, 1])]
    assert count()(flags) == 2.0  # type: ignore[arg-type]


def test_keyed_names_a_metric_of_one_value_for_the_scorers_entry() -> None:
    assert _run(keyed(mean(), "quality", "mean")) == {"mean": 0.75}  # the NaN left out
    assert _run(keyed(spread(), "size")) == {"spread_min": 10.0, "spread_max": 30.0}
    assert _run(keyed(spread(), "size", "size_spread")) == {
        "size_spread_min": 10.0,
        "size_spread_max": 30.0,
    }
    assert _run(keyed(spread(), "size", "")) == {"min": 10.0, "max": 30.0}
    assert [metric_name(m) for m in headline_metrics("quality")] == ["keyed", "keyed"]


def test_keyed_gives_what_inspect_gives_a_per_key_metric(tmp_path: Path) -> None:
    """The same metrics of the same values, once per key (Inspect's dict of metrics) and once
    in the scorer's entry: equal results, and the entry's names without a package prefix."""

    @scorer(metrics={"quality": [mean(), stderr()], "size": [spread()], "scored": [count()]})
    def per_key() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=dict(VALUES[str(state.sample_id)]))

        return score

    @scorer(
        metrics=[
            *headline_metrics("quality"),
            keyed(spread(), "size"),
            counts(["scored"]),
            {"size": [mean()]},
        ]
    )
    def own_entry() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=dict(VALUES[str(state.sample_id)]))

        return score

    samples = [Sample(id=k, input="x") for k in VALUES]
    logs: list[EvalLog] = []
    for made in (per_key(), own_entry()):
        model = get_model("scripted/table", rules=[{"default": "ok"}], memoize=False)
        task = Task(dataset=MemoryDataset(samples), scorer=made)
        [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
        assert log.status == "success", log.error
        assert log.results is not None
        logs.append(log)
    before, after = (result_values(log.results.scores) for log in logs if log.results)
    assert before[("per_key", "size")]["spread_max"] == 30.0
    assert before[("per_key", "scored")]["count"] == 2.0
    # each figure at the same address, with the same number
    figures = [
        {f"{k}/{m}": v for (_, k), ms in found.items() for m, v in ms.items() if m != "point"}
        for found in (before, after)
    ]
    del figures[1]["size/mean"]  # the second scorer's one per-key metric
    assert _same(*figures)
    # Inspect's results: a per-key metric of the package carries its prefix (`spread`, of this
    # test module, is in no installed package: none); the scorer's entry's names carry none
    assert logs[0].results is not None and logs[1].results is not None
    old = {s.name: list(s.metrics) for s in logs[0].results.scores}
    assert old["size"] == ["spread_min", "spread_max"]
    assert old["scored"] == ["longform_evals/count"]
    new = {s.name: list(s.metrics) for s in logs[1].results.scores}
    assert new == {
        "own_entry": ["mean", "stderr", "spread_min", "spread_max", "scored"],
        "size": ["mean"],
    }


def test_key_scores_leave_out_nan_and_refuse_a_missing_key() -> None:
    kept = key_scores(_sample_scores(), "quality")
    assert [(s.sample_id, s.score.value) for s in kept] == [("a", 0.5), ("b", 1.0)]
    unscored = SampleScore(score=Score(value=NAN), sample_id="d")  # stopped by a limit
    assert key_scores([unscored], "quality") == []
    with pytest.raises(TypeError, match="'other' isn't present"):
        key_scores(_sample_scores(), "other")


def test_no_number_gives_nan_or_the_metrics_own_empty_shape() -> None:
    none = {"c": VALUES["c"]}
    assert math.isnan(_run(counts(["size"]), none)["size"])
    assert math.isnan(_run(means(["quality"]), none)["quality"])
    assert math.isnan(_run(keyed(mean(), "quality", "mean"), none)["mean"])
    assert _same(_run(keyed(spread(), "size"), none), {"spread_min": NAN, "spread_max": NAN})


def test_keyed_spec_finds_the_metric_inside() -> None:
    inner = spread()
    made = keyed(inner, "size", "size_spread")
    spec = keyed_spec(made)
    assert spec is not None and (spec.key, spec.base) == ("size", "size_spread")
    assert spec.metric is inner
    assert keyed_spec(mean()) is None


@pytest.mark.parametrize(
    ("entry", "key", "group", "params", "address"),
    [
        # the scorer's own entry (this layout)
        ("s", "scored", "counts", {"keys": ["scored"]}, ("scored", "count")),
        ("s", "size", "means", {"keys": ["size"]}, ("size", "mean")),
        (
            "s",
            "mean",
            "keyed",
            {"metric": {"name": "mean"}, "key": "quality", "name": "mean"},
            ("quality", "mean"),
        ),
        (
            "s",
            "bacc_avg",
            "keyed",
            {"metric": {"name": "longform_evals/bacc"}, "key": "faithfulness"},
            ("faithfulness", "bacc_avg"),
        ),
        (
            "s",
            "max_min_bacc_qmsum",
            "keyed",
            {"metric": {"name": "longform_evals/bacc"}, "key": "max_min", "name": "max_min_bacc"},
            ("max_min", "bacc_qmsum"),
        ),
        (
            "s",
            "precision_low",
            "keyed",
            {"metric": {"name": "longform_evals/agreement_card"}, "key": "summaries", "name": ""},
            ("summaries", "agreement_card_precision_low"),
        ),
        # a value's own entry (Inspect's per-key metrics; the package's before this layout)
        ("rouge1", "mean", None, {}, ("rouge1", "mean")),
        ("scored", "longform_evals/count", None, {}, ("scored", "count")),
        ("max_min", "longform_evals/bacc_qmsum", "bacc", {}, ("max_min", "bacc_qmsum")),
    ],
)
def test_figure_address(
    entry: str, key: str, group: str | None, params: dict[str, object], address: tuple[str, str]
) -> None:
    result = EvalMetric(name=key, group=group, value=1.0, params=params)
    assert figure_address(entry, key, result) == address

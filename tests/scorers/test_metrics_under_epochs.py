"""The package's metrics run through Inspect's epoch reducer (pytest_inspect_evals.metrics).

A metric receives the score the epoch reducer leaves, not the one the scorer returned: values
averaged over epochs (NaN epochs left out) and the first epoch's metadata. Each metric is
checked twice, on scores shaped as its own scorer writes them: equal epochs change nothing,
and disagreeing epochs give the value computed here by hand from the epoch means.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from inspect_ai.dataset import Sample
from inspect_ai.event import SampleLimitEvent
from inspect_ai.scorer import Metric, SampleScore, Score, Value, mean
from pytest_inspect_evals.metrics import (
    assert_agreeing_epochs_change_nothing,
    run_metrics,
)
from scipy import stats
from sklearn.metrics import balanced_accuracy_score, precision_score, recall_score, roc_auc_score

# tests/ is on pytest's pythonpath, not on mypy's
from helpers import write_o200k_cache  # type: ignore[import-not-found,unused-ignore]
from longform_evals.analysis.intervals import FloatArray, bootstrap_interval
from longform_evals.analysis.judge_agreement import reference_flag
from longform_evals.analysis.ordering import expand_orders, expand_prefixes, sensitivity_interval
from longform_evals.judges.faithfulness.judging import (
    AGGREGATIONS,
    FULL_AGGREGATIONS,
    VALUE_KEYS,
    _unscorable_score,
)
from longform_evals.judges.text_check import check_text
from longform_evals.judges.unit_judge import support_verdict
from longform_evals.scorers.judge_agreement import _summary_values, _unit_rows
from longform_evals.scorers.judge_agreement_metrics import (
    COUNTED,
    agreement_card,
    agreement_metrics,
)
from longform_evals.scorers.limits import unscored_after_limit
from longform_evals.scorers.meta_evaluation import auc, bacc, bacc_by_order
from longform_evals.scorers.order_metrics import (
    bacc_by_order_rows,
    bacc_by_order_sensitivity,
)
from longform_evals.scorers.scorer_table import keyed
from longform_evals.scorers.unscorable import nan_mean, nan_stderr, unscorable_metrics
from longform_evals.tasks.longformfact import judge_figure_stem
from longform_evals.tasks.positional_bias import _metrics as _positional_bias_metrics


@pytest.fixture(scope="module", autouse=True)
def _offline_mockllm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The helpers run `mockllm/model`, whose usage count needs tiktoken's o200k file."""
    folder = tmp_path_factory.mktemp("tiktoken")
    write_o200k_cache(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
        yield


# --- scores as the suite's scorers write them ----------------------------------------------

SUMMARY = "The council approved the budget. The bridge reopens in May."
DOCUMENTS = [
    "The council met on Monday and approved the harbour budget.",
    "The bridge will reopen in May after repairs to its deck.",
    "Markets open early on Fridays during the summer months.",
]
ORDERS = ("original", "top", "bottom")
THRESHOLDS = {**dict.fromkeys((*AGGREGATIONS, *FULL_AGGREGATIONS), 0.5), "max_min": 0.4}
THRESHOLDS["faithfulness"] = THRESHOLDS["max_mean"]  # the scorer's default aggregation
PROFILE: list[float | None] = [1.0, 0.5, None]

NAN = math.nan
EMPTY = _unscorable_score("", check_text("", judged=True))
"""An empty summary: every headline value NaN, `empty_summary` 1, no thresholds, no profile."""
LIMITED = unscored_after_limit(
    SampleLimitEvent(type="token", message="token limit 100 exceeded", limit=100)
)
"""A sample a limit stopped: Inspect's unscored sentinel (NaN at the root)."""


def faithfulness_score(support: float, profile: list[float | None] | None = None) -> Score:
    """A score of `FaithfulnessJudging.score`: every value key, the counted reasons, and in
    its metadata the thresholds and the position profile (support NaN: no answer readable)."""
    check = check_text(SUMMARY, judged=True)
    values = {
        **dict.fromkeys(VALUE_KEYS, support),
        "max_min": support - 0.1,
        "missing_rate": 1.0 if math.isnan(support) else 0.0,
        "judge_calls": 6.0,
        "reading_decided": 0.0,
        **check.values(support),
    }
    metadata = {
        "aggregation": "max_mean",
        "thresholds": THRESHOLDS,
        "sentence_threshold": 0.5,
        "position_faithfulness": PROFILE if profile is None else profile,
        **check.metadata(),
    }
    return Score(value=values, answer=SUMMARY, metadata=metadata)


Epoch = float | Score
"""One epoch's score: a support for `faithfulness_score`, or a whole score."""


def epochs_of(values: Sequence[Epoch]) -> list[Value | Score]:
    return [v if isinstance(v, Score) else faithfulness_score(v) for v in values]


def reduced(values: Sequence[Epoch]) -> float:
    """What the `mean` reducer leaves of `faithfulness`: the mean of the readable epochs."""
    numbers = [v for v in (x if isinstance(x, float) else NAN for x in values) if not math.isnan(v)]
    return statistics.mean(numbers) if numbers else NAN


def record(subset: str, labels: int | list[int | None] | None) -> dict[str, Any]:
    """A LongFormFact sample's metadata (`data/longformfact.py`)."""
    return {
        "subset": subset,
        "documents": DOCUMENTS,
        "summary": SUMMARY,
        "label_level": "sentence" if isinstance(labels, list) or labels is None else "summary",
        "labels": [None, None] if labels is None else labels,
        "ranking": [1, 0, 2],
    }


def under_orders(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each record under each of `ORDERS`, as `expand_orders` makes them."""
    samples = [Sample(id=f"r{i}", input="-", metadata=dict(m)) for i, m in enumerate(records)]
    return [dict(s.metadata or {}) for s in expand_orders(samples, ORDERS)]


def prefixes(n_sources: int) -> list[dict[str, Any]]:
    """Each source's growing prefixes of `DOCUMENTS`, as `expand_prefixes` makes them."""
    samples = [
        Sample(id=f"g{i}", input="-", metadata={"documents": DOCUMENTS}) for i in range(n_sources)
    ]
    return [dict(s.metadata or {}) for s in expand_prefixes(samples)]


def agreement_score(
    summary_id: str,
    system: str,
    flags: Mapping[str, list[int | None]],
    supports: list[float | None],
) -> Score:
    """A `judge_agreement` score of the faithfulness kind: each unit's support (None: unread)
    judged at the sentence threshold 0.5, the scorer's own rows and values."""
    units = _unit_rows({"flags": flags}, [support_verdict(s, 0.5) for s in supports])
    values = _summary_values(units, supports)
    metadata = {
        "kind": "faithfulness",
        "summary_id": summary_id,
        "system": system,
        "group": summary_id,
        "summary_scores": values,
        "units": units,
    }
    return Score(value=values, metadata=metadata)


def entries(results: Mapping[str, Value], key: str) -> dict[str, float]:
    """The package's metrics registered under `key`, by their logged names."""
    prefix = f"{key}/longform_evals/"
    out: dict[str, float] = {}
    for name, value in results.items():
        if name.startswith(prefix):
            assert isinstance(value, int | float)
            out[name.removeprefix(prefix)] = float(value)
    return out


def own(results: Mapping[str, Value]) -> dict[str, float]:
    """The scorer's own entry (`scorers/scorer_table.py`): the package's figures, by the names
    the results table shows (`bacc_avg`, `scored`, `mean` of the scorer's own value)."""
    out: dict[str, float] = {}
    for name, value in results.items():
        if "/" not in name:
            assert isinstance(value, int | float)
            out[name] = float(value)
    return out


def summary_level(labels: int | list[int | None] | None) -> int | None:
    """The summary-level label (1 = faithful): a sentence-level summary is faithful when every
    annotated sentence is; None when nothing is annotated."""
    if not isinstance(labels, list):
        return labels
    annotated = [label for label in labels if label is not None]
    return int(all(label == 1 for label in annotated)) if annotated else None


# --- LongFormFact: bacc, auc, bacc_by_order, bacc_by_order_sensitivity ----------------------


def longformfact_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """As `tasks/longformfact.py` registers them with `orders` (and a calibrated key)."""
    per_key = {
        "faithfulness": [bacc(), auc(), bacc_by_order(), bacc_by_order_sensitivity()],
        "max_min": [bacc(key="max_min", calibrate=0.5), auc()],
    }
    figures = [keyed(m, key, judge_figure_stem(key, m)) for key, ms in per_key.items() for m in ms]
    return [*figures, *unscorable_metrics(judged=True), {"missing_rate": [mean()]}]


def test_longformfact_metrics_under_equal_epochs() -> None:
    records = [
        record("qmsum", 1),
        record("qmsum", 0),
        record("multinews", [1, None, 1]),
        record("multinews", [1, 0]),
        record("multinews", None),  # no annotated sentence: not part of BACC
    ]
    supports: list[Epoch] = [0.9, 0.6, 0.2, 0.55, 0.8, 0.3, NAN, 0.7, 0.1, 0.4, 0.45, 0.35]
    supports += [EMPTY, LIMITED, 0.5]
    assert_agreeing_epochs_change_nothing(
        longformfact_metrics(), epochs_of(supports), metadata=under_orders(records)
    )


def test_bacc_and_auc_read_the_mean_of_disagreeing_epochs() -> None:
    # (subset, label: 1 = faithful as the data has it, supports per epoch)
    table: list[tuple[str, int | list[int | None] | None, list[Epoch]]] = [
        ("qmsum", 1, [0.9, 0.7, 0.8]),
        ("qmsum", 1, [0.6, 0.2, 0.4]),  # faithful in epoch 1, not on average
        ("qmsum", 0, [0.3, 0.5, 0.1]),
        ("qmsum", 0, [0.2, 0.9, 0.7]),
        ("qmsum", 0, [NAN, 0.6, 0.3]),  # no readable answer in epoch 1: left out of its mean
        ("multinews", [1, None, 1], [0.7, 0.9, 0.8]),
        ("multinews", [1, 0, None], [0.5, 0.75, 0.25]),  # 0.5 on average: at the threshold
        ("multinews", None, [0.1, 0.2, 0.3]),  # unlabelled
        ("multinews", [0, 0], [EMPTY, EMPTY, EMPTY]),  # unscorable: not part of BACC or AUC
        ("multinews", [0, 1], [0.2, 0.4, 0.3]),
    ]
    results = run_metrics(
        longformfact_metrics(),
        [epochs_of(e) for _, _, e in table],
        metadata=[record(subset, labels) for subset, labels, _ in table],
    )
    got = own(results)

    expected_bacc, expected_auc = {}, {}
    for subset in ("qmsum", "multinews"):
        rows = [
            (label, value)
            for s, labels, e in table
            if s == subset
            and (label := summary_level(labels)) is not None
            and not math.isnan(value := reduced(e))
        ]
        labels, values = [r[0] for r in rows], [r[1] for r in rows]
        predicted = [int(v >= THRESHOLDS["faithfulness"]) for v in values]
        expected_bacc[subset] = 100 * balanced_accuracy_score(labels, predicted)
        expected_auc[subset] = roc_auc_score(labels, values)
    assert len(expected_bacc) == 2 and expected_bacc["qmsum"] == pytest.approx(
        100 * (1 / 2 + 2 / 3) / 2
    )
    assert expected_auc["qmsum"] == pytest.approx(4 / 6)  # 0.4 ranks below the 0.45
    for subset in expected_bacc:
        assert got[f"bacc_{subset}"] == pytest.approx(expected_bacc[subset])
        assert got[f"auc_{subset}"] == pytest.approx(expected_auc[subset])
    assert got["bacc_avg"] == pytest.approx(statistics.mean(expected_bacc.values()))
    assert got["auc_avg"] == pytest.approx(statistics.mean(expected_auc.values()))
    # counts sum the samples' epoch means: the unreadable epoch above has `scored` 0 (2/3)
    assert got["scored"] == pytest.approx(8 + 2 / 3)
    assert got["empty_summary"] == 1.0
    assert {"max_min_bacc_avg", "max_min_auc_avg"} <= set(got)


def test_bacc_by_order_and_its_interval_read_the_mean_of_disagreeing_epochs() -> None:
    # record -> (subset, label, supports per epoch under original, top, bottom)
    table: list[tuple[str, int, dict[str, list[Epoch]]]] = [
        ("qmsum", 1, {"original": [0.9, 0.8], "top": [0.7, 0.9], "bottom": [0.6, 0.2]}),
        ("multinews", 1, {"original": [0.3, 0.9], "top": [0.8, 0.8], "bottom": [0.1, 0.5]}),
        ("qmsum", 0, {"original": [0.2, 0.4], "top": [0.6, 0.2], "bottom": [0.7, 0.5]}),
        ("multinews", 0, {"original": [0.1, 0.1], "top": [0.9, 0.3], "bottom": [EMPTY, EMPTY]}),
        ("multinews", 0, {"original": [0.4, 0.2], "top": [0.2, 0.2], "bottom": [0.8, 0.6]}),
    ]
    metadata = under_orders([record(subset, label) for subset, label, _ in table])
    epochs = [epochs_of(orders[name]) for _, _, orders in table for name in ORDERS]
    got = own(run_metrics(longformfact_metrics(), epochs, metadata=metadata))

    # predictions: the epoch mean at or above the threshold, NaN where nothing was readable
    predicted = {
        (i, name): (NAN if math.isnan(v) else float(v >= 0.5))
        for i, (_, _, orders) in enumerate(table)
        for name in ORDERS
        for v in [reduced(orders[name])]
    }
    per_order = {}
    for name in ORDERS:
        by_subset = []
        for subset in ("qmsum", "multinews"):
            rows = [
                (label, predicted[i, name])
                for i, (s, label, _) in enumerate(table)
                if s == subset and not math.isnan(predicted[i, name])
            ]
            by_subset.append(balanced_accuracy_score([r[0] for r in rows], [r[1] for r in rows]))
        per_order[name] = 100 * statistics.mean(by_subset)
    assert per_order == pytest.approx({"original": 100.0, "top": 87.5, "bottom": 0.0})
    for name in ORDERS:
        assert got[f"bacc_by_order_{name}"] == pytest.approx(per_order[name])
    assert got["bacc_by_order_sensitivity"] == pytest.approx(100.0)

    # the interval resamples the four records readable under every order; the fourth is missing
    complete = [i for i in range(len(table)) if i != 3]
    subset_index = {"qmsum": 0.0, "multinews": 1.0}  # as the metric numbers them: first seen
    records: FloatArray = np.array(
        [
            [subset_index[table[i][0]], table[i][1], *(predicted[i, n] for n in ORDERS)]
            for i in complete
        ],
        dtype=np.float64,
    )
    ci = sensitivity_interval(records, bacc_by_order_rows)
    assert (got["bacc_by_order_sensitivity_n"], got["bacc_by_order_sensitivity_missing"]) == (4, 1)
    assert got["bacc_by_order_sensitivity_ci_low"] == pytest.approx(ci.low)
    assert got["bacc_by_order_sensitivity_ci_high"] == pytest.approx(ci.high)
    assert ci.low <= 100.0 <= ci.high


def test_recorded_thresholds_survive_a_limited_first_epoch() -> None:
    """Inspect keeps the first epoch's metadata: a limit-stopped first epoch records no
    threshold, so the sample takes the run's one (it used to fail the eval)."""
    results = run_metrics(
        {"faithfulness": [bacc()]},
        [[LIMITED, faithfulness_score(0.9)], epochs_of([0.2, 0.2])],
        metadata=[record("qmsum", 1), record("qmsum", 0)],
    )
    assert entries(results, "faithfulness")["bacc_qmsum"] == 100.0


# --- positional bias: order_means, position_profile, by_document_count ----------------------


def positional_bias_metrics(growing: bool = False) -> list[Metric | dict[str, list[Metric]]]:
    """As `tasks/positional_bias.py` registers them: order_means (or by_document_count) and
    position_profile on `faithfulness`."""
    return _positional_bias_metrics(growing)


def test_positional_bias_metrics_under_equal_epochs() -> None:
    scores = [
        faithfulness_score(0.8, [1.0, 0.5, None]),
        faithfulness_score(0.9, [1.0, 1.0, 0.0]),
        faithfulness_score(0.4, [0.0, None, 0.5]),
        faithfulness_score(0.6, [0.5, 0.5, 0.5]),
        faithfulness_score(NAN, [None, None, None]),  # no readable answer
        faithfulness_score(0.3, [0.0, 1.0, None]),
        EMPTY,
        LIMITED,
        faithfulness_score(0.7, [1.0, None, 0.0]),
    ]
    metadata = under_orders([{"documents": DOCUMENTS, "ranking": [1, 0, 2]}] * 3)
    assert_agreeing_epochs_change_nothing(positional_bias_metrics(), scores, metadata=metadata)


def test_growing_metrics_under_equal_epochs() -> None:
    scores = [
        faithfulness_score(0.9, [1.0]),
        faithfulness_score(0.7, [1.0, 0.0]),
        faithfulness_score(0.5, [0.5, None, 0.5]),
        faithfulness_score(0.8, [1.0]),
        EMPTY,
        faithfulness_score(0.6, [0.0, 1.0, 1.0]),
    ]
    metadata = prefixes(2)
    assert_agreeing_epochs_change_nothing(
        positional_bias_metrics(growing=True), scores, metadata=metadata
    )


# source -> order -> supports per epoch
ORDER_TABLE: dict[str, dict[str, list[Epoch]]] = {
    "a": {"original": [0.6, 0.8], "top": [0.9, 0.9], "bottom": [0.5, 0.3]},
    "b": {"original": [0.4, 0.6], "top": [0.7, 0.9], "bottom": [0.2, 0.4]},
    # top: the first epoch stopped by a limit; bottom: unscorable in both epochs
    "c": {"original": [0.8, 0.6], "top": [LIMITED, 1.0], "bottom": [EMPTY, EMPTY]},
}


def _spread(rows: FloatArray) -> float:
    means = rows.mean(axis=0)
    return float(means.max() - means.min())


def test_order_means_read_the_mean_of_disagreeing_epochs() -> None:
    metadata = under_orders([{"documents": DOCUMENTS, "ranking": [1, 0, 2]}] * len(ORDER_TABLE))
    epochs = [epochs_of(orders[name]) for orders in ORDER_TABLE.values() for name in ORDERS]
    got = own(run_metrics(positional_bias_metrics(), epochs, metadata=metadata))

    columns = {
        name: [v for orders in ORDER_TABLE.values() if not math.isnan(v := reduced(orders[name]))]
        for name in ORDERS
    }
    assert columns["top"] == pytest.approx([0.9, 0.8, 1.0])  # c: the epoch after the limit
    assert columns["bottom"] == pytest.approx([0.4, 0.3])
    for name, column in columns.items():
        ci = bootstrap_interval(column)
        assert got[f"order_means_{name}"] == pytest.approx(np.mean(column))
        assert got[f"order_means_{name}_ci_low"] == pytest.approx(ci.low)
        assert got[f"order_means_{name}_ci_high"] == pytest.approx(ci.high)
    assert got["order_means_sensitivity"] == pytest.approx(0.9 - 0.35)
    # the interval rests on the sources readable under every order: a and b; c is missing
    table = np.array([[reduced(ORDER_TABLE[s][n]) for n in ORDERS] for s in ("a", "b")])
    ci = bootstrap_interval(table, _spread)
    assert got["order_means_sensitivity_ci_low"] == pytest.approx(ci.low)
    assert got["order_means_sensitivity_ci_high"] == pytest.approx(ci.high)
    assert (got["order_means_sensitivity_n"], got["order_means_sensitivity_missing"]) == (2, 1)


def test_position_profile_is_the_first_epochs_profile() -> None:
    """Inspect's reducers keep the first epoch's metadata, where the profile is: under several
    epochs the profile is epoch 1's, and a sample whose first epoch a limit stopped has none
    (counted `missing`) though its value comes from the epoch after."""
    first: list[list[float | None]] = [[1.0, 0.5, None], [0.0, 1.0, 1.0], [0.5, None, 0.0]]
    later: list[float | None] = [0.0, 0.0, 0.0]
    epochs: list[list[Value | Score]] = [
        [faithfulness_score(0.8, p), faithfulness_score(0.6, later)] for p in first
    ]
    epochs.append([LIMITED, faithfulness_score(0.9, later)])
    epochs.append([EMPTY, EMPTY])  # no value: Inspect leaves it out, not counted
    metadata = under_orders([{"documents": DOCUMENTS, "ranking": [1, 0, 2]}] * 2)[:5]
    results = run_metrics(positional_bias_metrics(), epochs, metadata=metadata)
    got = own(results)

    for i in range(3):
        column = [v for p in first if (v := p[i]) is not None]
        ci = bootstrap_interval(column)
        assert got[f"position_profile_pos_{i + 1}"] == pytest.approx(statistics.mean(column))
        assert got[f"position_profile_pos_{i + 1}_ci_low"] == pytest.approx(ci.low)
        assert got[f"position_profile_pos_{i + 1}_n"] == len(column)
    assert got["position_profile_missing"] == 1
    assert got["mean"] == pytest.approx((0.7 * 3 + 0.9) / 4)


def test_by_document_count_reads_the_mean_of_disagreeing_epochs() -> None:
    # per source, supports per epoch with the first 1, 2 and 3 documents
    table: list[list[list[Epoch]]] = [
        [[0.9, 0.7], [0.6, 0.8], [0.3, 0.5]],
        [[1.0, 0.8], [NAN, 0.4], [EMPTY, EMPTY]],
        [[0.5, 0.9], [0.7, 0.3], [0.6, 0.2]],
    ]
    epochs = [epochs_of(by_k) for source in table for by_k in source]
    results = run_metrics(positional_bias_metrics(growing=True), epochs, metadata=prefixes(3))
    got = own(results)

    for k in (1, 2, 3):
        column = [v for source in table if not math.isnan(v := reduced(source[k - 1]))]
        ci = bootstrap_interval(column)
        assert got[f"by_document_count_docs_{k}"] == pytest.approx(np.mean(column))
        assert got[f"by_document_count_docs_{k}_ci_low"] == pytest.approx(ci.low)
        assert got[f"by_document_count_docs_{k}_ci_high"] == pytest.approx(ci.high)
    assert got["by_document_count_docs_1"] == pytest.approx(0.8)
    assert got["by_document_count_docs_3"] == pytest.approx(0.4)  # the empty summary left out


# --- judge agreement: agreement_card, nan_mean, nan_stderr, count ---------------------------


def agreement_metrics_with_stderr() -> list[Metric | dict[str, list[Metric]]]:
    """The judge-agreement scorer's metrics, with `nan_mean` and `nan_stderr` of
    `judge_score` (no scorer of the suite registers them)."""
    *table, per_key = agreement_metrics()
    assert isinstance(per_key, dict)
    return [*table, {**per_key, "judge_score": [nan_mean(), nan_stderr()]}]


FLAGS: dict[str, dict[str, list[int | None]]] = {
    "A": {"p1": [1, 0, 0], "p2": [1, 0, None]},
    "B": {"p1": [0, 1, 0], "p2": [0, 1, 1]},
    "C": {"p1": [0, 0, 1], "p2": [0, 0, 1]},
    "D": {"p1": [0, 1, None], "p2": [0, 0, None]},
}
SYSTEMS = {"A": "x", "B": "y", "C": "x", "D": "y"}
# summary -> the judge's support per unit in each of two epochs (None: unread)
SUPPORTS: dict[str, list[list[float | None]]] = {
    "A": [[0.2, 0.9, 0.8], [0.6, 0.7, None]],
    "B": [[0.7, 0.3, 0.4], [0.9, 0.6, 0.2]],
    "C": [[None, None, None], [0.8, 0.9, 0.1]],  # nothing read in epoch 1
    "D": [[0.9, 0.4, 0.5], [0.8, 0.5, 0.3]],
}


def _agreement_epochs() -> list[list[Score]]:
    return [
        [agreement_score(s, SYSTEMS[s], FLAGS[s], supports) for supports in SUPPORTS[s]]
        for s in SUPPORTS
    ]


def test_judge_agreement_metrics_under_equal_epochs() -> None:
    scores = [epochs[0] for epochs in _agreement_epochs()]
    scores += [agreement_score("E", "x", {"p1": [1, 0]}, [0.3, 0.6])]
    assert_agreeing_epochs_change_nothing(agreement_metrics_with_stderr(), scores)


def test_nan_mean_nan_stderr_and_count_over_disagreeing_epochs() -> None:
    epochs = _agreement_epochs()
    results = run_metrics(agreement_metrics_with_stderr(), epochs)

    def epoch_means(key: str) -> list[float]:
        """Per summary, the mean over the epochs where `key` is a number."""
        means = []
        for summary in epochs:
            values = [s.as_dict()[key] for s in summary]
            numbers = [v for v in values if isinstance(v, float) and not math.isnan(v)]
            means.append(statistics.mean(numbers) if numbers else NAN)
        return means

    judge = [v for v in epoch_means("judge_score") if not math.isnan(v)]
    assert len(judge) == 4  # C's unread first epoch is left out of its mean, not of the task
    assert entries(results, "judge_score")["nan_mean"] == pytest.approx(np.mean(judge))
    assert entries(results, "judge_score")["nan_stderr"] == pytest.approx(stats.sem(judge))
    assert results["human_score/mean"] == pytest.approx(np.mean(epoch_means("human_score")))
    assert own(results)["units"] == 12.0
    unjudged = epoch_means("unjudged_units")
    assert unjudged == [0.5, 0.0, 1.5, 0.0]  # A: 1 in epoch 2; C: 3 in epoch 1
    assert own(results)["unjudged_units"] == pytest.approx(sum(unjudged))


def test_agreement_card_is_the_first_epochs_card() -> None:
    """The unit rows are in the score's metadata, which Inspect's reducers take from the first
    epoch: under several epochs the card is epoch 1's (`longform judge-card` refuses logs with
    several epochs for this reason)."""
    epochs = _agreement_epochs()
    got = {
        f"agreement_card_{name}": value
        for name, value in own(run_metrics(agreement_metrics_with_stderr(), epochs)).items()
        if name not in COUNTED
    }

    first = [SampleScore(score=summary[0], sample_id=f"s{i}") for i, summary in enumerate(epochs)]
    card = agreement_card()(first)  # type: ignore[arg-type]
    assert isinstance(card, dict)
    assert {f"agreement_card_{k}": v for k, v in card.items()} == pytest.approx(got, nan_ok=True)
    # precision and recall of epoch 1's flags, by hand: units rated and judged
    pairs = [
        (reference_flag(row["human"]), int(row["judge_flag"]))
        for summary in epochs
        for row in (summary[0].metadata or {})["units"]
        if row["judge_flag"] is not None and reference_flag(row["human"]) is not None
    ]
    human, judge = [h for h, _ in pairs], [j for _, j in pairs]
    assert got["agreement_card_precision"] == pytest.approx(precision_score(human, judge))
    assert got["agreement_card_recall"] == pytest.approx(recall_score(human, judge))


def test_agreement_card_keeps_a_summary_the_judge_could_not_read() -> None:
    """Inspect leaves out a NaN value before the metric sees the sample: the card hangs on
    `summaries` (never NaN), so a summary whose `agreement` is NaN keeps its people's labels
    in the log's figures, as in the `longform judge-card` report."""
    scores = [
        agreement_score("A", "x", FLAGS["A"], SUPPORTS["A"][0]),
        agreement_score("B", "y", {"p1": [0, 1], "p2": [0, 1]}, [None, None]),
        agreement_score("C", "x", {"p1": [0, 1], "p2": [1, 1]}, [0.7, 0.2]),
    ]
    got = own(run_metrics(agreement_metrics(), [[s] for s in scores]))
    every = [SampleScore(score=s, sample_id=f"s{i}") for i, s in enumerate(scores)]
    card = agreement_card()(every)  # type: ignore[arg-type]
    assert isinstance(card, dict)
    assert got["kappa_annotators_mean"] == card["kappa_annotators_mean"]

"""Order perturbation: rankings, placements, sensitivity, sample expansion and order metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Metric, SampleScore, Score, Value

from longform_evals.analysis.intervals import bootstrap_interval
from longform_evals.analysis.ordering import (
    ORDER_NAMES,
    cosine,
    expand_orders,
    expand_prefixes,
    importance_ranking,
    lexical_similarity,
    order_table,
    perturbations,
    place,
    rank_by_similarity,
    sensitivity,
    sensitivity_interval,
    sort_orders,
)
from longform_evals.scorers.order_metrics import order_means, position_profile

POSITIONS = ("top", "middle", "bottom")


def _apply(metric: Metric, scores: list[SampleScore]) -> Value:
    # Metric is a union with the deprecated list[Score] signature; ours take SampleScores.
    return metric(scores)  # type: ignore[arg-type]


@st.composite
def order_and_doc(draw: st.DrawFn) -> tuple[list[int], int]:
    n = draw(st.integers(1, 12))
    order = draw(st.permutations(list(range(n))))
    return order, draw(st.sampled_from(order))


@given(order_and_doc(), st.sampled_from(POSITIONS))
def test_place_is_a_permutation_with_the_document_where_asked(
    case: tuple[list[int], int], position: str
) -> None:
    order, doc = case
    placed = place(order, doc, position)  # type: ignore[arg-type]
    assert sorted(placed) == sorted(order)
    expected = {"top": 0, "middle": len(order) // 2, "bottom": len(order) - 1}[position]
    assert placed.index(doc) == expected
    # the others keep their relative order
    assert [i for i in placed if i != doc] == [i for i in order if i != doc]


@given(st.integers(1, 12).flatmap(lambda n: st.permutations(list(range(n)))))
def test_perturbations(ranking: list[int]) -> None:
    n = len(ranking)
    orders = perturbations(n, ranking)
    assert list(orders) == list(ORDER_NAMES)
    assert orders["original"] == list(range(n))
    for name, order in orders.items():
        assert sorted(order) == list(range(n)), name
    assert orders["top"][0] == ranking[0]
    assert orders["middle"][n // 2] == ranking[0]
    assert orders["bottom"][-1] == ranking[0]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=False), min_size=0, max_size=10))
def test_ranking_by_scores_is_a_permutation_sorted_by_score(scores: list[float]) -> None:
    ranked = importance_ranking(len(scores), scores=scores)
    assert sorted(ranked) == list(range(len(scores)))
    finite = [scores[i] for i in ranked if not math.isnan(scores[i])]
    assert finite == sorted(finite, reverse=True)
    nan_tail = [i for i in ranked if math.isnan(scores[i])]
    assert ranked[len(ranked) - len(nan_tail) :] == nan_tail


def test_importance_ranking_cases() -> None:
    assert importance_ranking(4, ranking=[2]) == [2, 0, 1, 3]
    assert importance_ranking(3, scores=[0.1, 0.5, 0.5]) == [1, 2, 0]
    with pytest.raises(ValueError, match="exactly one"):
        importance_ranking(2)
    with pytest.raises(ValueError, match="twice"):
        importance_ranking(3, ranking=[1, 1])
    with pytest.raises(ValueError, match="not a document index"):
        importance_ranking(3, ranking=[3])
    with pytest.raises(ValueError, match="not in the order"):
        place([0, 1], 5, "top")


def test_similarity() -> None:
    docs = ["cats sleep all day", "the bridge repairs start in may", "markets open early"]
    assert lexical_similarity("a b", "a b") == 1.0
    assert lexical_similarity("", "") == 0.0
    assert rank_by_similarity(docs, "Repairs of the bridge start in May.")[0] == 1
    assert cosine([1.0, 0.0], [0.0, 1.0]) == 0.0

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), 1.0] if "market" in t else [0.0, 1.0] for t in texts]

    assert rank_by_similarity(docs, "markets", embed)[0] == 2


def test_sensitivity() -> None:
    assert sensitivity({"original": 0.5, "top": 0.8, "middle": 0.2}) == pytest.approx(0.6)
    assert sensitivity({"a": math.nan, "b": 0.3}) == 0.0
    assert math.isnan(sensitivity({"a": math.nan}))
    assert math.isnan(sensitivity({}))


def test_order_table_keeps_complete_sources_and_counts_the_others() -> None:
    nan = math.nan
    table = order_table(
        [
            ("a", "top", 1.0),
            ("a", "original", 0.5),
            ("b", "original", 0.25),
            ("b", "top", nan),  # unreadable: b cannot be paired
            ("c", "top", 0.0),
            ("c", "original", 1.0),
            ("c", "original", 0.5),  # scored twice: counts by its mean
            ("d", "sideways", 0.3),  # lacks original and top
        ]
    )
    assert table.orders == ("original", "top", "sideways")
    assert table.sources == ()  # nobody has all three orders
    assert table.missing == 4
    table = order_table((s, o, v) for s, o, v in [("a", "top", 1.0), ("a", "original", 0.5)])
    assert table.rows.tolist() == [[0.5, 1.0]] and table.missing == 0
    empty = order_table([])
    assert empty.rows.shape == (0, 0) and empty.missing == 0
    assert sort_orders(["z", "bottom", "original", "a"]) == ["original", "bottom", "a", "z"]


def test_sensitivity_interval_of_an_order_effect_and_of_none() -> None:
    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, size=(12, 1))
    # Order-insensitive: sources differ, their orders do not. Every resample has equal column
    # means, so the sensitivity is 0 with the point interval [0, 0].
    flat = sensitivity_interval(np.hstack([base] * 3))
    assert (flat.value, flat.low, flat.high, flat.n) == (0.0, 0.0, 0.0, 12)
    # "top" adds 0.3 plus noise to every source: the interval excludes 0 and holds the value.
    noisy = np.hstack([base, base + 0.3 + rng.normal(0, 0.1, size=(12, 1)), base])
    ci = sensitivity_interval(noisy)
    means = noisy.mean(axis=0)
    assert ci.value == pytest.approx(means.max() - means.min())
    assert 0 < ci.low < ci.value < ci.high
    # The interval is the bootstrap of that statistic over whole rows.
    assert ci == bootstrap_interval(
        noisy, lambda r: float(r.mean(axis=0).max() - r.mean(axis=0).min())
    )
    none = sensitivity_interval(np.zeros((0, 3)))
    assert none.n == 0 and math.isnan(none.value) and math.isnan(none.low)
    one = sensitivity_interval(noisy[:1])
    assert one.n == 1 and not one.defined


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 10).flatmap(
        lambda n: st.lists(
            st.lists(st.floats(0, 1), min_size=3, max_size=3), min_size=n, max_size=n
        )
    )
)
def test_sensitivity_interval_brackets_and_is_never_negative(rows: list[list[float]]) -> None:
    ci = sensitivity_interval(np.array(rows))
    means = np.array(rows).mean(axis=0)
    assert ci.value == pytest.approx(float(means.max() - means.min()))
    assert 0.0 <= ci.low <= ci.high


def test_expand_orders_on_two_samples() -> None:
    samples = [
        Sample(
            id="a",
            input="x",
            metadata={"documents": ["A0", "A1", "A2", "A3"], "ranking": [2, 0], "document": "?"},
        ),
        Sample(
            id="b",
            input="x",
            metadata={"documents": ["cats", "bridge repairs", "markets"], "reference": "bridge"},
        ),
    ]
    out = expand_orders(samples)
    assert [s.id for s in out] == [f"{i}@{o}" for i in "ab" for o in ORDER_NAMES]
    by_id = {s.id: s.metadata or {} for s in out}
    assert by_id["a@original"]["documents"] == ["A0", "A1", "A2", "A3"]
    assert by_id["a@top"]["documents"] == ["A2", "A0", "A1", "A3"]
    assert by_id["a@middle"]["documents"] == ["A0", "A1", "A2", "A3"]
    assert by_id["a@bottom"]["documents"] == ["A0", "A1", "A3", "A2"]
    assert by_id["a@bottom"]["order"] == [0, 1, 3, 2]
    assert by_id["a@bottom"]["important_position"] == 3
    # ranking remapped to the new positions: the most important doc is now at position 3
    assert by_id["a@bottom"]["ranking"] == [3, 0, 1, 2]
    assert by_id["a@top"]["document"] == "A2\n\nA0\n\nA1\n\nA3"
    assert by_id["b@top"]["documents"][0] == "bridge repairs"
    assert by_id["b@top"]["ranking_source"] == "similarity:reference:lexical"
    assert by_id["b@top"]["order_name"] == "top"
    assert "ranking" not in by_id["b@top"]  # none given, none invented
    # inputs untouched
    assert (samples[0].metadata or {})["documents"] == ["A0", "A1", "A2", "A3"]
    assert samples[0].id == "a"


def test_expand_orders_errors() -> None:
    with pytest.raises(ValueError, match="neither"):
        expand_orders([Sample(id="c", input="x", metadata={"documents": ["a", "b"]})])
    with pytest.raises(ValueError, match="no metadata"):
        expand_orders([Sample(id="c", input="x", metadata={})])
    with pytest.raises(ValueError, match="unknown order"):
        expand_orders([], orders=["sideways"])


def _score(
    value: float,
    order: str | None,
    profile: list[float | None] | None = None,
    source: str | None = None,
) -> SampleScore:
    meta: dict[str, str] = {"order_name": order} if order else {}
    if source is not None:
        meta["source_id"] = source
    return SampleScore(
        score=Score(value=value, metadata={"position_faithfulness": profile}),
        sample_id="s",
        sample_metadata=meta,
    )


def test_order_means_and_sensitivity() -> None:
    scores = [
        _score(1.0, "original", source="a"),
        _score(0.5, "original", source="b"),
        _score(0.9, "top", source="a"),
        _score(0.4, "middle", source="a"),
        _score(math.nan, "middle", source="b"),
        _score(0.6, "bottom", source="a"),
    ]
    result = _apply(order_means(), scores)
    assert isinstance(result, dict)
    orders = ["original", "top", "middle", "bottom"]
    assert [k for k in result if "_" not in k] == [*orders, "sensitivity"]
    assert list(result)[:3] == ["original", "original_ci_low", "original_ci_high"]
    assert result["original"] == pytest.approx(0.75)
    assert result["middle"] == pytest.approx(0.4)
    assert result["sensitivity"] == pytest.approx(0.5)
    # Only source a has every order (b lacks top, middle and bottom): one row, no interval.
    assert result["sensitivity_n"] == 1 and result["sensitivity_missing"] == 1
    assert math.isnan(result["sensitivity_ci_low"]) and math.isnan(result["top_ci_high"])
    # samples that were never expanded count as the original order, each its own input
    plain = _apply(order_means(), [_score(0.2, None)])
    assert isinstance(plain, dict)
    assert plain["original"] == pytest.approx(0.2) and plain["sensitivity"] == 0.0
    assert plain["sensitivity_n"] == 1 and plain["sensitivity_missing"] == 0
    assert _apply(order_means(), []) == {}


def test_position_profile() -> None:
    scores = [
        _score(1.0, "top", [1.0, None, 0.5]),
        _score(1.0, "middle", [0.0, 1.0]),
        _score(1.0, "middle", None),
    ]
    result = _apply(position_profile(), scores)
    assert isinstance(result, dict)
    assert {k: v for k, v in result.items() if k.count("_") == 1} == {
        "pos_1": 0.5,
        "pos_2": 1.0,
        "pos_3": 0.5,
    }
    assert [result[f"pos_{i}_n"] for i in (1, 2, 3)] == [2, 1, 1]
    assert result["missing"] == 1  # the sample without a profile is counted, not dropped
    only_middle = _apply(position_profile(order="middle"), scores)
    assert isinstance(only_middle, dict)
    assert (only_middle["pos_1"], only_middle["pos_2"]) == (0.0, 1.0)
    assert "pos_3" not in only_middle


def test_expand_prefixes_grows_the_document_list() -> None:
    sample = Sample(
        id="x", input="i", metadata={"documents": ["a", "b", "c"], "ranking": [2, 0, 1]}
    )
    out = expand_prefixes([sample])
    assert [s.id for s in out] == ["x+1", "x+2", "x+3"]
    assert [s.metadata["documents"] for s in out] == [["a"], ["a", "b"], ["a", "b", "c"]]  # type: ignore[index]
    assert [s.metadata["ranking"] for s in out] == [[0], [0, 1], [2, 0, 1]]  # type: ignore[index]
    assert sample.metadata == {"documents": ["a", "b", "c"], "ranking": [2, 0, 1]}
    assert [s.id for s in expand_prefixes([sample], min_docs=3)] == ["x+3"]
    with pytest.raises(ValueError, match="no metadata"):
        expand_prefixes([Sample(id="e", input="i")])

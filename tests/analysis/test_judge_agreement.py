"""The figures of a judge card: agreement of an LLM judge with annotators (judge_agreement.py)."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from sklearn.metrics import (
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_score,
    recall_score,
    roc_auc_score,
)

from helpers import WARNINGS_AS_ERRORS
from longform_evals.analysis.judge_agreement import (
    AgreementFigures,
    Figure,
    SummaryRow,
    Unit,
    agreement_figures,
)
from longform_evals.analysis.judge_agreement import bootstrap as ja_bootstrap
from longform_evals.analysis.judge_agreement import figures as ja_figures
from longform_evals.analysis.judge_agreement import summaries as ja_summaries
from longform_evals.analysis.judge_agreement import units as ja_units

# sklearn, scipy and krippendorff all warn on degenerate input; none of it may leak.
pytestmark = WARNINGS_AS_ERRORS

FAST = 200  # replicates in tests whose property does not depend on the count
PROPERTY = settings(max_examples=60, deadline=None)


def value(result: AgreementFigures, name: str) -> float:
    return result.figures[name].value


# --- a small case computed by hand ---------------------------------------------------------
#
# Annotators A and B; reference = majority, a 1-1 tie counts as flagged.
#   unit  summary  A  B     ref  judge  p
#   u1    s1       1  1     1    1      0.9
#   u2    s1       1  0     1    0      0.4   (tie -> flagged)
#   u3    s1       0  0     0    1      0.6
#   u4    s2       0  -     0    0      0.2
#   u5    s2       1  1     1    1      0.8
#   u6    s2       0  0     0    0      -     (no p: left out of the AUC only)
#   u7    s2       -  -     -    1      -     (no human label)
#   u8    s3       1  1     1    -      -     (not judged)
HAND_UNITS = [
    Unit("s1", {"A": 1, "B": 1}, True, 0.9),
    Unit("s1", {"A": 1, "B": 0}, False, 0.4),
    Unit("s1", {"A": 0, "B": 0}, True, 0.6),
    Unit("s2", {"A": 0, "B": None}, False, 0.2),
    Unit("s2", {"A": 1, "B": 1}, True, 0.8),
    Unit("s2", {"A": 0, "B": 0}, False, None),
    Unit("s2", {"A": None, "B": None}, True, None),
    Unit("s3", {"A": 1, "B": 1}, None, None),
]
HAND_ROWS = [
    SummaryRow("s1", "X", "g1", 0.9, 0.8),
    SummaryRow("s2", "X", "g2", 0.5, 0.6),
    SummaryRow("s3", "Y", "g1", 0.7, 0.4),
    SummaryRow("s4", "Y", "g2", 0.3, 0.5),
    SummaryRow("s5", None, "g1", None, 0.1),
]


def test_hand_computed_unit_figures() -> None:
    r = agreement_figures(HAND_UNITS, HAND_ROWS, n_boot=FAST)
    # Used units u1..u6: tp = {u1, u5}, fp = {u3}, fn = {u2}, tn = {u4, u6}.
    assert value(r, "precision") == pytest.approx(2 / 3)
    assert value(r, "recall") == pytest.approx(2 / 3)
    assert value(r, "f1") == pytest.approx(2 / 3)
    assert value(r, "balanced_accuracy") == pytest.approx(2 / 3)
    # Positives p = .9 .4 .8 against negatives .6 .2: 5 of 6 pairs ordered right.
    assert value(r, "roc_auc") == pytest.approx(5 / 6)
    assert r.figures["roc_auc"].n == 5
    assert value(r, "judge_flag_rate") == pytest.approx(0.5)
    assert value(r, "human_flag_rate") == pytest.approx(0.5)
    assert value(r, "flag_rate_difference") == pytest.approx(0.0)
    assert r.figures["precision"].n == 6


def test_hand_computed_kappa_and_alpha() -> None:
    r = agreement_figures(HAND_UNITS, HAND_ROWS, n_boot=FAST)
    # Judge vs A over u1..u6: po = 4/6, pe = 1/2 -> 1/3.
    assert value(r, "kappa_judge_vs[A]") == pytest.approx(1 / 3)
    assert r.figures["kappa_judge_vs[A]"].n == 6
    # Judge vs B over u1 u2 u3 u5 u6: po = 4/5, pe = .6 * .4 + .4 * .6 = .48 -> 8/13.
    assert value(r, "kappa_judge_vs[B]") == pytest.approx(8 / 13)
    assert r.figures["kappa_judge_vs[B]"].n == 5
    assert value(r, "kappa_judge_mean") == pytest.approx((1 / 3 + 8 / 13) / 2)
    # A vs B over every unit both rated (u8 too, judged or not): po = 5/6, pe = 1/2 -> 2/3.
    assert value(r, "kappa_annotators_mean") == pytest.approx(2 / 3)
    assert r.figures["kappa_annotators_mean"].n == 1  # one pair
    # Alpha of A and B: one disagreeing pair unit (u2); N0 = 5, N1 = 7 -> 1 - 11/35.
    assert value(r, "alpha_annotators") == pytest.approx(24 / 35)
    assert r.figures["alpha_annotators"].n == 6
    # With the judge: u2 and u3 each add 2*1/2; N0 = 9, N1 = 10 -> 1 - 18 * 2 / 90.
    assert value(r, "alpha_with_judge") == pytest.approx(0.6)
    assert r.figures["alpha_with_judge"].n == 7  # u7 has one rating only


def test_hand_computed_summary_and_system_figures() -> None:
    r = agreement_figures(HAND_UNITS, HAND_ROWS, n_boot=FAST)
    # Four scored summaries: 4 concordant and 2 discordant pairs.
    assert value(r, "kendall_tau_summaries") == pytest.approx(1 / 3)
    assert r.figures["kendall_tau_summaries"].n == 4
    # Within g1 (s1, s3) and g2 (s2, s4) the order agrees.
    assert value(r, "kendall_tau_within_groups") == 1.0
    assert r.figures["kendall_tau_within_groups"].n == 2
    # X: human .7, judge .7; Y: human .5, judge .45 -> same order.
    assert r.systems["X"].human.value == pytest.approx(0.7)
    assert r.systems["X"].judge.value == pytest.approx(0.7)
    assert r.systems["Y"].human.value == pytest.approx(0.5)
    assert r.systems["Y"].judge.value == pytest.approx(0.45)
    assert r.same_order is True
    tau = r.figures["kendall_tau_systems"]
    assert (tau.value, tau.n) == (1.0, 2)
    assert tau.note is not None and "two systems" in tau.note


def test_hand_computed_counts() -> None:
    c = agreement_figures(HAND_UNITS, HAND_ROWS, n_boot=0).counts
    assert (c.n_units, c.n_used, c.n_no_human, c.n_unjudged, c.n_no_p) == (8, 6, 1, 1, 1)
    assert c.n_annotators == 2
    assert (c.n_summaries, c.n_summaries_used, c.n_summaries_unscored) == (5, 4, 1)
    assert (c.n_summaries_no_system, c.n_systems, c.n_clusters) == (0, 2, 5)


def test_the_figures_are_in_the_documented_order() -> None:
    r = agreement_figures(HAND_UNITS, HAND_ROWS, n_boot=0)
    assert list(r.figures) == [
        "precision",
        "recall",
        "f1",
        "balanced_accuracy",
        "roc_auc",
        "judge_flag_rate",
        "human_flag_rate",
        "flag_rate_difference",
        "kappa_judge_vs[A]",
        "kappa_judge_vs[B]",
        "kappa_judge_mean",
        "kappa_annotators_mean",
        "alpha_annotators",
        "alpha_with_judge",
        "kendall_tau_summaries",
        "kendall_tau_within_groups",
        "kendall_tau_systems",
    ]


def test_as_dict_is_json_ready() -> None:
    r = agreement_figures(HAND_UNITS[:3], [], n_boot=0)  # one summary: NaN intervals
    d = r.as_dict()
    text = json.dumps(d, allow_nan=False)  # NaN written as null
    assert set(d) == {"figures", "systems", "same_order", "counts", "bootstrap"}
    fig = d["figures"]["precision"]
    assert set(fig) == {"value", "low", "high", "n", "note", "boot_skipped"}
    assert fig["low"] is None and "fewer than two summaries" in fig["note"]
    assert d["figures"]["kendall_tau_systems"]["value"] is None
    assert d["same_order"] is None and d["systems"] == {}
    assert d["bootstrap"] == {
        "n_boot": 0,
        "seed": 0,
        "confidence": 0.95,
        "min_usable_share": 0.5,
        "resampled": "summaries",
    }
    assert json.loads(text)["counts"]["n_units"] == 3


# --- judges of a known quality -------------------------------------------------------------


def graded_units(judge: str, n_summaries: int = 6, per: int = 6) -> list[Unit]:
    """Balanced units (half flagged) rated by one annotator each, judged by ``judge``."""
    units = []
    for s in range(n_summaries):
        for i in range(per):
            truth = (s + i) % 2
            flag = {"perfect": truth, "inverted": 1 - truth, "never": 0, "always": 1}[judge]
            p = {"perfect": 0.1 + 0.8 * truth, "inverted": 0.9 - 0.8 * truth}.get(judge, 0.3)
            units.append(Unit(f"s{s}", {"A": truth}, bool(flag), p))
    return units


def test_perfect_judge() -> None:
    r = agreement_figures(graded_units("perfect"), n_boot=FAST)
    for name in ("precision", "recall", "f1", "balanced_accuracy", "roc_auc"):
        fig = r.figures[name]
        assert (fig.value, fig.low, fig.high) == (1.0, 1.0, 1.0), name
    assert value(r, "kappa_judge_vs[A]") == 1.0
    assert value(r, "flag_rate_difference") == 0.0


def test_inverted_judge() -> None:
    r = agreement_figures(graded_units("inverted"), n_boot=FAST)
    for name in ("precision", "recall", "f1", "balanced_accuracy", "roc_auc"):
        assert value(r, name) == 0.0, name
    assert value(r, "kappa_judge_vs[A]") == pytest.approx(-1.0)  # classes balanced


def test_judge_that_never_flags() -> None:
    r = agreement_figures(graded_units("never"), n_boot=FAST)
    precision = r.figures["precision"]
    assert math.isnan(precision.value) and math.isnan(precision.low)
    assert precision.note is not None and "flagged no unit" in precision.note
    assert precision.boot_skipped == FAST
    assert value(r, "recall") == 0.0
    assert value(r, "f1") == 0.0  # 2tp / (2tp + fp + fn): defined, and zero
    assert value(r, "balanced_accuracy") == 0.5
    assert value(r, "roc_auc") == 0.5  # one constant p: every pair ties
    assert value(r, "kappa_judge_vs[A]") == 0.0
    assert value(r, "judge_flag_rate") == 0.0
    assert value(r, "flag_rate_difference") == -0.5


def test_judge_that_always_flags() -> None:
    r = agreement_figures(graded_units("always"), n_boot=FAST)
    assert value(r, "precision") == 0.5
    assert value(r, "recall") == 1.0
    assert value(r, "balanced_accuracy") == 0.5
    assert value(r, "kappa_judge_vs[A]") == 0.0


# --- edge cases and notes ------------------------------------------------------------------


def test_one_annotator_has_no_ceiling() -> None:
    r = agreement_figures(graded_units("perfect"), n_boot=FAST)
    ceiling = r.figures["kappa_annotators_mean"]
    assert math.isnan(ceiling.value) and ceiling.n == 0
    assert ceiling.note == "fewer than two annotators: no human ceiling"
    alone = r.figures["alpha_annotators"]
    assert math.isnan(alone.value) and alone.note is not None and "two coders" in alone.note
    assert value(r, "alpha_with_judge") == pytest.approx(1.0)  # judge + A agree everywhere
    assert r.counts.n_annotators == 1


def test_a_tie_between_annotators_counts_as_flagged() -> None:
    units = [
        Unit("s1", {"A": 1, "B": 0}, True, None),
        Unit("s1", {"A": 1, "B": 0, "C": 0}, True, None),  # 1 of 3: not flagged
        Unit("s2", {"A": None, "B": 1}, False, None),
    ]
    r = agreement_figures(units, n_boot=0)
    # Reference: flagged, unflagged, flagged.
    assert value(r, "human_flag_rate") == pytest.approx(2 / 3)
    assert value(r, "precision") == pytest.approx(1 / 2)
    assert value(r, "recall") == pytest.approx(1 / 2)


def test_missing_values_are_counted_not_dropped() -> None:
    units = [
        Unit("s1", {"A": 1}, True, 0.9),
        Unit("s1", {"A": 0}, None, 0.2),  # no verdict: unjudged
        Unit("s1", {"A": None}, True, 0.7),  # no human label
        Unit("s2", {}, None, None),  # neither: counted as no human label
        Unit("s2", {"A": 0}, False, math.nan),  # NaN p: no p
        Unit("s2", {"A": 1}, False, None),
    ]
    rows = [
        SummaryRow("s1", "X", "g", 0.5, math.nan),
        SummaryRow("s2", None, "g", 0.4, 0.3),
        SummaryRow("s3", "X", "g", 0.2, 0.1),
    ]
    r = agreement_figures(units, rows, n_boot=0)
    c = r.counts
    assert (c.n_units, c.n_used, c.n_no_human, c.n_unjudged, c.n_no_p) == (6, 3, 2, 1, 2)
    assert c.n_used + c.n_no_human + c.n_unjudged == c.n_units
    assert (c.n_summaries_used, c.n_summaries_unscored, c.n_summaries_no_system) == (2, 1, 1)
    assert c.n_systems == 1 and c.n_clusters == 3
    assert r.figures["roc_auc"].n == 1  # only u1 is used and has a p
    assert math.isnan(value(r, "roc_auc"))
    assert r.figures["kendall_tau_summaries"].n == 2
    assert r.figures["kendall_tau_systems"].note == "fewer than two systems"
    assert r.same_order is None


def test_nothing_usable_gives_nan_with_notes() -> None:
    r = agreement_figures([Unit("s1", {"A": None}, True, 0.5)], [], n_boot=FAST)
    for name, fig in r.figures.items():
        assert math.isnan(fig.value), name
        assert fig.note, name
    assert r.figures["precision"].note == "no unit has both a human label and a judge verdict"
    empty = agreement_figures([], [], n_boot=FAST)
    assert empty.counts.n_clusters == 0 and all(math.isnan(f.value) for f in empty.figures.values())


def test_one_class_reference_is_noted() -> None:
    units = [Unit(f"s{i % 2}", {"A": 1}, i % 3 == 0, i / 10) for i in range(6)]
    r = agreement_figures(units, n_boot=FAST)
    bacc = r.figures["balanced_accuracy"]
    assert bacc.value == pytest.approx(2 / 6)  # recall of the flagged class alone
    assert bacc.note is not None and "only flagged units" in bacc.note
    assert math.isnan(value(r, "roc_auc"))
    assert "one reference class" in (r.figures["roc_auc"].note or "")
    kappa = r.figures["kappa_judge_vs[A]"]
    assert kappa.value == 0.0  # the annotator is constant, the judge is not


def test_identical_constant_raters_have_no_kappa() -> None:
    units = [Unit(f"s{i}", {"A": 0, "B": 0}, False, 0.1) for i in range(4)]
    r = agreement_figures(units, n_boot=FAST)
    note = r.figures["kappa_judge_vs[A]"].note
    assert note is not None and "same label to every unit" in note
    assert math.isnan(value(r, "kappa_judge_mean"))
    assert math.isnan(value(r, "kappa_annotators_mean"))
    assert "same label" in (r.figures["alpha_annotators"].note or "")


def test_no_interval_from_too_few_usable_replicates() -> None:
    # Units with a p only in s0 (all flagged) and s1 (none flagged): the AUC needs both
    # summaries drawn, which happens in about 41 % of the replicates over 10 summaries.
    units = [Unit("s0", {"A": 1}, True, 0.9), Unit("s1", {"A": 0}, False, 0.2)]
    units += [Unit(f"s{i}", {"A": i % 2}, bool(i % 2), None) for i in range(2, 10)]
    r = agreement_figures(units, n_boot=400)
    auc = r.figures["roc_auc"]
    assert auc.value == 1.0
    assert math.isnan(auc.low) and math.isnan(auc.high)
    assert 400 * 0.5 < auc.boot_skipped < 400 * 0.75
    assert auc.note is not None and "bootstrap replicates" in auc.note
    # The figures defined in most replicates keep their intervals.
    assert r.figures["precision"].defined


def test_no_bootstrap_and_a_single_summary() -> None:
    r = agreement_figures(graded_units("perfect"), n_boot=0)
    fig = r.figures["precision"]
    assert fig.value == 1.0 and math.isnan(fig.low)
    assert fig.note == "no bootstrap replicates: no interval"
    one = agreement_figures(graded_units("perfect", n_summaries=1), n_boot=FAST)
    assert one.figures["precision"].note == "fewer than two summaries to resample: no interval"


def test_two_systems_in_the_opposite_order() -> None:
    rows = [
        SummaryRow("a1", "X", "d1", 0.9, 0.2),
        SummaryRow("a2", "X", "d2", 0.8, 0.3),
        SummaryRow("b1", "Y", "d1", 0.1, 0.7),
        SummaryRow("b2", "Y", "d2", 0.2, 0.6),
    ]
    r = agreement_figures([], rows, n_boot=FAST)
    assert r.same_order is False
    assert value(r, "kendall_tau_systems") == -1.0
    assert value(r, "kendall_tau_within_groups") == -1.0


@pytest.mark.parametrize(
    ("units", "rows"),
    [
        ([Unit("s", {"A": 2}, True, None)], []),
        ([Unit("s", {"A": 0.5}, True, None)], []),  # type: ignore[dict-item]
        ([Unit("s", {"A": 1}, 2, None)], []),  # type: ignore[arg-type]
        ([Unit("s", {"A": 1}, True, 1.5)], []),
        ([Unit("s", {"A": 1}, True, -0.1)], []),
        ([], [SummaryRow("s", "X", "g", 0.1, 0.2), SummaryRow("s", "Y", "g", 0.3, 0.4)]),
        ([], [SummaryRow("s", "X", "g", math.inf, 0.2)]),
    ],
)
def test_bad_input_is_refused(units: list[Unit], rows: list[SummaryRow]) -> None:
    with pytest.raises(ValueError):
        agreement_figures(units, rows, n_boot=0)


def test_bad_bootstrap_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        agreement_figures(HAND_UNITS, n_boot=-1)
    with pytest.raises(ValueError):
        agreement_figures(HAND_UNITS, confidence=1.0)


# --- the bootstrap -------------------------------------------------------------------------


def noisy_units(n_summaries: int = 12, per: int = 8, seed: int = 3) -> list[Unit]:
    rng = random.Random(seed)
    units = []
    for s in range(n_summaries):
        for _ in range(per):
            truth = rng.random() < 0.3
            human = {a: int(truth ^ (rng.random() < 0.15)) for a in ("A", "B", "C")}
            p = min(1.0, max(0.0, 0.6 * truth + rng.gauss(0.2, 0.2)))
            units.append(Unit(f"s{s:02d}", human, p >= 0.5, round(p, 2)))
    return units


def noisy_rows(n_summaries: int = 12) -> list[SummaryRow]:
    return [
        SummaryRow(f"s{s:02d}", f"sys{s % 3}", f"d{s // 3}", (s * 7 % 11) / 11, (s * 5 % 11) / 11)
        for s in range(n_summaries)
    ]


def test_seeded_bootstrap_is_deterministic() -> None:
    units, rows = noisy_units(), noisy_rows()
    a = agreement_figures(units, rows, n_boot=FAST, seed=7)
    b = agreement_figures(units, rows, n_boot=FAST, seed=7)
    c = agreement_figures(units, rows, n_boot=FAST, seed=8)
    assert a.as_dict() == b.as_dict()
    assert a.figures["precision"].value == c.figures["precision"].value
    assert a.figures["precision"].low != c.figures["precision"].low


def test_bootstrap_does_not_depend_on_the_order_of_the_inputs() -> None:
    units, rows = noisy_units(), noisy_rows()
    shuffled_units, shuffled_rows = list(units), list(rows)
    random.Random(0).shuffle(shuffled_units)
    random.Random(1).shuffle(shuffled_rows)
    a = agreement_figures(units, rows, n_boot=FAST)
    b = agreement_figures(shuffled_units, shuffled_rows, n_boot=FAST)
    for name, fig in a.figures.items():
        other = b.figures[name]
        assert (fig.n, fig.note, fig.boot_skipped) == (other.n, other.note, other.boot_skipped)
        for x, y in ((fig.value, other.value), (fig.low, other.low), (fig.high, other.high)):
            assert x == pytest.approx(y, abs=1e-12, nan_ok=True), name


def test_intervals_are_percentiles_of_summary_resamples() -> None:
    # Recompute the precision interval by resampling summaries by hand with the same draw.
    units, rows = noisy_units(), noisy_rows()
    r = agreement_figures(units, rows, n_boot=FAST, seed=5)
    ids = sorted({u.summary_id for u in units})
    weights = ja_bootstrap.draw_weights(len(ids), FAST, 5)
    reps = []
    for w in weights:
        tp = fp = 0
        for u in units:
            votes = [x for x in u.human.values() if x is not None]
            ref = 2 * sum(votes) >= len(votes)
            k = w[ids.index(u.summary_id)]
            tp += k * (u.judge_flag is True and ref)
            fp += k * (u.judge_flag is True and not ref)
        reps.append(tp / (tp + fp))
    low, high = np.quantile(reps, [0.025, 0.975])
    assert r.figures["precision"].low == pytest.approx(low)
    assert r.figures["precision"].high == pytest.approx(high)


def test_the_dense_and_looped_tau_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, 12).astype(float), rng.integers(0, 4, 12).astype(float)
    w = rng.multinomial(12, np.full(12, 1 / 12), size=30).astype(float)
    dense = ja_summaries.weighted_tau_b(x, y, w)
    monkeypatch.setattr(ja_summaries, "DENSE_TAU_LIMIT", 0)
    looped = ja_summaries.weighted_tau_b(x, y, w)
    np.testing.assert_allclose(dense, looped, equal_nan=True)
    for row, tau in zip(w.astype(int), dense, strict=True):
        xs, ys = np.repeat(x, row), np.repeat(y, row)
        if len(set(xs)) > 1 and len(set(ys)) > 1:
            assert tau == pytest.approx(kendalltau(xs, ys).statistic)


def test_the_auc_blocks_do_not_change_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    units = noisy_units()
    whole = agreement_figures(units, n_boot=FAST).figures["roc_auc"]
    monkeypatch.setattr(ja_units, "BLOCK_CELLS", 50)  # one replicate per block
    blocked = agreement_figures(units, n_boot=FAST).figures["roc_auc"]
    assert (whole.low, whole.high) == pytest.approx((blocked.low, blocked.high))


# --- the count formulas against the libraries ----------------------------------------------
#
# Point estimates come from scikit-learn, scipy and krippendorff; replicates from counts per
# summary. At weight one the counts must give the library's numbers, and at any weights the
# numbers the libraries give on the data with each summary repeated that many times.

labels = st.sampled_from([0, 1, None])


@st.composite
def judged_sets(draw: st.DrawFn) -> tuple[list[Unit], list[SummaryRow]]:
    n_summaries = draw(st.integers(1, 6))
    annotators = ["A", "B", "C"][: draw(st.integers(1, 3))]
    units = []
    for s in range(n_summaries):
        for _ in range(draw(st.integers(0, 6))):
            human = {a: draw(labels) for a in annotators}
            flag = draw(st.sampled_from([True, False, None]))
            p = draw(st.none() | st.integers(0, 4).map(lambda k: k / 4))
            units.append(Unit(f"s{s}", human, flag, p))
    rows = []
    for s in range(n_summaries):
        if draw(st.booleans()):
            score = st.none() | st.integers(0, 3).map(lambda k: k / 3)
            rows.append(
                SummaryRow(
                    f"s{s}",
                    draw(st.sampled_from(["x", "y", "z", None])),
                    draw(st.sampled_from(["g1", "g2"])),
                    draw(score),
                    draw(score),
                )
            )
    return units, rows


def library_values(units: Sequence[Unit], rows: Sequence[SummaryRow]) -> dict[str, float]:
    """Every figure straight from the libraries, on all units (no counts, no bootstrap)."""
    out: dict[str, float] = {}
    ref, flag, p_ref, p = [], [], [], []
    for u in units:
        votes = [x for x in u.human.values() if x is not None]
        if not votes or u.judge_flag is None:
            continue
        r = int(2 * sum(votes) >= len(votes))
        ref.append(r)
        flag.append(int(u.judge_flag))
        if u.judge_p is not None:
            p_ref.append(r)
            p.append(u.judge_p)
    if ref:
        if sum(flag):
            out["precision"] = precision_score(ref, flag, zero_division=np.nan)
        if sum(ref):
            out["recall"] = recall_score(ref, flag, zero_division=np.nan)
        if sum(ref) or sum(flag):
            out["f1"] = f1_score(ref, flag, zero_division=np.nan)
        if 0 < sum(ref) < len(ref):
            out["balanced_accuracy"] = balanced_accuracy_score(ref, flag)
        out["judge_flag_rate"] = sum(flag) / len(flag)
        out["human_flag_rate"] = sum(ref) / len(ref)
    if 0 < sum(p_ref) < len(p_ref):
        out["roc_auc"] = roc_auc_score(p_ref, p)
    names = sorted({a for u in units for a, x in u.human.items() if x is not None})

    def kappa(a: list[int | None], b: list[int | None]) -> float | None:
        pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
        if not pairs or (len({*pairs}) == 1 and pairs[0][0] == pairs[0][1]):
            return None
        return float(cohen_kappa_score([x for x, _ in pairs], [y for _, y in pairs]))

    judge: list[int | None] = [None if u.judge_flag is None else int(u.judge_flag) for u in units]
    columns = {a: [u.human.get(a) for u in units] for a in names}
    for a in names:
        k = kappa(judge, columns[a])
        if k is not None:
            out[f"kappa_judge_vs[{a}]"] = k
    for name, coders in (("alpha_annotators", names), ("alpha_with_judge", [*names, "judge"])):
        data = np.array(
            [[np.nan if x is None else x for x in columns.get(c, judge)] for c in coders],
            dtype=float,
        ).reshape(len(coders), len(units))
        pairable = (~np.isnan(data)).sum(axis=0) >= 2
        values = data[:, pairable]
        if len(coders) >= 2 and len(np.unique(values[~np.isnan(values)])) == 2:
            out[name] = float(
                krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
            )
    scored = [r for r in rows if r.human_score is not None and r.judge_score is not None]
    h = [r.human_score for r in scored]
    j = [r.judge_score for r in scored]
    if len(set(h)) > 1 and len(set(j)) > 1:
        out["kendall_tau_summaries"] = kendalltau(h, j).statistic
    return out


def figure_values(result: AgreementFigures) -> dict[str, float]:
    return {k: f.value for k, f in result.figures.items() if not math.isnan(f.value)}


@PROPERTY
@given(judged_sets())
def test_point_estimates_equal_the_libraries(data: tuple[list[Unit], list[SummaryRow]]) -> None:
    units, rows = data
    ours = figure_values(agreement_figures(units, rows, n_boot=0))
    theirs = library_values(units, rows)
    for name, expected in theirs.items():
        assert ours[name] == pytest.approx(expected), name


@PROPERTY
@given(judged_sets())
def test_counts_at_weight_one_equal_the_point_estimates(
    data: tuple[list[Unit], list[SummaryRow]],
) -> None:
    units, rows = data
    specs, systems, _, counts = ja_figures.all_specs(units, rows)
    ones = np.ones((1, counts.n_clusters))
    for spec in [*specs, *(s for pair in systems.values() for s in pair)]:
        if math.isnan(spec.value):
            continue
        assert spec.replicates is not None, spec.name
        assert spec.replicates(ones)[0] == pytest.approx(spec.value), spec.name


def repeat_summaries(
    units: Sequence[Unit], rows: Sequence[SummaryRow], times: Mapping[str, int]
) -> tuple[list[Unit], list[SummaryRow]]:
    """Each summary (its units and its row) copied ``times[id]`` times under new ids."""
    new_units = [
        Unit(f"{u.summary_id}#{c}", u.human, u.judge_flag, u.judge_p)
        for u in units
        for c in range(times[u.summary_id])
    ]
    new_rows = [
        SummaryRow(f"{r.summary_id}#{c}", r.system, r.group, r.human_score, r.judge_score)
        for r in rows
        for c in range(times[r.summary_id])
    ]
    return new_units, new_rows


# Figures whose replicate is undefined exactly when the repeated data's value is; the means
# over parts and the system tau also skip a replicate when a part or a system is not drawn.
SAME_DEFINITION = {
    "precision",
    "recall",
    "f1",
    "balanced_accuracy",
    "roc_auc",
    "judge_flag_rate",
    "human_flag_rate",
    "flag_rate_difference",
    "alpha_annotators",
    "alpha_with_judge",
    "kendall_tau_summaries",
    "kendall_tau_within_groups",
}


@PROPERTY
@given(judged_sets(), st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_a_replicate_equals_the_figures_of_the_resampled_data(
    data: tuple[list[Unit], list[SummaryRow]], draws: list[int]
) -> None:
    units, rows = data
    specs, systems, _, _ = ja_figures.all_specs(units, rows)
    ids = sorted({u.summary_id for u in units} | {r.summary_id for r in rows})
    times = dict(zip(ids, draws[: len(ids)], strict=True))
    w = np.array([[times[i] for i in ids]], dtype=float)
    repeated = agreement_figures(*repeat_summaries(units, rows, times), n_boot=0)
    for spec in specs:
        if spec.replicates is None or spec.name not in repeated.figures:
            continue
        ours = spec.replicates(w)[0]
        theirs = repeated.figures[spec.name].value
        if spec.name in SAME_DEFINITION:
            assert math.isnan(ours) == math.isnan(theirs), spec.name
        if not (math.isnan(ours) or math.isnan(theirs)):
            assert ours == pytest.approx(theirs), spec.name
    for name, (human, judge) in systems.items():
        if name in repeated.systems:
            assert human.replicates is not None and judge.replicates is not None
            assert human.replicates(w)[0] == pytest.approx(repeated.systems[name].human.value)
            assert judge.replicates(w)[0] == pytest.approx(repeated.systems[name].judge.value)


RANGES = {
    "precision": (0, 1),
    "recall": (0, 1),
    "f1": (0, 1),
    "balanced_accuracy": (0, 1),
    "roc_auc": (0, 1),
    "judge_flag_rate": (0, 1),
    "human_flag_rate": (0, 1),
    "flag_rate_difference": (-1, 1),
    "kappa_judge_mean": (-1, 1),
    "kappa_annotators_mean": (-1, 1),
    "alpha_annotators": (-math.inf, 1),
    "alpha_with_judge": (-math.inf, 1),
    "kendall_tau_summaries": (-1, 1),
    "kendall_tau_within_groups": (-1, 1),
    "kendall_tau_systems": (-1, 1),
}


def check_figure(name: str, fig: Figure, low_end: float, high_end: float) -> None:
    eps = 1e-12
    if not math.isnan(fig.value):
        assert low_end - eps <= fig.value <= high_end + eps, name
    if math.isnan(fig.low) or math.isnan(fig.high):
        assert math.isnan(fig.low) and math.isnan(fig.high), name
        assert math.isnan(fig.value) or fig.note, name  # an undefined interval says why
    else:
        assert low_end - eps <= fig.low <= fig.high <= high_end + eps, name


@PROPERTY
@given(judged_sets(), st.integers(0, 2**32 - 1))
def test_intervals_are_ordered_and_in_range(
    data: tuple[list[Unit], list[SummaryRow]], seed: int
) -> None:
    units, rows = data
    r = agreement_figures(units, rows, n_boot=60, seed=seed)
    for name, fig in r.figures.items():
        low_end, high_end = RANGES.get(name, (-1, 1))  # kappa_judge_vs[...]: (-1, 1)
        check_figure(name, fig, low_end, high_end)
        assert 0 <= fig.boot_skipped <= 60
        if math.isnan(fig.value):
            assert fig.note, name
    for means in r.systems.values():
        check_figure("system mean", means.human, 0, 1)
        check_figure("system mean", means.judge, 0, 1)
    c = r.counts
    assert c.n_used + c.n_no_human + c.n_unjudged == c.n_units == len(units)
    assert c.n_summaries_used + c.n_summaries_unscored == c.n_summaries == len(rows)


def test_the_annotator_pairs_are_averaged() -> None:
    units = noisy_units()
    r = agreement_figures(units, n_boot=0)
    kappas = []
    for a, b in combinations("ABC", 2):
        kappas.append(cohen_kappa_score([u.human[a] for u in units], [u.human[b] for u in units]))
    assert value(r, "kappa_annotators_mean") == pytest.approx(np.mean(kappas))
    assert r.figures["kappa_annotators_mean"].n == 3


def test_the_cluster_draw_is_the_package_bootstrap() -> None:
    """The judge cards draw through analysis/intervals.py: the same weights as a multinomial
    draw of the clusters with that seed, so the cards' figures did not move."""
    from longform_evals.analysis.intervals import cluster_weights, percentile_interval
    from longform_evals.analysis.judge_agreement.bootstrap import draw_weights

    rng = np.random.default_rng(7)
    expected = rng.multinomial(5, np.full(5, 0.2), size=40).astype(np.float64)
    assert np.array_equal(draw_weights(5, 40, 7), expected)
    assert np.array_equal(cluster_weights(5, 40, 7), expected)
    reps = np.arange(101, dtype=np.float64)
    assert percentile_interval(reps, 0.9) == pytest.approx((5.0, 95.0))

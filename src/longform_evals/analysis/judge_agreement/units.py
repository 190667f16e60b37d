"""Unit-level figures: confusion counts (precision, recall, ...), ROC AUC, Cohen's kappa and
Krippendorff's alpha, each as a bootstrap spec."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt

from longform_evals.analysis.agreement import balanced_accuracy, roc_auc
from longform_evals.analysis.judge_agreement.bootstrap import (
    Spec,
    UnitArrays,
    cluster_sums,
    nan_ratio,
)
from longform_evals.analysis.judge_agreement.records import (
    BoolArray,
    FloatArray,
    IntArray,
    Replicates,
)

# Upper bound on the cells of one (replicates x units) block when resampling the ROC AUC.
BLOCK_CELLS = 4_000_000

# --- confusion-count figures ---------------------------------------------------------------


Confusion = Callable[[FloatArray, FloatArray, FloatArray, FloatArray], FloatArray]
"""A confusion figure of each replicate from its weighted counts (tp, fp, fn, tn)."""


def _balanced_accuracy_reps(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray
) -> FloatArray:
    pos, neg = a + c, b + d
    rec_pos, rec_neg = nan_ratio(a, pos), nan_ratio(d, neg)
    both = (rec_pos + rec_neg) / 2
    # One class drawn: the recall of that class (the convention of balanced_accuracy).
    return np.where(pos == 0, rec_neg, np.where(neg == 0, rec_pos, both))


# The confusion figures, in the order of the card, each with its replicate formula.
CONFUSION_FIGURES: dict[str, Confusion] = {
    "precision": lambda a, b, c, d: nan_ratio(a, a + b),
    "recall": lambda a, b, c, d: nan_ratio(a, a + c),
    "f1": lambda a, b, c, d: nan_ratio(2 * a, 2 * a + b + c),
    "balanced_accuracy": _balanced_accuracy_reps,
    "judge_flag_rate": lambda a, b, c, d: nan_ratio(a + b, a + b + c + d),
    "human_flag_rate": lambda a, b, c, d: nan_ratio(a + c, a + b + c + d),
    # (judge flags - human flags) / n
    "flag_rate_difference": lambda a, b, c, d: nan_ratio(b - c, a + b + c + d),
}


def _confusion_reps(counts: FloatArray, figure: Confusion) -> Replicates:
    """The replicates of ``figure`` from the per-cluster counts (clusters x tp, fp, fn, tn)."""

    def reps(w: FloatArray) -> FloatArray:
        t = w @ counts
        return figure(t[:, 0], t[:, 1], t[:, 2], t[:, 3])

    return reps


def confusion_specs(u: UnitArrays, used: BoolArray, n_clusters: int) -> list[Spec]:
    ref = u.reference[used].astype(bool)
    flag = u.judge[used].astype(bool)
    n = int(used.sum())
    counts = cluster_sums(
        u.cluster[used],
        n_clusters,
        flag & ref,  # tp
        flag & ~ref,  # fp
        ~flag & ref,  # fn
        ~flag & ~ref,  # tn
    )
    if n == 0:
        none = "no unit has both a human label and a judge verdict"
        return [Spec(name, math.nan, 0, none, None) for name in CONFUSION_FIGURES]
    points = _confusion_points(ref, flag, counts)
    return [
        Spec(name, *points[name], _confusion_reps(counts, figure))
        for name, figure in CONFUSION_FIGURES.items()
    ]


def _confusion_points(
    ref: BoolArray, flag: BoolArray, counts: FloatArray
) -> dict[str, tuple[float, int, str | None]]:
    """Each confusion figure of the data: its value, its count of units and why it is
    undefined (None where it is defined)."""
    tp, fp, fn, tn = (int(x) for x in counts.sum(axis=0))
    n = tp + fp + fn + tn
    from sklearn.metrics import precision_recall_fscore_support

    # zero_division=NaN: an undefined ratio stays NaN (sklearn's default would report 0).
    p, r, f, _ = precision_recall_fscore_support(
        ref.astype(int), flag.astype(int), average="binary", pos_label=1, zero_division=np.nan
    )
    p_note = None if tp + fp else "the judge flagged no unit: precision undefined"
    r_note = None if tp + fn else "the annotators flagged no unit: recall undefined"
    f_note = None if tp + fp + fn else "nobody flagged any unit: F1 undefined"
    bacc = balanced_accuracy(ref.astype(int).tolist(), flag.tolist()).value
    b_note = None
    if tp + fn == 0 or fp + tn == 0:
        present = "unflagged" if tp + fn == 0 else "flagged"
        b_note = f"only {present} units in the reference: balanced accuracy is their recall"
    judge_rate, human_rate = (tp + fp) / n, (tp + fn) / n
    return {
        "precision": (float(p), n, p_note),
        "recall": (float(r), n, r_note),
        "f1": (float(f), n, f_note),
        "balanced_accuracy": (bacc, n, b_note),
        "judge_flag_rate": (judge_rate, n, None),
        "human_flag_rate": (human_rate, n, None),
        "flag_rate_difference": (judge_rate - human_rate, n, None),
    }


# --- ROC AUC -------------------------------------------------------------------------------


def auc_spec(u: UnitArrays, used: BoolArray, n_clusters: int) -> Spec:
    keep = used & ~np.isnan(u.p)
    n = int(keep.sum())
    if n == 0:
        return Spec("roc_auc", math.nan, 0, "the judge gave no probability", None)
    ref = u.reference[keep].astype(bool)
    p = u.p[keep]
    value = roc_auc(ref.astype(int).tolist(), p.tolist())
    if math.isnan(value):
        return Spec("roc_auc", value, n, "only one reference class among units with p", None)
    # Sort the units by probability so that each tie group is one contiguous block.
    order = np.argsort(p, kind="stable")
    p_sorted, ref_sorted, cluster_sorted = p[order], ref[order], u.cluster[keep][order]
    starts = np.flatnonzero(np.r_[True, p_sorted[1:] != p_sorted[:-1]])

    def reps(w: FloatArray) -> FloatArray:
        out = np.empty(w.shape[0])
        block = max(1, BLOCK_CELLS // n)
        for lo in range(0, w.shape[0], block):
            unit_w = w[lo : lo + block][:, cluster_sorted]  # weight of each unit
            pos = np.add.reduceat(unit_w * ref_sorted, starts, axis=1)
            neg = np.add.reduceat(unit_w * ~ref_sorted, starts, axis=1)
            below = np.cumsum(neg, axis=1) - neg  # negatives with a lower p
            # Mann-Whitney: each positive beats the negatives below it, ties count half.
            wins = (pos * (below + neg / 2)).sum(axis=1)
            out[lo : lo + block] = nan_ratio(wins, pos.sum(axis=1) * neg.sum(axis=1))
        return out

    return Spec("roc_auc", value, n, None, reps)


# --- Cohen's kappa -------------------------------------------------------------------------


def kappa_table(
    a: npt.NDArray[np.int8], b: npt.NDArray[np.int8], cluster: IntArray, n_clusters: int
) -> FloatArray:
    """Per-summary 2x2 tables (n11, n10, n01, n00) over units both raters labelled."""
    both = (a >= 0) & (b >= 0)
    x, y = a[both] == 1, b[both] == 1
    return cluster_sums(cluster[both], n_clusters, x & y, x & ~y, ~x & y, ~x & ~y)


def kappa_from_tables(t: FloatArray) -> FloatArray:
    """Cohen's kappa of each row of 2x2 counts (n11, n10, n01, n00); NaN when undefined."""
    n11, n10, n01, n00 = t[:, 0], t[:, 1], t[:, 2], t[:, 3]
    n = n11 + n10 + n01 + n00
    chance = (n11 + n10) * (n11 + n01) + (n00 + n01) * (n00 + n10)
    # (po - pe) / (1 - pe) times n^2 over n^2; zero denominator: both raters gave one label.
    return nan_ratio(n * (n11 + n00) - chance, n * n - chance)


def kappa_reps(table: FloatArray) -> Replicates:
    """Kappa per replicate from per-summary 2x2 tables."""

    def reps(w: FloatArray) -> FloatArray:
        return kappa_from_tables(w @ table)

    return reps


def kappa_note(table: FloatArray, who: str) -> str | None:
    n11, _, _, n00 = table
    n = table.sum()
    if n == 0:
        return f"no unit labelled by both {who}: kappa undefined"
    if n11 == n or n00 == n:
        return f"{who} gave one and the same label to every unit: kappa undefined"
    return None


def kappa_value(
    a: npt.NDArray[np.int8], b: npt.NDArray[np.int8], table: FloatArray, who: str
) -> tuple[float, str | None]:
    note = kappa_note(table, who)
    if note:
        return math.nan, note
    from sklearn.metrics import cohen_kappa_score

    both = (a >= 0) & (b >= 0)
    return float(cohen_kappa_score(a[both], b[both], labels=[0, 1])), None


def mean_spec(name: str, parts: Sequence[Spec], empty_note: str) -> Spec:
    """Mean of the parts defined at the point estimate; a replicate needs all of them."""
    defined = [s for s in parts if not math.isnan(s.value) and s.replicates is not None]
    if not defined:
        return Spec(name, math.nan, 0, empty_note, None)
    value = float(np.mean([s.value for s in defined]))
    left_out = len(parts) - len(defined)
    note = f"{left_out} of {len(parts)} undefined and left out of the mean" if left_out else None

    def reps(w: FloatArray) -> FloatArray:
        # NaN in any part makes the mean NaN: the replicate is skipped, not re-weighted.
        each = [s.replicates(w) for s in defined if s.replicates is not None]
        return np.asarray(np.mean(each, axis=0), dtype=np.float64)

    return Spec(name, value, len(defined), note, reps)


def kappa_specs(u: UnitArrays, n_clusters: int) -> list[Spec]:
    specs: list[Spec] = []
    per_annotator: list[Spec] = []
    for j, name in enumerate(u.annotators):
        table = kappa_table(u.judge, u.human[:, j], u.cluster, n_clusters)
        value, note = kappa_value(u.judge, u.human[:, j], table.sum(axis=0), f"judge and {name}")
        spec = Spec(
            f"kappa_judge_vs[{name}]",
            value,
            int(table.sum()),
            note,
            kappa_reps(table) if note is None else None,
        )
        per_annotator.append(spec)
    specs.extend(per_annotator)
    specs.append(mean_spec("kappa_judge_mean", per_annotator, "no annotator: no kappa"))
    if len(u.annotators) < 2:
        specs.append(
            Spec(
                "kappa_annotators_mean",
                math.nan,
                0,
                "fewer than two annotators: no human ceiling",
                None,
            )
        )
        return specs
    pairs: list[Spec] = []
    for i, j in combinations(range(len(u.annotators)), 2):
        table = kappa_table(u.human[:, i], u.human[:, j], u.cluster, n_clusters)
        who = f"{u.annotators[i]} and {u.annotators[j]}"
        value, note = kappa_value(u.human[:, i], u.human[:, j], table.sum(axis=0), who)
        reps = kappa_reps(table) if note is None else None
        pairs.append(Spec(who, value, int(table.sum()), note, reps))
    specs.append(
        mean_spec("kappa_annotators_mean", pairs, "no pair of annotators with a defined kappa")
    )
    return specs


# --- Krippendorff's alpha ------------------------------------------------------------------


def alpha_spec(
    name: str, ratings: npt.NDArray[np.int8], cluster: IntArray, n_clusters: int
) -> Spec:
    """Nominal alpha of the coders in the columns of ``ratings`` (-1 = not rated).

    For two values, alpha = 1 - (n - 1) * sum_u n_u0 n_u1 / (m_u - 1) / (N_0 N_1) over the
    pairable units u (m_u >= 2 ratings, n_uv of them with value v; N_v = sum_u n_uv, n = N_0 +
    N_1): the coincidence-matrix formula with the nominal distance, written as sums over units
    so that a replicate is a weighted sum per summary.
    """
    ones = (ratings == 1).sum(axis=1).astype(np.float64)
    zeros = (ratings == 0).sum(axis=1).astype(np.float64)
    m = ones + zeros
    pairable = m >= 2
    disagree = nan_ratio(ones * zeros, m - 1)
    counts = cluster_sums(
        cluster,
        n_clusters,
        np.where(pairable, disagree, 0.0),
        np.where(pairable, zeros, 0.0),
        np.where(pairable, ones, 0.0),
    )

    def from_totals(t: FloatArray) -> FloatArray:
        a, n0, n1 = t[:, 0], t[:, 1], t[:, 2]
        return 1.0 - nan_ratio((n0 + n1 - 1) * a, n0 * n1)

    n_pairable = int(pairable.sum())
    if ratings.shape[1] < 2:
        return Spec(name, math.nan, 0, "fewer than two coders: alpha undefined", None)
    if n_pairable == 0:
        return Spec(name, math.nan, 0, "no unit has two ratings: alpha undefined", None)
    _, n0, n1 = counts.sum(axis=0)
    if n0 == 0 or n1 == 0:
        note = "every rating of the pairable units is the same label: alpha undefined"
        return Spec(name, math.nan, n_pairable, note, None)
    import krippendorff

    data = np.where(ratings >= 0, ratings, np.nan).T  # coders x units
    value = float(
        krippendorff.alpha(
            reliability_data=data, level_of_measurement="nominal", value_domain=[0, 1]
        )
    )
    return Spec(name, value, n_pairable, None, lambda w: from_totals(w @ counts))

"""How far an LLM judge agrees with human annotators: the figures of a judge card.

Inputs are plain records: one :class:`Unit` per judged unit (a sentence or claim of a summary)
with every annotator's label and the judge's verdict, and one :class:`SummaryRow` per summary
with a human and a judge score. :func:`agreement_figures` turns them into figures
(:class:`Figure`), each a value with a 95 % bootstrap interval, the number of observations
behind it and, where the value or its interval is undefined (NaN), a note saying why.

Conventions:

* A label is 1 when the unit is flagged as a problem, 0 when it is not; the judge's ``judge_p``
  is its probability of a problem, so a higher ``judge_p`` should mean "flagged".
* The reference label of a unit is the majority of its annotators' labels; a tie (one of two
  annotators flags it, say) counts as flagged, so a problem one careful reader saw is not
  voted away. Annotators who did not rate the unit (None) do not vote.
* Units without any human label (``n_no_human``) and units the judge gave no verdict
  (``n_unjudged``) are left out of the unit-level figures and counted; a unit lacking both
  counts under ``n_no_human``. Units without ``judge_p`` are left out of the ROC AUC alone and
  counted as ``n_no_p``. Summaries without both scores are left out of the summary-level
  figures and counted.

How the bootstrap works: the units of one summary are not independent (the same writer, the
same document), so the intervals come from a cluster bootstrap that draws *summaries* with
replacement, the same draw for every figure (units and summary rows are tied together by
``summary_id``). A replicate is a vector of weights, the number of times each summary was
drawn. Before resampling, every unit-level figure is reduced to per-summary counts (confusion
counts, 2x2 tables per annotator, Krippendorff's coincidence sums, ...), so a replicate is a
weighted sum of those counts and all replicates are one matrix product; re-running
scikit-learn on thousands of resampled unit lists would be slower by orders of magnitude.
The point estimates themselves come from the libraries (scikit-learn, scipy, ``krippendorff``),
and the tests check that the count formulas give the same numbers at weight one.
``scipy.stats.bootstrap`` is not used because it resamples one statistic at a time and cannot
skip replicates where a figure is undefined; here a replicate where a figure is undefined
(say, no flagged unit was drawn) is skipped for that figure and counted, and an interval
resting on fewer than half of the replicates is reported as NaN with a note. Intervals are
percentile intervals; the draw depends only on ``seed`` and the sorted summary ids, never on
the order of the inputs.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from longform_evals.analysis.agreement import balanced_accuracy, roc_auc

__all__ = [
    "CONFIDENCE",
    "MIN_USABLE_SHARE",
    "N_BOOT",
    "AgreementFigures",
    "Counts",
    "Figure",
    "SummaryRow",
    "SystemMeans",
    "Unit",
    "agreement_figures",
    "reference_flag",
]

CONFIDENCE = 0.95
N_BOOT = 1000
MIN_USABLE_SHARE = 0.5
"""An interval needs the figure defined in at least this share of the replicates."""

# Kendall's tau over more points than this is resampled one replicate at a time with scipy,
# instead of through dense point-by-point sign matrices (their memory grows with the square).
_DENSE_TAU_LIMIT = 2000
# Upper bound on the cells of one (replicates x units) block when resampling the ROC AUC.
_BLOCK_CELLS = 4_000_000

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]
Replicates = Callable[[FloatArray], FloatArray]
"""Maps summary weights (replicates x summaries) to one value per replicate, NaN = undefined."""


@dataclass(frozen=True)
class Unit:
    """One judged unit of a summary (a sentence or a claim).

    Attributes:
        summary_id: The summary the unit belongs to; the bootstrap resamples summaries, so
            the units of one summary stay together.
        human: Annotator name -> 1 (problem flagged), 0 (not flagged) or None (not rated).
        judge_flag: The judge's verdict at its own threshold; None when it gave none (an
            unreadable answer, a unit it did not judge).
        judge_p: The judge's probability that the unit has a problem, where it gives one;
            None or NaN when it does not.
    """

    summary_id: str
    human: Mapping[str, int | None]
    judge_flag: bool | None
    judge_p: float | None = None


@dataclass(frozen=True)
class SummaryRow:
    """One summary, for agreement at the summary and system level.

    Attributes:
        summary_id: Identifies the summary (the same id as its units, if any).
        system: The system that wrote it; None leaves it out of the system-level figures.
        group: What the summary is comparable with, typically its source document: the
            within-group Kendall tau compares summaries of one group only.
        human_score: The human score, higher = better (e.g. the share of units nobody
            flagged); None or NaN when missing.
        judge_score: The same score from the judge.
    """

    summary_id: str
    system: str | None
    group: str
    human_score: float | None
    judge_score: float | None


@dataclass(frozen=True)
class Figure:
    """A figure with its bootstrap interval.

    Attributes:
        value: The point estimate; NaN when undefined (``note`` says why).
        low: Lower end of the percentile interval; NaN when there is none.
        high: Upper end of the interval; NaN when there is none.
        n: How many observations the value rests on (units, unit pairs, summaries, groups,
            systems, annotators or annotator pairs, as each figure's description says).
        note: Why the value or the interval is undefined, or a caveat about the value.
        boot_skipped: Bootstrap replicates in which the figure was undefined and left out.
    """

    value: float
    low: float
    high: float
    n: int
    note: str | None = None
    boot_skipped: int = 0

    @property
    def defined(self) -> bool:
        """Whether the value and both ends of its interval are numbers."""
        return not any(math.isnan(x) for x in (self.value, self.low, self.high))

    def as_dict(self) -> dict[str, float | int | str | None]:
        """The figure as JSON-ready values: NaN becomes None."""
        return {
            "value": _json_float(self.value),
            "low": _json_float(self.low),
            "high": _json_float(self.high),
            "n": self.n,
            "note": self.note,
            "boot_skipped": self.boot_skipped,
        }


@dataclass(frozen=True)
class SystemMeans:
    """The mean human and judge scores of one system's scored summaries."""

    human: Figure
    judge: Figure

    def as_dict(self) -> dict[str, dict[str, float | int | str | None]]:
        return {"human": self.human.as_dict(), "judge": self.judge.as_dict()}


@dataclass(frozen=True)
class Counts:
    """What went into the figures and what was left out.

    Attributes:
        n_units: Units given.
        n_used: Units with a reference label and a judge verdict (the unit-level figures).
        n_no_human: Units no annotator rated.
        n_unjudged: Units with a reference label but no judge verdict.
        n_no_p: Used units without a judge probability (left out of the ROC AUC only).
        n_annotators: Annotators with at least one label.
        n_summaries: Summary rows given.
        n_summaries_used: Rows with both a human and a judge score.
        n_summaries_unscored: Rows missing either score.
        n_summaries_no_system: Scored rows without a system (left out of the system level).
        n_systems: Distinct systems among the scored rows.
        n_clusters: Distinct summary ids among units and rows: what the bootstrap resamples.
    """

    n_units: int
    n_used: int
    n_no_human: int
    n_unjudged: int
    n_no_p: int
    n_annotators: int
    n_summaries: int
    n_summaries_used: int
    n_summaries_unscored: int
    n_summaries_no_system: int
    n_systems: int
    n_clusters: int

    def as_dict(self) -> dict[str, int]:
        return {name: int(getattr(self, name)) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class AgreementFigures:
    """Every figure of a judge card, with the counts behind them.

    Attributes:
        figures: Figure name -> :class:`Figure`, in a fixed order (see
            :func:`agreement_figures` for the names).
        systems: System -> its mean human and judge scores.
        same_order: Whether the judge orders the systems as the people do (every pair of
            systems compares the same way, ties included); None with fewer than two systems.
        counts: Units and summaries used and left out.
        n_boot: Bootstrap replicates drawn.
        seed: Seed of the draw.
        confidence: Coverage of the intervals.
    """

    figures: Mapping[str, Figure]
    systems: Mapping[str, SystemMeans]
    same_order: bool | None
    counts: Counts
    n_boot: int
    seed: int
    confidence: float = CONFIDENCE

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready nested dict (NaN written as None)::

        {"figures": {name: {"value", "low", "high", "n", "note", "boot_skipped"}},
         "systems": {system: {"human": {...}, "judge": {...}}},
         "same_order": bool | None,
         "counts": {"n_units": ..., ...},
         "bootstrap": {"n_boot": ..., "seed": ..., "confidence": ...,
                       "min_usable_share": ..., "resampled": "summaries"}}
        """
        return {
            "figures": {name: fig.as_dict() for name, fig in self.figures.items()},
            "systems": {name: means.as_dict() for name, means in self.systems.items()},
            "same_order": self.same_order,
            "counts": self.counts.as_dict(),
            "bootstrap": {
                "n_boot": self.n_boot,
                "seed": self.seed,
                "confidence": self.confidence,
                "min_usable_share": MIN_USABLE_SHARE,
                "resampled": "summaries",
            },
        }


def reference_flag(human: Mapping[str, int | None]) -> int | None:
    """The reference label of one unit: the majority of the labels given, a tie flagged;
    None when nobody rated it (the rule of :func:`agreement_figures`, for one unit)."""
    given = [_label(label, f"human[{name!r}]") for name, label in human.items()]
    rated = [v for v in given if v >= 0]
    if not rated:
        return None
    return int(2 * sum(rated) >= len(rated))


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


# --- input checks --------------------------------------------------------------------------


def _label(value: object, where: str) -> int:
    """-1 for None, else 0 or 1; anything else (a float, 2, a string) is refused."""
    if value is None:
        return -1
    if isinstance(value, float) or value not in (0, 1):
        raise ValueError(f"{where} must be 0, 1, a bool or None; got {value!r}")
    return int(bool(value))


def _probability(value: float | None, where: str) -> float:
    if value is None:
        return math.nan
    p = float(value)
    if not math.isnan(p) and not 0.0 <= p <= 1.0:
        raise ValueError(f"{where} must lie in [0, 1] (or be None); got {value!r}")
    return p


def _score(value: float | None, where: str) -> float:
    if value is None:
        return math.nan
    x = float(value)
    if math.isinf(x):
        raise ValueError(f"{where} must be finite (or None/NaN when missing); got {value!r}")
    return x


# --- the bootstrap -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """A figure's point estimate and the function giving its bootstrap replicates."""

    name: str
    value: float
    n: int
    note: str | None
    replicates: Replicates | None


def _nan_ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """num / den, NaN where den is 0 (without a division warning)."""
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _draw(n_clusters: int, n_boot: int, seed: int) -> FloatArray:
    """Weights (replicates x summaries): how often each summary is drawn in each replicate.

    Drawing ``n_clusters`` summaries with replacement is a multinomial draw of the counts.
    """
    rng = np.random.default_rng(seed)
    probs = np.full(n_clusters, 1.0 / n_clusters)
    return rng.multinomial(n_clusters, probs, size=n_boot).astype(np.float64)


def _finish(
    spec: _Spec, reps: FloatArray | None, n_boot: int, n_clusters: int, confidence: float
) -> Figure:
    """Turn a spec and its replicates into a Figure with a percentile interval."""
    skipped = 0 if reps is None else int(np.isnan(reps).sum())
    notes = [spec.note] if spec.note else []
    low = high = math.nan
    if math.isnan(spec.value):
        pass
    elif n_clusters < 2:
        notes.append("fewer than two summaries to resample: no interval")
    elif n_boot == 0 or reps is None:
        notes.append("no bootstrap replicates: no interval")
    else:
        usable = reps[~np.isnan(reps)]
        if usable.size < MIN_USABLE_SHARE * n_boot or usable.size == 0:
            notes.append(
                f"defined in only {usable.size} of {n_boot} bootstrap replicates "
                f"(fewer than {MIN_USABLE_SHARE:.0%}): no interval"
            )
        else:
            tail = (1.0 - confidence) / 2.0
            lo, hi = np.quantile(usable, [tail, 1.0 - tail])
            # Interpolation never leaves the replicates' range; clip against rounding.
            low = float(max(lo, usable.min()))
            high = float(min(hi, usable.max()))
    return Figure(spec.value, low, high, spec.n, "; ".join(notes) or None, skipped)


# --- unit-level inputs ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Units:
    """The units as arrays: labels -1 = missing, cluster = index of the summary id."""

    cluster: IntArray  # (n_units,)
    human: npt.NDArray[np.int8]  # (n_units, n_annotators)
    annotators: tuple[str, ...]
    reference: npt.NDArray[np.int8]  # majority label, -1 = no human label
    judge: npt.NDArray[np.int8]  # judge flag, -1 = none
    p: FloatArray  # judge probability, NaN = none


def _read_units(units: Sequence[Unit], cluster_of: Mapping[str, int]) -> _Units:
    names = sorted(
        {name for unit in units for name, label in unit.human.items() if label is not None}
    )
    column = {name: j for j, name in enumerate(names)}
    n = len(units)
    human = np.full((n, len(names)), -1, dtype=np.int8)
    judge = np.full(n, -1, dtype=np.int8)
    p = np.full(n, math.nan)
    cluster = np.zeros(n, dtype=np.intp)
    for i, unit in enumerate(units):
        cluster[i] = cluster_of[unit.summary_id]
        for name, label in unit.human.items():
            value = _label(label, f"units[{i}].human[{name!r}]")
            if value >= 0:
                human[i, column[name]] = value
        judge[i] = _label(unit.judge_flag, f"units[{i}].judge_flag")
        p[i] = _probability(unit.judge_p, f"units[{i}].judge_p")
    flagged = (human == 1).sum(axis=1)
    rated = (human >= 0).sum(axis=1)
    # Majority of the labels given; a tie counts as flagged (2 * flagged >= rated).
    reference = np.where(rated == 0, -1, (2 * flagged >= rated).astype(np.int8)).astype(np.int8)
    return _Units(cluster, human, tuple(names), reference, judge, p)


def _sums(cluster: IntArray, n_clusters: int, *columns: npt.ArrayLike) -> FloatArray:
    """Per-summary sums of each column: an array (summaries x columns)."""
    if not columns:
        return np.zeros((n_clusters, 0))
    sums = [
        np.bincount(cluster, weights=np.asarray(c, dtype=np.float64), minlength=n_clusters)
        for c in columns
    ]
    return np.asarray(np.stack(sums, axis=1), dtype=np.float64).reshape(n_clusters, len(columns))


# --- confusion-count figures ---------------------------------------------------------------


def _confusion_specs(u: _Units, used: BoolArray, n_clusters: int) -> list[_Spec]:
    ref = u.reference[used].astype(bool)
    flag = u.judge[used].astype(bool)
    n = int(used.sum())
    counts = _sums(
        u.cluster[used],
        n_clusters,
        flag & ref,  # tp
        flag & ~ref,  # fp
        ~flag & ref,  # fn
        ~flag & ~ref,  # tn
    )
    tp, fp, fn, tn = (int(x) for x in counts.sum(axis=0))

    def totals(w: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        t = w @ counts
        return t[:, 0], t[:, 1], t[:, 2], t[:, 3]

    def precision_reps(w: FloatArray) -> FloatArray:
        a, b, _, _ = totals(w)
        return _nan_ratio(a, a + b)

    def recall_reps(w: FloatArray) -> FloatArray:
        a, _, c, _ = totals(w)
        return _nan_ratio(a, a + c)

    def f1_reps(w: FloatArray) -> FloatArray:
        a, b, c, _ = totals(w)
        return _nan_ratio(2 * a, 2 * a + b + c)

    def bacc_reps(w: FloatArray) -> FloatArray:
        a, b, c, d = totals(w)
        pos, neg = a + c, b + d
        rec_pos, rec_neg = _nan_ratio(a, pos), _nan_ratio(d, neg)
        both = (rec_pos + rec_neg) / 2
        # One class drawn: the recall of that class (the convention of balanced_accuracy).
        return np.where(pos == 0, rec_neg, np.where(neg == 0, rec_pos, both))

    def judge_rate_reps(w: FloatArray) -> FloatArray:
        a, b, c, d = totals(w)
        return _nan_ratio(a + b, a + b + c + d)

    def human_rate_reps(w: FloatArray) -> FloatArray:
        a, b, c, d = totals(w)
        return _nan_ratio(a + c, a + b + c + d)

    def rate_diff_reps(w: FloatArray) -> FloatArray:
        a, b, c, d = totals(w)
        return _nan_ratio(b - c, a + b + c + d)  # (judge flags - human flags) / n

    if n == 0:
        none = "no unit has both a human label and a judge verdict"
        names = (
            "precision",
            "recall",
            "f1",
            "balanced_accuracy",
            "judge_flag_rate",
            "human_flag_rate",
            "flag_rate_difference",
        )
        return [_Spec(name, math.nan, 0, none, None) for name in names]

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
    return [
        _Spec("precision", float(p), n, p_note, precision_reps),
        _Spec("recall", float(r), n, r_note, recall_reps),
        _Spec("f1", float(f), n, f_note, f1_reps),
        _Spec("balanced_accuracy", bacc, n, b_note, bacc_reps),
        _Spec("judge_flag_rate", judge_rate, n, None, judge_rate_reps),
        _Spec("human_flag_rate", human_rate, n, None, human_rate_reps),
        _Spec("flag_rate_difference", judge_rate - human_rate, n, None, rate_diff_reps),
    ]


# --- ROC AUC -------------------------------------------------------------------------------


def _auc_spec(u: _Units, used: BoolArray, n_clusters: int) -> _Spec:
    keep = used & ~np.isnan(u.p)
    n = int(keep.sum())
    if n == 0:
        return _Spec("roc_auc", math.nan, 0, "the judge gave no probability", None)
    ref = u.reference[keep].astype(bool)
    p = u.p[keep]
    value = roc_auc(ref.astype(int).tolist(), p.tolist())
    if math.isnan(value):
        return _Spec("roc_auc", value, n, "only one reference class among units with p", None)
    # Sort the units by probability so that each tie group is one contiguous block.
    order = np.argsort(p, kind="stable")
    p_sorted, ref_sorted, cluster_sorted = p[order], ref[order], u.cluster[keep][order]
    starts = np.flatnonzero(np.r_[True, p_sorted[1:] != p_sorted[:-1]])

    def reps(w: FloatArray) -> FloatArray:
        out = np.empty(w.shape[0])
        block = max(1, _BLOCK_CELLS // n)
        for lo in range(0, w.shape[0], block):
            unit_w = w[lo : lo + block][:, cluster_sorted]  # weight of each unit
            pos = np.add.reduceat(unit_w * ref_sorted, starts, axis=1)
            neg = np.add.reduceat(unit_w * ~ref_sorted, starts, axis=1)
            below = np.cumsum(neg, axis=1) - neg  # negatives with a lower p
            # Mann-Whitney: each positive beats the negatives below it, ties count half.
            wins = (pos * (below + neg / 2)).sum(axis=1)
            out[lo : lo + block] = _nan_ratio(wins, pos.sum(axis=1) * neg.sum(axis=1))
        return out

    return _Spec("roc_auc", value, n, None, reps)


# --- Cohen's kappa -------------------------------------------------------------------------


def _table(
    a: npt.NDArray[np.int8], b: npt.NDArray[np.int8], cluster: IntArray, n_clusters: int
) -> FloatArray:
    """Per-summary 2x2 tables (n11, n10, n01, n00) over units both raters labelled."""
    both = (a >= 0) & (b >= 0)
    x, y = a[both] == 1, b[both] == 1
    return _sums(cluster[both], n_clusters, x & y, x & ~y, ~x & y, ~x & ~y)


def _kappa_from_tables(t: FloatArray) -> FloatArray:
    """Cohen's kappa of each row of 2x2 counts (n11, n10, n01, n00); NaN when undefined."""
    n11, n10, n01, n00 = t[:, 0], t[:, 1], t[:, 2], t[:, 3]
    n = n11 + n10 + n01 + n00
    chance = (n11 + n10) * (n11 + n01) + (n00 + n01) * (n00 + n10)
    # (po - pe) / (1 - pe) times n^2 over n^2; zero denominator: both raters gave one label.
    return _nan_ratio(n * (n11 + n00) - chance, n * n - chance)


def _kappa_reps(table: FloatArray) -> Replicates:
    """Kappa per replicate from per-summary 2x2 tables."""

    def reps(w: FloatArray) -> FloatArray:
        return _kappa_from_tables(w @ table)

    return reps


def _kappa_note(table: FloatArray, who: str) -> str | None:
    n11, _, _, n00 = table
    n = table.sum()
    if n == 0:
        return f"no unit labelled by both {who}: kappa undefined"
    if n11 == n or n00 == n:
        return f"{who} gave one and the same label to every unit: kappa undefined"
    return None


def _kappa_value(
    a: npt.NDArray[np.int8], b: npt.NDArray[np.int8], table: FloatArray, who: str
) -> tuple[float, str | None]:
    note = _kappa_note(table, who)
    if note:
        return math.nan, note
    from sklearn.metrics import cohen_kappa_score

    both = (a >= 0) & (b >= 0)
    return float(cohen_kappa_score(a[both], b[both], labels=[0, 1])), None


def _mean_spec(name: str, parts: Sequence[_Spec], empty_note: str) -> _Spec:
    """Mean of the parts defined at the point estimate; a replicate needs all of them."""
    defined = [s for s in parts if not math.isnan(s.value) and s.replicates is not None]
    if not defined:
        return _Spec(name, math.nan, 0, empty_note, None)
    value = float(np.mean([s.value for s in defined]))
    left_out = len(parts) - len(defined)
    note = f"{left_out} of {len(parts)} undefined and left out of the mean" if left_out else None

    def reps(w: FloatArray) -> FloatArray:
        # NaN in any part makes the mean NaN: the replicate is skipped, not re-weighted.
        each = [s.replicates(w) for s in defined if s.replicates is not None]
        return np.asarray(np.mean(each, axis=0), dtype=np.float64)

    return _Spec(name, value, len(defined), note, reps)


def _kappa_specs(u: _Units, n_clusters: int) -> list[_Spec]:
    specs: list[_Spec] = []
    per_annotator: list[_Spec] = []
    for j, name in enumerate(u.annotators):
        table = _table(u.judge, u.human[:, j], u.cluster, n_clusters)
        value, note = _kappa_value(u.judge, u.human[:, j], table.sum(axis=0), f"judge and {name}")
        spec = _Spec(
            f"kappa_judge_vs[{name}]",
            value,
            int(table.sum()),
            note,
            _kappa_reps(table) if note is None else None,
        )
        per_annotator.append(spec)
    specs.extend(per_annotator)
    specs.append(_mean_spec("kappa_judge_mean", per_annotator, "no annotator: no kappa"))
    if len(u.annotators) < 2:
        specs.append(
            _Spec(
                "kappa_annotators_mean",
                math.nan,
                0,
                "fewer than two annotators: no human ceiling",
                None,
            )
        )
        return specs
    pairs: list[_Spec] = []
    for i, j in combinations(range(len(u.annotators)), 2):
        table = _table(u.human[:, i], u.human[:, j], u.cluster, n_clusters)
        who = f"{u.annotators[i]} and {u.annotators[j]}"
        value, note = _kappa_value(u.human[:, i], u.human[:, j], table.sum(axis=0), who)
        reps = _kappa_reps(table) if note is None else None
        pairs.append(_Spec(who, value, int(table.sum()), note, reps))
    specs.append(
        _mean_spec("kappa_annotators_mean", pairs, "no pair of annotators with a defined kappa")
    )
    return specs


# --- Krippendorff's alpha ------------------------------------------------------------------


def _alpha_spec(
    name: str, ratings: npt.NDArray[np.int8], cluster: IntArray, n_clusters: int
) -> _Spec:
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
    disagree = _nan_ratio(ones * zeros, m - 1)
    counts = _sums(
        cluster,
        n_clusters,
        np.where(pairable, disagree, 0.0),
        np.where(pairable, zeros, 0.0),
        np.where(pairable, ones, 0.0),
    )

    def from_totals(t: FloatArray) -> FloatArray:
        a, n0, n1 = t[:, 0], t[:, 1], t[:, 2]
        return 1.0 - _nan_ratio((n0 + n1 - 1) * a, n0 * n1)

    n_pairable = int(pairable.sum())
    if ratings.shape[1] < 2:
        return _Spec(name, math.nan, 0, "fewer than two coders: alpha undefined", None)
    if n_pairable == 0:
        return _Spec(name, math.nan, 0, "no unit has two ratings: alpha undefined", None)
    _, n0, n1 = counts.sum(axis=0)
    if n0 == 0 or n1 == 0:
        note = "every rating of the pairable units is the same label: alpha undefined"
        return _Spec(name, math.nan, n_pairable, note, None)
    import krippendorff

    data = np.where(ratings >= 0, ratings, np.nan).T  # coders x units
    value = float(
        krippendorff.alpha(
            reliability_data=data, level_of_measurement="nominal", value_domain=[0, 1]
        )
    )
    return _Spec(name, value, n_pairable, None, lambda w: from_totals(w @ counts))


# --- Kendall's tau -------------------------------------------------------------------------


def _tau_b(
    x: FloatArray, y: FloatArray, points: str = "scored summaries", what: str = "scores"
) -> tuple[float, str | None]:
    """scipy's tau-b, or NaN with the reason when it is undefined."""
    if len(x) < 2:
        return math.nan, f"fewer than two {points}: tau undefined"
    if np.all(x == x[0]):
        return math.nan, f"the human {what} are all equal: tau undefined"
    if np.all(y == y[0]):
        return math.nan, f"the judge {what} are all equal: tau undefined"
    from scipy.stats import kendalltau

    return float(kendalltau(x, y, variant="b").statistic), None


def _weighted_tau_b(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Tau-b of each replicate, where point i appears ``w[r, i]`` times (NaN if undefined).

    With the copies as ties: concordant minus discordant pairs = w'Cw / 2 with C the
    product of the sign matrices; pairs tied in x = (w'T_x w - sum w) / 2, with T_x the
    equality matrix including its diagonal (copies of one point tie with each other).
    """
    if len(x) > _DENSE_TAU_LIMIT:
        return _looped_tau_b(x, y, w)
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    total = w.sum(axis=1)
    pairs = (total * total - total) / 2

    def quad(matrix: FloatArray) -> FloatArray:
        return np.asarray(np.einsum("ri,ri->r", w @ matrix, w), dtype=np.float64)

    score = quad(sx * sy) / 2
    tied_x = (quad((sx == 0).astype(np.float64)) - total) / 2
    tied_y = (quad((sy == 0).astype(np.float64)) - total) / 2
    return _nan_ratio(score, np.sqrt((pairs - tied_x) * (pairs - tied_y)))


def _looped_tau_b(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    out = np.full(w.shape[0], np.nan)
    counts = w.astype(np.intp)
    for r in range(w.shape[0]):
        out[r] = _tau_b(np.repeat(x, counts[r]), np.repeat(y, counts[r]))[0]
    return out


def _summary_specs(
    rows: Sequence[tuple[int, str | None, str, float, float]], n_clusters: int
) -> tuple[list[_Spec], dict[str, tuple[_Spec, _Spec]], bool | None]:
    """Kendall taus over summaries, within groups and over systems; the systems' means."""
    cluster = np.array([r[0] for r in rows], dtype=np.intp)
    human = np.array([r[3] for r in rows], dtype=np.float64)
    judge = np.array([r[4] for r in rows], dtype=np.float64)
    specs: list[_Spec] = []

    value, note = _tau_b(human, judge)
    specs.append(
        _Spec(
            "kendall_tau_summaries",
            value,
            len(rows),
            note,
            None if note else (lambda w: _weighted_tau_b(human, judge, w[:, cluster])),
        )
    )

    # Within groups: the mean over the groups where tau is defined (in the data, then in
    # each replicate: a group drawn once or with equal scores drops out of that replicate).
    group_index: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        group_index.setdefault(r[2], []).append(i)
    groups = [np.array(group_index[g], dtype=np.intp) for g in sorted(group_index)]
    taus = [_tau_b(human[g], judge[g])[0] for g in groups]
    defined = [t for t in taus if not math.isnan(t)]
    if defined:
        group_value = float(np.mean(defined))
        group_note = None
    else:
        group_value = math.nan
        group_note = "no group has two summaries with differing scores"

    def group_reps(w: FloatArray) -> FloatArray:
        per_group = np.stack(
            [_weighted_tau_b(human[g], judge[g], w[:, cluster[g]]) for g in groups], axis=1
        )
        usable = ~np.isnan(per_group)
        return _nan_ratio(np.where(usable, per_group, 0.0).sum(axis=1), usable.sum(axis=1))

    specs.append(
        _Spec(
            "kendall_tau_within_groups",
            group_value,
            len(defined),
            group_note,
            None if group_note else group_reps,
        )
    )

    # Systems: each system's mean over its scored summaries, then tau over the systems.
    names = sorted({r[1] for r in rows if r[1] is not None})
    member = np.array([[r[1] == name for name in names] for r in rows], dtype=np.float64).reshape(
        len(rows), len(names)
    )
    n_per = member.sum(axis=0)
    mean_h = member.T @ human / np.maximum(n_per, 1)
    mean_j = member.T @ judge / np.maximum(n_per, 1)

    def means_reps(w: FloatArray, scores: FloatArray) -> FloatArray:
        """Each system's weighted mean score per replicate; NaN for a system not drawn."""
        wr = w[:, cluster]
        return _nan_ratio(wr @ (member * scores[:, None]), wr @ member)

    def one_system(k: int, scores: FloatArray) -> Replicates:
        def reps(w: FloatArray) -> FloatArray:
            return means_reps(w, scores)[:, k]

        return reps

    systems: dict[str, tuple[_Spec, _Spec]] = {}
    for k, name in enumerate(names):
        n_k = int(n_per[k])
        systems[name] = (
            _Spec(name, float(mean_h[k]), n_k, None, one_system(k, human)),
            _Spec(name, float(mean_j[k]), n_k, None, one_system(k, judge)),
        )

    same_order: bool | None = None
    if len(names) < 2:
        specs.append(
            _Spec("kendall_tau_systems", math.nan, len(names), "fewer than two systems", None)
        )
        return specs, systems, same_order
    sign_h = np.sign(mean_h[:, None] - mean_h[None, :])
    sign_j = np.sign(mean_j[:, None] - mean_j[None, :])
    value, note = _tau_b(mean_h, mean_j, "systems", "system means")
    # "orders the systems as people do" only where the order is measurable: with every system
    # tied on one side there is no order to share (and Kendall's tau is undefined).
    same_order = None if math.isnan(value) else bool(np.array_equal(sign_h, sign_j))

    def system_reps(w: FloatArray) -> FloatArray:
        mh, mj = means_reps(w, human), means_reps(w, judge)
        sh = np.sign(mh[:, :, None] - mh[:, None, :])
        sj = np.sign(mj[:, :, None] - mj[:, None, :])
        k = len(names)
        pairs = k * (k - 1) / 2
        score = (sh * sj).sum(axis=(1, 2)) / 2
        tied_h = ((sh == 0).sum(axis=(1, 2)) - k) / 2
        tied_j = ((sj == 0).sum(axis=(1, 2)) - k) / 2
        # A system not drawn has NaN means, so its signs (and the replicate) are NaN.
        return _nan_ratio(score, np.sqrt((pairs - tied_h) * (pairs - tied_j)))

    if len(names) == 2 and note is None:
        note = "two systems: tau is +1 (same order) or -1"
    specs.append(
        _Spec(
            "kendall_tau_systems",
            value,
            len(names),
            note,
            None if math.isnan(value) else system_reps,
        )
    )
    return specs, systems, same_order


# --- the figures ---------------------------------------------------------------------------


def _specs(
    units: Sequence[Unit], summaries: Sequence[SummaryRow]
) -> tuple[list[_Spec], dict[str, tuple[_Spec, _Spec]], bool | None, Counts]:
    """Every figure's point estimate and replicate function, and the counts."""
    seen: set[str] = set()
    for row in summaries:
        if row.summary_id in seen:
            raise ValueError(f"summary_id {row.summary_id!r} appears in two summary rows")
        seen.add(row.summary_id)
    ids = sorted({u.summary_id for u in units} | seen)
    cluster_of = {sid: i for i, sid in enumerate(ids)}
    n_clusters = len(ids)

    u = _read_units(units, cluster_of)
    has_ref = u.reference >= 0
    used = has_ref & (u.judge >= 0)
    specs = _confusion_specs(u, used, n_clusters)
    specs.insert(4, _auc_spec(u, used, n_clusters))
    specs.extend(_kappa_specs(u, n_clusters))
    specs.append(_alpha_spec("alpha_annotators", u.human, u.cluster, n_clusters))
    with_judge = np.concatenate([u.human, u.judge[:, None]], axis=1)
    specs.append(_alpha_spec("alpha_with_judge", with_judge, u.cluster, n_clusters))

    scored: list[tuple[int, str | None, str, float, float]] = []
    for i, row in enumerate(summaries):
        h = _score(row.human_score, f"summaries[{i}].human_score")
        j = _score(row.judge_score, f"summaries[{i}].judge_score")
        if not (math.isnan(h) or math.isnan(j)):
            scored.append((cluster_of[row.summary_id], row.system, row.group, h, j))
    summary_specs, systems, same_order = _summary_specs(scored, n_clusters)
    specs.extend(summary_specs)

    counts = Counts(
        n_units=len(units),
        n_used=int(used.sum()),
        n_no_human=int((~has_ref).sum()),
        n_unjudged=int((has_ref & (u.judge < 0)).sum()),
        n_no_p=int((used & np.isnan(u.p)).sum()),
        n_annotators=len(u.annotators),
        n_summaries=len(summaries),
        n_summaries_used=len(scored),
        n_summaries_unscored=len(summaries) - len(scored),
        n_summaries_no_system=sum(r[1] is None for r in scored),
        n_systems=len(systems),
        n_clusters=n_clusters,
    )
    return specs, systems, same_order, counts


def agreement_figures(
    units: Sequence[Unit],
    summaries: Sequence[SummaryRow] = (),
    n_boot: int = N_BOOT,
    seed: int = 0,
    *,
    confidence: float = CONFIDENCE,
) -> AgreementFigures:
    """The agreement of a judge with human annotators, with cluster-bootstrap intervals.

    Figures (names of :attr:`AgreementFigures.figures`, in this order), with what ``n``
    counts:

    * ``precision``, ``recall``, ``f1``: the judge's flags against the reference flags
      (scikit-learn; a ratio with a zero denominator is NaN with a note, not 0; F1 is
      ``2tp / (2tp + fp + fn)``, so it is 0, not NaN, when the judge never flags but people
      do). ``n``: used units.
    * ``balanced_accuracy``: the mean recall of flagged and unflagged units; with one
      reference class only, that class's recall (noted). ``n``: used units.
    * ``roc_auc``: of ``judge_p`` against the reference; ``n``: used units with a ``judge_p``.
    * ``judge_flag_rate``, ``human_flag_rate`` (share of used units flagged by the judge, by
      the reference) and ``flag_rate_difference`` (judge minus human). ``n``: used units.
    * ``kappa_judge_vs[<annotator>]``: Cohen's kappa of the judge's flags against one
      annotator's labels, over the units both labelled; ``n``: those units.
    * ``kappa_judge_mean``: the mean of those kappas; ``n``: annotators averaged.
    * ``kappa_annotators_mean``: the mean Cohen's kappa over pairs of annotators (each pair
      over the units both rated, judged or not): the ceiling a judge can be held to. NaN with
      fewer than two annotators. ``n``: pairs averaged.
    * ``alpha_annotators``, ``alpha_with_judge``: Krippendorff's alpha (nominal) of the
      annotators, and of the annotators with the judge as one more coder, over all units
      (units with a single rating do not count); ``n``: units with two ratings or more.
    * ``kendall_tau_summaries``: tau-b between human and judge scores over scored summaries;
      ``n``: those summaries.
    * ``kendall_tau_within_groups``: the mean of tau-b within each group (e.g. the summaries
      of one document), over groups where it is defined; ``n``: those groups.
    * ``kendall_tau_systems``: tau-b between the systems' mean human and mean judge scores
      (over each system's scored summaries); with two systems it is +1 or -1, see
      :attr:`AgreementFigures.same_order`. ``n``: systems.

    A mean of several parts (``kappa_judge_mean``, ``kappa_annotators_mean``) averages the
    parts defined in the data, and a replicate where one of them is undefined is skipped.

    Args:
        units: The judged units (any order; it does not change any number).
        summaries: One row per summary for the summary- and system-level figures.
        n_boot: Bootstrap replicates; 0 gives values without intervals.
        seed: Seed of the resampling.
        confidence: Coverage of the percentile intervals.

    Returns:
        The figures, per-system means, ``same_order`` and the counts.

    Raises:
        ValueError: On a label other than 0/1/None, a ``judge_p`` outside [0, 1], an infinite
            score, a summary id given twice among ``summaries``, a negative ``n_boot`` or a
            ``confidence`` outside (0, 1).
    """
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    specs, systems, same_order, counts = _specs(units, summaries)
    n_clusters = counts.n_clusters
    weights = _draw(n_clusters, n_boot, seed) if n_clusters >= 2 and n_boot > 0 else None

    def finish(spec: _Spec) -> Figure:
        reps = None
        if weights is not None and spec.replicates is not None:
            reps = spec.replicates(weights)
        elif weights is not None:
            reps = np.full(n_boot, np.nan)  # undefined in the data: nothing to resample
        return _finish(spec, reps, n_boot, n_clusters, confidence)

    return AgreementFigures(
        figures={spec.name: finish(spec) for spec in specs},
        systems={name: SystemMeans(finish(h), finish(j)) for name, (h, j) in systems.items()},
        same_order=same_order,
        counts=counts,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )

"""The records a judge card is computed from and the figures it holds (module docstring of
:mod:`longform_evals.analysis.judge_agreement` for the conventions)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

CONFIDENCE = 0.95
N_BOOT = 1000
MIN_USABLE_SHARE = 0.5
"""An interval needs the figure defined in at least this share of the replicates."""


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
            "value": json_float(self.value),
            "low": json_float(self.low),
            "high": json_float(self.high),
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
    given = [checked_label(label, f"human[{name!r}]") for name, label in human.items()]
    rated = [v for v in given if v >= 0]
    if not rated:
        return None
    return int(2 * sum(rated) >= len(rated))


def json_float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


# --- input checks --------------------------------------------------------------------------


def checked_label(value: object, where: str) -> int:
    """-1 for None, else 0 or 1; anything else (a float, 2, a string) is refused."""
    if value is None:
        return -1
    if isinstance(value, float) or value not in (0, 1):
        raise ValueError(f"{where} must be 0, 1, a bool or None; got {value!r}")
    return int(bool(value))


def checked_probability(value: float | None, where: str) -> float:
    if value is None:
        return math.nan
    p = float(value)
    if not math.isnan(p) and not 0.0 <= p <= 1.0:
        raise ValueError(f"{where} must lie in [0, 1] (or be None); got {value!r}")
    return p


def checked_score(value: float | None, where: str) -> float:
    if value is None:
        return math.nan
    x = float(value)
    if math.isinf(x):
        raise ValueError(f"{where} must be finite (or None/NaN when missing); got {value!r}")
    return x

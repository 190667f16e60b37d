"""A behaviour check of a metric, and its result.

A check perturbs real inputs and states the effect the metric should show: a `direction` (the
perturbation moves the value one way), an `invariance` (it leaves the value unchanged), a
`discrimination` (clean and planted inputs are told apart) or `bounds` (values stay in range).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

Kind = Literal["direction", "invariance", "discrimination", "bounds"]
KINDS: tuple[Kind, ...] = get_args(Kind)

DEFAULT_TOLERANCE = 1e-9
"""Absolute tolerance of an invariance: values this close count as unchanged."""


@dataclass(frozen=True)
class Observation:
    """What a check's computation saw: the value(s) as text and whether they meet the claim."""

    observed: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Check:
    """One declared behaviour of one metric.

    Attributes:
        metric: The metric's name (a scorer's or an analysis function's).
        name: Short, unique within the metric.
        kind: direction, invariance, discrimination or bounds.
        expected: The claim, as shown in the report.
        observe: Computes the observed value(s) through the package's real metric code and
            judges them against the claim, tolerance included.
        known_gaps: (judge model, reason) pairs: judges known not to show this behaviour
            (measured, with the reason). For such a judge a failure is reported as a known
            gap and does not fail the run; every other judge must pass.
        requires: (module, extra) pairs: the check needs these optional modules and is
            skipped, naming the extra to install, when one is missing.
    """

    metric: str
    name: str
    kind: Kind
    expected: str
    observe: Callable[[], Observation]
    known_gaps: tuple[tuple[str, str], ...] = ()
    requires: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"check {self.name!r}: unknown kind {self.kind!r}; one of {KINDS}")

    @property
    def id(self) -> str:
        return f"{self.metric}/{self.name}"

    def run(self) -> Result:
        """Run the check; an exception becomes a failed result naming it, so one broken metric
        never stops the other checks."""
        missing = [(m, extra) for m, extra in self.requires if importlib.util.find_spec(m) is None]
        if missing:
            needs = ", ".join(f"{m} (the `{extra}` extra)" for m, extra in missing)
            return Result(self, observed="not run", passed=True, skipped=f"needs {needs}")
        try:
            seen = self.observe()
        except Exception as exc:  # any failure of the metric is a finding, not a crash
            error = f"{type(exc).__name__}: {exc}"
            return Result(self, observed="error", passed=False, detail=error, error=error)
        gap = self._known_gap() if not seen.passed else None
        if gap is not None:
            return Result(self, seen.observed, passed=True, detail=seen.detail, known_gap=gap)
        return Result(self, observed=seen.observed, passed=seen.passed, detail=seen.detail)

    def _known_gap(self) -> str | None:
        if not self.known_gaps:
            return None
        from longform_evals.checks.judge import judge_name  # only judged checks have gaps

        return dict(self.known_gaps).get(judge_name())


@dataclass(frozen=True)
class Result:
    """The outcome of one check; `error` is set when the computation raised."""

    check: Check
    observed: str
    passed: bool
    detail: str = ""
    error: str | None = None
    known_gap: str | None = None
    """Set when the check failed for a judge its `known_gaps` name (and so counts as passed)."""
    skipped: str | None = None
    """Set when the check could not run for want of an optional module (it counts as passed)."""

    @property
    def verdict(self) -> str:
        """`pass`, `FAIL`, `known gap` or `skipped`, as the report shows it."""
        if self.skipped is not None:
            return "skipped"
        if self.known_gap is not None:
            return "known gap"
        return "pass" if self.passed else "FAIL"


# --------------------------------------------------------------------------------------------
# Helpers the check modules share to judge values and show them.


def show(values: Mapping[str, float]) -> str:
    """`{"rouge1": 0.5}` -> `rouge1=0.500`."""
    return ", ".join(f"{k}={v:.4g}" for k, v in values.items())


def unchanged(
    before: Mapping[str, float], after: Mapping[str, float], tolerance: float = DEFAULT_TOLERANCE
) -> Observation:
    """An invariance: every key of `before` within `tolerance` of `after` (NaN equals NaN)."""
    moved = {
        k: (v, after[k])
        for k, v in before.items()
        if not (math.isnan(v) and math.isnan(after[k])) and not abs(v - after[k]) <= tolerance
    }
    detail = "; ".join(f"{k}: {a:.6g} -> {b:.6g}" for k, (a, b) in moved.items())
    return Observation(f"max change {_max_change(before, after):.3g}", not moved, detail)


def _max_change(before: Mapping[str, float], after: Mapping[str, float]) -> float:
    changes = [abs(v - after[k]) for k, v in before.items() if not math.isnan(v - after[k])]
    return max(changes, default=0.0)


def within(values: Mapping[str, float], low: float, high: float) -> Observation:
    """Bounds: every value in [low, high] (NaN fails: a bound check wants a number)."""
    out = {k: v for k, v in values.items() if not low <= v <= high}
    spread = f"range [{min(values.values()):.4g}, {max(values.values()):.4g}]" if values else ""
    detail = "; ".join(f"{k}={v:.6g}" for k, v in out.items())
    return Observation(f"{len(values)} values, {spread}", not out, detail)

"""The one shape of a judge's verdict on a unit (a summary sentence or claim), whichever table
the judge comes from: the coherence judges (`coherence/judges.py`) and the faithfulness
support judges (`faithfulness/support_judges.py`) both give their judgements as
:class:`UnitVerdict`, and a :class:`UnitJudge` gives one per unit it is asked about.

A verdict says whether the judge flags a problem at its own threshold (`flag`), how likely a
problem it thinks the unit has where it says (`probability`), whether its answer could be read
at all (`readable`), and the answer as the judge gave it (`answer`). The positive class is the
problem the judge should find, the meaning `analysis/agreement.py` gives labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from inspect_ai.solver import TaskState

__all__ = ["JudgedUnits", "UnitJudge", "UnitVerdict", "support_verdict"]


@dataclass(frozen=True)
class UnitVerdict:
    """A judge's verdict on one unit."""

    flag: bool | None
    """True: the judge flags a problem at its own threshold; None: no verdict was read."""
    probability: float | None
    """The judge's probability of a problem, where it gives one (probe judges, support
    judges); None for a verdict without one (the paper's coherence prompt) or unread."""
    readable: bool
    """Whether the judge's answer could be read; an unreadable unit counts as unjudged."""
    answer: str
    """The judge's answer as logged (the reason it could not be read, when it could not)."""


def support_verdict(support: float | None, threshold: float, answer: str = "") -> UnitVerdict:
    """A support judge's value in the unit-judge shape: flagged below the judge's sentence
    threshold, its probability of a problem 1 - support (None: unread)."""
    if support is None:
        return UnitVerdict(None, None, False, answer)
    return UnitVerdict(bool(support < threshold), 1.0 - support, True, answer)


@dataclass(frozen=True)
class JudgedUnits:
    """A judge's verdicts on the units it was asked about, in order."""

    verdicts: list[UnitVerdict]
    scores: list[float | None]
    """The judge's own score of each unit, the way its scorer counts it (coherence: 1 for a
    sentence left unflagged; faithfulness: the support); None where unread."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """How they were asked (judge, mode, calibration, calls, the judge's own records)."""


class UnitJudge(Protocol):
    """A judge that gives a :class:`UnitVerdict` per unit of a sample's summary."""

    async def judge_units(
        self, state: TaskState, units: list[str], statements: list[str] | None = None
    ) -> JudgedUnits:
        """Verdicts on ``units`` (one per unit, in order).

        Args:
            state: the sample being scored (its documents, for judges that read a source).
            units: the worded units to judge.
            statements: what each unit is judged as where that differs from the unit (an
                aside with the sentence it follows); None: the units themselves. Judges that
                read units alone ignore it.
        """
        ...

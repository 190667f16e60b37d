"""Limits on the work of judging one sample, and the plan of that work checked against them.

A text's size in characters does not bound what judging it costs: a judge asks about every
sentence (or every pair of a source unit and a sentence), and most prompts repeat the summary
or the earlier sentences, so a megabyte of short sentences would make hundreds of thousands of
calls and hundreds of gigabytes of prompts. A scorer therefore plans its calls before making
any (:class:`WorkPlan`: how many, the longest judged text of one, their judged text in all)
and refuses a sample whose plan passes a limit (:func:`excess` names it and its setting).

Each limit is set by an environment variable (a positive whole number), read when a sample
is scored:

=============================  ============  ==================================================
variable                       default       what it bounds
=============================  ============  ==================================================
``LONGFORM_MAX_SENTENCES``     2,000         sentences judged in one summary (or answer)
``LONGFORM_MAX_JUDGE_CALLS``   20,000        planned judge calls for one sample (first tries)
``LONGFORM_MAX_CALL_CHARS``    400,000       characters of judged text in one call
``LONGFORM_MAX_JUDGED_CHARS``  100,000,000   characters of judged text over a sample's calls
=============================  ============  ==================================================

"Judged text" is what a call shows of the sample (the summary, sentences, source units), not
the prompt's fixed instructions and examples, which add a constant per call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "LIMIT_SETTINGS",
    "WorkLimitError",
    "WorkLimits",
    "WorkPlan",
    "excess",
    "support_plan",
    "work_limits",
]


@dataclass(frozen=True)
class WorkLimits:
    """The most work one sample may ask of its judge."""

    max_sentences: int = 2_000
    max_judge_calls: int = 20_000
    max_call_chars: int = 400_000
    max_judged_chars: int = 100_000_000


LIMIT_SETTINGS: dict[str, str] = {
    "max_sentences": "LONGFORM_MAX_SENTENCES",
    "max_judge_calls": "LONGFORM_MAX_JUDGE_CALLS",
    "max_call_chars": "LONGFORM_MAX_CALL_CHARS",
    "max_judged_chars": "LONGFORM_MAX_JUDGED_CHARS",
}
"""The environment variable that sets each limit."""


class WorkLimitError(ValueError):
    """A sample whose judging would pass a work limit (the message names it and its setting)."""


def _setting(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    text = raw.strip().replace("_", "").replace(",", "")
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{name} must be a positive whole number, not {raw!r}")
    return int(text)


def work_limits() -> WorkLimits:
    """The limits in force: each variable of :data:`LIMIT_SETTINGS` when set, else its default.

    Raises:
        ValueError: naming a variable set to anything but a positive whole number.
    """
    base = WorkLimits()
    return WorkLimits(
        **{field: _setting(var, getattr(base, field)) for field, var in LIMIT_SETTINGS.items()}
    )


@dataclass(frozen=True)
class WorkPlan:
    """The judge calls one sample would make, planned before the first."""

    sentences: int
    """Sentences (or statements) judged."""
    calls: int
    """Judge calls, first tries only (a retry of an unreadable answer adds at most
    `max_attempts - 1` calls per call)."""
    longest_call: int
    """Characters of judged text in the call that shows the most."""
    judged_chars: int
    """Characters of judged text summed over the calls."""

    def measures(self) -> dict[str, int]:
        """The plan's size against each limit's name."""
        return {
            "max_sentences": self.sentences,
            "max_judge_calls": self.calls,
            "max_call_chars": self.longest_call,
            "max_judged_chars": self.judged_chars,
        }


_WHAT = {
    "max_sentences": "sentences to judge",
    "max_judge_calls": "judge calls",
    "max_call_chars": "characters of judged text in one call",
    "max_judged_chars": "characters of judged text over all calls",
}


def excess(plan: WorkPlan, limits: WorkLimits | None = None, what: str = "") -> str | None:
    """The first limit ``plan`` passes, as one line naming it, the plan's figure and the
    variable that raises it; None when the plan is within every limit. ``what`` names the
    work ("booookscore, sentence mode") at the start of the line."""
    limits = limits or work_limits()
    for name, value in plan.measures().items():
        allowed = getattr(limits, name)
        if value > allowed:
            lead = f"{what}: " if what else ""
            return (
                f"{lead}{value:,} {_WHAT[name]}, more than the limit of {allowed:,} ({name}; "
                f"{LIMIT_SETTINGS[name]}=N raises it); not judged"
            )
    return None


def support_plan(
    units: list[int],
    statements: list[int],
    parts: list[int] | None = None,
    per_statement: int | None = None,
    full: int | None = None,
) -> WorkPlan:
    """The plan of a support judge asking about every (unit, statement) pair, one call each.

    Args:
        units: the length of each source unit in characters.
        statements: the length of each statement (a summary sentence, or one with its asides).
        parts: the length of each part also judged (asked like a statement).
        per_statement: units read per statement under retrieval (None: every unit).
        full: the length of all documents joined, when each statement is also judged against
            them at once (one more call per statement).
    """
    asked = statements + (parts or [])
    n_units, n_asked = len(units), len(asked)
    widest_unit, widest_asked = max(units, default=0), max(asked, default=0)
    if per_statement is None or per_statement >= n_units:
        calls = n_units * n_asked
        judged = n_asked * sum(units) + n_units * sum(asked)
    else:
        calls = per_statement * n_asked
        judged = calls * widest_unit + per_statement * sum(asked)
    longest = widest_unit + widest_asked if calls else 0
    if full is not None:
        calls += n_asked
        judged += n_asked * full + sum(asked)
        longest = max(longest, full + widest_asked)
    return WorkPlan(len(statements), calls, longest, judged)

"""Every judge of the package, one entry each: coherence judges (a BooookScore mode each),
faithfulness support judges and the answer raters.

An entry is shaped like a strategy's (`solvers/strategies.py`): its kind and name, how to
build or run it, the options type it is asked with, its calls on a unit of work (the dry run's
estimate: `tasks/costs.py`), the step kinds its calls are tallied under, the kind of packaged
calibration file that says how good it is (`judges/calibration/<kind>_<model>.json`) and the
task arguments its judge card records. The modules that define judges register them
(`coherence/judges.py`, `faithfulness/support_judges.py`, `raters/rating.py`); a judge registered
later, by a user or a test (`with registered(entry):`), is offered everywhere the kind's judges are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "JudgeEntry",
    "JudgeFamily",
    "JudgeWork",
    "judge_entry",
    "judge_names",
    "register_judge",
    "registered",
]

JudgeFamily = Literal["coherence", "faithfulness", "rater"]
"""What a judge decides: whether a summary sentence confuses a reader, whether a statement is
supported by a text, or how an answer compares with a reference."""


@dataclass(frozen=True)
class JudgeWork:
    """What one judged item asks of a judge, for its cost."""

    items: int
    """Sentences of a summary (coherence), statements (faithfulness) or references (raters)."""
    units: int = 1
    """Texts each statement is judged against (faithfulness: the units it reads)."""
    judge: str | None = None
    """The judge model's name, for judges whose calls depend on its calibration."""
    batch: int = 0
    """Items per call where the judge batches them (0: its default)."""


@dataclass(frozen=True)
class JudgeEntry:
    """One judge: what it is, how it runs, what it costs."""

    family: JudgeFamily
    name: str
    run: Callable[..., Any]
    """The coherence judge's coroutine ``(options, model, sentences, extra)``, the support
    judge's builder ``(options)``, or the rater's prompt name."""
    options_type: type
    """The options it is asked with (`CoherenceJudging`, `JudgeOptions`, ...)."""
    cost: Callable[[JudgeWork], float]
    """Its model calls on one item (first tries; retries and readings come on top)."""
    steps: tuple[str, ...] = ("judge",)
    """The step kinds its calls are tallied under (none for a judge that calls no Inspect
    model, such as a local classifier)."""
    calibration_kind: str | None = None
    """The kind of packaged calibration file that says how good it is (None: none)."""
    card_settings: tuple[str, ...] = ()
    """The task arguments its judge card records (`reports/judge_card.py`)."""


_ENTRIES: dict[tuple[str, str], JudgeEntry] = {}


def register_judge(entry: JudgeEntry) -> JudgeEntry:
    """Add ``entry`` (registering the same entry again does nothing).

    Raises:
        ValueError: If another entry of its family has its name.
    """
    key = (entry.family, entry.name)
    known = _ENTRIES.get(key)
    if known is not None and known != entry:
        raise ValueError(f"a {entry.family} judge named {entry.name!r} is already registered")
    _ENTRIES[key] = entry
    return entry


@contextmanager
def registered(entry: JudgeEntry) -> Iterator[JudgeEntry]:
    """``entry`` registered for the ``with`` block only (a user's judge in a test)."""
    key = (entry.family, entry.name)
    before = _ENTRIES.get(key)
    _ENTRIES[key] = entry
    try:
        yield entry
    finally:
        if before is None:
            _ENTRIES.pop(key, None)
        else:
            _ENTRIES[key] = before


def judge_names(family: JudgeFamily) -> tuple[str, ...]:
    """The names of the family's judges, in order of registration."""
    return tuple(name for kind, name in _ENTRIES if kind == family)


def judge_entry(family: JudgeFamily, name: str) -> JudgeEntry:
    """The entry of judge ``name`` of ``family``.

    Raises:
        ValueError: Naming the unknown judge and the known ones.
    """
    try:
        return _ENTRIES[(family, name)]
    except KeyError:
        known = ", ".join(judge_names(family))
        raise ValueError(f"unknown {family} judge {name!r}; available: {known}") from None

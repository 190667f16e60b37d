"""Summarization strategies by name: one table from a name to its solver factory.

Every task that takes ``-T strategy=`` builds its solver with :func:`summary_solver`, from a
name, the shared :class:`SummarySettings` and the strategy's own options (``nexus_sum``'s
``preprocess`` and ``compress``). The multi-document strategies of
:func:`~longform_evals.solvers.multidoc.summary.multidoc_summary` are another family, not
listed here.

To add a strategy: write its solver in a ``solvers/`` module (templates in a ``prompts/``
folder) whose factory takes the :class:`SummarySettings` first, add one line to ``_TABLE``
(the factory and its own options with their defaults) and test the solver. ``booksum`` and
``squality`` offer it at once; add its name where their docstrings list the strategies
(``tests/solvers/test_strategies.py`` checks those lists and builds every entry).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.solver import Solver

from longform_evals.solvers.nexus.pipeline import nexus_sum
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.full_context import full_context
from longform_evals.solvers.summarize.hierarchical import hierarchical_merge
from longform_evals.solvers.summarize.incremental import incremental_update

__all__ = [
    "SUMMARY_STRATEGIES",
    "SummarySettings",
    "check_strategy",
    "strategy_options",
    "summary_solver",
]


@dataclass(frozen=True)
class _Strategy:
    """A table entry: the solver factory (taking the settings first) and its options."""

    factory: Callable[..., Solver]
    options: Mapping[str, Any] = field(default_factory=dict)
    """Options of this strategy alone, with the values passed when a caller gives none."""


_TABLE: dict[str, _Strategy] = {
    "full": _Strategy(full_context),
    "hierarchical": _Strategy(hierarchical_merge),
    "incremental": _Strategy(incremental_update),
    "nexus_sum": _Strategy(nexus_sum, {"preprocess": True, "compress": True}),
}

SUMMARY_STRATEGIES: tuple[str, ...] = tuple(sorted(_TABLE))
"""Every name :func:`summary_solver` knows, sorted."""


def strategy_options(name: str) -> Mapping[str, Any]:
    """The options strategy ``name`` takes, with their defaults (none for most)."""
    return _TABLE[name].options


def check_strategy(name: str, offered: Collection[str] = SUMMARY_STRATEGIES) -> None:
    """Raise ValueError, listing the names sorted, unless ``name`` is registered and offered.

    ``offered``: the names a caller accepts (a task offering some of the strategies).
    """
    known = sorted(set(offered) & set(_TABLE))
    if name not in known:
        raise ValueError(f"unknown strategy {name!r}; use one of {', '.join(known)}")


def summary_solver(name: str, settings: SummarySettings | None = None, /, **options: Any) -> Solver:
    """The solver of a summarization strategy.

    Args:
        name: A name in :data:`SUMMARY_STRATEGIES`.
        settings: What every strategy shares (default: :class:`SummarySettings` defaults).
        **options: Options of this strategy alone (:func:`strategy_options`).

    Raises:
        ValueError: On an unknown name (the message lists the known ones, sorted), or an
            option the strategy does not take (the message names the strategies that do).
    """
    check_strategy(name)
    strategy = _TABLE[name]
    _refuse_foreign(name, options)
    return strategy.factory(settings or SummarySettings(), **{**strategy.options, **options})


def _refuse_foreign(name: str, options: Mapping[str, Any]) -> None:
    """Raise on an option strategy ``name`` does not take, saying which strategies take it."""
    foreign = sorted(set(options) - set(_TABLE[name].options))
    if not foreign:
        return
    given = ", ".join(f"{option}={options[option]!r}" for option in foreign)
    owners = sorted(other for other, s in _TABLE.items() if set(foreign) & set(s.options))
    kind = "an option" if len(foreign) == 1 else "options"
    whose = f", {kind} of {' and '.join(owners)}" if owners else ""
    takes = ", ".join(_TABLE[name].options) or "no options"
    raise ValueError(f"strategy {name!r} does not take {given}{whose}; it takes {takes}")

"""Reading strategies by name (the ReadAgent paper, "A Human-Inspired Reading Agent with Gist
Memory of Very Long Contexts", arXiv:2402.09727, §4): :func:`reading` builds the solver of a
name in the strategy registry's ``reading`` family (`solvers/strategies.py`), for tasks that
take ``-T strategy=...``."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from inspect_ai.solver import Solver

from longform_evals.solvers.settings import ReadingSettings
from longform_evals.solvers.strategies import strategy_entry, strategy_names

__all__ = ["READING_STRATEGIES", "reading"]

READING_STRATEGIES: tuple[str, ...] = strategy_names("reading")
"""The packaged reading strategies (:func:`~longform_evals.solvers.strategies.strategy_names`
also sees those a user registers)."""


def reading(
    strategy: str = "read_agent_p",
    settings: ReadingSettings | None = None,
    offered: Collection[str] | None = None,
    **options: Any,
) -> Solver:
    """The solver of a reading strategy.

    Args:
        strategy: A registered reading strategy: ``full`` (:func:`full_text`),
            ``truncate_first`` / ``truncate_last`` (:func:`truncated`), ``gist_memory``,
            ``read_agent_p`` (:func:`read_agent_parallel`), ``read_agent_s``
            (:func:`read_agent_sequential`), ``bm25`` (:func:`bm25_pages`), ``embedding``
            (:func:`embedding_pages`), or one a user registered.
        settings: What every reading strategy takes (answer temperature and length,
            templates, caching).
        offered: The options the caller lets its users set (a task's ``-T`` names): an
            error lists only those of them the strategy takes. None: all it takes.
        **options: That strategy's own options (e.g. ``max_pages=2``, ``k=3``, ``words=6000``).

    Raises:
        ValueError: On an unknown strategy, or an option the strategy does not take (the
            message lists those it takes).
    """
    entry = strategy_entry("reading", strategy)
    takes = entry.option_names()
    unknown = sorted(set(options) - set(takes))
    if unknown:
        settable = [p for p in takes if offered is None or p in offered]
        raise ValueError(
            f"reading strategy {strategy!r} does not take {', '.join(unknown)}; "
            f"it takes {', '.join(settable) or 'no parameter'}"
        )
    return entry.build(settings, **options)

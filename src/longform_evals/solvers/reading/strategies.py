"""One name per reading strategy (the ReadAgent paper, "A Human-Inspired Reading Agent with
Gist Memory of Very Long Contexts", arXiv:2402.09727, §4): :func:`reading` maps a strategy
name and its parameters to the solver, for tasks that take ``-T strategy=...``."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection
from typing import Any

from inspect_ai.solver import Solver

from longform_evals.solvers.reading import read_agent, retrieval

__all__ = ["READING_STRATEGIES", "reading"]

_FACTORIES: dict[str, tuple[Callable[..., Solver], dict[str, Any]]] = {
    "full": (retrieval.full_text, {}),
    "truncate_first": (retrieval.truncated, {"keep": "first"}),
    "truncate_last": (retrieval.truncated, {"keep": "last"}),
    "gist_memory": (read_agent.gist_memory, {}),
    "read_agent_p": (read_agent.read_agent_parallel, {}),
    "read_agent_s": (read_agent.read_agent_sequential, {}),
    "bm25": (retrieval.bm25_pages, {}),
    "embedding": (retrieval.embedding_pages, {}),
}

READING_STRATEGIES: tuple[str, ...] = tuple(_FACTORIES)
"""The strategy names :func:`reading` accepts."""


def reading(
    strategy: str = "read_agent_p", offered: Collection[str] | None = None, **params: Any
) -> Solver:
    """The solver of a reading strategy.

    Args:
        strategy: One of :data:`READING_STRATEGIES`: ``full`` (:func:`full_text`),
            ``truncate_first`` / ``truncate_last`` (:func:`truncated`), ``gist_memory``,
            ``read_agent_p`` (:func:`read_agent_parallel`), ``read_agent_s``
            (:func:`read_agent_sequential`), ``bm25`` (:func:`bm25_pages`) or ``embedding``
            (:func:`embedding_pages`).
        offered: The parameters the caller lets its users set (a task's ``-T`` names): an
            error lists only those of them the strategy takes. None: all it takes.
        **params: That solver's parameters (e.g. ``max_pages=2``, ``k=3``, ``words=6000``).

    Raises:
        ValueError: On an unknown strategy, or a parameter the strategy does not take (the
            message lists those it takes).
    """
    if strategy not in _FACTORIES:
        raise ValueError(
            f"unknown reading strategy {strategy!r}; use one of {', '.join(READING_STRATEGIES)}"
        )
    factory, fixed = _FACTORIES[strategy]
    accepted = [p for p in inspect.signature(factory).parameters if p not in fixed]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        settable = [p for p in accepted if offered is None or p in offered]
        raise ValueError(
            f"reading strategy {strategy!r} does not take {', '.join(unknown)}; "
            f"it takes {', '.join(settable) or 'no parameter'}"
        )
    return factory(**fixed, **params)

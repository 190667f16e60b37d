"""Every strategy by family and name: one registry of the summarization, reading and
multi-document strategies.

An entry (:class:`Strategy`) says how to build the solver (its factory takes the family's
settings first: :class:`SummarySettings`, :class:`ReadingSettings` or
:class:`MultidocSettings`, then its own options), which options a user may set, the step
kinds its model calls are tallied under, its cost function for ``longform run --dry-run``
(`solvers/costs.py`) and the lm-eval wrapper model that runs it (``longform-<name>``). The
tasks, the cost estimate and the lm-eval wrappers read this registry, so a name missing here
is an error everywhere.

To add a strategy: write its solver and its cost in one module (taking the settings first, its
templates in one folder of ``prompts/``, the question-focused ones in its ``focused/``
subfolder), add one line to ``_BUILT_IN`` below (or call :func:`register_strategy` from your
own package) and test it. Every task of its family offers it at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from inspect_ai.solver import Solver

import longform_evals.solvers.costs as costs
from longform_evals.solvers.multidoc.summary import MULTIDOC_SHAPES, multidoc_summary
from longform_evals.solvers.nexus.pipeline import nexus_cost, nexus_sum
from longform_evals.solvers.reading import read_agent, retrieval
from longform_evals.solvers.settings import MultidocSettings, ReadingSettings, SummarySettings
from longform_evals.solvers.summarize.full_context import full_context
from longform_evals.solvers.summarize.hierarchical import hierarchical_merge
from longform_evals.solvers.summarize.incremental import incremental_update

__all__ = [
    "SUMMARY_STRATEGIES",
    "Strategy",
    "StrategyFamily",
    "SummarySettings",
    "build_strategy",
    "check_strategy",
    "register_strategy",
    "registered",
    "strategy_entry",
    "strategy_names",
    "strategy_options",
    "summary_solver",
]

StrategyFamily = Literal["summary", "reading", "multidoc"]
FAMILIES: tuple[StrategyFamily, ...] = get_args(StrategyFamily)

_SETTINGS: dict[StrategyFamily, type] = {
    "summary": SummarySettings,
    "reading": ReadingSettings,
    "multidoc": MultidocSettings,
}
"""The settings type every strategy of a family takes first."""


@dataclass(frozen=True)
class Strategy:
    """One strategy: how to build it, what a user may set, what it costs, who wraps it."""

    family: StrategyFamily
    name: str
    factory: Callable[..., Solver]
    """Builds the solver: the family's settings first, then ``fixed`` and the options."""
    cost: costs.StrategyCost
    """Its calls and tokens on one sample (`solvers/costs.py`)."""
    steps: tuple[str, ...]
    """The step kinds its model calls are tallied under (`models/step_usage.py`)."""
    options: Mapping[str, Any] | None = None
    """Options a user may set, with the values passed when a user gives none; None: every
    parameter of the factory after the settings (except ``fixed``), passed only when given."""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """Arguments always passed, that a user may not set (``keep`` of ``truncate_first``)."""
    wrapper: str | None = None
    """The lm-eval model that runs it (``longform-<wrapper>``); None: lm-eval does not."""
    wrapper_choice: tuple[str, str] | None = None
    """Where one wrapper runs several strategies of a family: the ``model_args`` key and
    value choosing this one (the first registered is the default)."""

    @property
    def settings_type(self) -> type:
        return _SETTINGS[self.family]

    def option_names(self) -> tuple[str, ...]:
        """The options a user may set."""
        if self.options is not None:
            return tuple(self.options)
        _, *others = inspect.signature(self.factory).parameters
        return tuple(name for name in others if name not in self.fixed)

    def defaults(self) -> dict[str, Any]:
        """What each option is when a user gives none: the value ``options`` passes, else
        the factory's own default (an option without either is left out)."""
        params = inspect.signature(self.factory).parameters
        out: dict[str, Any] = {}
        for name in self.option_names():
            given = (self.options or {}).get(name)
            default = params[name].default if name in params else inspect.Parameter.empty
            value = given if given is not None else default
            if value is not inspect.Parameter.empty and value is not None:
                out[name] = value
        return out

    def build(self, settings: Any = None, /, **options: Any) -> Solver:
        """The solver with ``settings`` (default: the family's defaults) and ``options``.

        Raises:
            ValueError: On an option it does not take (naming the strategies that do).
        """
        _refuse_foreign(self, options)
        passed = {**(self.options or {}), **self.fixed, **options}
        return self.factory(settings or self.settings_type(), **passed)


_REGISTRY: dict[StrategyFamily, dict[str, Strategy]] = {family: {} for family in FAMILIES}


def register_strategy(entry: Strategy) -> Strategy:
    """Add ``entry`` to the registry (tasks, cost estimates and lm-eval then offer it).

    Raises:
        ValueError: If its family already has a strategy of that name, or its factory does
            not take the family's settings first.
    """
    if entry.name in _REGISTRY[entry.family]:
        raise ValueError(f"a {entry.family} strategy named {entry.name!r} is registered already")
    first = next(iter(inspect.signature(entry.factory).parameters), None)
    if first != "settings":
        raise ValueError(
            f"strategy {entry.name!r}: its factory must take the settings first, not {first!r}"
        )
    _REGISTRY[entry.family][entry.name] = entry
    return entry


@contextmanager
def registered(entry: Strategy) -> Iterator[Strategy]:
    """``entry`` registered for the duration of a ``with`` block (tests, notebooks)."""
    register_strategy(entry)
    try:
        yield entry
    finally:
        del _REGISTRY[entry.family][entry.name]


def strategy_names(family: StrategyFamily) -> tuple[str, ...]:
    """The names registered in ``family``, in registration order."""
    return tuple(_REGISTRY[family])


def strategies(family: StrategyFamily | None = None) -> tuple[Strategy, ...]:
    """Every registered entry (of ``family``), in registration order."""
    chosen = FAMILIES if family is None else (family,)
    return tuple(entry for f in chosen for entry in _REGISTRY[f].values())


def check_strategy(
    name: str, offered: Collection[str] | None = None, family: StrategyFamily = "summary"
) -> None:
    """Raise ValueError, listing the names sorted, unless ``name`` is registered in ``family``
    and ``offered`` (the names a caller accepts; None: all of the family)."""
    known = sorted(set(_REGISTRY[family]) & set(_REGISTRY[family] if offered is None else offered))
    if name not in known:
        raise ValueError(f"unknown {_what(family)} {name!r}; use one of {', '.join(known)}")


def strategy_entry(family: StrategyFamily, name: str) -> Strategy:
    """The entry of ``name`` in ``family``, or a ValueError listing the known names."""
    check_strategy(name, family=family)
    return _REGISTRY[family][name]


def build_strategy(
    family: StrategyFamily, name: str, settings: Any = None, /, **options: Any
) -> Solver:
    """The solver of strategy ``name`` of ``family`` (see :meth:`Strategy.build`)."""
    return strategy_entry(family, name).build(settings, **options)


def summary_solver(name: str, settings: SummarySettings | None = None, /, **options: Any) -> Solver:
    """The solver of a summarization strategy.

    Args:
        name: A registered summary strategy (:func:`strategy_names`).
        settings: What every strategy shares (default: :class:`SummarySettings` defaults).
        **options: Options of this strategy alone (:func:`strategy_options`).

    Raises:
        ValueError: On an unknown name (the message lists the known ones, sorted), or an
            option the strategy does not take (the message names the strategies that do).
    """
    return build_strategy("summary", name, settings, **options)


def strategy_options(name: str, family: StrategyFamily = "summary") -> Mapping[str, Any]:
    """The options strategy ``name`` passes when a user gives none (none for most)."""
    return strategy_entry(family, name).options or {}


def _what(family: StrategyFamily) -> str:
    # reading tasks say which kind of strategy, as their errors always have
    return "reading strategy" if family == "reading" else "strategy"


def _refuse_foreign(entry: Strategy, options: Mapping[str, Any]) -> None:
    """Raise on an option ``entry`` does not take, saying which strategies take it."""
    takes = entry.option_names()
    foreign = sorted(set(options) - set(takes))
    if not foreign:
        return
    given = ", ".join(f"{option}={options[option]!r}" for option in foreign)
    owners = sorted(
        other.name for other in strategies(entry.family) if set(foreign) & set(other.option_names())
    )
    kind = "an option" if len(foreign) == 1 else "options"
    whose = f", {kind} of {' and '.join(owners)}" if owners else ""
    raise ValueError(
        f"{_what(entry.family)} {entry.name!r} does not take {given}{whose}; "
        f"it takes {', '.join(takes) or 'no options'}"
    )


def _multidoc(name: str) -> Callable[..., Solver]:
    """The factory of multi-document strategy ``name`` (one solver runs them all)."""

    def factory(settings: MultidocSettings | None = None, **options: Any) -> Solver:
        return multidoc_summary(name, settings, **options)

    factory.__name__ = factory.__qualname__ = f"multidoc_{name}"
    return factory


_SUMMARY_STEPS = ("chunk_summary", "merge", "update", "compression", "artifact_removal")
_READING_STEPS = ("pagination", "gist", "lookup", "answer")

_BUILT_IN = (
    # summaries of one long text (BooookScore §3, NexusSum)
    Strategy("summary", "full", full_context, costs.full_summary_cost, ("full_summary",),
             options={}, wrapper="truncate"),
    Strategy("summary", "hierarchical", hierarchical_merge, costs.hierarchical_cost,
             _SUMMARY_STEPS, options={}, wrapper="hierarchical"),
    Strategy("summary", "incremental", incremental_update, costs.incremental_cost,
             _SUMMARY_STEPS, options={}, wrapper="incremental"),
    Strategy("summary", "nexus_sum", nexus_sum, nexus_cost,
             ("preprocess", "chunk_summary", "compression", "rewrite"),
             options={"preprocess": True, "compress": True}, wrapper="nexussum"),
    # answers to questions about one long text (ReadAgent §4)
    Strategy("reading", "full", retrieval.full_text, costs.full_text_cost, ("answer",)),
    Strategy("reading", "truncate_first", retrieval.truncated, costs.truncated_cost, ("answer",),
             fixed={"keep": "first"}, wrapper="truncate"),
    Strategy("reading", "truncate_last", retrieval.truncated, costs.truncated_cost, ("answer",),
             fixed={"keep": "last"}),
    Strategy("reading", "gist_memory", read_agent.gist_memory,
             costs.gist_cost(lambda pages: 0, expands=False), _READING_STEPS),
    Strategy("reading", "read_agent_p", read_agent.read_agent_parallel,
             costs.gist_cost(lambda pages: 1, expands=True), _READING_STEPS,
             wrapper="readagent", wrapper_choice=("lookup", "parallel")),
    Strategy("reading", "read_agent_s", read_agent.read_agent_sequential,
             costs.gist_cost(lambda pages: pages, expands=True), _READING_STEPS,
             wrapper="readagent", wrapper_choice=("lookup", "sequential")),
    Strategy("reading", "bm25", retrieval.bm25_pages, costs.retrieved_cost,
             ("pagination", "answer")),
    Strategy("reading", "embedding", retrieval.embedding_pages, costs.retrieved_cost,
             ("pagination", "answer")),
    # summaries of several documents against positional bias (Wan et al. §5)
    *(Strategy("multidoc", name, _multidoc(name), shape.cost, shape.steps,
               options=dict(shape.options))
      for name, shape in MULTIDOC_SHAPES.items()),
)  # fmt: skip

for _entry in _BUILT_IN:
    register_strategy(_entry)

SUMMARY_STRATEGIES: tuple[str, ...] = tuple(sorted(strategy_names("summary")))
"""The packaged summary strategies, sorted (:func:`strategy_names` also sees those a user
registers)."""

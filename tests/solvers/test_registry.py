"""The strategy registry: every entry of every family is well formed, and what it declares
(step kinds, options, cost) is what its solver does."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from inspect_ai.log import EvalSample

from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.models.step_usage import step_kinds, step_usage
from longform_evals.solvers.costs import Cost
from longform_evals.solvers.strategies import (
    FAMILIES,
    Strategy,
    build_strategy,
    check_strategy,
    register_strategy,
    strategies,
    strategy_entry,
)
from longform_evals.solvers.summarize.full_context import full_context

Run = Callable[..., tuple[Any, EvalSample, ScriptedModelAPI]]
ENTRIES = [pytest.param(e, id=f"{e.family}:{e.name}") for e in strategies()]
DOCUMENT = "\n\n".join(
    f"Paragraph {i}. Anna walked to the harbour and counted the boats, one by one, slowly."
    for i in range(12)
)


def test_every_family_has_strategies() -> None:
    assert all(strategies(family) for family in FAMILIES)


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_entry_takes_its_familys_settings_first(entry: Strategy) -> None:
    first = next(iter(inspect.signature(entry.factory).parameters.values()))
    assert first.name == "settings" and first.default is None
    assert entry.settings_type()  # its settings build from their defaults alone
    assert set(entry.fixed).isdisjoint(entry.option_names())


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_entry_declares_registered_step_kinds(entry: Strategy) -> None:
    assert entry.steps and set(entry.steps) <= set(step_kinds())


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_entry_prices_a_document_and_grows_with_it(entry: Strategy) -> None:
    """Priced with complete arguments (a task's, with the strategy's own defaults), each
    entry's estimate counts its calls under the step kinds it declares."""
    args = {
        "chunk_size": 1000,
        "context_window": 8192,
        "max_summary_tokens": 900,
        "max_words": 400,
        "words": 6000,
        "preprocess": True,
        "compress": True,
        "k": 3,
        "max_pages": 5,
        **entry.defaults(),
    }
    short = entry.cost([2_000, 2_000], 1, args)
    long = entry.cost([200_000, 200_000], 1, args)
    assert isinstance(short, Cost) and short.calls >= 1 and short.input_tokens > 0
    assert long.input_tokens >= short.input_tokens
    assert set(long.steps) <= set(entry.steps), set(long.steps) - set(entry.steps)
    assert sum(long.steps.values()) == pytest.approx(long.calls)


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_run_tallies_only_the_declared_step_kinds(run_eval: Run, entry: Strategy) -> None:
    if entry.name == "embedding":
        pytest.importorskip("sentence_transformers")
    solver = build_strategy(entry.family, entry.name)
    _, sample, _ = run_eval(solver, [], DOCUMENT, default="Anna counted the boats.")
    tallied = set(step_usage(sample))
    assert tallied and tallied <= set(entry.steps), tallied - set(entry.steps)


def test_unknown_names_and_duplicates_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown reading strategy 'skim'; use one of bm25, "):
        strategy_entry("reading", "skim")
    with pytest.raises(ValueError, match=r"unknown strategy 'skim'; use one of calibration, "):
        check_strategy("skim", family="multidoc")
    with pytest.raises(ValueError, match="named 'full' is registered already"):
        register_strategy(strategy_entry("summary", "full"))


def test_a_factory_without_settings_first_is_refused() -> None:
    def bare(chunk_size: int = 1) -> Any:
        return full_context()

    with pytest.raises(ValueError, match="must take the settings first, not 'chunk_size'"):
        register_strategy(Strategy("summary", "bare", bare, lambda d, q, a: Cost(), ("merge",)))


def test_reading_options_are_the_factorys_own_and_fixed_ones_are_refused() -> None:
    entry = strategy_entry("reading", "truncate_first")
    assert entry.option_names() == ("words",)
    with pytest.raises(ValueError, match="does not take keep"):
        entry.build(None, keep="last")
    assert "max_pages" in strategy_entry("reading", "read_agent_p").option_names()
    assert strategy_entry("multidoc", "calibration").option_names() == ("k", "seed")
    assert strategy_entry("multidoc", "plain").option_names() == ()

"""The table of summarization strategies, its settings, and the tasks that read it."""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai._util.registry import registry_info, registry_params
from inspect_ai.log import EvalSample
from inspect_ai.solver import Solver

from longform_evals.data.squality import bundled_squality_fixture
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.runs.catalogue import check_task_args
from longform_evals.solvers import settings as defaults
from longform_evals.solvers.strategies import (
    SUMMARY_STRATEGIES,
    SummarySettings,
    check_strategy,
    strategy_entry,
    strategy_names,
    strategy_options,
    summary_solver,
)
from longform_evals.tasks import booookscore as booookscore_module
from longform_evals.tasks.card import TaskCard
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.narrative import booksum, squality
from solvers.summary_support import words_asked

Run = Callable[..., tuple[Any, EvalSample, ScriptedModelAPI]]


def params(solver: Solver) -> dict[str, Any]:
    """The arguments the solver was created with (as the eval log's plan records them)."""
    return registry_params(solver)


def solver_name(solver: Solver) -> str:
    return registry_info(solver).name.split("/")[-1]


def run_strategy(
    run_eval: Run, name: str, settings: SummarySettings | None = None
) -> tuple[EvalSample, ScriptedModelAPI]:
    """Run strategy ``name`` on a short document against a model that always answers briefly."""
    _, sample, model = run_eval(
        summary_solver(name, settings), [], "Anna met Tomas on the bridge.", default="Anna met."
    )
    return sample, model


@pytest.mark.parametrize("name", SUMMARY_STRATEGIES)
def test_every_registered_name_builds_its_solver_with_default_settings(name: str) -> None:
    solver = summary_solver(name)
    assert solver_name(solver) == strategy_entry("summary", name).factory.__name__
    settings = params(solver)["settings"]  # logged field by field
    assert settings["cache"] is True and settings["prompts_dir"] is None


@pytest.mark.parametrize("name", SUMMARY_STRATEGIES)
def test_each_entry_takes_the_settings_first_and_its_options(name: str) -> None:
    entry = strategy_entry("summary", name)
    first, *others = inspect.signature(entry.factory).parameters
    assert first == "settings"
    assert set(entry.option_names()) <= set(others)  # an option is not also a setting


def test_an_unknown_name_lists_the_known_ones_sorted() -> None:
    with pytest.raises(ValueError, match=r"unknown strategy 'skim'; use one of (.+)") as error:
        summary_solver("skim")
    assert str(error.value).endswith(", ".join(sorted(SUMMARY_STRATEGIES)))
    check_strategy("nexus_sum")
    with pytest.raises(ValueError, match=r"'nexus_sum'; use one of full, incremental$"):
        check_strategy("nexus_sum", ("incremental", "full"))


def test_an_option_the_strategy_does_not_take_is_refused() -> None:
    with pytest.raises(
        ValueError,
        match=r"strategy 'full' does not take compress=False, an option of nexus_sum; "
        r"it takes no options",
    ):
        summary_solver("full", compress=False)
    with pytest.raises(ValueError, match=r"'nexus_sum' does not take shuffle=1; it takes "):
        summary_solver("nexus_sum", shuffle=1)
    # a shared setting is not an option: it goes in SummarySettings
    with pytest.raises(ValueError, match=r"'hierarchical' does not take temperature=0\.1"):
        summary_solver("hierarchical", temperature=0.1)


def test_options_pass_through_and_default_otherwise() -> None:
    assert dict(strategy_options("nexus_sum")) == {"preprocess": True, "compress": True}
    assert dict(strategy_options("full")) == {}
    built = params(summary_solver("nexus_sum", SummarySettings(), compress=False))
    assert (built["preprocess"], built["compress"]) == (True, False)


def test_settings_are_frozen() -> None:
    settings = SummarySettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.chunk_size = 1  # type: ignore[misc]
    assert dataclasses.replace(settings, chunk_size=1).chunk_size == 1


@pytest.mark.parametrize(
    ("name", "given", "expected"),
    [
        ("full", None, False),
        ("hierarchical", None, False),
        ("incremental", None, True),
        ("incremental", False, False),
        ("hierarchical", True, True),
    ],
)
def test_each_strategy_has_its_own_artifact_default(
    run_eval: Run, name: str, given: bool | None, expected: bool
) -> None:
    sample, _ = run_strategy(run_eval, name, SummarySettings(remove_artifacts=given))
    assert ("artifact_calls" in sample.metadata["summary_stats"]) is expected


def test_a_length_in_words_reaches_every_strategy(run_eval: Run) -> None:
    settings = SummarySettings(target_words=65, max_summary_tokens=5)
    for name in ("full", "hierarchical"):
        _, model = run_strategy(run_eval, name, settings)
        assert model.calls[0].config.max_tokens == 100  # 65 / 0.65
        assert words_asked(model.calls[0].prompt) == 65
    sample, _ = run_strategy(run_eval, "nexus_sum", settings)
    assert sample.metadata["nexus_sum"]["target_words"] == 65
    # without words, nexus_sum is asked for the words the token limit allows
    sample, _ = run_strategy(run_eval, "nexus_sum")
    assert sample.metadata["nexus_sum"]["target_words"] == round(900 * 0.65)


def test_an_unset_temperature_is_each_strategys_own(run_eval: Run) -> None:
    _, model = run_strategy(run_eval, "full")
    assert model.calls[0].config.temperature == defaults.DEFAULT_TEMPERATURE
    _, model = run_strategy(run_eval, "nexus_sum")
    assert model.calls[0].config.temperature == defaults.NEXUS_TEMPERATURE
    chosen = SummarySettings(temperature=0.9)
    for name in SUMMARY_STRATEGIES:
        _, model = run_strategy(run_eval, name, chosen)
        assert model.calls[0].config.temperature == 0.9, name


DEFAULTS = {
    "chunk_size": defaults.DEFAULT_CHUNK_SIZE,
    "context_window": defaults.DEFAULT_CONTEXT_WINDOW,
    "max_summary_tokens": defaults.DEFAULT_MAX_SUMMARY_TOKENS,
    "temperature": defaults.DEFAULT_TEMPERATURE,
}


@pytest.mark.parametrize("factory", [booookscore_module.booookscore])
def test_booookscore_defaults_to_the_settings(factory: Callable[..., Any]) -> None:
    signature = inspect.signature(factory).parameters
    assert {name: signature[name].default for name in DEFAULTS if name in signature} == {
        name: value for name, value in DEFAULTS.items() if name in signature
    }
    settings = SummarySettings()
    assert [settings.chunk_size, settings.context_window, settings.max_summary_tokens] == list(
        DEFAULTS.values()
    )[:3]


@pytest.mark.parametrize("task", [booksum, squality])
def test_narrative_tasks_default_to_the_settings(task: Callable[..., Any]) -> None:
    signature = inspect.signature(task).parameters
    assert signature["chunk_size"].default == SummarySettings().chunk_size
    assert signature["context_window"].default == SummarySettings().context_window
    assert signature["temperature"].default is None  # each strategy's own


def documented_strategies(task: Callable[..., Any]) -> set[str]:
    """The backticked names in the `strategy:` entry of a task's Args."""
    doc = inspect.getdoc(task) or ""
    entry = re.search(r"^\s*strategy: (.+?)(?=^\s*\w+: )", doc, re.MULTILINE | re.DOTALL)
    assert entry, f"{task.__name__} documents no strategy"
    return set(re.findall(r"`(\w+)`", entry.group(1)))


@pytest.mark.parametrize(
    "card", [c for c in TASK_CARDS.values() if c.strategy_family], ids=lambda c: c.name
)
def test_a_task_names_only_registered_strategies_and_points_at_the_registry(
    card: TaskCard,
) -> None:
    # no closed list to keep: the entry sends readers to the registry, and every name it
    # gives as an example is one the registry has
    module = sys.modules[card.factory.__module__]
    doc = (inspect.getdoc(card.factory) or "") + (inspect.getdoc(module) or "")
    family = card.strategy_family
    assert f'strategy_names("{family}")' in doc or f'``("{family}")``' in doc
    named = documented_strategies(card.factory) - set(TASK_CARDS)  # `as for quality`
    assert named <= set(card.strategies or ())


def test_booookscore_offers_every_registered_summary_strategy() -> None:
    assert booookscore_module.CARD.strategies == strategy_names("summary")
    for name in strategy_names("summary"):
        check_task_args("booookscore", {"strategy": name}, Path("."))
    every = ", ".join(sorted(strategy_names("summary")))
    with pytest.raises(ValueError, match=f"use one of {re.escape(every)}$"):
        booookscore_module.booookscore(strategy="hier")


@pytest.mark.parametrize("name", SUMMARY_STRATEGIES)
def test_squality_offers_every_registered_name(name: str) -> None:
    task = squality(data=str(bundled_squality_fixture()), strategy=name)
    [step] = getattr(task.solver, "steps", [task.solver])
    assert solver_name(step) == strategy_entry("summary", name).factory.__name__
    assert params(step)["settings"]["question_key"] == "question"
